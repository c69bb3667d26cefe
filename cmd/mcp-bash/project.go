package main

import (
	"context"
	"errors"
	"os"

	"github.com/mcp-bash/mcp-bash/host"
)

// options are the host options every verb starts from: the project flag and the environment.
func options(projectRoot string, getenv func(string) string) host.Options {
	return host.Options{ProjectRoot: projectRoot, Getenv: getenv, Environ: os.Environ, Version: currentBuild().Version, Stderr: os.Stderr}
}

// cliProject finds the project for a CLI verb: --project-root, MCPBASH_PROJECT_ROOT, or the
// nearest parent with server.d/server.meta.json. Unlike the server, verbs never fall back to
// the getting-started project.
func cliProject(projectRoot string, getenv func(string) string) (host.Project, error) {
	p, err := host.FindProject(options(projectRoot, getenv))
	var pe *host.ProjectError
	var ce *host.ConfigError
	switch {
	case errors.As(err, &pe):
		return p, &exitError{code: 1, msg: "Error: " + pe.Msg}
	case errors.As(err, &ce):
		return p, &exitError{code: 2, msg: "Error: " + ce.Error()}
	}
	return p, err
}

// cliServer builds the server a verb runs tools and lists through (the same code path as
// serving), with diagnostics on stderr.
func cliServer(ctx context.Context, projectRoot string, getenv func(string) string) (*host.Server, host.Project, error) {
	srv, err := host.Open(ctx, options(projectRoot, getenv))
	var pe *host.ProjectError
	switch {
	case errors.As(err, &pe):
		return nil, host.Project{}, &exitError{code: 1, msg: "Error: " + pe.Msg}
	case err != nil:
		return nil, host.Project{}, &exitError{code: 2, msg: "Error: " + err.Error()}
	}
	return srv, srv.Project(), nil
}
