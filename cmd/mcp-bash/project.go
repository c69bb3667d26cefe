package main

import (
	"context"
	"errors"
	"os"
	"strings"

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
	return cliServerEnv(ctx, projectRoot, getenv, nil)
}

// cliServerEnv is cliServer with vars (when any) added to the operator's environment (what run-tool
// --source files set), in both the settings and the environment tools inherit from.
func cliServerEnv(ctx context.Context, projectRoot string, getenv func(string) string, vars map[string]string) (*host.Server, host.Project, error) {
	o := options(projectRoot, func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return getenv(k)
	})
	if len(vars) > 0 {
		o.Environ = func() []string {
			var env []string
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); !hasKey(vars, k) {
					env = append(env, kv)
				}
			}
			for k, v := range vars {
				env = append(env, k+"="+v)
			}
			return env
		}
	}
	return openServer(ctx, o)
}

// openServer opens the project of o for a verb, turning its errors into exit statuses.
func openServer(ctx context.Context, o host.Options) (*host.Server, host.Project, error) {
	srv, err := host.Open(ctx, o)
	var pe *host.ProjectError
	switch {
	case errors.As(err, &pe):
		return nil, host.Project{}, &exitError{code: 1, msg: "Error: " + pe.Msg}
	case err != nil:
		return nil, host.Project{}, &exitError{code: 2, msg: "Error: " + err.Error()}
	}
	return srv, srv.Project(), nil
}

// fileExists reports whether p names an existing file (a symlink counts).
func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }
