package security

import (
	"os"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

// TestMain removes the binaries and guests the tests built once they end.
func TestMain(m *testing.M) { os.Exit(harness.Main(m, wasmtest.Cleanup)) }
