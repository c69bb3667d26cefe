package sandbox

import "github.com/mcp-bash/mcp-bash/sandbox/internal/confine"

// ErrorNotEnoughQuota is the exit code Windows gives a process its Job Object's CPU time limit
// ended.
const ErrorNotEnoughQuota = confine.ErrorNotEnoughQuota
