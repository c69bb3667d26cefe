package sse

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"testing"
)

// TestBudgetEvictsWhatNobodyReads: a response is never refused, but past an owner's cap the
// backlogs of its unread streams go, oldest first; a stream being read keeps its events; the
// global cap evicts across owners; an evicted stream cannot be resumed; released streams give
// their bytes back.
func TestBudgetEvictsWhatNobodyReads(t *testing.T) {
	b := NewBudget(10_000)
	acme, other := b.Owner("acme", 4_000), b.Owner("other", 8_000)
	big := bytes.Repeat([]byte("x"), 1_500)
	old := NewOwned("1", 1<<20, acme)   // a client that hung up first
	newer := NewOwned("2", 1<<20, acme) // then another
	read := NewOwned("3", 1<<20, acme)  // one that is read
	w := httptest.NewRecorder()
	if err := read.Attach(NewConn(w), 0, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Stream{old, newer} {
		if err := s.Push(big, false, false); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.OwnerUsed("acme"); got < 3_000 || got > 4_000 {
		t.Fatalf("acme holds %d bytes before its cap", got)
	}
	// Past acme's cap: the oldest unread backlog goes, the new event stays.
	if err := newer.Push(big, false, true); err != nil {
		t.Fatal(err)
	}
	if old.Buffered() != 0 || newer.Buffered() == 0 || b.OwnerUsed("acme") > 4_000 || b.Evicted() != 1 {
		t.Fatalf("after acme's cap: old %d, newer %d, acme %d, evicted %d", old.Buffered(), newer.Buffered(), b.OwnerUsed("acme"), b.Evicted())
	}
	if err := old.Attach(NewConn(httptest.NewRecorder()), 0, true); !errors.Is(err, ErrGone) {
		t.Fatalf("resuming an evicted stream: %v, want ErrGone", err)
	}
	// The stream being read wrote its events and holds them for replay, within its own
	// budget; it is never a victim.
	read.Push(big, false, false)
	// Another owner fills the global cap: acme's unread backlog goes, other's new event stays.
	o1 := NewOwned("4", 1<<20, other)
	for range 5 {
		if err := o1.Push(big, false, false); err != nil {
			t.Fatal(err)
		}
	}
	if b.Used() > 10_000 {
		t.Fatalf("the budget holds %d bytes, over its cap", b.Used())
	}
	if read.Buffered() == 0 {
		t.Fatal("the stream being read lost its events")
	}
	if !bytes.Contains(w.Body.Bytes(), big) {
		t.Fatal("the reader did not get its event")
	}
	// One event larger than its owner's whole cap, on a stream nobody reads, is evicted too.
	huge := NewOwned("5", 1<<20, b.Owner("small", 1_000))
	huge.Push(big, false, true)
	if huge.Buffered() != 0 || b.OwnerUsed("small") != 0 {
		t.Fatalf("an unread event over its owner's cap is held: %d", huge.Buffered())
	}
	select {
	case <-huge.Done():
	default:
		t.Fatal("an evicted final stream is not done")
	}
	for _, s := range []*Stream{old, newer, read, o1, huge} {
		s.Release()
		s.Release()
	}
	if b.Used() != 0 {
		t.Fatalf("%d bytes left after every stream was released", b.Used())
	}
	b.mu.Lock()
	n := len(b.owners)
	b.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d owners left after their streams were released", n)
	}
}
