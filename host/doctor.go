package host

import (
	"path/filepath"

	"context"
	"errors"
	"fmt"
	"github.com/mcp-bash/mcp-bash/host/internal/auth"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
	"os"
	"runtime"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/wasm"
)

// WasmCacheDir is where compiled WebAssembly is cached across processes (MCPBASH_WASM_CACHE_DIR,
// else $XDG_CACHE_HOME/mcp-bash/wazero-<version>); "" when compiled code is kept in memory only.
// `mcp-bash doctor` reports it. The roots are vetted first: one that reaches the cache turns it off.
func (srv *Server) WasmCacheDir() string {
	srv.fallbackRoots()
	dir, _ := srv.wasmCachePaths()
	return dir
}

// Doctor diagnoses the binary, the platform, the configuration and the project of o (`mcp-bash
// doctor`): the report (JSON-ready: version, go, platform, binary, config, scratch, wasmCache,
// roots, landlockABI, landlock, requireConfinement, project) and how many problems it found (0:
// healthy). A malformed setting is a problem; the rest of the report then uses its default.
func Doctor(ctx context.Context, o Options) (report map[string]any, problems int) {
	set, err := config.Load(o.getenv())
	bin, _ := os.Executable()
	report = map[string]any{
		"version": o.Version, "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH,
		"binary": bin, "scratch": sandbox.ScratchBase(set.TmpRoot), "config": "ok",
	}
	if err != nil {
		report["config"] = err.Error()
		problems++
	}
	doctorRuntime(ctx, report, o, set)
	abi, refuse := landlockReport(report, set.RequireConfinement)
	report["landlockABI"] = abi
	nativeReport(report, set, o.getenv())
	if refuse {
		problems++ // MCPBASH_REQUIRE_CONFINEMENT is set and would refuse tools
	}
	if p, err := findProject(o, set); err == nil {
		checks := p.Checks()
		report["project"] = map[string]any{"root": p.Root, "checks": checks}
		var hosting map[string]any
		hosting, problems = doctorHosting(set, p, problems)
		report["hosting"] = hosting
		for _, ok := range checks {
			if !ok {
				problems++
			}
		}
	} else if pe := (*ProjectError)(nil); errors.As(err, &pe) && pe.NotFound {
		report["project"] = nil // none asked for, none found
	} else {
		// A project was named (--project-root, MCPBASH_PROJECT_ROOT) and cannot be served.
		report["project"] = map[string]any{"error": err.Error()}
		problems++
	}
	return report, problems
}

