package confine

// The resources a confined process's limits name (Rlimit.Resource). Windows has no rlimits: a
// Job Object holds the equivalent limits (jobobject_windows.go), and these number them.
const (
	LimitAddressSpace = iota
	LimitCPU
	LimitOpenFiles
	LimitFileSize
)
