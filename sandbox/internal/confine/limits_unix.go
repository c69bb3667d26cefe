//go:build unix

package confine

import (
	"fmt"
	"syscall"
)

// The resources a confined process's limits name (Rlimit.Resource).
const (
	LimitAddressSpace = syscall.RLIMIT_AS
	LimitCPU          = syscall.RLIMIT_CPU
	LimitOpenFiles    = syscall.RLIMIT_NOFILE
	LimitFileSize     = syscall.RLIMIT_FSIZE
)

// setLimits lowers the process's limits to ls (a limit already lower stays).
func setLimits(ls []Rlimit) error {
	for _, l := range ls {
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(l.Resource, &cur); err != nil {
			return fmt.Errorf("confine: getrlimit %d: %w", l.Resource, err)
		}
		want := cur
		setRlim(&want.Cur, min(l.Cur, uint64(cur.Max)))
		setRlim(&want.Max, min(l.Max, uint64(cur.Max)))
		if err := syscall.Setrlimit(l.Resource, &want); err != nil {
			return fmt.Errorf("confine: setrlimit %d: %w", l.Resource, err)
		}
	}
	return nil
}

// setRlim stores v in an Rlimit field, which is uint64 on most systems and int64 on FreeBSD
// (where RLIM_INFINITY is -1: values past MaxInt64 mean no limit, and stay so).
func setRlim[T ~int64 | ~uint64](f *T, v uint64) {
	var zero T
	if zero-1 < zero && v > 1<<63-1 {
		*f = zero - 1
		return
	}
	*f = T(v)
}
