package builtins

import (
	"bytes"
	"context"
	"io"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Every utility run charges what it holds to the call's memory budget (Env.Budget) through a
// meter, and checks cancellation in every loop: a runaway script (`sed ':a;G;h;ba'`, `sort` of
// an endless stream) ends at the budget or at the call's timeout, never by the process running
// out of memory or a loop that outlives its call.

// meter is one utility run's share of the budget; the register wrapper gives each run one (in
// its context) and releases it when the run ends.
type meter struct {
	b    *sandbox.Budget
	held int64
	// refused is set when the budget refused one of the run's charges.
	refused bool
}

type meterKey struct{}

// meterOf is the run's meter (a meter without budget when there is none).
func meterOf(ctx context.Context) *meter {
	if m, ok := ctx.Value(meterKey{}).(*meter); ok {
		return m
	}
	return &meter{}
}

// grow charges n more bytes.
func (m *meter) grow(n int64) error {
	if m == nil || m.b == nil || n <= 0 {
		return nil
	}
	if err := m.b.Charge(n); err != nil {
		m.refused = true
		return err
	}
	m.held += n
	return nil
}

// release gives back n bytes charged before.
func (m *meter) release(n int64) {
	if m == nil || m.b == nil || n <= 0 {
		return
	}
	n = min(n, m.held)
	m.b.Release(n)
	m.held -= n
}

// share is one structure's part of a run's meter (a ring of lines, a hold space), set to
// what it holds now.
type share struct {
	m    *meter
	held int64
}

// set makes the share total bytes, charging or releasing the difference.
func (s *share) set(total int64) error {
	if d := total - s.held; d > 0 {
		if err := s.m.grow(d); err != nil {
			return err
		}
	} else if d < 0 {
		s.m.release(-d)
	}
	s.held = total
	return nil
}

// close gives back everything the run held.
func (m *meter) close() {
	if m != nil && m.b != nil {
		m.b.Release(m.held)
		m.held = 0
	}
}

// fillChunk is the most writeFill holds: a width taken from the arguments (expand -t, a
// date field's width) is written in pieces of this size, never allocated whole.
const fillChunk = 32 << 10

var (
	spaces = bytes.Repeat([]byte{' '}, fillChunk)
	zeros  = bytes.Repeat([]byte{'0'}, fillChunk)
)

// writeFill writes n copies of c (a space or a zero; anything else is written as a space) in
// chunks, checking ctx between them, so that filling a huge width ends with the call.
func writeFill(ctx context.Context, w io.Writer, c byte, n int) error {
	chunk := spaces
	if c == '0' {
		chunk = zeros
	}
	for n > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// lineCost is what a kept line costs: its bytes and a string header.
func lineCost(n int) int64 { return int64(n) + 16 }

// readAll reads r to the end, charging the run's meter as the buffer grows.
func readAll(ctx context.Context, r io.Reader) ([]byte, error) {
	m := meterOf(ctx)
	b := make([]byte, 0, 512)
	charged := int64(0)
	for {
		if ctx.Err() != nil {
			return b, ctx.Err()
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		if c := int64(cap(b)); c > charged {
			if err := m.grow(c - charged); err != nil {
				return nil, err
			}
			charged = c
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// heapSample is how often watchHeap looks at the heap.
const heapSample = 5 * time.Millisecond

// watchHeap bounds code that cannot charge the budget itself (GoAWK and gojq evaluate scripts
// with no allocation hook): while it runs, the process heap is sampled every heapSample, and
// when it has grown since the start by more than the budget has left, the returned context is
// cancelled and the budget is reported exceeded (which ends the call). The bound is honest but
// not exact: one operation (a gsub, a string concatenation, a jq object) may allocate its own
// size past the budget before the next sample, and the heap also grows with what concurrent
// calls allocate. stop ends the watch and reports whether it fired. room answers whether n
// more bytes fit what the budget allowed at the start less the heap's growth since (read
// now, not sampled), or reports the budget exceeded: a program asks it before one large
// allocation, which the sampling would see only once made.
func watchHeap(ctx context.Context, b *sandbox.Budget) (wctx context.Context, stop func() bool, room func(n int64) error) {
	if b == nil {
		return ctx, func() bool { return false }, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() int64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(sample[0].Value.Uint64())
	}
	start, allowed := heap(), b.Remaining()
	done := make(chan struct{})
	fired := make(chan bool, 1)
	go func() {
		t := time.NewTicker(heapSample)
		defer t.Stop()
		for {
			select {
			case <-done:
				fired <- false
				return
			case <-ctx.Done():
				fired <- false
				return
			case <-t.C:
				if heap()-start > allowed {
					b.Exceed()
					cancel(b.Err())
					fired <- true
					return
				}
			}
		}
	}()
	var refused atomic.Bool
	return ctx, func() bool {
			close(done)
			f := <-fired
			cancel(nil)
			return f || refused.Load()
		}, func(n int64) error {
			if n > allowed-(heap()-start) {
				refused.Store(true)
				b.Exceed()
				cancel(b.Err())
				return b.Err()
			}
			return nil
		}
}

// meteredBuffer is a bytes.Buffer whose growth is charged to a share; after a refusal it
// drops writes and keeps the error.
type meteredBuffer struct {
	bytes.Buffer
	mem share
	err error
}

func (w *meteredBuffer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if err := w.mem.set(int64(w.Len() + len(p))); err != nil {
		w.err = err
		return 0, err
	}
	return w.Buffer.Write(p)
}

// errSortCancelled unwinds a sort whose call ended.
type errSortCancelled struct{}

// sortStable sorts lines with cmp, checking ctx every few thousand comparisons (a sort of
// millions of lines takes seconds); false means the call ended first.
func sortStable(ctx context.Context, lines []string, cmp func(a, b string) int) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			if _, cancelled := p.(errSortCancelled); !cancelled {
				panic(p)
			}
			ok = false
		}
	}()
	n := 0
	slices.SortStableFunc(lines, func(a, b string) int {
		if n++; n&4095 == 0 && ctx.Err() != nil {
			panic(errSortCancelled{})
		}
		return cmp(a, b)
	})
	return true
}

// remaining is what the run may still charge.
func (m *meter) remaining() int64 {
	if m == nil || m.b == nil {
		return 1<<63 - 1
	}
	return m.b.Remaining()
}

// findAllBudgeted runs a regexp FindAll that needs at most want matches (a text of n bytes
// has at most n+1), each costing perMatch bytes of offsets, asking for no more than the budget
// can hold; when that many came back and there could be more, the budget is exceeded. The
// matches stay charged to sh until the caller resets it.
func findAllBudgeted(sh *share, want, perMatch int, find func(limit int) [][]int) ([][]int, error) {
	limit := want
	if room := sh.m.remaining() / int64(perMatch); room < int64(limit) {
		limit = int(room)
	}
	if err := sh.set(int64(limit) * int64(perMatch)); err != nil {
		return nil, err
	}
	all := find(max(limit, 0))
	if len(all) == limit && limit < want {
		sh.m.b.Exceed()
		return nil, sh.m.b.Err()
	}
	return all, sh.set(int64(len(all)) * int64(perMatch))
}
