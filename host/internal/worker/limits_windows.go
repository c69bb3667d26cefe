package worker

import (
	"fmt"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// setLimits puts the worker in a Job Object of its own holding its limits: address space as
// committed memory, the process count, and per job the CPU time (user-mode: Windows ends the
// process with ERROR_NOT_ENOUGH_QUOTA when it is spent). Open files and file size have no Job
// Object counterpart and are not enforced on Windows (docs/SANDBOX.md).
func setLimits(l Limits) (setCPU func(total time.Duration) error, err error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("worker: job object: %w", err)
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	set := func() error {
		_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
			uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
		return err
	}
	if l.AddressSpace > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY
		info.ProcessMemoryLimit = uintptr(min(l.AddressSpace, uint64(^uintptr(0))))
	}
	if l.Processes > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_ACTIVE_PROCESS
		info.BasicLimitInformation.ActiveProcessLimit = uint32(min(l.Processes, 1<<31))
	}
	if err := set(); err != nil {
		return nil, fmt.Errorf("worker: job object limits: %w", err)
	}
	if err := windows.AssignProcessToJobObject(job, windows.CurrentProcess()); err != nil {
		return nil, fmt.Errorf("worker: job object: %w", err)
	}
	return func(total time.Duration) error {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_TIME
		info.BasicLimitInformation.PerProcessUserTimeLimit = int64(total/100) + int64(time.Second/100)
		return set()
	}, nil
}

// exitCause names the Job Object limit that ended a worker ("" when none did).
func exitCause(st *os.ProcessState) string {
	switch st.ExitCode() {
	case sandbox.ErrorNotEnoughQuota:
		return "CPU time limit (Job Object)"
	case sandbox.KilledStatus:
		return "killed (its process group was ended)"
	}
	return ""
}
