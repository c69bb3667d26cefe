package interp

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// memGuard stops runaway memory use: the interpreter has no per-value size limit, so
// `x=$x$x` would grow until the process dies. While any call runs, the heap is sampled every
// few milliseconds; above the limit every running call is cancelled with ErrMemoryLimit (an
// in-process engine cannot tell which call allocated; worker processes will). The sampling
// goroutine outlives a call by memIdleTicks samples, so back-to-back calls do not start one
// each (a goroutine and a timer per call cost a thread wake-up on a small call's path).
// Memory calls hold outside the heap (wasm guests' linear memory) is counted by meter and
// weighed with the heap.
type memGuard struct {
	limit uint64 // bytes; 0 disables
	meter *sandbox.Meter
	// soft: the runtime's soft memory limit is softHeadroom above limit (softLimit), so the
	// collector has kept garbage below it: a sample past it is a runaway, cancelled at once.
	soft bool

	mu       sync.Mutex
	running  map[any]context.CancelCauseFunc // by *call, or the token of a WatchMemory
	watching bool
}

// softLimit sets the runtime's soft memory limit a little above the guard's: the collector
// then runs before garbage alone carries the heap past the guard's limit, where the guard would
// have to collect on each sample to tell garbage from a runaway. The headroom is the runtime's
// own memory (stacks, its metadata), which the limit counts and the guard does not.
func softLimit(maxHeap uint64) {
	debug.SetMemoryLimit(int64(min(maxHeap, 1<<50)) + softHeadroom)
}

const softHeadroom = 64 << 20

const (
	memSampleEvery = 10 * time.Millisecond
	memIdleTicks   = 50 // the watcher ends after this many samples with no call running
)

func (g *memGuard) enter(c any, cancel context.CancelCauseFunc) {
	if g.limit == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running == nil {
		g.running = map[any]context.CancelCauseFunc{}
	}
	g.running[c] = cancel
	if !g.watching {
		g.watching = true
		go g.watch()
	}
}

func (g *memGuard) leave(c any) {
	if g.limit == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, c)
}

// heap samples the bytes of heap objects, live or not yet swept, plus the metered memory.
func (g *memGuard) heap(sample []metrics.Sample) uint64 {
	metrics.Read(sample)
	outside := uint64(max(g.meter.Used(), 0))
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return outside
	}
	return sample[0].Value.Uint64() + outside
}

func (g *memGuard) watch() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(memSampleEvery)
	defer t.Stop()
	idle := 0
	for range t.C {
		g.mu.Lock()
		if len(g.running) == 0 {
			if idle++; idle >= memIdleTicks {
				g.watching = false
				g.mu.Unlock()
				return
			}
			g.mu.Unlock()
			continue
		}
		idle = 0
		g.mu.Unlock()
		heap := g.heap(sample)
		if heap <= g.limit {
			continue
		}
		// The sample counts objects not yet collected: a finished call's garbage, or a running
		// call's churn, sit there until the next GC (whose goal is twice the live heap), so a
		// heap that grew by a call's few megabytes past the limit is no runaway. Only what a GC
		// leaves counts. Past the soft limit, though, the collector has already lost to the
		// growth: a collection now would give a runaway that doubles a value (awk's f(s s))
		// the time to pass a worker's address-space limit, which ends the process.
		if !g.soft || heap <= g.limit+softHeadroom {
			runtime.GC()
			if g.heap(sample) <= g.limit {
				continue
			}
		}
		g.mu.Lock()
		for _, cancel := range g.running {
			cancel(ErrMemoryLimit)
		}
		g.mu.Unlock()
	}
}
