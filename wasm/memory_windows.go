package wasm

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// mapMemory reserves and commits size bytes of zeroed memory outside the Go heap (pages cost
// nothing until touched, as with an anonymous mapping on Unix).
func mapMemory(size int) ([]byte, error) {
	addr, err := windows.VirtualAlloc(0, uintptr(size), windows.MEM_RESERVE|windows.MEM_COMMIT, windows.PAGE_READWRITE)
	if err != nil {
		return nil, err
	}
	// unsafe.Add from nil: the address is memory the Go heap does not own (vet's uintptr rule).
	return unsafe.Slice((*byte)(unsafe.Add(nil, addr)), size), nil
}

// remapMemory grows a mapping by allocating anew and copying (Windows has no mremap).
func remapMemory(buf []byte, size int) ([]byte, error) {
	nb, err := mapMemory(size)
	if err != nil {
		return nil, err
	}
	copy(nb, buf)
	_ = unmapMemory(buf)
	return nb, nil
}

func unmapMemory(buf []byte) error {
	if len(buf) == 0 {
		return nil
	}
	return windows.VirtualFree(uintptr(unsafe.Pointer(&buf[0])), 0, windows.MEM_RELEASE)
}

// adviseHugePages is Linux-only advice.
func adviseHugePages([]byte) {}
