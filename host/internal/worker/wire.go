// Package worker runs sandboxed tool calls in supervised child processes of our own binary
// (the hidden `mcp-bash __worker` verb), so that a call that crashes the interpreter, runs out of
// memory or overflows its stack ends that process, not the server. The parent keeps a small warm
// pool, gives each worker one call at a time over a pipe (never the server's stdio), relays the
// call's events (progress, logs, elicitation, sampling, downloads) and turns a worker's death into
// an outcome that names the cause.
package worker

import (
	"encoding/json"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Command is the hidden subcommand a worker process runs.
const Command = "__worker"

// Spec is one call as it travels to a worker: everything interp.Job holds except the Go
// callbacks, which become messages.
type Spec struct {
	Call        CallSpec       `json:"call"`
	Script      string         `json:"script"`
	Dir         string         `json:"dir"`
	Roots       []RootSpec     `json:"roots"`
	ToolDir     string         `json:"toolDir,omitempty"`
	Allow       []string       `json:"allow,omitempty"`
	Limits      sandbox.Limits `json:"limits"`
	ScratchBase string         `json:"scratchBase,omitempty"`
	// ScratchRoot is the server's scratch base: ScratchBase is a directory the parent made in it
	// for this call (and removes afterwards, even when the worker dies); Landlock rules name
	// ScratchRoot so that they stay the same from call to call.
	ScratchRoot string            `json:"scratchRoot,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	// ArgsEnv: Env's MCP_TOOL_ARGS_JSON is Call.Args, left out of Env so that megabytes of
	// arguments are sent (and decoded) once.
	ArgsEnv bool     `json:"argsEnv,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Spill is engine.Job.Spill.
	Spill int `json:"spill,omitempty"`
	// Confine puts allowlisted external commands under Landlock (the server's Confiner).
	Confine            bool `json:"confine,omitempty"`
	RequireConfinement bool `json:"requireConfinement,omitempty"`
	// CPU bounds the CPU time the call may use in its worker (0: twice its timeout plus 2 s).
	CPU time.Duration `json:"cpu,omitempty"`
	// Network is what the tool's meta allows its external commands; the worker itself is
	// confined with it too.
	Network bool `json:"network,omitempty"`
	// Project is the project root: a confined worker may read all of it (the sandbox FS still
	// decides what a script sees), so that its rules are the same for every tool.
	Project string `json:"project,omitempty"`
	// Wasm makes `*.wasm` in these directories commands of the script.
	Wasm *WasmSpec `json:"wasm,omitempty"`
	// Tenant is the hosting tenant the call belongs to ("" outside hosting mode): a worker that
	// ran a call of one tenant never runs another's (it is part of the pool's key).
	Tenant string `json:"tenant,omitempty"`
	// ConfineRoots, when set (hosting mode), replace Roots in the worker's Landlock rules: the
	// tenant's own roots as the operator configured them, never a client's narrowed list, so
	// that a directory swapped for a symlink between the check and the confinement cannot point
	// the rules at another tenant's files.
	ConfineRoots []RootSpec `json:"confineRoots"`
	// Layer is the call's review layer directory (sandbox.Policy.Layer; "" in direct mode). A
	// confined worker may write its parent, the layers of the call's scope, so that its rules
	// stay the same from call to call.
	Layer string `json:"layer,omitempty"`
	// HeapMiB, when set (a hosting tenant's memoryMiB), is the heap limit of the worker that
	// runs the call (0: the pool's): the parent starts the worker with it and matches workers by
	// it, so it is part of the key.
	HeapMiB int `json:"heapMiB,omitempty"`
	// Deadline is when the call's time is up, counted from when the parent took the call: the
	// worker's own timer would start only once it has read the job, and sending megabytes of
	// arguments to it is part of the call's time.
	Deadline time.Time `json:"deadline,omitzero"`
}

// argsEnvName is the contract variable that holds the call's arguments.
const argsEnvName = "MCP_TOOL_ARGS_JSON"

// sendArgsOnce leaves MCP_TOOL_ARGS_JSON out of env when it is the call's arguments and they
// are long (ArgsEnv); env is not changed.
func (s *Spec) sendArgsOnce(env map[string]string) {
	s.Env = env
	v, ok := env[argsEnvName]
	if !ok || len(v) < 4096 || v != string(s.Call.Args) {
		return
	}
	s.Env = make(map[string]string, len(env)-1)
	for k, v := range env {
		if k != argsEnvName {
			s.Env[k] = v
		}
	}
	s.ArgsEnv = true
}

// env is the job's environment as the parent had it (sendArgsOnce undone).
func (s *Spec) env() map[string]string {
	if !s.ArgsEnv {
		return s.Env
	}
	m := make(map[string]string, len(s.Env)+1)
	for k, v := range s.Env {
		m[k] = v
	}
	m[argsEnvName] = string(s.Call.Args)
	return m
}

// timeLeft is the run's timeout at now: what is left of the call's time (at least a
// millisecond, so that a call whose time is up times out rather than running with the default),
// never more than its own timeout.
func (s *Spec) timeLeft(now time.Time) time.Duration {
	t := s.Limits.WithDefaults().Timeout
	if s.Deadline.IsZero() {
		return t
	}
	return max(min(s.Deadline.Sub(now), t), time.Millisecond)
}

// RootSpec is a sandbox.Root with its mode on the wire (Root's Mode is not serialised).
type RootSpec struct {
	Path     string `json:"path"`
	Name     string `json:"name,omitempty"`
	ReadOnly bool   `json:"readOnly,omitempty"`
	// Protected is sandbox.Root's Protected (read-only project metadata inside a root).
	Protected bool `json:"protected,omitempty"`
}

// WasmSpec locates the wasm commands of a call. A worker compiles them in memory only: it runs
// scripts, so it is never given the compilation cache or its key (docs/WASM.md).
type WasmSpec struct {
	Dirs      []string `json:"dirs"`
	MemoryMiB int      `json:"memoryMiB"`
	// Allow is wasm.Commands' Allow (null: every module; [] none).
	Allow []string `json:"allow"`
}

// CallSpec is engine.Call without its callbacks; HasX says whether the parent can answer X.
type CallSpec struct {
	Tool              string          `json:"tool"`
	ToolPath          string          `json:"toolPath"`
	ToolDir           string          `json:"toolDir"`
	Args              json.RawMessage `json:"args,omitempty"`
	Meta              json.RawMessage `json:"meta,omitempty"`
	Metadata          json.RawMessage `json:"metadata,omitempty"`
	ProgressToken     json.RawMessage `json:"progressToken,omitempty"`
	Roots             []engine.Root   `json:"roots,omitempty"`
	ElicitSupported   bool            `json:"elicitSupported,omitempty"`
	SamplingSupported bool            `json:"samplingSupported,omitempty"`
	UISupported       bool            `json:"uiSupported,omitempty"`
	MaxTextBytes      int             `json:"maxTextBytes,omitempty"`
	HasDownload       bool            `json:"hasDownload,omitempty"`
	HasSink           bool            `json:"hasSink,omitempty"`
}

// Policy returns the sandbox policy the spec describes.
func (s *Spec) Policy() sandbox.Policy {
	p := sandbox.Policy{ToolDir: s.ToolDir, Allow: s.Allow, Limits: s.Limits, Layer: s.Layer}
	for _, r := range s.Roots {
		mode := sandbox.ReadWrite
		if r.ReadOnly {
			mode = sandbox.ReadOnly
		}
		p.Roots = append(p.Roots, sandbox.Root{Path: r.Path, Name: r.Name, Mode: mode, Protected: r.Protected})
	}
	return p
}

// RootsOf is the wire form of a policy's roots.
func RootsOf(p sandbox.Policy) []RootSpec {
	out := make([]RootSpec, len(p.Roots))
	for i, r := range p.Roots {
		out[i] = RootSpec{Path: r.Path, Name: r.Name, ReadOnly: r.Mode != sandbox.ReadWrite, Protected: r.Protected}
	}
	return out
}

// CallOf is the wire form of a call.
func CallOf(c *engine.Call) CallSpec {
	return CallSpec{Tool: c.Tool, ToolPath: c.ToolPath, ToolDir: c.ToolDir, Args: c.Args, Meta: c.Meta, Metadata: c.Metadata,
		ProgressToken: c.ProgressToken, Roots: c.Roots, ElicitSupported: c.ElicitSupported && c.Elicit != nil,
		SamplingSupported: c.SamplingSupported && c.Sample != nil, UISupported: c.UISupported, MaxTextBytes: c.MaxTextBytes,
		HasDownload: c.Download != nil, HasSink: c.Sink != nil}
}

// frame is one message on a worker's pipe, in either direction (NDJSON).
//
// parent → worker: job (Job), cancel (Client: a client cancellation rather than the parent's
// watchdog), reply (ID, Result or Error).
// worker → parent: ready, progress (Progress, Total, Message), log (Level, Logger, Data),
// request (ID, Kind: elicit|sample|download, Request), outcome (Outcome).
type frame struct {
	T        string          `json:"t"`
	Job      *Spec           `json:"job,omitempty"`
	Client   bool            `json:"client,omitempty"`
	ID       int64           `json:"id,omitempty"`
	Kind     string          `json:"kind,omitempty"`
	Request  json.RawMessage `json:"request,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *replyError     `json:"error,omitempty"`
	Progress float64         `json:"progress,omitempty"`
	Total    *float64        `json:"total,omitempty"`
	Message  string          `json:"message,omitempty"`
	Level    string          `json:"level,omitempty"`
	Logger   string          `json:"logger,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Outcome  *engine.Outcome `json:"outcome,omitempty"`
}

// replyError carries an error of the parent's callback back to the worker; a download error
// keeps its type for mcp_download_safe's messages.
type replyError struct {
	Message      string `json:"message"`
	DownloadType string `json:"downloadType,omitempty"`
}

// downloadRequest is engine.DownloadRequest on the wire.
type downloadRequest struct {
	URL       string   `json:"url"`
	Allow     []string `json:"allow,omitempty"`
	Deny      []string `json:"deny,omitempty"`
	MaxBytes  int64    `json:"maxBytes"`
	TimeoutNS int64    `json:"timeoutNs"`
}

// elicitRequest is engine.ElicitRequest on the wire.
type elicitRequest struct {
	Mode      string          `json:"mode"`
	Message   string          `json:"message"`
	Schema    json.RawMessage `json:"schema,omitempty"`
	URL       string          `json:"url,omitempty"`
	TimeoutNS int64           `json:"timeoutNs"`
}
