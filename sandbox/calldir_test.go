package sandbox

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCallDirPaths: a call directory's path and its subdirectories' are the clean joins of
// their parts, whatever shape the base has.
func TestCallDirPaths(t *testing.T) {
	for _, base := range []string{"/tmp", "/dev/shm", "/", "/tmp/", "/tmp//x", "/tmp/./x", "/tmp/../x", "/a/..b/.c", "/x/.", "/x/..", "//x", "/a/b..", "rel", "rel/./x", ""} {
		if base == "//x" && runtime.GOOS == "windows" {
			continue // a UNC volume there: Base of its join is the volume's root
		}
		d := NewCallDir(base, "mcpbash-call-", "work", "work/tmp")
		name := filepath.Base(d.Path)
		if !strings.HasPrefix(name, "mcpbash-call-") || len(name) != len("mcpbash-call-")+16 {
			t.Fatalf("%q: name %q", base, name)
		}
		if want := filepath.Join(base, name); d.Path != want {
			t.Errorf("base %q: path %q, want %q", base, d.Path, want)
		}
		// Subdirectories on the way to the last one are slices of one string (Sub); the
		// others, and near misses of those, are joined.
		for _, sub := range []string{"work/tmp", "work", "wor", "work/t", "work/tmpx", "home", "w", "work/tmp/x"} {
			if got, want := d.Sub(sub), filepath.Join(base, name, sub); got != want {
				t.Errorf("base %q: sub %q is %q, want %q", base, sub, got, want)
			}
		}
		if cleanAbs(base) != (filepath.IsAbs(base) && filepath.Clean(base) == base && base != "/") && base != "" {
			t.Errorf("cleanAbs(%q) = %v", base, cleanAbs(base))
		}
	}
}
