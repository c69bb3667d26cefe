//go:build unix && !linux && !darwin

package confine

// LimitsMechanism says how the per-call limits hold here.
const LimitsMechanism = "rlimits (address space, CPU time, open files, file size), set by bash's ulimit"
