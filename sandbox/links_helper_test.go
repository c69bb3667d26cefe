package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// needPlantedLinks skips a test that plants symbolic links on the host where the host cannot
// make them (Windows without the privilege, Wine): the link rules are then untestable here.
func needPlantedLinks(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink("x", filepath.Join(dir, "probe")); err != nil {
		t.Skipf("this host cannot plant symbolic links (%v)", err)
	}
	if _, err := os.Readlink(filepath.Join(dir, "probe")); err != nil {
		t.Skipf("this host's symbolic links cannot be read back (%v)", err)
	}
}

// needSandboxLinks skips a test of links the sandbox makes (ln -s) where it makes none: on
// Windows (TestNoLinksOnWindows holds that refusal).
func needSandboxLinks(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the sandbox makes no symbolic links on Windows")
	}
	needPlantedLinks(t)
}

// underWine reports whether this Windows test binary runs under Wine (wineWindows).
func underWine() bool { return wineWindows() }
