package worker

import (
	"context"
	"fmt"
	"os"

	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Limits are the resource limits a worker puts on itself before it takes a call.
type Limits struct {
	// AddressSpace bounds the worker's virtual memory in bytes (0: none): an allocation past it
	// ends the worker ("out of memory"), not the server.
	AddressSpace uint64
	// OpenFiles bounds its file descriptors (0: none).
	OpenFiles uint64
	// FileSize bounds any file it writes, in bytes (0: none); a write past it fails with EFBIG.
	FileSize uint64
	// Processes is RLIMIT_NPROC (0: none). Linux counts every process and thread of the user
	// against it, the server's and the worker's own Go threads included, so it is opt-in.
	Processes uint64
}

// Args is the command line of a worker after the binary.
func (l Limits) Args(maxHeapMiB int, confine bool) []string {
	a := []string{Command, "--max-heap-mb", fmt.Sprint(maxHeapMiB), "--as", fmt.Sprint(l.AddressSpace),
		"--nofile", fmt.Sprint(l.OpenFiles), "--fsize", fmt.Sprint(l.FileSize), "--nproc", fmt.Sprint(l.Processes)}
	if confine {
		a = append(a, "--confine")
	}
	return a
}

// cpuExitCode is how a worker ends when its CPU time limit is reached.
const cpuExitCode = 152

// Main is the worker process (`mcp-bash __worker`): it sets its limits, then serves the jobs its
// parent writes on stdin, answering on stdout, until stdin ends. With confineSelf and Landlock,
// the worker confines itself to its first call's roots (and then serves only such calls).
func Main(ctx context.Context, self string, maxHeap uint64, l Limits, confineSelf bool) error {
	setCPU, err := setLimits(l)
	if err != nil {
		return err
	}

	// One budget for the heap and the wasm guests' memory, as in the server.
	meter := sandbox.NewMeter(int64(maxHeap))
	e, err := interp.NewEngineWith(interp.EngineOptions{MaxHeapBytes: maxHeap, Meter: meter, OwnsProcess: true,
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "mcp-bash worker: "+format+"\n", args...) }})
	if err != nil {
		return err
	}
	opts := ChildOptions{Self: self, CPUUsed: cpuUsed, Meter: meter, SetCPULimit: setCPU}
	if confineSelf {
		if _, err := sandbox.LandlockStatus(); err == nil {
			opts.Confine = sandbox.ConfineSelf
		}
	}
	// The frames own the real stdout; anything else the process prints goes to stderr.
	out := os.Stdout
	os.Stdout = os.Stderr
	defer e.Wait() // the answered calls' scratch trees, before the process ends
	return Serve(ctx, os.Stdin, out, e, opts)
}
