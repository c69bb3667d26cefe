package sse

import (
	"sync"
	"sync/atomic"
	"time"
)

// Budget bounds the bytes the streams of a server hold: events waiting for a connection and
// events kept for replay. It has a cap for all streams together and one per owner (a tenant).
// When a push takes its owner or the whole budget past the cap, the backlogs of streams nobody
// is reading (no connection attached) are evicted, least recently used first: the client of
// such a stream can no longer resume it (Attach answers ErrGone) and starts over. A stream
// being read is never evicted; its unread bytes are bounded by its own budget and by the writes
// to its connection, which wait for the reader.
type Budget struct {
	max int64

	mu      sync.Mutex
	used    int64
	owners  map[string]*Owner
	evicted atomic.Uint64
}

// Owner is one owner's share of a Budget.
type Owner struct {
	b       *Budget
	key     string
	max     int64                // under b.mu
	used    int64                // under b.mu
	streams map[*Stream]struct{} // under b.mu
}

// NewBudget returns a budget of max bytes for all streams together.
func NewBudget(max int64) *Budget {
	return &Budget{max: max, owners: map[string]*Owner{}}
}

// Owner returns key's share, capped at max bytes (the latest max given is the one in force).
func (b *Budget) Owner(key string, max int64) *Owner {
	b.mu.Lock()
	defer b.mu.Unlock()
	o := b.owners[key]
	if o == nil {
		o = &Owner{b: b, key: key, streams: map[*Stream]struct{}{}}
		b.owners[key] = o
	}
	o.max = max
	return o
}

// Used is the bytes held by all streams now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Evicted counts the backlogs evicted so far.
func (b *Budget) Evicted() uint64 { return b.evicted.Load() }

// OwnerUsed is the bytes key's streams hold now.
func (b *Budget) OwnerUsed(key string) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if o := b.owners[key]; o != nil {
		return o.used
	}
	return 0
}

func (o *Owner) add(s *Stream) {
	o.b.mu.Lock()
	o.streams[s] = struct{}{}
	o.b.mu.Unlock()
}

// remove forgets s; an owner without streams and bytes is dropped (owners come and go).
func (o *Owner) remove(s *Stream) {
	b := o.b
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(o.streams, s)
	if len(o.streams) == 0 && o.used == 0 && b.owners[o.key] == o {
		delete(b.owners, o.key)
	}
}

// charge adds n (negative: frees) to the owner's and the budget's use; it reports whether
// either is now over its cap.
func (o *Owner) charge(n int64) bool {
	b := o.b
	b.mu.Lock()
	defer b.mu.Unlock()
	o.used += n
	b.used += n
	return o.used > o.max || b.used > b.max
}

// reclaim evicts the backlogs of unread streams until the owner and the budget are within
// their caps, or no unread stream is left to evict. No stream lock is held when it is called.
func (o *Owner) reclaim() {
	b := o.b
	for {
		b.mu.Lock()
		var from map[*Stream]struct{}
		switch {
		case o.used > o.max:
			from = o.streams
		case b.used > b.max:
			from = nil // every owner's
		default:
			b.mu.Unlock()
			return
		}
		victim := b.oldestUnread(from)
		b.mu.Unlock()
		if victim == nil {
			return // whatever is left is being read
		}
		victim.evict() // a victim attached meanwhile is passed over by the next look
	}
}

// oldestUnread is the least recently used stream with bytes and no reader, among from (nil:
// all streams); b.mu is held.
func (b *Budget) oldestUnread(from map[*Stream]struct{}) *Stream {
	var best *Stream
	var bestUse int64
	consider := func(s *Stream) {
		if s.attached.Load() || s.held.Load() == 0 {
			return
		}
		if u := s.lastUse.Load(); best == nil || u < bestUse {
			best, bestUse = s, u
		}
	}
	if from != nil {
		for s := range from {
			consider(s)
		}
		return best
	}
	for _, o := range b.owners {
		for s := range o.streams {
			consider(s)
		}
	}
	return best
}

func now() int64 { return time.Now().UnixNano() }
