//go:build unix && !linux

package wasm

import "syscall"

func mapMemory(size int) ([]byte, error) {
	return syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

// remapMemory grows a mapping by mapping anew and copying (no mremap outside Linux).
func remapMemory(buf []byte, size int) ([]byte, error) {
	nb, err := mapMemory(size)
	if err != nil {
		return nil, err
	}
	copy(nb, buf)
	_ = syscall.Munmap(buf)
	return nb, nil
}

func unmapMemory(buf []byte) error { return syscall.Munmap(buf) }

// adviseHugePages is Linux-only advice.
func adviseHugePages([]byte) {}
