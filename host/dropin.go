package host

// The original framework's project scripts the CLI runs: server.d/health-checks.sh (health)
// and the environment files run-tool sources (--with-server-env, --source).

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcp-bash/mcp-bash/host/internal/hooks"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
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

// DefaultNote is one default `validate --explain-defaults` explains: the file it applies to,
// the field left out and the value served instead.
type DefaultNote struct {
	File  string `json:"file"`
	Field string `json:"field"`
	Value string `json:"value"`
}

// ExplainDefaults lists the defaults the server fills in for what the project leaves out: the
// server's name, title and version, and each tool's input schema, timeout and engine.
func (srv *Server) ExplainDefaults(ctx context.Context) []DefaultNote {
	var out []DefaultNote
	d := srv.cfg.Dirs
	metaFile := filepath.Join(d.Server, "server.meta.json")
	var raw map[string]json.RawMessage
	if b, err := os.ReadFile(metaFile); err == nil {
		_ = json.Unmarshal(b, &raw)
	}
	m := srv.cfg.Meta
	for _, f := range []struct{ field, value, why string }{
		{"name", m.Name, "the project directory's name"},
		{"title", m.Title, "the name, capitalised"},
		{"version", m.Version, "VERSION, else package.json, else 0.0.0"},
	} {
		if _, ok := raw[f.field]; !ok {
			out = append(out, DefaultNote{File: metaFile, Field: f.field, Value: strconv.Quote(f.value) + " (" + f.why + ")"})
		}
	}
	timeout := strconv.Itoa(int(srv.cfg.Settings.DefaultToolTimeout.Seconds())) + " s (MCPBASH_DEFAULT_TOOL_TIMEOUT)"
	for cursor := ""; ; {
		page, err := srv.reg.List(ctx, registry.KindTools, cursor, registry.MaxPageSize)
		if err != nil {
			break
		}
		for _, it := range page.Items {
			var item struct{ Name string }
			_ = json.Unmarshal(it, &item)
			t, err := srv.reg.Tool(ctx, item.Name)
			if err != nil {
				continue
			}
			file := t.Abs
			_, hasInput := t.Meta["inputSchema"]
			_, hasArgs := t.Meta["arguments"]
			if !hasInput && !hasArgs {
				out = append(out, DefaultNote{File: file, Field: "inputSchema", Value: `{"type":"object"} (any arguments)`})
			}
			if t.TimeoutSecs == 0 {
				out = append(out, DefaultNote{File: file, Field: "timeoutSecs", Value: timeout})
			}
			if _, ok := t.Meta["exec"]; !ok && t.Kind == registry.ToolScript {
				v := `"sandbox" (the in-process Bash sandbox)`
				if srv.cfg.Settings.Exec == "native" {
					v = `"native" (MCPBASH_EXEC=native or --exec=native runs every script tool in real bash)`
				}
				out = append(out, DefaultNote{File: file, Field: "exec", Value: v})
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	return out
}
