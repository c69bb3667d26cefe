package confine

// The resources a confined process's limits name (Rlimit.Resource). Windows has no rlimits: a
// Job Object holds the equivalent limits (jobobject_windows.go), and these number them.
const (
	LimitAddressSpace = iota
	LimitCPU
	LimitOpenFiles
	LimitFileSize
)

// LimitsMechanism says how the per-call limits hold on Windows.
const LimitsMechanism = "a Job Object per call (committed memory, CPU time; the whole process tree ends with the call); open files and file size are not limited on Windows"
