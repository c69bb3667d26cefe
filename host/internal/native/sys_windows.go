package native

import (
	"os"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// The exit statuses of a tool its CPU time limit ended (Windows ends a process over its Job
// Object's user-time limit with ERROR_NOT_ENOUGH_QUOTA); Windows has no file size limit.
const (
	cpuLimitStatus      = sandbox.ErrorNotEnoughQuota
	fileSizeLimitStatus = -1
)

// jobLimits: on Windows the tool's Job Object holds the address-space (as committed memory) and
// CPU limits; open files and file size have no counterpart there and are not enforced.
const jobLimits = true

// bashArgs: Git-Bash's bash reads a tool's script with igncr, a carriage return before a line
// feed ignored (git's autocrlf checks scripts out with CRLF line ends on Windows), as the sandbox
// engine reads it there; and it always runs the script (Windows has no execute bits).
func bashArgs() []string { return []string{"-o", "igncr"} }

// jqCommand makes p a script that runs `mcp-bash jq` (links need a privilege on Windows).
func jqCommand(self, p string) error {
	script := "#!/bin/sh\nexec '" + strings.ReplaceAll(sandbox.MSYSPath(self), "'", `'\''`) + "' jq \"$@\"\n"
	return os.WriteFile(p, []byte(script), 0o755)
}
