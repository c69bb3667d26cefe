package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestQuickstartScript runs test/quickstart.sh, the README's 60-second quick start (new, config
// --client claude-desktop, run-tool hello --sandbox), against the binary under test.
func TestQuickstartScript(t *testing.T) {
	t.Parallel()
	script := filepath.Join(harness.RepoRoot(), "test", "quickstart.sh")
	out, errOut, code := runCmd(t, t.TempDir(), []string{"TMPDIR=" + t.TempDir()}, "bash", script, harness.Binary(t))
	if code != 0 || !strings.Contains(errOut, "quickstart: ok") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, `"command": "/`) {
		t.Errorf("config does not name an absolute binary path:\n%s", out)
	}
}
