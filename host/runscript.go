package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// ScriptRun is one run of a Bash script in the sandbox engine outside any project
// (`mcp-bash run-script`): to try a script where a tool's would run, and to hold the engine to
// bash on the differential corpus through the binary itself.
type ScriptRun struct {
	// Script is the path of the script; Args its positional parameters.
	Script string
	Args   []string
	// Dir is the working directory (absolute).
	Dir string
	// Roots are the read-write roots (none: Dir).
	Roots []string
	// Timeout bounds the run (0: MCPBASH_DEFAULT_TOOL_TIMEOUT).
	Timeout time.Duration
	// Env adds variables to the script's environment (over the sandbox's own), as a caller's
	// environment would: the differential corpus names the shell under test in SH.
	Env map[string]string
}

// RunScript runs rs in the in-process sandbox engine with the limits the settings give a tool's
// call, no allowlisted commands and no tool-contract variables (there is no call), and returns
// what it produced. The error is for a run that could not start (settings, roots).
func RunScript(ctx context.Context, o Options, rs ScriptRun) (*engine.Outcome, error) {
	set, err := config.Load(o.getenv())
	if err != nil {
		return nil, err
	}
	maxHeap := uint64(set.MaxHeapMiB) << 20
	eng, err := interp.NewEngineWith(interp.EngineOptions{MaxHeapBytes: maxHeap, Meter: sandbox.NewMeter(int64(maxHeap)), OwnsProcess: true})
	if err != nil {
		return nil, err
	}
	script, err := filepath.Abs(rs.Script)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(script); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", rs.Script)
	}
	if rs.Timeout <= 0 {
		rs.Timeout = set.DefaultToolTimeout
	}
	roots := rs.Roots
	if len(roots) == 0 {
		roots = []string{rs.Dir}
	}
	policy := sandbox.Policy{ToolDir: filepath.Dir(script), Limits: sandbox.Limits{
		Timeout:         rs.Timeout,
		MaxStdoutBytes:  set.MaxToolOutput,
		MaxStderrBytes:  set.MaxToolStderr,
		MaxOpenFiles:    set.MaxOpenFilesPerCall,
		MaxBytesWritten: set.MaxBytesWrittenPerCall,
		MaxUtilityBytes: set.UtilityBudget(),
	}}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, err
		}
		policy.Roots = append(policy.Roots, sandbox.Root{Path: abs, Mode: sandbox.ReadWrite})
	}
	call := &engine.Call{Tool: filepath.Base(script), ToolPath: script, ToolDir: filepath.Dir(script), Args: json.RawMessage(`{}`),
		MaxTextBytes: set.MaxTextBytes}
	out := eng.Run(ctx, engine.Job{Call: call, Script: script, Dir: rs.Dir, Policy: policy, ScratchBase: set.TmpRoot, Args: rs.Args,
		Env: rs.Env, Cancelled: func() bool { return false }})
	// The process ends next: the call's scratch tree (in /dev/shm, memory) goes first.
	eng.Wait()
	return out, nil
}
