// Package fairq is a fair admission scheduler: callers wait in one FIFO queue per key (a
// tenant), and a bounded number of global slots is handed out round-robin over the keys that
// have waiters, each key also capped in how many slots it may hold at once. So a key that floods
// the scheduler only lengthens its own queue: every other key with a waiter is served within one
// round, whatever the flooding key's backlog.
//
// The scheduler is event-driven: a slot changes hands only when Enqueue, Release or Cancel is
// called, never on a timer, so its behaviour is the same on a loaded machine.
package fairq

import (
	"context"
	"errors"
	"sync"
)

// ErrQueueFull is returned when a key already has its maximum number of waiters.
var ErrQueueFull = errors.New("fairq: queue full")

// ErrClosed is returned by Enqueue after Close.
var ErrClosed = errors.New("fairq: scheduler closed")

// Options configure a Scheduler.
type Options struct {
	// Slots is the number of tickets that may be held at once across all keys (at least 1).
	Slots int
}

// Limit bounds one key.
type Limit struct {
	// Running is how many slots the key may hold at once (at least 1).
	Running int
	// Waiting bounds the key's queue (0: unbounded). A full queue refuses instead of growing,
	// so that a flood costs its sender, not the server's memory.
	Waiting int
}

// Scheduler hands out slots fairly across keys. The zero value is not usable; use New.
type Scheduler[K comparable] struct {
	mu     sync.Mutex
	slots  int
	busy   int
	closed bool
	keys   map[K]*keyState[K]
	// ring lists the keys that have waiters, in the order they are served; next is where the
	// next round-robin scan starts.
	ring []K
	next int
}

type keyState[K comparable] struct {
	key     K
	running int
	limit   Limit
	waiting []*Ticket[K]
	inRing  bool
}

// Ticket is one caller's place: granted when Ready is closed; it must then be released once.
type Ticket[K comparable] struct {
	s       *Scheduler[K]
	key     K
	ready   chan struct{}
	granted bool // under s.mu
	done    bool // released or cancelled, under s.mu
}

// New returns a scheduler with o.Slots global slots.
func New[K comparable](o Options) *Scheduler[K] {
	return &Scheduler[K]{slots: max(o.Slots, 1), keys: map[K]*keyState[K]{}}
}

// Enqueue places a waiter for key under limit. The ticket may already be granted when Enqueue
// returns. The latest limit given for a key is the one in force (a tenants reload can change
// it).
func (s *Scheduler[K]) Enqueue(key K, limit Limit) (*Ticket[K], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	ks := s.keys[key]
	if ks == nil {
		ks = &keyState[K]{key: key}
		s.keys[key] = ks
	}
	limit.Running = max(limit.Running, 1)
	ks.limit = limit
	if limit.Waiting > 0 && len(ks.waiting) >= limit.Waiting {
		return nil, ErrQueueFull
	}
	t := &Ticket[K]{s: s, key: key, ready: make(chan struct{})}
	ks.waiting = append(ks.waiting, t)
	if !ks.inRing {
		ks.inRing = true
		s.ring = append(s.ring, key)
	}
	s.dispatch()
	return t, nil
}

// Acquire waits for a slot for key, until ctx ends. The returned release func gives the slot
// back; it is safe to call more than once.
func (s *Scheduler[K]) Acquire(ctx context.Context, key K, limit Limit) (release func(), err error) {
	t, err := s.Enqueue(key, limit)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.Ready():
		return t.Release, nil
	case <-ctx.Done():
		t.Release() // a grant racing the cancellation is given back too
		return nil, ctx.Err()
	}
}

// Ready is closed when the ticket holds a slot.
func (t *Ticket[K]) Ready() <-chan struct{} { return t.ready }

// Release gives the slot back, or leaves the queue when the ticket was still waiting. Calls
// after the first do nothing.
func (t *Ticket[K]) Release() {
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	ks := s.keys[t.key]
	if t.granted {
		ks.running--
		s.busy--
	} else {
		for i, w := range ks.waiting {
			if w == t {
				ks.waiting = append(ks.waiting[:i], ks.waiting[i+1:]...)
				break
			}
		}
	}
	if ks.running == 0 && len(ks.waiting) == 0 {
		// Idle keys cost nothing: tenants come and go.
		if ks.inRing {
			for i, k := range s.ring {
				if k == t.key {
					s.dropFromRing(i)
					break
				}
			}
		}
		delete(s.keys, t.key)
	}
	s.dispatch()
}

// dispatch grants slots while there are free ones and an eligible waiter, visiting keys
// round-robin. Called with s.mu held after every change.
func (s *Scheduler[K]) dispatch() {
	for s.busy < s.slots && len(s.ring) > 0 {
		granted := false
		for range len(s.ring) {
			if s.next >= len(s.ring) {
				s.next = 0
			}
			ks := s.keys[s.ring[s.next]]
			if ks == nil || len(ks.waiting) == 0 {
				s.dropFromRing(s.next) // next now names the following key
				if len(s.ring) == 0 {
					return
				}
				continue
			}
			if ks.running >= ks.limit.Running {
				s.next++
				continue
			}
			t := ks.waiting[0]
			ks.waiting = ks.waiting[1:]
			t.granted = true
			ks.running++
			s.busy++
			close(t.ready)
			if len(ks.waiting) == 0 {
				s.dropFromRing(s.next)
			} else {
				s.next++
			}
			granted = true
			break
		}
		if !granted {
			return // every key with waiters is at its own limit
		}
	}
}

func (s *Scheduler[K]) dropFromRing(i int) {
	if ks := s.keys[s.ring[i]]; ks != nil {
		ks.inRing = false
	}
	s.ring = append(s.ring[:i], s.ring[i+1:]...)
	if i < s.next {
		s.next--
	}
	if s.next >= len(s.ring) {
		s.next = 0
	}
}

// Stats is a snapshot for metrics and readiness.
type Stats struct {
	Slots, Busy, Waiting, Keys int
}

// Stats returns the scheduler's current occupancy.
func (s *Scheduler[K]) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Slots: s.slots, Busy: s.busy, Keys: len(s.keys)}
	for _, ks := range s.keys {
		st.Waiting += len(ks.waiting)
	}
	return st
}

// KeyStats reports how many slots key holds and how many of its callers wait.
func (s *Scheduler[K]) KeyStats(key K) (running, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks := s.keys[key]; ks != nil {
		return ks.running, len(ks.waiting)
	}
	return 0, 0
}

// Close refuses new tickets; tickets already queued or granted are unaffected (drain them by
// releasing), so a draining server finishes what it admitted.
func (s *Scheduler[K]) Close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}
