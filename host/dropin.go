package host

// The original framework's project scripts the CLI runs: server.d/health-checks.sh (health)
// and the environment files run-tool sources (--with-server-env, --source).

import (
	"context"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/host/internal/hooks"
)

// hookOptions are the options every project script runs with: in real bash with
// MCPBASH_ALLOW_PROJECT_HOOKS, else in the sandbox engine.
func (srv *Server) hookOptions(script string) hooks.Options {
	d := srv.cfg.Dirs
	return hooks.Options{Root: d.Root, Script: script, Allowed: srv.cfg.Settings.Registry.AllowProjectHooks, Sandbox: srv.engine,
		Env: srv.cfg.Getenv, Environ: srv.cfg.Environ, Passthrough: srv.cfg.Settings.Passthrough, Vars: d.Vars(),
		TmpDir: srv.cfg.Settings.TmpRoot, Warn: func(msg string) { srv.logf("warning: %s", msg) }}
}

// healthChecks runs server.d/health-checks.sh as the other project hooks run: in real bash with
// MCPBASH_ALLOW_PROJECT_HOOKS, else in the sandbox.
func (srv *Server) healthChecks(ctx context.Context) ([]hooks.HealthCheck, error) {
	return hooks.RunHealthChecks(ctx, srv.hookOptions(filepath.Join(srv.cfg.Dirs.Server, "health-checks.sh")))
}

// SourceEnv sources files in order, as run-tool --with-server-env and --source do (relative
// paths from the project root), and returns the exported variables they set, each file seeing
// what the ones before it set. The caller adds them to the environment of the run, where the
// tool environment policy decides what reaches the tool, as for variables set before launch.
func (srv *Server) SourceEnv(ctx context.Context, files []string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(srv.cfg.Dirs.Root, f)
		}
		o := srv.hookOptions(f)
		vars := map[string]string{}
		for k, v := range o.Vars {
			vars[k] = v
		}
		for k, v := range out {
			vars[k] = v
		}
		o.Vars = vars
		got, err := hooks.SourceEnv(ctx, o)
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			out[k] = v
		}
	}
	return out, nil
}

// SourcesServerEnv reports MCPBASH_RUN_TOOL_SOURCE_SERVER_ENV: run-tool sources server.d/env.sh
// even without --with-server-env.
func (srv *Server) SourcesServerEnv() bool { return srv.cfg.Settings.RunToolSourceServerEnv }
