package confine

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

type groupSys struct {
	mu  sync.Mutex
	job windows.Handle
}

// KilledStatus is the exit code Kill gives every process of the job: what a shell reports for
// a program ended by SIGKILL, so results read the same on every platform.
const KilledStatus = 137

// ErrorNotEnoughQuota is the exit code Windows gives a process its job's CPU time limit ended.
const ErrorNotEnoughQuota = 1816

func (g *Group) start(limits []Rlimit) ([]Rlimit, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("job object: %w", err)
	}
	unenforced, err := ApplyToJob(job, limits)
	if err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	g.sys.job = job
	if g.cmd.SysProcAttr == nil {
		g.cmd.SysProcAttr = &windows.SysProcAttr{}
	}
	g.cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if g.cmd.Cancel != nil { // made with exec.CommandContext: its end kills the whole job
		g.cmd.Cancel = func() error { g.Kill(); return nil }
	}
	if err := g.cmd.Start(); err != nil {
		g.Close()
		return nil, err
	}
	if err := assignAndResume(job, uint32(g.cmd.Process.Pid)); err != nil {
		_ = g.cmd.Process.Kill()
		_ = g.cmd.Wait()
		g.Close()
		return nil, err
	}
	return unenforced, nil
}

// assignAndResume puts the suspended process pid in job, then lets it run.
func assignAndResume(job windows.Handle, pid uint32) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME|
		windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return fmt.Errorf("job object: open process %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		return fmt.Errorf("job object: assign process %d: %w", pid, err)
	}
	return resumeProcess(h, pid)
}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// resumeProcess resumes every thread of a process started suspended: NtResumeProcess, else
// each of its threads from a snapshot (the process was started with one).
func resumeProcess(h windows.Handle, pid uint32) error {
	if ntResumeProcess.Find() == nil {
		if st, _, _ := ntResumeProcess.Call(uintptr(h)); st == 0 {
			return nil
		}
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("job object: resume process %d: %w", pid, err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			continue
		}
		if _, err := windows.ResumeThread(th); err == nil {
			resumed++
		}
		windows.CloseHandle(th)
	}
	if resumed == 0 {
		return fmt.Errorf("job object: resume process %d: no thread resumed", pid)
	}
	return nil
}

// ApplyToJob sets limits on job, and makes closing its last handle end every process in it.
// Address space becomes the per-process committed memory limit, CPU the per-process user time
// limit (a process past it is ended with ErrorNotEnoughQuota); open files and file size have no
// Job Object counterpart and are returned as unenforced.
func ApplyToJob(job windows.Handle, limits []Rlimit) (unenforced []Rlimit, err error) {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	for _, l := range limits {
		switch l.Resource {
		case LimitAddressSpace:
			info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_MEMORY
			info.ProcessMemoryLimit = uintptr(min(l.Max, uint64(^uintptr(0))))
		case LimitCPU:
			info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_TIME
			info.BasicLimitInformation.PerProcessUserTimeLimit = int64(min(l.Cur, 1<<32)) * 10_000_000
		default:
			unenforced = append(unenforced, l)
		}
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		return nil, fmt.Errorf("job object: set limits: %w", err)
	}
	return unenforced, nil
}

// JobLimits reads back the limits of job (for tests and doctor).
func JobLimits(job windows.Handle) (windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION, error) {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	err := windows.QueryInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return info, err
}

// Job is the group's Job Object handle (valid until Close).
func (g *Group) Job() windows.Handle {
	g.sys.mu.Lock()
	defer g.sys.mu.Unlock()
	return g.sys.job
}

// Terminate ends the group: Windows has no polite signal to a process tree, so this is Kill.
func (g *Group) Terminate() { g.Kill() }

// Kill ends every process of the job.
func (g *Group) Kill() {
	g.sys.mu.Lock()
	defer g.sys.mu.Unlock()
	if g.sys.job != 0 {
		_ = windows.TerminateJobObject(g.sys.job, KilledStatus)
	}
}

// Close ends whatever is left in the job (closing its last handle kills it) and releases it.
func (g *Group) Close() {
	g.sys.mu.Lock()
	defer g.sys.mu.Unlock()
	if g.sys.job != 0 {
		_ = windows.TerminateJobObject(g.sys.job, KilledStatus)
		_ = windows.CloseHandle(g.sys.job)
		g.sys.job = 0
	}
}
