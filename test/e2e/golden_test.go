// Package e2e holds end-to-end tests that start the real mcp-bash binary and speak NDJSON to it;
// every server line is validated against the official MCP schema by the harness.
package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestGolden replays every transcript under testdata/.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts found")
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "testdata/"), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			harness.RunGolden(t, f)
		})
	}
}
