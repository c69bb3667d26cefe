package interp

import (
	"path/filepath"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// staticEnv is the part of every call's environment that does not depend on the call, built
// once per Engine: sandbox.BaseEnv's fixed variables.
func staticEnv() []string {
	var vars []string
	for _, kv := range sandbox.BaseEnv("", "", nil) {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || name == "TMPDIR" {
			continue // per call
		}
		vars = append(vars, kv)
	}
	return vars
}

// callEnv is the call's own part of its initial environment (all exported), over the engine's
// static part: the call's scratch as HOME and its tmp directory as TMPDIR, then the job's
// contract variables, then the engine's (a later entry wins over an earlier one of the same
// name).
func (c *call) callEnv() []string {
	vars := make([]string, 0, len(c.job.Env)+len(sideFiles)+6)
	vars = append(vars, "HOME="+c.work, "TMPDIR="+c.tmpDir)
	for k, v := range c.job.Env {
		vars = append(vars, k+"="+v)
	}
	vars = append(vars, "MCP_SDK="+SDKDir)
	// The side-channel files of the original's contract are created by the script when it
	// writes them (appending works on a missing file); the server reads them after the run.
	for k, f := range sideFiles {
		vars = append(vars, k+"="+filepath.Join(c.work, f))
	}
	cancelFile := filepath.Join(c.work, ".mcp-cancelled")
	return append(vars, "MCP_CANCEL_FILE="+cancelFile, "MCP_TOOL_CANCELLATION_FILE="+cancelFile)
}
