package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk"
	"github.com/mcp-bash/mcp-bash/wasm"
)

// wasmHost is the server's one wazero runtime, made on first use (a project without wasm tools
// or commands never pays for it).
type wasmHost struct {
	once sync.Once
	rt   *wasm.Runtime
	err  error
}

// wasmRuntime returns the server's runtime, starting it on first use.
func (srv *Server) wasmRuntime() (*wasm.Runtime, error) {
	srv.wasm.once.Do(func() {
		srv.wasm.rt, srv.wasm.err = wasm.New(context.Background(), wasm.Options{CacheDir: srv.wasmCacheDir(), Logf: srv.logf})
	})
	return srv.wasm.rt, srv.wasm.err
}

// closeWasm releases the runtime (compiled code, instances) if one was started; a later wasm
// call would fail, so it runs only as the server ends.
func (srv *Server) closeWasm() {
	srv.wasm.once.Do(func() { srv.wasm.err = errors.New("wasm: the server is closing") })
	if srv.wasm.rt != nil {
		srv.wasm.rt.Close(context.Background())
	}
}

// wasmCacheDir is MCPBASH_WASM_CACHE_DIR ("off" for none), else
// $XDG_CACHE_HOME/mcp-bash/wazero-<version>; "" (memory only) when it would be inside the
// project or a root the server knows of, where a tool could plant compiled code.
func (srv *Server) wasmCacheDir() string {
	dir := srv.cfg.Settings.WasmCacheDir
	switch dir {
	case "off":
		return ""
	case "":
		dir = wasm.DefaultCacheDir(srv.cfg.Getenv)
	}
	if dir == "" {
		return ""
	}
	dir = sandbox.Physical(dir)
	roots := []string{srv.cfg.Dirs.Root}
	for _, r := range srv.fallbackRoots() {
		roots = append(roots, r.Path)
	}
	for _, r := range roots {
		if r != "" && (dir == r || strings.HasPrefix(dir, strings.TrimSuffix(r, "/")+"/")) {
			srv.logf("warning: wasm compilation cache %s is inside root %s; compiled wasm is kept in memory only", dir, r)
			return ""
		}
	}
	return dir
}

// wasmMemoryMiB is the tool's sandbox.memoryMiB (default 256, at most 4096).
func wasmMemoryMiB(t *registry.Tool) int {
	var sb struct {
		MemoryMiB int `json:"memoryMiB"`
	}
	if t != nil {
		_ = json.Unmarshal(t.Meta["sandbox"], &sb)
	}
	switch {
	case sb.MemoryMiB <= 0:
		return wasm.DefaultMemoryMiB
	case sb.MemoryMiB > 4096:
		return 4096
	}
	return sb.MemoryMiB
}

// wasmCommands makes `*.wasm` in the tool's directory and the project's bin/ commands of a
// sandboxed script.
func (srv *Server) wasmCommands(ctx context.Context, call *sdk.Call, t *registry.Tool) sdk.Commands {
	return &wasm.Commands{Runtime: srv.wasmRuntime, Dirs: []string{call.ToolDir, filepath.Join(srv.cfg.Dirs.Root, "bin")}, Call: call,
		MemoryMiB: wasmMemoryMiB(t), Cancelled: func() bool { return ctx.Err() != nil }}
}

// precompileWasm compiles the project's wasm tools and bin/*.wasm commands concurrently after
// the registry is loaded, so first calls find them ready (a progress line goes to stderr for
// slow compiles). Nothing happens for a project without wasm.
func (srv *Server) precompileWasm(ctx context.Context) {
	var paths []string
	cursor := ""
	for {
		page, err := srv.reg.List(ctx, registry.KindTools, cursor, registry.MaxPageSize)
		if err != nil {
			break
		}
		for _, it := range page.Items {
			var item struct {
				Name string `json:"name"`
				Path string `json:"path"`
			}
			if json.Unmarshal(it, &item) != nil || !strings.HasSuffix(item.Path, ".wasm") {
				continue
			}
			if t, err := srv.reg.Tool(ctx, item.Name); err == nil && t.Kind == registry.ToolWasm {
				paths = append(paths, t.Abs)
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	cmds, _ := filepath.Glob(filepath.Join(srv.cfg.Dirs.Root, "bin", "*.wasm"))
	paths = append(paths, cmds...)
	if len(paths) == 0 || ctx.Err() != nil {
		return
	}
	rt, err := srv.wasmRuntime()
	if err != nil {
		srv.logf("warning: %v", err)
		return
	}
	rt.Precompile(ctx, paths, max(1, runtime.GOMAXPROCS(0)/2))
}

// wasmPlan is the static plan of a wasm tool: whether the module compiles, what it imports, and
// whether it has something to run. Findings use the script analysis's shape.
func (srv *Server) wasmPlan(ctx context.Context, t *registry.Tool) (*interp.Plan, error) {
	plan := &interp.Plan{Commands: map[string]string{}}
	add := func(sev, kind, msg, fix string) {
		plan.Findings = append(plan.Findings, interp.Finding{File: t.Abs, Line: 1, Col: 1, Severity: sev, Kind: kind, Message: msg, Suggestion: fix})
	}
	rt, err := srv.wasmRuntime()
	if err != nil {
		return nil, err
	}
	in, err := rt.Inspect(ctx, t.Abs)
	if err != nil {
		add("error", "wasm", err.Error(), "build it for WASI preview 1 (GOOS=wasip1 GOARCH=wasm, docs/WASM.md)")
		return plan, nil
	}
	var wasi int
	var other []string
	for _, imp := range in.Imports {
		if strings.HasPrefix(imp, "wasi_snapshot_preview1.") {
			wasi++
		} else {
			other = append(other, imp)
		}
	}
	add("info", "wasm", fmt.Sprintf("WebAssembly tool under wazero: memory limit %d MiB, the roots as its only filesystem; imports %d WASI functions%s",
		wasmMemoryMiB(t), wasi, strings.TrimSuffix(" and "+strings.Join(other, ", "), " and ")), "")
	for _, u := range in.Unresolved {
		add("error", "wasm", "import "+u+" is provided by neither WASI preview 1 nor the mcp host module", "see docs/WASM.md for the host functions")
	}
	if !in.HasStart {
		add("error", "wasm", "the module exports no _start (not a WASI command)", "build a main package (a command), not a library")
	}
	return plan, nil
}
