//go:build unix

package worker

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// setLimits puts the worker's rlimits on itself, reports the end of its CPU budget, and returns
// what bounds the CPU seconds the process may have used by the end of a job.
func setLimits(l Limits) (setCPU func(total time.Duration) error, err error) {
	set := func(res int, v uint64) error {
		if v == 0 {
			return nil
		}
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("worker: setrlimit %d: %w", res, err)
		}
		return nil
	}
	for _, r := range []struct {
		res int
		v   uint64
	}{{asLimit, l.AddressSpace}, {syscall.RLIMIT_NOFILE, l.OpenFiles}, {syscall.RLIMIT_FSIZE, l.FileSize}, {nprocLimit, l.Processes}} {
		if err := set(r.res, r.v); err != nil {
			return nil, err
		}
	}
	// Go ignores SIGXCPU unless asked; the soft CPU limit below raises it once per call budget.
	xcpu := make(chan os.Signal, 1)
	signal.Notify(xcpu, syscall.SIGXCPU)
	go func() {
		<-xcpu
		fmt.Fprintln(os.Stderr, "mcp-bash worker: CPU time limit exceeded")
		os.Exit(cpuExitCode)
	}()
	// The write-size limit is reported by the failing write (EFBIG), not by a signal.
	signal.Ignore(syscall.SIGXFSZ)
	return setCPULimit, nil
}

// setCPULimit bounds the CPU seconds the process may have used by the end of the job (the soft
// RLIMIT_CPU: SIGXCPU, then the exit above).
func setCPULimit(total time.Duration) error {
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_CPU, &cur); err != nil {
		return err
	}
	secs := uint64(total/time.Second) + 1
	if secs > cur.Max {
		secs = cur.Max
	}
	// Only the soft limit moves (an unprivileged process cannot raise a hard limit again).
	return syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: secs, Max: cur.Max})
}

// exitCause names the signal that ended a worker ("" when none did).
func exitCause(st *os.ProcessState) string {
	ws, ok := st.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ""
	}
	switch sig := ws.Signal(); sig {
	case syscall.SIGXCPU:
		return "CPU time limit (SIGXCPU)"
	case syscall.SIGXFSZ:
		return "file size limit (SIGXFSZ)"
	case syscall.SIGKILL:
		return "killed by SIGKILL (out of memory, or the CPU time limit)"
	default:
		return "killed by signal " + sig.String()
	}
}
