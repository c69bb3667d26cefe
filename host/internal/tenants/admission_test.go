package tenants

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func tenantWith(id string, l Limits) *Tenant { return &Tenant{id: id, limits: l} }

func isReady(tk *Ticket) bool {
	select {
	case <-tk.Ready():
		return true
	default:
		return false
	}
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestRateLimit(t *testing.T) {
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	a := NewAdmission(AdmissionOptions{Slots: 100, Now: clk.now})
	l := DefaultLimits()
	l.CallsPerMinute = 3
	tn := tenantWith("a", l)
	for i := range 3 {
		tk, err := a.Enqueue(tn)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		tk.Release()
	}
	_, err := a.Enqueue(tn)
	var le *LimitError
	if !errors.As(err, &le) || le.Cause != CauseRate || le.RetryAfter != 20*time.Second {
		t.Fatalf("4th call in a minute: %v (%+v)", err, le)
	}
	// Another tenant has its own bucket.
	if tk, err := a.Enqueue(tenantWith("b", l)); err != nil {
		t.Fatalf("other tenant refused: %v", err)
	} else {
		tk.Release()
	}
	clk.t = clk.t.Add(20 * time.Second)
	tk, err := a.Enqueue(tn)
	if err != nil {
		t.Fatalf("after refill: %v", err)
	}
	tk.Release()
	if u := a.Usage("a"); u.Running != 0 || u.Tokens >= 1 {
		t.Fatalf("usage %+v", u)
	}
}

func TestConcurrencyAndQueue(t *testing.T) {
	a := NewAdmission(AdmissionOptions{Slots: 10})
	l := DefaultLimits()
	l.ConcurrentCalls, l.QueueLength = 1, 1
	tn := tenantWith("a", l)
	first, err := a.Enqueue(tn)
	if err != nil || !isReady(first) {
		t.Fatalf("first: %v", err)
	}
	second, err := a.Enqueue(tn)
	if err != nil || isReady(second) {
		t.Fatalf("second must wait: %v ready=%v", err, second != nil && isReady(second))
	}
	var le *LimitError
	if _, err := a.Enqueue(tn); !errors.As(err, &le) || le.Cause != CauseQueue {
		t.Fatalf("third: %v, want queue_full", err)
	}
	first.Release()
	if !isReady(second) {
		t.Fatal("second not admitted after first ended")
	}
	second.Release()
	a.Drain()
	if _, err := a.Enqueue(tn); !errors.As(err, &le) || le.Cause != CauseDraining {
		t.Fatalf("after Drain: %v", err)
	}
}

// TestFairAcrossTenants: one tenant floods 1000 calls into a pool of 4 slots, then 49 other
// tenants send one call each. Releasing slots in grant order, every other tenant is served
// within the next two rounds of the pool, long before the flood is worked off.
func TestFairAcrossTenants(t *testing.T) {
	a := NewAdmission(AdmissionOptions{Slots: 4})
	flood := DefaultLimits()
	flood.CallsPerMinute, flood.QueueLength, flood.ConcurrentCalls = 1_000_000, 0, 4
	var active []*Ticket
	var pending []*Ticket
	owner := map[*Ticket]string{}
	for range 1000 {
		tk, err := a.Enqueue(tenantWith("flood", flood))
		if err != nil {
			t.Fatal(err)
		}
		owner[tk] = "flood"
		pending = append(pending, tk)
	}
	for i := range 49 {
		id := fmt.Sprintf("t%02d", i)
		tk, err := a.Enqueue(tenantWith(id, DefaultLimits()))
		if err != nil {
			t.Fatal(err)
		}
		owner[tk] = id
		pending = append(pending, tk)
	}
	served := map[string]int{}
	grants := 0
	collect := func() {
		rest := pending[:0]
		for _, tk := range pending {
			if isReady(tk) {
				active = append(active, tk)
				served[owner[tk]]++
				grants++
			} else {
				rest = append(rest, tk)
			}
		}
		pending = rest
	}
	collect()
	for len(served) < 50 {
		if len(active) == 0 {
			t.Fatalf("nothing running, %d pending", len(pending))
		}
		active[0].Release()
		active = active[1:]
		collect()
	}
	// 4 flood calls were running first; after that, round-robin gives the flood at most one
	// grant per other tenant served.
	if served["flood"] > 4+49 {
		t.Fatalf("flood got %d grants before all 49 others were served once", served["flood"])
	}
	for _, tk := range append(active, pending...) {
		tk.Release()
	}
	if st := a.Stats(); st.Busy != 0 || st.Waiting != 0 {
		t.Fatalf("leaked: %+v", st)
	}
}

// TestAdmitMany: 50 tenants x 20 concurrent callers through Admit: every call is admitted
// exactly once and nothing leaks (run with -race).
func TestAdmitMany(t *testing.T) {
	a := NewAdmission(AdmissionOptions{Slots: 8})
	l := DefaultLimits()
	l.QueueLength = 0
	var mu sync.Mutex
	done := map[string]int{}
	var wg sync.WaitGroup
	for i := range 50 {
		tn := tenantWith(fmt.Sprintf("t%d", i), l)
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rel, err := a.Admit(context.Background(), tn)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				done[tn.ID()]++
				mu.Unlock()
				rel()
			}()
		}
	}
	wg.Wait()
	for i := range 50 {
		if n := done[fmt.Sprintf("t%d", i)]; n != 20 {
			t.Fatalf("tenant %d: %d calls admitted, want 20", i, n)
		}
	}
	if st := a.Stats(); st.Busy != 0 || st.Waiting != 0 || st.Keys != 0 {
		t.Fatalf("leaked: %+v", st)
	}
}

// TestShareOfSlots: a tenant allowed every slot still holds at most half of them, so another
// tenant's call runs while the first one's calls never end.
func TestShareOfSlots(t *testing.T) {
	a := NewAdmission(AdmissionOptions{Slots: 4})
	l := DefaultLimits()
	l.ConcurrentCalls = 4
	hog, calm := tenantWith("hog", l), tenantWith("calm", l)
	var held []*Ticket
	for range 4 {
		tk, err := a.Enqueue(hog)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, tk)
	}
	if !isReady(held[0]) || !isReady(held[1]) || isReady(held[2]) || isReady(held[3]) {
		t.Fatal("the hog holds more than half of the slots")
	}
	tk, err := a.Enqueue(calm)
	if err != nil || !isReady(tk) {
		t.Fatalf("calm waits while half the slots are free: %v", err)
	}
	tk.Release()
	for _, tk := range held {
		tk.Release()
	}
}
