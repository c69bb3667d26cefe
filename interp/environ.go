package interp

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
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

// planState is what the engine derives once from a tool's plan (engine.Plan): the evaluator's
// starting state for every call of the tool (the engine's fixed variables, the tool's fixed
// contract variables and MCP_SDK, the SDK prelude's functions: the immutable layer each call's
// own variables go over), and the tool's parsed script.
type planState struct {
	base   *eval.Base
	script atomic.Pointer[planScript]
}

// planScript is the tool's script as parsed at its first call, with the identity it had then.
// A plan is made anew when the registry sees the tool change, so a call takes it without
// looking at the file again.
type planScript struct {
	key cacheKey
	pf  *parsed
}

// planState returns the engine's state for a job's plan (nil without one).
func (e *Engine) planState(job *Job, sp *sdkState) *planState {
	if job.Plan == nil {
		return nil
	}
	return job.Plan.Derived(e, func() any {
		env := append(append([]string(nil), e.static...), sortedEnv(job.Plan.Env)...)
		env = append(env, "MCP_SDK="+SDKDir)
		return &planState{base: eval.NewBase(env, identity, sp.prelude)}
	}).(*planState)
}

// sortedEnv is env as K=V, in a fixed order.
func sortedEnv(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// callVars is the call's own part of its initial environment (all exported), over the base, in
// the paths the script sees (c.sh): the call's scratch as HOME and its tmp directory as TMPDIR, then the job's contract
// variables, then the engine's (a later one of the same name wins). A planned job's fixed
// variables are in its base already; one of them named HOME or TMPDIR keeps its value, as it
// did when every variable was set per call.
func (c *call) callVars(st *planState) ([]eval.Var, error) {
	n := len(c.job.Env) + len(c.job.Session) + len(sideFiles) + 5
	vars := c.varsBuf[:0]
	if cap(vars) < n || cap(vars) > 4*n+64 {
		vars = make([]eval.Var, 0, n)
	}
	_, planHome := planEnv(c.job, "HOME")
	_, planTmp := planEnv(c.job, "TMPDIR")
	if !planHome {
		vars = append(vars, eval.Var{Name: "HOME", Value: c.sh.work})
	}
	if !planTmp {
		vars = append(vars, eval.Var{Name: "TMPDIR", Value: c.sh.tmp})
	}
	var spills []string // name, value pairs
	c.job.EachCallEnv(func(k, v string) {
		if c.job.Spill > 0 && len(v) > c.job.Spill && spillFiles[k] != "" {
			spills = append(spills, k, v)
			return
		}
		vars = append(vars, eval.Var{Name: k, Value: v})
	})
	if len(spills) > 0 {
		var err error
		if vars, err = c.spill(vars, spills); err != nil {
			return nil, err
		}
	}
	if st == nil {
		vars = append(vars, eval.Var{Name: "MCP_SDK", Value: SDKDir})
	}
	// The side-channel files of the original's contract are created by the script when it
	// writes them (appending works on a missing file); the server reads them after the run.
	// Their paths are cut from one string: one allocation instead of five.
	var b strings.Builder
	b.Grow(len(sideFileList)*(len(c.sh.work)+1) + sideNamesLen + len(c.sh.work) + len(cancelName) + 1)
	for _, sf := range sideFileList {
		b.WriteString(c.sh.work)
		b.WriteByte('/')
		b.WriteString(sf.name)
	}
	b.WriteString(c.sh.work)
	b.WriteString("/" + cancelName)
	all, at := b.String(), 0
	for _, sf := range sideFileList {
		end := at + len(c.sh.work) + 1 + len(sf.name)
		vars = append(vars, eval.Var{Name: sf.env, Value: all[at:end]})
		at = end
	}
	cancelFile := all[at:]
	vars = append(vars, eval.Var{Name: "MCP_CANCEL_FILE", Value: cancelFile}, eval.Var{Name: "MCP_TOOL_CANCELLATION_FILE", Value: cancelFile})
	c.varsBuf = vars
	return vars, nil
}

// spillFiles are the contract's JSON payloads that go through a file when they are long, and
// the file's name in the call's scratch root. MCP_TOOL_METADATA_JSON is the tool's own, part
// of its plan's environment, and stays there.
var spillFiles = map[string]string{"MCP_TOOL_ARGS_JSON": ".mcp-args.json", "MCP_TOOL_META_JSON": ".mcp-meta.json",
	"MCP_TOOL_METADATA_JSON": ".mcp-metadata.json"}

// spill writes payloads (name, value pairs) longer than the job's Spill to their files, as
// the original does: the variable is empty and <NAME>_FILE names the file. Environment
// strings that long would not reach bash's programs (execve refuses 128 KiB and more).
func (c *call) spill(vars []eval.Var, pairs []string) ([]eval.Var, error) {
	if err := c.scratch.Ensure(); err != nil {
		return nil, fmt.Errorf("payload file: %w", err)
	}
	// The scratch tree is new and no script has run in it yet; its descriptor is what is
	// written through, as for every side file.
	side, err := sandbox.OpenSideDir(c.work)
	if err != nil {
		return nil, fmt.Errorf("payload file: %w", err)
	}
	defer side.Close()
	for i := 0; i < len(pairs); i += 2 {
		k, v := pairs[i], pairs[i+1]
		f := spillFiles[k]
		if err := side.WriteFile(f, []byte(v)); err != nil {
			return nil, fmt.Errorf("payload file: %w", err)
		}
		vars = append(vars, eval.Var{Name: k}, eval.Var{Name: strings.TrimSuffix(k, "_JSON") + "_FILE", Value: c.sh.work + "/" + f})
	}
	return vars, nil
}

// cancelName is the cancellation file's name in the call's scratch root.
const cancelName = ".mcp-cancelled"

// sideNamesLen is the length of sideFileList's names together.
var sideNamesLen = func() int {
	n := 0
	for _, sf := range sideFileList {
		n += len(sf.name)
	}
	return n
}()

// planEnv is a fixed contract variable of the job's plan.
func planEnv(job *engine.Job, k string) (string, bool) {
	if job.Plan == nil {
		return "", false
	}
	v, ok := job.Plan.Env[k]
	return v, ok
}
