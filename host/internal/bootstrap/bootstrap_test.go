package bootstrap

import (
	"os"
	"path/filepath"
	"testing"
)

func TestStageWritesRunnableProject(t *testing.T) {
	root, cleanup, err := Stage(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"server.d/server.meta.json", "tools/getting_started/tool.meta.json"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("missing %s: %v", p, err)
		}
	}
	fi, err := os.Stat(filepath.Join(root, "tools/getting_started/tool.sh"))
	if err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("tool.sh not executable: %v %v", fi, err)
	}
	cleanup()
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s: %v", root, err)
	}
}
