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
	full      func(error)       // called once with ErrRecordFull, when a kept entry did not fit
	fullDone  bool
}

type accessKey struct {
	op, path, reason string
	allowed          bool
}

// OnFull sets what to call, once, with ErrRecordFull when the record cannot keep a write,
// refusal or command (the engine's frame passes its stop function, which ends the call).
func (r *Record) OnFull(f func(error)) {
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
		full(ErrRecordFull) // outside the lock: stopping the call may record
	}
}

// add records a under the lock; it returns the OnFull callback when it must run now.
func (r *Record) add(a Access) func(error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := accessKey{a.Op, a.Path, a.Reason, a.Allowed}
	if i := r.find(k); i >= 0 {
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
	a.Count = 0
	if r.index != nil {
		r.index[k] = len(r.entries)
	}
	r.entries = append(r.entries, a)
	if r.index == nil && len(r.entries) > indexFrom {
		r.index = make(map[accessKey]int, 2*len(r.entries))
		for i, e := range r.entries {
			r.index[keyOf(e)] = i
		}
	}
	return nil
}

// indexFrom is how many entries a record holds before it indexes them: a small record (most
// calls touch a handful of paths) is searched, and costs no map.
const indexFrom = 16

func keyOf(a Access) accessKey { return accessKey{a.Op, a.Path, a.Reason, a.Allowed} }

// find is the index of the entry for k, or -1.
func (r *Record) find(k accessKey) int {
	if r.index != nil {
		if i, ok := r.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range r.entries {
		if keyOf(r.entries[i]) == k {
			return i
		}
	}
	return -1
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
