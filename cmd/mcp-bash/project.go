package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/host"
	"github.com/mcp-bash/mcp-bash/host/registry"
)

// cliProject finds the project for a CLI verb: --project-root, MCPBASH_PROJECT_ROOT, or the
// nearest parent with server.d/server.meta.json. Unlike the server, verbs never fall back to
// the getting-started project.
func cliProject(projectRoot string, getenv func(string) string) (registry.Dirs, error) {
	root := projectRoot
	if root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return registry.Dirs{}, err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return registry.Dirs{}, &exitError{code: 1, msg: "Error: project root " + root + " is not a directory"}
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		root = abs
	} else {
		cwd, err := os.Getwd()
		if err != nil {
			return registry.Dirs{}, err
		}
		r, found, err := registry.FindRoot(cwd, getenv)
		if err != nil {
			return registry.Dirs{}, &exitError{code: 1, msg: "Error: " + err.Error()}
		}
		if !found {
			return registry.Dirs{}, &exitError{code: 1, msg: "Error: No MCP project found. Run `mcp-bash new <name>` or pass --project-root."}
		}
		root = r
	}
	return registry.ResolveDirs(root, getenv), nil
}

// cliServer builds the server a verb runs tools and lists through (the same code path as
// serving), with diagnostics on stderr.
func cliServer(ctx context.Context, projectRoot string, getenv func(string) string) (*host.Server, registry.Dirs, error) {
	dirs, err := cliProject(projectRoot, getenv)
	if err != nil {
		return nil, dirs, err
	}
	meta, err := registry.LoadServerMeta(dirs)
	if err != nil {
		return nil, dirs, &exitError{code: 2, msg: "Error: " + err.Error()}
	}
	cfg := host.Config{Version: version, Dirs: dirs, Meta: meta, Stderr: os.Stderr}
	cfg.ConfigFromEnv(getenv)
	cfg.Environ = os.Environ
	srv, err := host.NewServer(ctx, cfg)
	if err != nil {
		return nil, dirs, &exitError{code: 2, msg: fmt.Sprintf("Error: %v", err)}
	}
	return srv, dirs, nil
}
