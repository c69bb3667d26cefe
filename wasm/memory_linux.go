package wasm

import "syscall"

// adviseHugePages asks for transparent huge pages on a guest's memory (MADV_HUGEPAGE, which the
// syscall package does not name; the kernel may ignore it). A Go guest touches megabytes while
// its runtime starts, and huge pages turn thousands of page faults into a handful: a warm call
// of the Go example went from 9.2 to 7.3 ms and 10.4 to 8.6 ms (same runs, A/B); a guest that
// touches one page pays about 60 µs more for zeroing a huge page.
func adviseHugePages(buf []byte) { _ = syscall.Madvise(buf, 14) }
