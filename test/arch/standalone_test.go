package arch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestStandsAlone holds the repository to issue 17's rule: a user's clone has nothing beside
// it, so no tracked file may point at the design inputs that lived next to the first checkout.
func TestStandsAlone(t *testing.T) {
	root := harness.RepoRoot()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	// Spelled in two pieces so that this file does not match itself.
	needles := [][]byte{[]byte("../" + "shared/"), []byte("/work/" + "shared")}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			continue // deleted in the working tree, or a directory entry of a submodule
		}
		for _, n := range needles {
			if i := bytes.Index(b, n); i >= 0 {
				line := 1 + bytes.Count(b[:i], []byte("\n"))
				t.Errorf("%s:%d names %q: the repository must carry what it needs", name, line, n)
			}
		}
	}
}
