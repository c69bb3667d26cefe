package wasm

import (
	"errors"
	"sync"

	"github.com/tetratelabs/wazero/experimental"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// ErrProcessMemory reports a guest that failed because the server's memory budget for all
// guests together (MCPBASH_MAX_HEAP_MB) was spent.
var ErrProcessMemory = errors.New("server memory limit")

// CallMemory is one call's memory budget (sandbox.memoryMiB): the linear memory and tables of
// every instance the call runs (a tool, or the wasm commands of a script, background jobs
// included) count against it together, and linear memory also against the process's Meter.
// A grow past either fails (memory.grow returns -1) and is recorded, so that the result can
// name the limit.
type CallMemory struct {
	limit int64
	meter *sandbox.Meter

	mu      sync.Mutex
	used    int64
	hitCall bool // the call's budget refused a reservation
	hitProc bool // the process's meter did
}

// NewCallMemory returns a budget of mib MiB (0: DefaultMemoryMiB) backed by meter (may be nil).
func NewCallMemory(mib int, meter *sandbox.Meter) *CallMemory {
	if mib <= 0 {
		mib = DefaultMemoryMiB
	}
	return &CallMemory{limit: int64(mib) << 20, meter: meter}
}

// Limit is the budget in bytes.
func (c *CallMemory) Limit() int64 { return c.limit }

// reserve takes n bytes from the call (and, when metered, from the process).
func (c *CallMemory) reserve(n int64, metered bool) bool {
	if n <= 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used+n > c.limit {
		c.hitCall = true
		return false
	}
	if metered && !c.meter.Reserve(n) {
		c.hitProc = true
		return false
	}
	c.used += n
	return true
}

func (c *CallMemory) release(n int64, metered bool) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	c.used -= n
	c.mu.Unlock()
	if metered {
		c.meter.Release(n)
	}
}

// mark records that the call's budget refused a grow.
func (c *CallMemory) mark() {
	c.mu.Lock()
	c.hitCall = true
	c.mu.Unlock()
}

// err is the limit a failed run ran into (nil: none).
func (c *CallMemory) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.hitProc:
		return ErrProcessMemory
	case c.hitCall:
		return ErrMemoryLimit
	}
	return nil
}

// limitedMemory allocates one instance's linear memory. Its bytes are charged to the call (the
// module's minimum by Run before instantiation, since wazero cannot fail that allocation, then
// every grow), and only what is charged is mapped: the mapping grows with the memory (mremap,
// which moves page tables, not data), so a worker's address-space limit holds however many
// instances run at once.
type limitedMemory struct {
	call *CallMemory
	// charged is what this instance holds of the budget.
	mu      sync.Mutex
	charged int64
	freed   bool
	// unmapped is set when the memory could not be mapped at all (no address space left).
	unmapped bool
}

func (m *limitedMemory) Allocate(capacity, max uint64) experimental.LinearMemory {
	return &mappedMemory{m: m, max: min(max, uint64(m.call.limit))}
}

// grow charges the budget for a memory of size bytes.
func (m *limitedMemory) grow(size uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed || size > uint64(m.call.limit) {
		m.call.mark()
		return false
	}
	if delta := int64(size) - m.charged; delta > 0 {
		if !m.call.reserve(delta, true) {
			return false
		}
		m.charged += delta
	}
	return true
}

// free gives back what the instance holds (once; Run calls it also when wazero never did).
func (m *limitedMemory) free() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.freed {
		m.freed = true
		m.call.release(m.charged, true)
		m.charged = 0
	}
}

// mappedMemory is the linear memory: a private anonymous mapping of at least its size.
type mappedMemory struct {
	m   *limitedMemory
	max uint64
	buf []byte // the whole mapping
}

func (l *mappedMemory) Reallocate(size uint64) []byte {
	if size > l.max {
		l.m.call.mark()
		return nil
	}
	if !l.m.grow(size) {
		return nil
	}
	if size <= uint64(len(l.buf)) {
		return l.buf[:size]
	}
	// A mapping is never empty; wasm pages are multiples of the OS's.
	n := int(max(size, pageSize))
	var buf []byte
	var err error
	if l.buf == nil {
		buf, err = mapMemory(n)
	} else {
		buf, err = remapMemory(l.buf, n)
	}
	if err != nil {
		// No address space left (a worker's RLIMIT_AS): the grow fails like any other.
		l.m.mu.Lock()
		l.m.unmapped = true
		l.m.mu.Unlock()
		l.m.call.mark()
		return nil
	}
	// A Go guest touches megabytes of its memory while its runtime starts: with huge pages that
	// is a handful of page faults instead of thousands (advice only; ignored where unsupported).
	adviseHugePages(buf)
	l.buf = buf
	return l.buf[:size]
}

func (l *mappedMemory) Free() {
	if l.buf != nil {
		_ = unmapMemory(l.buf)
		l.buf = nil
	}
	l.m.free()
}
