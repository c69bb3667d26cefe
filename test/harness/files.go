package harness

import (
	"os"
	"path/filepath"
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
