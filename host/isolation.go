package host

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/host/registry"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox/confine"
	"github.com/mcp-bash/mcp-bash/sandbox/worker"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// newWorkerPool starts the worker pool when MCPBASH_ISOLATION=process (nil for inproc, the
// default: docs/SANDBOX.md has both modes' costs).
func newWorkerPool(cfg Config, self string, maxHeapMiB int, logf func(string, ...any)) (*worker.Pool, error) {
	switch mode := strings.ToLower(strings.TrimSpace(cfg.Getenv("MCPBASH_ISOLATION"))); mode {
	case "", "inproc":
		return nil, nil
	case "process":
	default:
		return nil, fmt.Errorf("MCPBASH_ISOLATION=%q: want process or inproc", mode)
	}
	limits := worker.Limits{
		// The Go runtime reserves about 1.25 GiB of address space before it allocates anything;
		// the heap watchdog cancels calls first, this ends a worker that allocates past it anyway.
		AddressSpace: uint64(envInt(cfg.Getenv, "MCPBASH_WORKER_MAX_AS_MB", maxHeapMiB+2048, 1536, 1<<22)) << 20,
		OpenFiles:    uint64(envInt(cfg.Getenv, "MCPBASH_WORKER_MAX_OPEN_FILES", 1024, 64, 1<<20)),
		FileSize:     uint64(envInt(cfg.Getenv, "MCPBASH_WORKER_MAX_FILE_MB", 1024, 1, 1<<20)) << 20,
		Processes:    uint64(envInt(cfg.Getenv, "MCPBASH_WORKER_MAX_PROCS", 0, 0, 1<<22)),
	}
	_, lerr := confine.Status()
	return worker.NewPool(worker.Options{
		Argv:     append([]string{self}, limits.Args(maxHeapMiB, lerr == nil)...),
		Env:      []string{"PATH=" + cfg.Getenv("PATH"), "LANG=C.UTF-8"},
		Idle:     envInt(cfg.Getenv, "MCPBASH_WORKERS_IDLE", 2, 1, 64),
		MaxCalls: envInt(cfg.Getenv, "MCPBASH_WORKER_MAX_CALLS", 100, 1, 1<<20),
		MaxRSS:   int64(envInt(cfg.Getenv, "MCPBASH_WORKER_MAX_RSS_MB", 512, 16, 1<<20)) << 20,
		Logf:     logf,
	}), nil
}

// runInWorker runs a sandboxed job in a worker process; the call's callbacks stay here.
func (srv *Server) runInWorker(ctx context.Context, job interp.Job, t *registry.Tool) *sdk.Outcome {
	p := job.Policy
	spec := worker.Spec{Call: worker.CallOf(job.Call), Script: job.Script, Dir: job.Dir, Roots: worker.RootsOf(p), ToolDir: p.ToolDir,
		Allow: p.Allow, Limits: p.Limits, ScratchBase: job.ScratchBase, Env: job.Env, Args: job.Args,
		CPU: time.Duration(envInt(srv.cfg.Getenv, "MCPBASH_WORKER_CPU_SECS", 0, 0, 1<<20)) * time.Second, Project: srv.cfg.Dirs.Root, Confine: job.Confiner != nil, RequireConfinement: job.Confiner != nil && job.Confiner.Required, Network: toolNetwork(t),
		Wasm: &worker.WasmSpec{Dirs: []string{job.Call.ToolDir, filepath.Join(srv.cfg.Dirs.Root, "bin")}, MemoryMiB: wasmMemoryMiB(t)}}
	return srv.pool.Run(ctx, spec, job.Call, func() bool { return ctx.Err() != nil })
}
