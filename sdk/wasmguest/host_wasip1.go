//go:build wasip1

package wasmguest

import "unsafe"

//go:wasmimport mcp progress
func hostProgress(pct float64, msg unsafe.Pointer, msgLen uint32)

//go:wasmimport mcp log
func hostLog(level unsafe.Pointer, levelLen uint32, logger unsafe.Pointer, loggerLen uint32, msg unsafe.Pointer, msgLen uint32)

//go:wasmimport mcp is_cancelled
func hostIsCancelled() int32
