package sandbox

import "sync"

// Access is one entry of the access record.
type Access struct {
	Op      string `json:"op"` // read, write, list, stat, exec, mkdir, remove, rename, symlink
	Path    string `json:"path"`
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
}

// maxRecord bounds the record so a looping script cannot grow it without limit.
const maxRecord = 10_000

// Record collects what a call touched. It is safe for concurrent use; a nil *Record records
// nothing.
type Record struct {
	mu        sync.Mutex
	entries   []Access
	truncated int
}

// Add appends an entry, skipping an exact repeat of the previous one.
func (r *Record) Add(a Access) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.entries); n > 0 && r.entries[n-1] == a {
		return
	}
	if len(r.entries) >= maxRecord {
		r.truncated++
		return
	}
	r.entries = append(r.entries, a)
}

// Entries returns a copy of the record and how many entries were dropped over the cap.
func (r *Record) Entries() (entries []Access, truncated int) {
	if r == nil {
		return nil, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Access(nil), r.entries...), r.truncated
}
