// Package engine is the contract every engine implements (Engine: a Job in, events out through
// the Job's Call, an Outcome with typed Limit causes back): what a tool call receives (Call),
// where its progress, logs and elicitations go (Sink), what it produced (Outcome), the
// in-process programs a script engine may run (Commands), and the run frame the in-process
// engines share (Frame). It knows nothing of any engine or of the tool SDK.
package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Engine is the contract every engine implements (the sandbox's Bash interpreter, WebAssembly
// under wazero, native bash, and the process-isolation worker pool in front of the sandbox): a
// Job in; its events out, while it runs, through the Job's Call (Sink, Elicit, Sample,
// Download); an Outcome back. Run never panics and leaves nothing of the tool running when it
// returns. The host picks an engine by lookup; engines never read the server's environment:
// what they may use arrives in the Job or when the engine is built.
type Engine interface {
	Run(ctx context.Context, job Job) *Outcome
}

// Job is one run of a tool (or of a server-side script: a prompt, a completion or a resource
// provider).
type Job struct {
	Call *Call
	// Script is the file that runs: a Bash script, or a .wasm module for the wasm engine.
	Script string
	// Dir is the initial working directory (the project root when a root covers it).
	Dir string
	// Policy holds the roots, the tool's directory, the allowlisted commands and the limits.
	Policy sandbox.Policy
	// ScratchBase is where per-call scratch directories are made ("" = sandbox.ScratchBase("")).
	ScratchBase string
	// Env holds the tool-contract variables (MCP_*, MCPBASH_*) to add to the base environment:
	// with a Plan or Session, this call's own; they win over those (EachEnv gives them all).
	Env map[string]string
	// Session, when set, holds the contract variables the calls of one session share while
	// they do not change (the client's capabilities, its roots): never changed after it is
	// made, so calls may hold the same map. They win over the Plan's.
	Session map[string]string
	// Plan, when set, is what every call of the tool shares (nil: nothing is shared).
	Plan *Plan
	// Cancelled reports a client cancellation (as opposed to a timeout or limit).
	Cancelled func() bool
	// Args are the script's positional parameters ($1...).
	Args []string
	// Spill is MCPBASH_ENV_PAYLOAD_THRESHOLD: a JSON payload of the contract longer than this
	// (MCP_TOOL_ARGS_JSON, MCP_TOOL_META_JSON, MCP_TOOL_METADATA_JSON) reaches the script in a
	// file that <NAME>_FILE names, and the variable is empty, as in the original (0: never).
	Spill int
	// Network is the tool's sandbox.network: whether a native tool's processes may use the
	// network (the isolation worker confines itself with it too). The sandbox's allowlisted
	// commands never get it.
	Network bool
	// MemoryMiB is the tool's sandbox.memoryMiB: the memory of its WebAssembly modules (0: the
	// wasm engine's default).
	MemoryMiB int
	// Confiner puts processes that leave the sandbox under Landlock (nil: they run unconfined).
	Confiner *sandbox.Confiner
	// Commands resolves in-process commands (wasm commands) after the utilities (nil: none).
	Commands Commands
}

// EachEnv calls fn once for every tool-contract variable of the job: the job's own, else the
// Session's, else the Plan's.
func (j *Job) EachEnv(fn func(k, v string)) {
	if j.Plan != nil {
		for k, v := range j.Plan.Env {
			if _, own := j.Env[k]; own {
				continue
			}
			if _, shared := j.Session[k]; !shared {
				fn(k, v)
			}
		}
	}
	j.EachCallEnv(fn)
}

// EachCallEnv is EachEnv without the Plan's variables: the job's own, else the Session's.
func (j *Job) EachCallEnv(fn func(k, v string)) {
	for k, v := range j.Session {
		if _, own := j.Env[k]; !own {
			fn(k, v)
		}
	}
	for k, v := range j.Env {
		fn(k, v)
	}
}

// AllEnv is EachEnv as one map (a new one when the job has a Plan or a Session).
func (j *Job) AllEnv() map[string]string {
	if (j.Plan == nil || len(j.Plan.Env) == 0) && len(j.Session) == 0 {
		return j.Env
	}
	n := len(j.Session) + len(j.Env)
	if j.Plan != nil {
		n += len(j.Plan.Env)
	}
	m := make(map[string]string, n)
	j.EachEnv(func(k, v string) { m[k] = v })
	return m
}

// Plan is what every call of one tool shares, made by the host when its registry (re)builds
// the tool's entry and never changed after: the contract variables that are the same for
// every call, and what an engine derives from the tool once (an evaluator's starting state,
// the parsed script). A new plan comes with every change of the tool, so nothing derived
// outlives what it was derived from.
type Plan struct {
	// Env holds the tool-contract variables every call of the tool gets.
	Env map[string]string

	derived sync.Map // an engine's key → what it derived
}

// Derived returns what the engine keyed by key derived from the plan, building it on first use
// (two calls racing may both build; one value is kept).
func (p *Plan) Derived(key any, build func() any) any {
	if v, ok := p.derived.Load(key); ok {
		return v
	}
	v, _ := p.derived.LoadOrStore(key, build())
	return v
}

// Limit is the limit that ended a run early. The host decides how to answer from it alone;
// Outcome.LimitHit is the sentence the answer shows.
type Limit string

// The limits engines enforce (docs/ARCHITECTURE.md lists where each is enforced).
const (
	LimitNone Limit = ""
	// LimitStdout and LimitStderr are the output caps (MCPBASH_MAX_TOOL_OUTPUT_SIZE,
	// MCPBASH_MAX_TOOL_STDERR_SIZE): the call fails with a JSON-RPC error, not a result.
	LimitStdout Limit = "stdout"
	LimitStderr Limit = "stderr"
	// LimitMemory: the sandbox's heap watchdog, a call's utility memory budget, a wasm module's
	// memory, a native tool's address space.
	LimitMemory     Limit = "memory"
	LimitCommands   Limit = "commands"
	LimitCallDepth  Limit = "callDepth"
	LimitScriptSize Limit = "scriptSize"
	LimitJobs       Limit = "jobs"
	// LimitCPU and LimitFileSize are rlimits of native tools.
	LimitCPU      Limit = "cpu"
	LimitFileSize Limit = "fileSize"
	// LimitBytesWritten: the call's writes through its FS passed Limits.MaxBytesWritten.
	LimitBytesWritten Limit = "bytesWritten"
	// LimitRecord: the call made more distinct writes, refusals and commands than its access
	// record keeps (sandbox.MaxKeptEntries); the record never drops one, so the call ends.
	LimitRecord Limit = "accessRecord"
	// LimitWorker: the isolation worker running the call died (its own limits, a crash).
	LimitWorker Limit = "worker"
)

// OutputCap reports whether l is one of the output caps.
func (l Limit) OutputCap() bool { return l == LimitStdout || l == LimitStderr }

// SetLimit records that limit l ended the run, with the sentence the result shows.
func (o *Outcome) SetLimit(l Limit, format string, args ...any) {
	o.Limit, o.LimitHit = l, fmt.Sprintf(format, args...)
}
