//go:build linux

package harness

import (
	"os"
	"os/signal"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// CleanChildren makes the processes this test starts (the real bash of the differential
// tests) begin as a tool's process does, whatever the test process itself inherited: only
// descriptors 0-2 open, and no signal ignored. A CI runner or job shell can leave a descriptor
// open (bash then allocates {var}> from 11, not 10) and nohup leaves SIGHUP ignored (bash then
// lists it in `trap -p`); both pass to children across exec unless undone here.
func CleanChildren(t testing.TB) {
	t.Helper()
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		t.Fatalf("close_range: %v", err)
	}
	var ignored []os.Signal
	for s := syscall.Signal(1); s < 32; s++ {
		if s != syscall.SIGKILL && s != syscall.SIGSTOP && signal.Ignored(s) {
			ignored = append(ignored, s)
		}
	}
	if len(ignored) > 0 {
		// A handled signal is reset to its default in a child at exec; an ignored one is not.
		// Delivered ones are dropped, as they were while ignored.
		signal.Notify(make(chan os.Signal, 1), ignored...)
	}
}
