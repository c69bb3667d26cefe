package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/host"
	"github.com/mcp-bash/mcp-bash/host/bootstrap"
	"github.com/mcp-bash/mcp-bash/host/payloadlog"
	"github.com/mcp-bash/mcp-bash/host/registry"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

type serveOptions struct {
	projectRoot string
	getenv      func(string) string
	// payloadLog, when set, records every protocol line (secrets redacted): `mcp-bash debug`.
	payloadLog string
}

// project locates the project to serve; bootstrap is true when none was found and the built-in
// getting-started project was staged (cleanup removes it).
func project(o serveOptions) (root string, bootstrapped bool, cleanup func(), err error) {
	cleanup = func() {}
	if o.projectRoot != "" {
		abs, err := filepath.Abs(o.projectRoot)
		if err != nil {
			return "", false, cleanup, err
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return "", false, cleanup, fmt.Errorf("project root %s is not a directory", o.projectRoot)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		return abs, false, cleanup, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", false, cleanup, err
	}
	root, found, err := registry.FindRoot(cwd, o.getenv)
	if err != nil || found {
		return root, false, cleanup, err
	}
	root, cleanup, err = bootstrap.Stage(sandbox.ScratchBase(o.getenv("MCPBASH_TMP_ROOT")))
	return root, true, cleanup, err
}

func serve(ctx context.Context, o serveOptions) error {
	root, boot, cleanup, err := project(o)
	defer cleanup()
	if err != nil {
		return &exitError{code: 1, msg: "mcp-bash: " + err.Error()}
	}
	dirs := registry.ResolveDirs(root, o.getenv)
	meta, err := registry.LoadServerMeta(dirs)
	if err != nil {
		return &exitError{code: 1, msg: "mcp-bash: " + err.Error()}
	}
	cfg := host.Config{Version: version, Dirs: dirs, Meta: meta, Bootstrap: boot, Stderr: os.Stderr}
	cfg.ConfigFromEnv(o.getenv)
	cfg.Environ = os.Environ
	if o.getenv("MCPBASH_LOG_LEVEL") == "" {
		if _, err := os.Stat(filepath.Join(dirs.Server, ".debug")); err == nil {
			cfg.LogLevel = host.LevelDebug
		}
	}
	srv, err := host.NewServer(ctx, cfg)
	if err != nil {
		return &exitError{code: 1, msg: "mcp-bash: " + err.Error()}
	}
	defer srv.Close()
	var in io.Reader = os.Stdin
	var out io.Writer = os.Stdout
	if o.payloadLog != "" {
		pl, err := payloadlog.Open(o.payloadLog, []string{o.getenv("MCPBASH_REMOTE_TOKEN")})
		if err != nil {
			return &exitError{code: 1, msg: "mcp-bash: " + err.Error()}
		}
		defer pl.Close()
		fmt.Fprintln(os.Stderr, "mcp-bash: payload log: "+o.payloadLog)
		in, out = pl.Wrap(in, out)
	}
	if err := srv.Serve(ctx, in, out); err != nil && ctx.Err() == nil {
		return &exitError{code: 1, msg: "mcp-bash: " + err.Error()}
	}
	return nil
}
