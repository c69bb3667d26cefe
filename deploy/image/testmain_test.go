package main

import (
	"os"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestMain removes the binary the tests built once they end.
func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }
