package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// RealTempDir is t.TempDir() with its symlinks resolved (macOS's /var is /private/var), so
// that paths the server reports compare equal to the test's.
func RealTempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir
}

// WriteFiles writes files (by slash path) under dir, creating directories; .sh files are
// executable.
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(rel)), []byte(body))
	}
}

// writeFile writes one file, creating its directory; a .sh file is executable.
func writeFile(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	mode := os.FileMode(0o644)
	if strings.HasSuffix(p, ".sh") {
		mode = 0o755
	}
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
}

// Tree is every entry below dir by slash path, each as "file MODE CONTENT" (quoted), "dir MODE"
// or "link TARGET": what a test compares before and after something that must (not) write.
func Tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = TreeEntry(fi, func() (string, error) { return os.Readlink(p) }, func() ([]byte, error) { return os.ReadFile(p) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TreeEntry describes one entry as Tree does, reading its target or content through the given
// functions (a test may read through another filesystem than the host's).
func TreeEntry(fi os.FileInfo, readlink func() (string, error), read func() ([]byte, error)) string {
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := readlink()
		return "link " + target
	case fi.IsDir():
		return fmt.Sprintf("dir %v", fi.Mode().Perm())
	}
	b, _ := read()
	return fmt.Sprintf("file %v %q", fi.Mode().Perm(), b)
}

// TreeDiff lists how two Trees differ ("" when they are the same).
func TreeDiff(want, got map[string]string) string {
	var out []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			out = append(out, fmt.Sprintf("%s: missing, want %s", k, v))
		} else if g != v {
			out = append(out, fmt.Sprintf("%s: %s, want %s", k, g, v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("%s: %s, not wanted", k, v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
