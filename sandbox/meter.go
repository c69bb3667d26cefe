package sandbox

import "sync/atomic"

// Meter counts memory that calls hold outside the Go heap (the linear memory of WebAssembly
// guests, mapped by the server), so that one budget covers it and the heap: reservations past
// the limit are refused, and the heap guard weighs the heap plus the meter against the same
// limit. One Meter serves a process; a nil Meter counts nothing and refuses nothing.
type Meter struct {
	limit int64 // bytes; 0: no limit
	used  atomic.Int64
}

// NewMeter returns a meter with a limit in bytes (0: none).
func NewMeter(limit int64) *Meter { return &Meter{limit: max(limit, 0)} }

// Reserve adds n bytes, or nothing and false when that would pass the limit.
func (m *Meter) Reserve(n int64) bool {
	if m == nil || n <= 0 {
		return true
	}
	for {
		cur := m.used.Load()
		if m.limit > 0 && cur+n > m.limit {
			return false
		}
		if m.used.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// Release gives back n bytes reserved earlier.
func (m *Meter) Release(n int64) {
	if m != nil && n > 0 {
		m.used.Add(-n)
	}
}

// Used is the bytes reserved now.
func (m *Meter) Used() int64 {
	if m == nil {
		return 0
	}
	return m.used.Load()
}

// Limit is the meter's limit in bytes (0: none).
func (m *Meter) Limit() int64 {
	if m == nil {
		return 0
	}
	return m.limit
}
