package interp

import (
	"path"
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

// setCallEnv sets the call's own part of its initial environment (all exported), over the
// engine's static part: the call's scratch as HOME and its tmp directory as TMPDIR, then the
// job's contract variables, then the engine's (a later one of the same name wins). It sets the
// runner's variables directly: building K=V strings to split them again cost more than the
// script's own first lines.
func (c *call) setCallEnv(set func(k, v string)) {
	set("HOME", c.sh.work)
	set("TMPDIR", c.sh.tmp)
	for k, v := range c.job.Env {
		set(k, v)
	}
	set("MCP_SDK", SDKDir)
	// The side-channel files of the original's contract are created by the script when it
	// writes them (appending works on a missing file); the server reads them after the run.
	for k, f := range sideFiles {
		set(k, path.Join(c.sh.work, f))
	}
	cancelFile := path.Join(c.sh.work, ".mcp-cancelled")
	set("MCP_CANCEL_FILE", cancelFile)
	set("MCP_TOOL_CANCELLATION_FILE", cancelFile)
}

// callEnvVars is how many variables setCallEnv sets at most.
func (c *call) callEnvVars() int { return len(c.job.Env) + len(sideFiles) + 5 }
