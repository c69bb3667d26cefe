//go:build unix

package registry

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// exhaustDescriptors lowers the process's open-file limit and opens /dev/null until EMFILE, as
// a guest holding every descriptor of the server did (issue 21, finding 5); release undoes it.
// Not parallel: nothing else of the test binary may run meanwhile.
func exhaustDescriptors(t *testing.T) (release func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip(err)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 256, Max: old.Max}); err != nil {
		t.Skip(err)
	}
	var held []*os.File
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			if !errors.Is(err, syscall.EMFILE) {
				t.Fatalf("holding descriptors: %v", err)
			}
			break
		}
		held = append(held, f)
	}
	return func() {
		for _, f := range held {
			f.Close()
		}
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old)
	}
}
