// Package bootstrap holds the built-in getting-started project that the server stages and
// serves when no mcp-bash project is found, so a client always gets a useful answer.
package bootstrap

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed all:project
var project embed.FS

// Stage writes the getting-started project into a new temporary directory under base (the
// system temp dir when empty) and returns its path and a cleanup function that removes it.
func Stage(base string) (root string, cleanup func(), err error) {
	dir, err := os.MkdirTemp(base, "mcp-bash-bootstrap-")
	if err != nil {
		return "", nil, fmt.Errorf("bootstrap: %w", err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	sub, _ := fs.Sub(project, "project")
	err = fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if filepath.Ext(p) == ".sh" {
			mode = 0o755
		}
		return os.WriteFile(dst, data, mode)
	})
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("bootstrap: stage: %w", err)
	}
	// Resolve symlinks (macOS /var → /private/var) so the root is physical, as everywhere else.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return dir, cleanup, nil
}
