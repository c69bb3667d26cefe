//go:build !wasip1

package wasmguest

import "unsafe"

// Outside WebAssembly there is no server to report to: the host calls do nothing.

func hostProgress(float64, unsafe.Pointer, uint32) {}

func hostLog(unsafe.Pointer, uint32, unsafe.Pointer, uint32, unsafe.Pointer, uint32) {}

func hostIsCancelled() int32 { return 0 }
