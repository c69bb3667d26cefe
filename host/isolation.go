package host

import (
	"context"

	"github.com/mcp-bash/mcp-bash/host/internal/worker"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// newWorkerPool starts the worker pool when MCPBASH_ISOLATION=process (nil for inproc, the
// default: docs/SANDBOX.md has both modes' costs).
func newWorkerPool(cfg Config, self string, maxHeapMiB int, logf func(string, ...any)) (*worker.Pool, error) {
	if cfg.Settings.Isolation != "process" {
		return nil, nil
	}
	w := cfg.Settings.Worker
	as := w.MaxASMiB
	if as == 0 {
		// The Go runtime reserves about 1.25 GiB of address space before it allocates anything;
		// the heap watchdog cancels calls first, this ends a worker that allocates past it anyway.
		as = max(maxHeapMiB+2048, 1536)
	}
	limits := worker.Limits{
		AddressSpace: uint64(as) << 20,
		OpenFiles:    uint64(w.MaxOpenFiles),
		FileSize:     uint64(w.MaxFileMiB) << 20,
		Processes:    uint64(w.MaxProcs),
	}
	_, lerr := sandbox.LandlockStatus()
	return worker.NewPool(worker.Options{
		Argv:     append([]string{self}, limits.Args(maxHeapMiB, lerr == nil)...),
		Env:      []string{"PATH=" + cfg.Getenv("PATH"), "LANG=C.UTF-8"},
		Idle:     w.Idle,
		MaxCalls: w.MaxCalls,
		MaxRSS:   int64(w.MaxRSSMiB) << 20,
		Logf:     logf,
	}), nil
}

// WorkerCommand is the hidden subcommand a server started with MCPBASH_ISOLATION=process
// re-executes its binary as, to run sandboxed calls in worker processes.
const WorkerCommand = worker.Command

// WorkerOptions are the flags the server passes to `mcp-bash __worker` (see worker.Limits.Args).
type WorkerOptions struct {
	// MaxHeapMiB is the heap watchdog limit.
	MaxHeapMiB int
	// AddressSpace, OpenFiles, FileSize (bytes) and Processes are the worker's resource limits
	// (0: none).
	AddressSpace, OpenFiles, FileSize, Processes uint64
	// Confine makes the worker confine itself to its call's roots with Landlock.
	Confine bool
}

// RunWorker is the worker process: it serves the calls its parent server writes on stdin until
// stdin ends. self is this binary's resolved path (a confined worker's externals re-execute it).
func RunWorker(ctx context.Context, self string, o WorkerOptions) error {
	l := worker.Limits{AddressSpace: o.AddressSpace, OpenFiles: o.OpenFiles, FileSize: o.FileSize, Processes: o.Processes}
	return worker.Main(ctx, self, uint64(o.MaxHeapMiB)<<20, l, o.Confine)
}
