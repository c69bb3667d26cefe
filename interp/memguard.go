package interp

import (
	"context"
	"runtime"
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

	mu       sync.Mutex
	running  map[any]context.CancelCauseFunc // by *call, or the token of a WatchMemory
	watching bool
	// entered: a call began since the watcher's last tick. Its previous sample may be a call
	// that has ended since, whose garbage is still in the heap: the next sample over the limit
	// is weighed after a GC, never taken as this call running away.
	entered bool
}

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
	g.entered = true
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
	var last uint64 // the previous tick's sample; 0 when that tick sampled nothing
	for range t.C {
		g.mu.Lock()
		if len(g.running) == 0 {
			last = 0
			if idle++; idle >= memIdleTicks {
				g.watching = false
				g.mu.Unlock()
				return
			}
			g.mu.Unlock()
			continue
		}
		idle = 0
		if g.entered {
			g.entered, last = false, 0
		}
		g.mu.Unlock()
		heap, prev := g.heap(sample), last
		last = heap
		if heap <= g.limit {
			continue
		}
		// The sample counts objects not yet swept, so the garbage a finished runaway call left
		// behind would cancel the next innocent call. A heap that grew since the last tick is a
		// call running away now: cancel at once. Otherwise count only what a GC leaves.
		if prev == 0 || heap <= prev {
			runtime.GC()
			if last = g.heap(sample); last <= g.limit {
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