// doctorHosting is the hosting configuration `serve --http` would use (no secrets: paths,
// counts and modes only) and the problems it has (an invalid auth or tenants file).
func doctorHosting(set *config.Config, p Project, problems int) (map[string]any, int) {
	h := map[string]any{"auth": nil, "tenants": nil, "auditLog": "off", "callSlots": set.CallSlots,
		"remoteToken": set.RemoteToken != "", "stateKey": "random per process"}
	if set.AuditLog != "" {
		h["auditLog"] = set.AuditLog
	}
	if set.StateKeyFile != "" {
		h["stateKey"] = set.StateKeyFile
	}
	// Where /metrics is served and how it is protected (the token file's path, never its
	// content).
	metrics := map[string]any{"listener": "the MCP listener", "token": set.MetricsTokenFile != ""}
	if set.MetricsAddr != "" {
		metrics["listener"] = set.MetricsAddr
	}
	h["metrics"] = metrics
	authPath := set.AuthFile
	if authPath == "" {
		if def := filepath.Join(p.dirs.Server, "auth.json"); fileExists(def) {
			authPath = def
		}
	}
	if authPath != "" {
		a := map[string]any{"file": authPath}
		if c, err := auth.LoadConfig(authPath); err != nil {
			a["error"] = err.Error()
			problems++
		} else {
			a["jwt"], a["apiKeys"] = c.JWT != nil, c.APIKeysFile != ""
		}
		h["auth"] = a
	}
	if path := tenantsPath(set, p.dirs); path != "" {
		tn := map[string]any{"file": path, "isolation": "process (required by tenants)"}
		if st, err := tenants.Open(path, tenants.StoreOptions{}); err != nil {
			tn["error"] = err.Error()
			problems++
		} else {
			f := st.File()
			tn["listed"], tn["defaultTemplate"] = len(f.Tenants), f.Default != nil
		}
		if authPath == "" && set.RemoteToken == "" {
			tn["error"] = ErrTenantsWithoutAuth.Error()
			problems++
		}
		h["tenants"] = tn
	}
	return h, problems
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// doctorRuntime adds to the doctor report what a server for the project would use: the wasm
// compilation cache ({"dir", "exists"}; dir is null when compiled code stays in memory) and the
// roots a call gets without a client (MCPBASH_ROOTS, config/roots.json, or the project).
func doctorRuntime(ctx context.Context, report map[string]any, o Options, set *config.Config) {
	var dir string
	roots := []map[string]string{}
	if srv, err := Open(ctx, o); err == nil {
		defer srv.Close()
		dir = srv.WasmCacheDir()
		for _, r := range srv.Roots(nil) {
			roots = append(roots, map[string]string{"path": r.Path, "name": r.Name, "uri": r.URI})
		}
		report["roots"] = roots
	} else {
		// No project: the default location, and no roots.
		switch v := set.WasmCacheDir; v {
		case "off":
		case "":
			dir = wasm.DefaultCacheDir(o.getenv())
		default:
			dir = v
		}
		report["roots"] = nil
	}
	cache := map[string]any{"dir": nil, "exists": false}
	if dir != "" {
		cache["dir"] = dir
		fi, err := os.Stat(dir)
		cache["exists"] = err == nil && fi.IsDir()
	}
	report["wasmCache"] = cache
}

// landlockReport adds the OS confinement this host has (Landlock on Linux, Seatbelt on macOS,
// none on Windows), the Landlock status, and what MCPBASH_REQUIRE_CONFINEMENT=true would do, and
// returns the Landlock ABI (0 when unavailable) and whether the variable is set and refuses tools.
func landlockReport(report map[string]any, set bool) (abi int, refusing bool) {
	s := sandbox.Confinement()
	report["confinement"] = s.String()
	abi, err := sandbox.LandlockStatus()
	switch {
	case err != nil:
		report["landlock"] = "unavailable: " + err.Error()
	case abi < sandbox.LandlockNetABI:
		report["landlock"] = fmt.Sprintf("ABI %d (filesystem only: network rules need ABI %d)", abi, sandbox.LandlockNetABI)
	default:
		report["landlock"] = fmt.Sprintf("ABI %d (filesystem and TCP)", abi)
	}
	var refused string // what MCPBASH_REQUIRE_CONFINEMENT=true refuses on this host
	switch {
	case !s.Files:
		refused = "every external command and native tool (nothing can be confined)"
	case !s.Net:
		refused = "external commands and native tools that must not use the network"
	default:
		refused = "no tools"
	}
	req := "not set; MCPBASH_REQUIRE_CONFINEMENT=true would refuse " + refused
	if set {
		req = "set: refuses " + refused
	}
	report["requireConfinement"] = req
	return abi, set && (!s.Files || !s.Net)
}

// nativeReport adds what native tools and allowlisted commands get on this host: the bash they
// run with, how they are confined (or why not, and whether they run then), and which per-call
// limits hold them.
func nativeReport(report map[string]any, set *config.Config, getenv func(string) string) {
	bash, err := findBash(set.Bash, getenv)
	if err != nil {
		report["bash"] = "not found: " + err.Error()
	} else {
		report["bash"] = bash
	}
	c := &sandbox.Confiner{Required: set.RequireConfinement, Unconfined: set.NativeUnconfined}
	s := sandbox.Confinement()
	switch {
	case s.Files:
		report["native"] = c.Describe()
	case set.RequireConfinement:
		report["native"] = "refused: " + s.Err.Error() + " (MCPBASH_REQUIRE_CONFINEMENT)"
	case s.Absent && !set.NativeUnconfined:
		report["native"] = "refused: " + s.Err.Error() + "; set MCPBASH_NATIVE_UNCONFINED=true to run native tools and allowlisted commands unconfined"
	default:
		report["native"] = c.Describe()
	}
	report["nativeLimits"] = sandbox.LimitsMechanism()
}
