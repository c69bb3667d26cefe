package tenants

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/fairq"
)

// Limit causes, for errors, metrics and the audit log.
const (
	CauseRate     = "calls_per_minute"
	CauseQueue    = "queue_full"
	CauseDraining = "draining"
	CauseSessions = "sessions"
	// CauseListens and CauseSubscriptions: the tenant's open subscriptions/listen streams and
	// watched resources.
	CauseListens       = "listens"
	CauseSubscriptions = "subscriptions"
	// CauseNotServed: the tenants file no longer serves the tenant (or its roots are unusable).
	CauseNotServed = "tenant_not_served"
)

// LimitError is a call refused before any work was queued.
type LimitError struct {
	Tenant string
	Cause  string
	// RetryAfter is when the call could be admitted (rate limit), zero when unknown.
	RetryAfter time.Duration
}

func (e *LimitError) Error() string {
	msg := fmt.Sprintf("tenant %q: %s limit reached", e.Tenant, e.Cause)
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf("; retry in %s", e.RetryAfter.Round(time.Second))
	}
	return msg
}

// Admission enforces per-tenant quotas before work is queued, then queues admitted calls
// fairly: a token bucket of CallsPerMinute (refused at once when empty), then one FIFO queue
// per tenant (at most QueueLength waiting, refused beyond) served round-robin into a bounded
// global pool of slots, each tenant holding at most ConcurrentCalls of them and never more than
// half of them (rounded up): whatever a tenants file says, one tenant's long calls cannot hold
// every slot while another waits.
type Admission struct {
	sched *fairq.Scheduler[string]
	share int
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

// AdmissionOptions configure an Admission.
type AdmissionOptions struct {
	// Slots is the global number of calls running at once (the worker pool's size).
	Slots int
	// Now is the clock (tests; default time.Now).
	Now func() time.Time
}

// NewAdmission returns an Admission with o.Slots global slots.
func NewAdmission(o AdmissionOptions) *Admission {
	if o.Now == nil {
		o.Now = time.Now
	}
	slots := max(o.Slots, 1)
	return &Admission{sched: fairq.New[string](fairq.Options{Slots: slots}), share: (slots + 1) / 2, now: o.Now, buckets: map[string]*bucket{}}
}

// bucket is a token bucket: capacity callsPerMinute, refilled continuously.
type bucket struct {
	tokens float64
	last   time.Time
	rate   int // calls per minute the bucket was last sized for
}

// take removes a token, or reports how long until one is available.
func (b *bucket) take(now time.Time, perMinute int) (bool, time.Duration) {
	capacity := float64(perMinute)
	if b.rate != perMinute { // new bucket, or the limit changed on reload
		if b.rate == 0 || b.tokens > capacity {
			b.tokens = capacity
		}
		b.rate = perMinute
	}
	perSec := capacity / 60
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = min(capacity, b.tokens+el*perSec)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / perSec * float64(time.Second))
	return false, max(wait, time.Millisecond)
}

// full reports whether the bucket has refilled completely (so dropping it loses nothing).
func (b *bucket) full(now time.Time) bool {
	return b.tokens+now.Sub(b.last).Seconds()*float64(b.rate)/60 >= float64(b.rate)
}

// Ticket is an admitted call: Ready is closed when it may run; Release must be called once
// the call ends (or to give up waiting).
type Ticket = fairq.Ticket[string]

// Enqueue admits a call of t or refuses it with a *LimitError. The ticket may wait for a slot;
// select on its Ready with the call's context, and Release it in every case.
func (a *Admission) Enqueue(t *Tenant) (*Ticket, error) {
	l := t.Limits()
	a.mu.Lock()
	now := a.now()
	b := a.buckets[t.ID()]
	if b == nil {
		if len(a.buckets) >= maxCached {
			for id, old := range a.buckets {
				if old.full(now) {
					delete(a.buckets, id)
				}
			}
		}
		b = &bucket{last: now}
		a.buckets[t.ID()] = b
	}
	ok, wait := b.take(now, l.CallsPerMinute)
	a.mu.Unlock()
	if !ok {
		return nil, &LimitError{Tenant: t.ID(), Cause: CauseRate, RetryAfter: wait}
	}
	tk, err := a.sched.Enqueue(t.ID(), fairq.Limit{Running: min(l.ConcurrentCalls, a.share), Waiting: l.QueueLength})
	switch {
	case errors.Is(err, fairq.ErrQueueFull):
		return nil, &LimitError{Tenant: t.ID(), Cause: CauseQueue}
	case errors.Is(err, fairq.ErrClosed):
		return nil, &LimitError{Tenant: t.ID(), Cause: CauseDraining}
	case err != nil:
		return nil, err
	}
	return tk, nil
}

// Admit is Enqueue and a wait for the slot until ctx ends; release must be called when the
// call ends.
func (a *Admission) Admit(ctx context.Context, t *Tenant) (release func(), err error) {
	tk, err := a.Enqueue(t)
	if err != nil {
		return nil, err
	}
	select {
	case <-tk.Ready():
		return tk.Release, nil
	case <-ctx.Done():
		tk.Release()
		return nil, ctx.Err()
	}
}

// Usage is a tenant's current quota use.
type Usage struct {
	Running, Waiting int
	// Tokens left in the calls-per-minute bucket.
	Tokens float64
}

// Usage reports tenant id's use (metrics).
func (a *Admission) Usage(id string) Usage {
	var u Usage
	u.Running, u.Waiting = a.sched.KeyStats(id)
	a.mu.Lock()
	if b := a.buckets[id]; b != nil {
		u.Tokens = min(float64(b.rate), b.tokens+a.now().Sub(b.last).Seconds()*float64(b.rate)/60)
	}
	a.mu.Unlock()
	return u
}

// Stats is the global occupancy (metrics, readiness).
func (a *Admission) Stats() fairq.Stats { return a.sched.Stats() }

// Drain refuses new calls (CauseDraining); admitted ones run to completion.
func (a *Admission) Drain() { a.sched.Close() }
