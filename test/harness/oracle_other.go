//go:build !linux

package harness

import (
	"runtime"
	"testing"
)

// CleanChildren skips: the differential tests compare with the Linux host's bash 5.2, and only
// Linux has close_range to start it with a clean descriptor table.
func CleanChildren(t testing.TB) {
	t.Helper()
	t.Skipf("differential tests against the host's bash run on Linux only (this is %s)", runtime.GOOS)
}
