package interp

import (
	"context"
	"runtime/metrics"
	"sync"
	"time"
)

// memGuard stops runaway memory use: the interpreter has no per-value size limit, so
// `x=$x$x` would grow until the process dies. While any call runs, the heap is sampled every
// few milliseconds; above the limit every running call is cancelled with ErrMemoryLimit (an
// in-process engine cannot tell which call allocated; worker processes will).
type memGuard struct {
	limit uint64 // bytes; 0 disables

	mu      sync.Mutex
	running map[*call]context.CancelCauseFunc
	stop    chan struct{}
}

const memSampleEvery = 10 * time.Millisecond

func (g *memGuard) enter(c *call, cancel context.CancelCauseFunc) {
	if g.limit == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running == nil {
		g.running = map[*call]context.CancelCauseFunc{}
	}
	g.running[c] = cancel
	if len(g.running) == 1 {
		g.stop = make(chan struct{})
		go g.watch(g.stop)
	}
}

func (g *memGuard) leave(c *call) {
	if g.limit == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, c)
	if len(g.running) == 0 && g.stop != nil {
		close(g.stop)
		g.stop = nil
	}
}

func (g *memGuard) watch(stop chan struct{}) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(memSampleEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 || sample[0].Value.Uint64() <= g.limit {
				continue
			}
			g.mu.Lock()
			for _, cancel := range g.running {
				cancel(ErrMemoryLimit)
			}
			g.mu.Unlock()
		}
	}
}
