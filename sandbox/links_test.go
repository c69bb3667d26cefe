package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kernelTarget resolves a link the way the host does (what an operator's tool following it
// would reach), as an absolute path, or "" when it does not resolve.
func kernelTarget(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// TestSymlinksResolvedAsTheKernelDoes (T-FS-3): the red team's chains, and variants, never
// leave a link that the host resolves outside its root; a rename never moves one out either.
func TestSymlinksResolvedAsTheKernelDoes(t *testing.T) {
	needSandboxLinks(t)
	type step struct {
		op     string // "ln" target link | "mv" old new | "mkdir" dir
		a, b   string
		wantOK bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"issue16-chain", []step{
			{"mkdir", "a/b/c/d/e", "", true},
			{"ln", "../../../../..", "a/b/c/d/e/u", true},
			{"ln", "a/b/c/d/e/u/../../../../outside/secret", "x", false},
			{"ln", "a/b/c/d/e/u/../../../../../../../../../../etc/passwd", "y", false},
		}},
		{"issue16-chain-reversed-order", []step{
			// The escaping link first, while u is still an ordinary directory.
			{"mkdir", "a/b/c/d/e/u", "", true},
			{"ln", "a/b/c/d/e/u/../../../../../outside/secret", "x", false},
			{"ln", "u2/../../outside/secret", "y", false},
		}},
		{"issue21-up-then-dotdot", []step{
			{"mkdir", "a", "", true},
			{"ln", "..", "a/up", true},
			{"ln", "a/up/../..", "esc", false},
			{"ln", "a/up/..", "esc2", false},
		}},
		{"up-one-too-many", []step{
			{"mkdir", "a", "", true},
			{"ln", "../..", "a/l", false},
			{"ln", "../file.txt", "a/ok", true},
		}},
		{"through-a-link-to-root", []step{
			{"ln", ".", "self", true},
			{"ln", "self/../outside", "x", false},
			{"ln", "self/self/file.txt", "ok", true},
		}},
		{"link-dir-is-physical", []step{
			// The link's directory is reached through s -> a/b: ".." climbs from a/b, not from s.
			{"mkdir", "a/b", "", true},
			{"ln", "a/b", "s", true},
			{"ln", "../../file.txt", "s/ok", true},
			{"ln", "../../../outside/secret", "s/x", false},
		}},
		{"absolute-with-dotdot", []step{
			{"mkdir", "a", "", true},
			{"ln", ".", "a/u", true},
			{"ln", "{{RW}}/a/u/../../outside/secret", "x", false},
			{"ln", "{{RW}}/a/../file.txt", "y", false},
			{"ln", "{{RW}}/file.txt", "z", true},
		}},
		{"rename-link-shallower", []step{
			{"mkdir", "a/b", "", true},
			{"ln", "../../file.txt", "a/b/l", true},
			{"mv", "a/b/l", "l", false},
			{"mv", "a/b/l", "a/b/l2", true},
		}},
		{"rename-dir-with-links-shallower", []step{
			{"mkdir", "a/b/c", "", true},
			{"ln", "../../../file.txt", "a/b/c/l", true},
			{"ln", "inner", "a/b/c/m", true},
			{"mv", "a/b", "top", false},
			{"mkdir", "x/y/z", "", true},
			{"mv", "a/b", "x/y/z/b", true},
		}},
		{"rename-into-linked-dir", []step{
			{"mkdir", "deep/er", "", true},
			{"ln", ".", "flat", true},
			{"mkdir", "m", "", true},
			{"ln", "../file.txt", "m/l", true},
			{"mv", "m/l", "flat/l", false},
		}},
		{"loop-is-not-an-escape", []step{
			{"ln", "l2", "l1", true},
			{"ln", "l1", "l2", true},
			{"ln", "l1/x", "l3", false},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLayout(t)
			for i, s := range tc.steps {
				a := strings.ReplaceAll(s.a, "{{RW}}", l.rw)
				var err error
				switch s.op {
				case "mkdir":
					err = l.fs.MkdirAll(filepath.Join(l.rw, a), 0o755)
				case "ln":
					err = l.fs.Symlink(a, filepath.Join(l.rw, s.b))
				case "mv":
					err = l.fs.Rename(filepath.Join(l.rw, a), filepath.Join(l.rw, s.b))
				}
				if (err == nil) != s.wantOK {
					t.Fatalf("step %d %s %s %s: err = %v, want ok=%v", i, s.op, s.a, s.b, err, s.wantOK)
				}
				if err != nil && !errors.Is(err, fs.ErrPermission) {
					t.Errorf("step %d: refusal %v does not match fs.ErrPermission", i, err)
				}
				if err != nil && Reason(err) == "" {
					t.Errorf("step %d: refusal %v carries no reason", i, err)
				}
			}
			// Whatever was made: every link in the root resolves, on the host, inside it.
			filepath.WalkDir(l.rw, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.Type()&fs.ModeSymlink == 0 {
					return nil
				}
				switch filepath.Base(p) {
				case "abs-link", "rel-link", "dir-link": // planted by the host, not by the sandbox
					return nil
				}
				if r := kernelTarget(t, p); r != "" && r != l.rw && !strings.HasPrefix(r, l.rw+"/") {
					t.Errorf("link %s resolves on the host to %s, outside its root", p, r)
				}
				return nil
			})
			if b, _ := os.ReadFile(l.secret); string(b) != "SECRET" {
				t.Error("the secret changed")
			}
		})
	}
}

// An absolute target inside the root is stored relative to the link's physical directory.
func TestAbsoluteTargetStoredRelative(t *testing.T) {
	needSandboxLinks(t)
	l := newLayout(t)
	if err := l.fs.MkdirAll(filepath.Join(l.rw, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := l.fs.Symlink(filepath.Join(l.rw, "file.txt"), filepath.Join(l.rw, "a", "b", "l")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.Readlink(filepath.Join(l.rw, "a", "b", "l")); got != "../../file.txt" {
		t.Errorf("stored target %q", got)
	}
	if b, err := l.fs.ReadFile(filepath.Join(l.rw, "a", "b", "l")); err != nil || string(b) != "hello" {
		t.Errorf("read through it: %q %v", b, err)
	}
}
