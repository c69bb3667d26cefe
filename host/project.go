package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/host/internal/bootstrap"
	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/payloadlog"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Options say which project to serve and from what environment: Open, Serve, FindProject and
// Doctor take them.
type Options struct {
	// ProjectRoot is the project directory; "" finds it from MCPBASH_PROJECT_ROOT, else the
	// nearest parent of the working directory holding server.d/server.meta.json.
	ProjectRoot string
	// Getenv reads the server's environment (os.Getenv for a real server; nil: empty). Tools
	// never see it: they get the tool contract's variables only.
	Getenv func(string) string
	// Environ lists the environment, for native tools' env modes (nil: empty).
	Environ func() []string
	// Version is the binary's version, reported in serverInfo by the built-in getting-started
	// project (a project reports its own: server.meta.json, VERSION, package.json, else 0.0.0).
	Version string
	// Stderr receives diagnostics (nil: discarded); stdout carries protocol only.
	Stderr io.Writer
}

func (o Options) getenv() func(string) string {
	if o.Getenv == nil {
		return func(string) string { return "" }
	}
	return o.Getenv
}

// Project is a located project: its root directory and the directories the environment may move
// (MCPBASH_TOOLS_DIR, ...).
type Project struct {
	// Root is the project's absolute, symlink-free directory.
	Root string
	dirs registry.Dirs
}

// ServerName is the name in server.d/server.meta.json (or the directory's name).
func (p Project) ServerName() string {
	meta, _ := registry.LoadServerMeta(p.dirs)
	return meta.Name
}

// Checks are the cheap structural checks `validate`, `health` and `doctor` share: whether
// server.d/server.meta.json loads and, when present, server.d/register.json parses.
func (p Project) Checks() map[string]bool {
	checks := map[string]bool{}
	_, err := registry.LoadServerMeta(p.dirs)
	checks["serverMeta"] = err == nil
	if _, err := os.Stat(filepath.Join(p.dirs.Server, "register.json")); err == nil {
		var v map[string]any
		b, _ := os.ReadFile(filepath.Join(p.dirs.Server, "register.json"))
		checks["registerJSON"] = json.Unmarshal(b, &v) == nil
	}
	return checks
}

// settings parses every setting of o's environment, once per Open, Serve or FindProject.
func (o Options) settings() (*config.Config, error) {
	set, err := config.Load(o.getenv())
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	return set, nil
}

// FindProject locates the project for o: o.ProjectRoot, MCPBASH_PROJECT_ROOT, or the nearest
// parent with server.d/server.meta.json. Unlike Serve it never falls back to the built-in
// getting-started project; when none is found the error is a *ProjectError, when a setting is
// malformed a *ConfigError.
func FindProject(o Options) (Project, error) {
	set, err := o.settings()
	if err != nil {
		return Project{}, err
	}
	return findProject(o, set)
}

func findProject(o Options, set *config.Config) (Project, error) {
	root := o.ProjectRoot
	if root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return Project{}, err
		}
		if why := registry.NotADirectory(abs); why != "" {
			return Project{}, &ProjectError{Msg: "project root " + root + " " + why}
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		root = abs
	} else {
		cwd, err := os.Getwd()
		if err != nil {
			return Project{}, err
		}
		r, found, err := registry.FindRoot(cwd, set.ProjectRoot)
		if err != nil {
			return Project{}, &ProjectError{Msg: err.Error()}
		}
		if !found {
			return Project{}, &ProjectError{Msg: "No MCP project found. Run `mcp-bash new <name>` or pass --project-root.", NotFound: true}
		}
		root = r
	}
	return Project{Root: root, dirs: registry.ResolveDirs(root, set.Dirs)}, nil
}

// Open locates the project for o and builds a Server for it, the same one Serve would serve:
// CLI verbs run tools and read lists through it. Close it when done. A project that cannot be
// found is a *ProjectError, a malformed setting a *ConfigError; any other error means the
// project was found but cannot be served (invalid metadata, an invalid server.d/register.json).
func Open(ctx context.Context, o Options) (*Server, error) {
	set, err := o.settings()
	if err != nil {
		return nil, err
	}
	p, err := findProject(o, set)
	if err != nil {
		return nil, err
	}
	return open(ctx, o, set, p, false, false)
}

