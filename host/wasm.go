package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/wasm"
)

// wasmHost is the server's one wazero runtime, made on first use (a project without wasm tools
// or commands never pays for it), and the state of its disk cache.
type wasmHost struct {
	once sync.Once
	rt   *wasm.Runtime
	err  error
	// meter is the process's budget for guests' memory (MCPBASH_MAX_HEAP_MB), which the heap
	// guard weighs with the heap.
	meter *sandbox.Meter

	pathsOnce sync.Once
	cacheDir  string // physical, created; "" when there is no disk cache
	cacheKey  string // CacheKeyPath(cacheDir)
	// cacheOff is set for the rest of the process once a root reaches the cache or its key.
	cacheOff atomic.Bool
}

// wasmRuntime returns the server's runtime, starting it on first use.
func (srv *Server) wasmRuntime() (*wasm.Runtime, error) {
	srv.wasm.once.Do(func() {
		dir, _ := srv.wasmCachePaths()
		if srv.wasm.cacheOff.Load() {
			dir = ""
		}
		srv.wasm.rt, srv.wasm.err = wasm.New(context.Background(), wasm.Options{CacheDir: dir, CacheDirPhysical: true,
			StageBase: srv.cfg.Settings.TmpRoot, Meter: srv.wasm.meter, WatchMemory: srv.engine.WatchMemory, Logf: srv.logf})
		if srv.wasm.rt != nil && srv.wasm.cacheOff.Load() {
			srv.wasm.rt.DisableCache() // a root reached it while the runtime started
		}
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

// wasmCachePaths returns the physical compilation cache directory and its key file, or "" when
// the cache is off: MCPBASH_WASM_CACHE_DIR ("off" for none), else
// $XDG_CACHE_HOME/mcp-bash/wazero-<version>. The path is resolved physically (its longest
// existing ancestor with every symlink followed; what does not exist yet cannot be a symlink),
// so a symlink on its way cannot hide that a root holds it. The runtime creates the directory
// (0700) and refuses it unless it then resolves to this same path and belongs to the server's
// user alone (wasm.Options.CacheDir).
func (srv *Server) wasmCachePaths() (dir, key string) {
	srv.wasm.pathsOnce.Do(func() {
		// The setting is "off", "" (the default location) or absolute (config refuses others).
		d := srv.cfg.Settings.WasmCacheDir
		switch d {
		case "off":
			return
		case "":
			if d = wasm.DefaultCacheDir(srv.cfg.Getenv); d == "" {
				return
			}
		}
		phys := physicalPath(filepath.Clean(d))
		srv.wasm.cacheDir, srv.wasm.cacheKey = phys, wasm.CacheKeyPath(phys)
	})
	if srv.wasm.cacheOff.Load() {
		return "", ""
	}
	return srv.wasm.cacheDir, srv.wasm.cacheKey
}

// physicalPath resolves every symlink of p's longest existing ancestor and keeps the rest.
func physicalPath(p string) string {
	for q := p; ; q = filepath.Dir(q) {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			rest, _ := filepath.Rel(q, p)
			return filepath.Join(r, rest)
		}
		if q == filepath.Dir(q) {
			return p
		}
	}
}

// disableWasmCache turns the disk cache off for the rest of the process because a root reaches
// it. When the root reaches the key, a tool may have read it: the key is removed, so that the
// next server makes a new one and every entry signed with the old one is compiled again.
func (srv *Server) disableWasmCache(root string, key bool) {
	if srv.wasm.cacheOff.Swap(true) {
		return
	}
	srv.logf("warning: root %s contains the wasm compilation cache %s; compiled wasm is kept in memory only from now on (set MCPBASH_WASM_CACHE_DIR outside every root)",
		root, srv.wasm.cacheDir)
	if key {
		_ = os.Remove(srv.wasm.cacheKey)
	}
	if srv.wasm.rt != nil {
		srv.wasm.rt.DisableCache()
	}
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

// wasmCommands makes `*.wasm` in dirs (the tool's directory and the project's bin/) commands of a
// sandboxed script; cancelled reports the end of the call's context.
func (srv *Server) wasmCommands(cancelled func() bool, call *engine.Call, dirs []string, memoryMiB int) engine.Commands {
	return &wasm.Commands{Runtime: srv.wasmRuntime, Dirs: dirs, Call: call, MemoryMiB: memoryMiB, Cancelled: cancelled}
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
		fix := "build it for WASI preview 1 (GOOS=wasip1 GOARCH=wasm, docs/WASM.md)"
		if errors.Is(err, wasm.ErrModuleLimit) {
			fix = "split or simplify the module: docs/WASM.md lists the module limits"
		}
		add("error", "wasm", err.Error(), fix)
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
