package wasm

import (
	"sync/atomic"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// limitedMemory backs one instance's linear memory with an anonymous mapping of the call's
// memory limit: address space is reserved once (pages cost nothing until touched), growth
// never copies, and a grow past the limit fails (memory.grow returns -1) and is recorded, so
// the result can say which limit ended the run.
type limitedMemory struct {
	limit uint64
	hit   atomic.Bool
}

func (m *limitedMemory) Allocate(capacity, max uint64) experimental.LinearMemory {
	size := min(max, m.limit)
	if size == 0 {
		return &heapMemory{m: m}
	}
	buf, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		return &heapMemory{m: m}
	}
	// A Go guest touches megabytes of its memory while its runtime starts: with huge pages that
	// is a handful of page faults instead of thousands (advice only; ignored where unsupported).
	adviseHugePages(buf)
	return &mappedMemory{m: m, buf: buf}
}

type mappedMemory struct {
	m   *limitedMemory
	buf []byte
}

func (l *mappedMemory) Reallocate(size uint64) []byte {
	if l.buf == nil || size > uint64(len(l.buf)) {
		l.m.hit.Store(true)
		return nil
	}
	return l.buf[:size]
}

func (l *mappedMemory) Free() {
	if l.buf != nil {
		_ = syscall.Munmap(l.buf)
		l.buf = nil
	}
}

// heapMemory is the fallback when mapping fails: a Go slice grown by copying, still bounded.
type heapMemory struct {
	m   *limitedMemory
	buf []byte
}

func (l *heapMemory) Reallocate(size uint64) []byte {
	if size > l.m.limit {
		l.m.hit.Store(true)
		return nil
	}
	if size <= uint64(cap(l.buf)) {
		l.buf = l.buf[:size]
		return l.buf
	}
	nb := make([]byte, size, min(max(size, 2*uint64(cap(l.buf))), l.m.limit))
	copy(nb, l.buf)
	l.buf = nb
	return nb
}

func (l *heapMemory) Free() { l.buf = nil }
