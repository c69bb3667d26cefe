package sandbox

import (
	"errors"
	"sync"
)

// Access is one entry of the access record.
type Access struct {
	Op      string `json:"op"` // read, write, list, stat, exec, mkdir, remove, rename, symlink, ...
	Path    string `json:"path"`
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
	// Count is how many times the call made this same access, when more than once.
	Count int `json:"count,omitempty"`
}

// The record keeps every write, every refusal and every command a call makes: what an audit
// must see can never be pushed out by harmless accesses (issue 27: after 10,000 reads, a write
// and a refused read were missing, with refused: 0 reported). Repeats of an access are counted
// on its first entry, so a loop costs one entry. Only allowed reads (read, stat, list, ...) are
// capped: past maxReadEntries distinct ones they are counted as Truncated, and readers say so.
// A call that makes more than MaxKeptEntries distinct writes, refusals and commands is ended
// (ErrRecordFull) rather than let one of them go unrecorded.
const (
	maxReadEntries = 10_000
	// MaxKeptEntries bounds the distinct writes, refusals and commands of one call.
	MaxKeptEntries = 100_000
)

// ErrRecordFull ends a call whose record cannot keep another write, refusal or command.
var ErrRecordFull = errors.New("access record full")

// readOps are the operations that only look: the ones the record may leave out past its cap.
var readOps = map[string]bool{"read": true, "list": true, "stat": true, "lstat": true, "fstat": true, "access": true,
	"readlink": true, "realpath": true}

// Record collects what a call touched. It is safe for concurrent use; a nil *Record records
// nothing.
type Record struct {
	mu        sync.Mutex
	entries   []Access
	index     map[accessKey]int // by what an entry is, its place in entries
	reads     int               // allowed reads kept
	kept      int               // writes, refusals and commands kept
	truncated int               // allowed reads left out
	full      func()            // called once, when a kept entry did not fit
	fullDone  bool
}

type accessKey struct {
	op, path, reason string
	allowed          bool
}

// OnFull sets what to do, once, when the record cannot keep a write, refusal or command (the
// engine ends the call with ErrRecordFull).
func (r *Record) OnFull(f func()) {
	if r != nil {
		r.mu.Lock()
		r.full = f
		r.mu.Unlock()
	}
}

// Add records an access: a repeat is counted on its first entry.
func (r *Record) Add(a Access) {
	if r == nil {
		return
	}
	if full := r.add(a); full != nil {
		full() // outside the lock: stopping the call may record
	}
}

// add records a under the lock; it returns the OnFull callback when it must run now.
func (r *Record) add(a Access) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := accessKey{a.Op, a.Path, a.Reason, a.Allowed}
	if i, ok := r.index[k]; ok {
		r.entries[i].Count = max(r.entries[i].Count, 1) + 1
		return nil
	}
	read := a.Allowed && readOps[a.Op]
	switch {
	case read && r.reads >= maxReadEntries:
		r.truncated++
		return nil
	case !read && r.kept >= MaxKeptEntries:
		if r.fullDone {
			return nil
		}
		r.fullDone = true
		return r.full
	case read:
		r.reads++
	default:
		r.kept++
	}
	if r.index == nil {
		r.index = map[accessKey]int{}
	}
	a.Count = 0
	r.index[k] = len(r.entries)
	r.entries = append(r.entries, a)
	return nil
}

// Entries returns a copy of the record and how many allowed reads it left out.
func (r *Record) Entries() (entries []Access, truncated int) {
	if r == nil {
		return nil, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Access(nil), r.entries...), r.truncated
}

// Refusals counts the refused accesses of entries, repeats included.
func Refusals(entries []Access) int {
	n := 0
	for _, e := range entries {
		if !e.Allowed {
			n += max(e.Count, 1)
		}
	}
	return n
}
