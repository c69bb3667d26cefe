package fairq

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func granted[K comparable](t *Ticket[K]) bool {
	select {
	case <-t.Ready():
		return true
	default:
		return false
	}
}

func mustEnqueue[K comparable](t *testing.T, s *Scheduler[K], key K, limit Limit) *Ticket[K] {
	t.Helper()
	tk, err := s.Enqueue(key, limit)
	if err != nil {
		t.Fatalf("Enqueue(%v): %v", key, err)
	}
	return tk
}

// TestFloodDoesNotStarve: tenant "flood" queues 1000 calls before "b" and "c" queue theirs;
// slots are then released one at a time in grant order. Every other tenant is served within one
// round of the keys that wait, whatever the flood's backlog.
func TestFloodDoesNotStarve(t *testing.T) {
	s := New[string](Options{Slots: 2})
	var held []*Ticket[string]
	for range 1000 {
		held = append(held, mustEnqueue(t, s, "flood", Limit{Running: 100}))
	}
	var small []*Ticket[string]
	for range 5 {
		small = append(small, mustEnqueue(t, s, "b", Limit{Running: 100}), mustEnqueue(t, s, "c", Limit{Running: 100}))
	}
	var order []string
	// The first two flood tickets were granted at once; release in grant order and record.
	active := []*Ticket[string]{held[0], held[1]}
	seen := map[*Ticket[string]]bool{held[0]: true, held[1]: true}
	all := append(append([]*Ticket[string](nil), held...), small...)
	for len(active) > 0 && len(order) < 40 {
		active[0].Release()
		active = active[1:]
		for _, tk := range all {
			if !seen[tk] && granted(tk) {
				seen[tk] = true
				active = append(active, tk)
				order = append(order, tk.key)
			}
		}
	}
	// Until b and c are done, no key gets two grants in a row while another waits.
	served := map[string]int{}
	for i, k := range order {
		served[k]++
		if served["b"] == 5 && served["c"] == 5 {
			break
		}
		if i > 0 && order[i-1] == k {
			t.Fatalf("key %q served twice in a row while others waited: %v", k, order[:i+1])
		}
	}
	if served["b"] != 5 || served["c"] != 5 {
		t.Fatalf("b and c not fully served in %d grants: %v", len(order), order)
	}
	if st := s.Stats(); st.Busy != 2 {
		t.Fatalf("busy = %d, want 2", st.Busy)
	}
}

func TestPerKeyLimit(t *testing.T) {
	s := New[string](Options{Slots: 4})
	a1 := mustEnqueue(t, s, "a", Limit{Running: 1})
	a2 := mustEnqueue(t, s, "a", Limit{Running: 1})
	b1 := mustEnqueue(t, s, "b", Limit{Running: 1})
	if !granted(a1) || granted(a2) || !granted(b1) {
		t.Fatalf("grants a1=%v a2=%v b1=%v, want true false true", granted(a1), granted(a2), granted(b1))
	}
	if r, w := s.KeyStats("a"); r != 1 || w != 1 {
		t.Fatalf("a: running %d waiting %d", r, w)
	}
	a1.Release()
	if !granted(a2) {
		t.Fatal("a2 not granted after a1 released")
	}
	a2.Release()
	b1.Release()
	if st := s.Stats(); st != (Stats{Slots: 4}) {
		t.Fatalf("stats after all released: %+v", st)
	}
}

func TestQueueFull(t *testing.T) {
	s := New[string](Options{Slots: 1})
	l := Limit{Running: 1, Waiting: 2}
	mustEnqueue(t, s, "a", l) // granted
	mustEnqueue(t, s, "a", l)
	mustEnqueue(t, s, "a", l)
	if _, err := s.Enqueue("a", l); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("third waiter: err = %v, want ErrQueueFull", err)
	}
	// Another key has its own queue.
	if _, err := s.Enqueue("b", l); err != nil {
		t.Fatalf("other key refused: %v", err)
	}
}

// TestCancelWaiter: a waiter that leaves gives nothing away and leaves no trace; a key that
// goes idle and comes back is in the ring once, so it keeps one turn per round.
func TestCancelWaiter(t *testing.T) {
	s := New[string](Options{Slots: 1})
	hold := mustEnqueue(t, s, "x", Limit{Running: 1})
	w := mustEnqueue(t, s, "a", Limit{Running: 1})
	w.Release() // leaves the queue
	w.Release() // idempotent
	if st := s.Stats(); st.Waiting != 0 || st.Keys != 1 {
		t.Fatalf("after cancel: %+v", st)
	}
	a1 := mustEnqueue(t, s, "a", Limit{Running: 1})
	a2 := mustEnqueue(t, s, "a", Limit{Running: 1})
	b1 := mustEnqueue(t, s, "b", Limit{Running: 1})
	hold.Release()
	if !granted(a1) {
		t.Fatal("a1 not granted")
	}
	a1.Release()
	if !granted(b1) || granted(a2) {
		t.Fatalf("after a1: b1=%v a2=%v, want b before a's second call", granted(b1), granted(a2))
	}
}

func TestAcquireCancelled(t *testing.T) {
	s := New[string](Options{Slots: 1})
	hold := mustEnqueue(t, s, "a", Limit{Running: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Acquire(ctx, "b", Limit{Running: 1})
		done <- err
	}()
	// Wait (on state, not time) until the goroutine is queued, then cancel it.
	for {
		if _, w := s.KeyStats("b"); w == 1 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Acquire returned early: %v", err)
		default:
		}
		runtime.Gosched()
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	hold.Release()
	if st := s.Stats(); st != (Stats{Slots: 1}) {
		t.Fatalf("slot leaked: %+v", st)
	}
}

func TestClosed(t *testing.T) {
	s := New[int](Options{Slots: 1})
	tk := mustEnqueue(t, s, 1, Limit{Running: 1})
	s.Close()
	if _, err := s.Enqueue(2, Limit{Running: 1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
	tk.Release() // admitted work still drains
	if st := s.Stats(); st.Busy != 0 {
		t.Fatalf("busy = %d", st.Busy)
	}
}

// TestConcurrentBounds runs many goroutines through Acquire/Release and checks the global and
// per-key bounds were never exceeded and nothing leaked (run with -race).
func TestConcurrentBounds(t *testing.T) {
	const slots, limit, keys, perKey = 3, 2, 8, 50
	s := New[string](Options{Slots: slots})
	var global atomic.Int32
	var maxGlobal atomic.Int32
	perKeyNow := make([]atomic.Int32, keys)
	var violations atomic.Int32
	var wg sync.WaitGroup
	for k := range keys {
		for range perKey {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rel, err := s.Acquire(context.Background(), fmt.Sprint(k), Limit{Running: limit})
				if err != nil {
					t.Error(err)
					return
				}
				g := global.Add(1)
				for {
					m := maxGlobal.Load()
					if g <= m || maxGlobal.CompareAndSwap(m, g) {
						break
					}
				}
				if perKeyNow[k].Add(1) > limit {
					violations.Add(1)
				}
				perKeyNow[k].Add(-1)
				global.Add(-1)
				rel()
			}()
		}
	}
	wg.Wait()
	if m := maxGlobal.Load(); m > slots {
		t.Fatalf("%d slots held at once, limit %d", m, slots)
	}
	if v := violations.Load(); v > 0 {
		t.Fatalf("per-key limit exceeded %d times", v)
	}
	if st := s.Stats(); st != (Stats{Slots: slots}) {
		t.Fatalf("leaked: %+v", st)
	}
}
