package host

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// TestToolPolicyRootsRemembered (T-FS-5): the sandbox roots a call gets keep the project's
// protected directories read-only inside a writable root, whether they were just built or
// remembered from the previous call, and a change of roots is never answered from the memo.
func TestToolPolicyRootsRemembered(t *testing.T) {
	srv := testServer(t)
	root := srv.cfg.Dirs.Root
	other := t.TempDir()
	protectedIn := func(rs []sandbox.Root, dir string) bool {
		return slices.ContainsFunc(rs, func(r sandbox.Root) bool {
			return r.Path == dir && r.Mode == sandbox.ReadOnly && r.Protected
		})
	}
	tools := filepath.Join(root, "tools")
	for _, tc := range []struct {
		name      string
		roots     []engine.Root
		protected bool // tools/ is a protected read-only root
		n         int
	}{
		{"writable project root", []engine.Root{{Path: root}}, true, 1 + len(srv.protected)},
		{"the same again (remembered)", []engine.Root{{Path: root}}, true, 1 + len(srv.protected)},
		{"read-only project root", []engine.Root{{Path: root, ReadOnly: true}}, false, 1},
		{"writable again", []engine.Root{{Path: root}}, true, 1 + len(srv.protected)},
		{"another directory", []engine.Root{{Path: other}}, false, 1},
		{"both", []engine.Root{{Path: other}, {Path: root}}, true, 2 + len(srv.protected)},
		{"none", nil, false, 0},
	} {
		p := srv.toolPolicy(nil, "", tc.roots, 0)
		if got := protectedIn(p.Roots, tools); got != tc.protected || len(p.Roots) != tc.n {
			t.Errorf("%s: %d roots, tools/ protected %v; want %d, %v (%v)", tc.name, len(p.Roots), got, tc.n, tc.protected, p.Roots)
		}
		for i, r := range tc.roots {
			want := sandbox.ReadWrite
			if r.ReadOnly {
				want = sandbox.ReadOnly
			}
			if p.Roots[i].Path != r.Path || p.Roots[i].Mode != want {
				t.Errorf("%s: root %d is %v, want %s mode %v", tc.name, i, p.Roots[i], r.Path, want)
			}
		}
		// Shared between calls: an append must not write into the memo's array.
		if cap(p.Roots) != len(p.Roots) {
			t.Errorf("%s: the roots are not clipped (len %d, cap %d)", tc.name, len(p.Roots), cap(p.Roots))
		}
	}
	in := []engine.Root{{Path: root}}
	srv.toolPolicy(nil, "", in, 0)
	if n := testing.AllocsPerRun(100, func() { srv.sandboxRoots(in) }); n != 0 {
		t.Errorf("remembered roots allocate %v times", n)
	}
}
