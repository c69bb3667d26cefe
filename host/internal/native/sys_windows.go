package native

import "github.com/mcp-bash/mcp-bash/sandbox"

// The exit statuses of a tool its CPU time limit ended (Windows ends a process over its Job
// Object's user-time limit with ERROR_NOT_ENOUGH_QUOTA); Windows has no file size limit.
const (
	cpuLimitStatus      = sandbox.ErrorNotEnoughQuota
	fileSizeLimitStatus = -1
)

// jobLimits: on Windows the tool's Job Object holds the address-space (as committed memory) and
// CPU limits; open files and file size have no counterpart there and are not enforced.
const jobLimits = true