// open builds the server for a located project; serving a session (not a CLI verb), the file
// server.d/.debug turns on debug logging when MCPBASH_LOG_LEVEL is unset.
func open(ctx context.Context, o Options, set *config.Config, p Project, boot, serving bool, opts ...ServerOption) (*Server, error) {
	meta, err := registry.LoadServerMeta(p.dirs)
	if err != nil {
		return nil, err
	}
	if len(meta.Env) > 0 {
		// The project's declared environment policy, under whatever the operator set.
		getenv := o.getenv()
		if set, err = config.Load(func(k string) string {
			if v := getenv(k); v != "" {
				return v
			}
			return meta.Env[k]
		}); err != nil {
			return nil, &ConfigError{Err: fmt.Errorf("server.d/server.meta.json env: %w", err)}
		}
	}
	cfg := Config{Version: o.Version, Dirs: p.dirs, Meta: meta, Bootstrap: boot, Stderr: o.Stderr, Getenv: o.getenv(), Environ: o.Environ}
	cfg.useSettings(set)
	if serving && set.LogLevel == "" {
		if _, err := os.Stat(filepath.Join(p.dirs.Server, ".debug")); err == nil {
			cfg.LogLevel = LevelDebug
		}
	}
	srv, err := NewServer(ctx, cfg, opts...)
	if err == nil && serving {
		// Metadata served with defaults is logged at every start, cached registry or not.
		for _, f := range toolMetaFindings(p.dirs.Tools) {
			srv.logf("warning: %s:%d:%d: %s (fix: %s)", f.File, f.Line, f.Col, f.Message, f.Suggestion)
		}
	}
	return srv, err
}

// Project is the project the server serves.
func (srv *Server) Project() Project { return Project{Root: srv.cfg.Dirs.Root, dirs: srv.cfg.Dirs} }

// ServeOptions are Serve's: the project and environment, and the protocol stream.
type ServeOptions struct {
	Options
	// Stdin and Stdout carry the protocol (one JSON-RPC message per line).
	Stdin  io.Reader
	Stdout io.Writer
	// PayloadLog, when set, is a file that records every protocol line with secrets redacted
	// (`mcp-bash debug`).
	PayloadLog string
}

// Serve serves the project of o over one stdio session until the input ends, the client exits,
// or ctx ends. With no project found it serves the built-in getting-started project (staged in
// a scratch directory removed on return). A ctx cancelled while serving is not an error.
func Serve(ctx context.Context, o ServeOptions) error {
	set, p, boot, cleanup, err := projectOrBootstrap(o.Options)
	if err != nil {
		return err
	}
	defer cleanup()
	srv, err := open(ctx, o.Options, set, p, boot, true)
	if err != nil {
		return err
	}
	defer srv.Close()
	in, out := o.Stdin, o.Stdout
	if o.PayloadLog != "" {
		pl, err := payloadlog.Open(o.PayloadLog, []string{set.RemoteToken, set.OperatorToken})
		if err != nil {
			return err
		}
		defer pl.Close()
		if o.Stderr != nil {
			fmt.Fprintln(o.Stderr, "mcp-bash: payload log: "+o.PayloadLog)
		}
		in, out = pl.Wrap(in, out)
	}
	if err := srv.Serve(ctx, in, out); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// projectOrBootstrap loads o's settings and locates the project to serve, or stages the
// built-in getting-started project when none is found (cleanup removes it): how Serve and
// ServeHTTP start.
func projectOrBootstrap(o Options) (set *config.Config, p Project, boot bool, cleanup func(), err error) {
	if set, err = o.settings(); err != nil {
		return nil, Project{}, false, func() {}, err
	}
	p, err = findProject(o, set)
	if pe := (*ProjectError)(nil); errors.As(err, &pe) && pe.NotFound {
		root, clean, err := bootstrap.Stage(sandbox.ScratchBase(set.TmpRoot))
		if err != nil {
			return set, Project{}, false, func() {}, err
		}
		return set, Project{Root: root, dirs: registry.ResolveDirs(root, set.Dirs)}, true, clean, nil
	}
	return set, p, false, func() {}, err
}

// ConfigEntry is one setting as `mcp-bash config --show` prints it: its variable, its effective
// value (secrets redacted) and whether the environment sets it.
type ConfigEntry = config.Entry

// ShowConfig is every setting of o's environment with its effective value, in the order of
// docs/CONFIG.md. With malformed settings it returns them too, as a *ConfigError, and shows
// the defaults in their place.
func ShowConfig(o Options) ([]ConfigEntry, error) {
	set, err := config.Load(o.getenv())
	if err != nil {
		err = &ConfigError{Err: err}
	}
	return set.Show(o.getenv()), err
}
