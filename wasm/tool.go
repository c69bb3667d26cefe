package wasm

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// Tool is one call of a wasm tool (`tools/<name>/tool.wasm`).
type Tool struct {
	Call *sdk.Call
	// Module is the tool's .wasm file.
	Module string
	// Dir is the initial working directory (the project root when a root covers it).
	Dir    string
	Policy sandbox.Policy
	// Env holds the tool-contract variables (MCP_*, MCPBASH_*), added to the base environment.
	Env map[string]string
	// ScratchBase is where the call's private HOME/TMPDIR is made ("" = sandbox.ScratchBase).
	ScratchBase string
	// MemoryMiB is the tool's sandbox.memoryMiB (0: DefaultMemoryMiB).
	MemoryMiB int
	// Cancelled reports a client cancellation (as opposed to a timeout or limit).
	Cancelled func() bool
}

// Limit causes that end a tool run early.
var (
	errCallEnded = errors.New("call ended")
)

// RunTool runs a wasm tool as the sandbox engine runs a script: the arguments JSON on stdin and
// in MCP_TOOL_ARGS_JSON, stdout the result, the exit status, a stderr tail, the call's timeout
// and output caps, and the roots (through sandbox.FS) as the only filesystem.
func (r *Runtime) RunTool(ctx context.Context, t Tool) *sdk.Outcome {
	out := &sdk.Outcome{}
	limits := t.Policy.Limits.WithDefaults()
	rec := &sandbox.Record{}
	scratch := newScratch(sandbox.ScratchBase(t.ScratchBase))
	defer scratch.remove()
	fsys, err := sandbox.NewFS(t.Policy, sandbox.Scratch{Path: scratch.dir, Create: scratch.create}, rec)
	if err != nil {
		out.ExitCode = 1
		out.Stderr = []byte("mcp-bash: roots: " + err.Error())
		return out
	}
	defer fsys.Close()
	cancelled := t.Cancelled
	if cancelled == nil {
		cancelled = func() bool { return false }
	}

	// Compiling the module is the host's work, done once per process (seconds for a Go guest,
	// many more on a loaded machine): the call waits for it, but its timeout counts only the
	// guest's run, or the first call of a quick tool would time out on a busy host. A failed
	// compile is reported by Run, which tries again.
	if _, err := r.Compile(ctx, t.Module); err != nil && ctx.Err() != nil {
		out.ExitCode = 1
		out.Cancelled = cancelled()
		return out
	}
	runCtx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(errCallEnded)
	runCtx, cancelTimeout := context.WithTimeout(runCtx, limits.Timeout)
	defer cancelTimeout()
	stdout := &sandbox.HeadBuffer{Max: limits.MaxStdoutBytes, OnFull: func() { cancelCause(sandbox.ErrStdoutLimit) }}
	stderr := &sandbox.TailBuffer{Keep: 4096, Max: limits.MaxStderrBytes, OnFull: func() { cancelCause(sandbox.ErrStderrLimit) }}

	extra := map[string]string{}
	for k, v := range t.Env {
		extra[k] = v
	}
	env := sandbox.BaseEnv(scratch.dir, scratch.dir, extra)
	args := []byte("{}")
	if t.Call != nil && len(t.Call.Args) > 0 {
		args = t.Call.Args
	}
	name := filepath.Base(filepath.Dir(t.Module))
	if t.Call != nil && t.Call.Tool != "" {
		name = t.Call.Tool
	}
	status, runErr := r.Run(runCtx, Program{
		Module: t.Module, Args: []string{name}, Env: env, Dir: t.Dir,
		Stdin: bytes.NewReader(args), Stdout: stdout, Stderr: stderr,
		FS: fsys, MemoryMiB: t.MemoryMiB, Call: t.Call, Cancelled: cancelled,
	})
	memMiB := t.MemoryMiB
	if memMiB <= 0 {
		memMiB = DefaultMemoryMiB
	}
	out.Stdout = stdout.Bytes()
	out.ExitCode = status
	cause := context.Cause(runCtx)
	switch {
	case cancelled():
		out.Cancelled = true
	case errors.Is(cause, sandbox.ErrStdoutLimit):
		out.LimitHit = fmt.Sprintf("Tool output exceeded %d bytes", limits.MaxStdoutBytes)
	case errors.Is(cause, sandbox.ErrStderrLimit):
		out.LimitHit = fmt.Sprintf("Tool stderr exceeded %d bytes", limits.MaxStderrBytes)
	case errors.Is(runErr, ErrMemoryLimit):
		out.LimitHit = fmt.Sprintf("Tool exceeded the memory limit (%d MiB, sandbox.memoryMiB)", memMiB)
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		out.TimedOut = true
	}
	out.Stderr = stderr.Tail()
	entries, truncated := rec.Entries()
	if entries == nil {
		entries = []sandbox.Access{}
	}
	acc := map[string]any{"entries": entries}
	if truncated > 0 {
		acc["truncated"] = truncated
	}
	out.Access, _ = json.Marshal(acc)
	return out
}

// scratch is a call's private HOME and TMPDIR outside every root, made on first use.
type scratch struct {
	dir     string
	once    sync.Once
	created bool
	err     error
}

func newScratch(base string) *scratch {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &scratch{dir: filepath.Join(base, "mcpbash-wasm-"+hex.EncodeToString(b[:]))}
}

func (s *scratch) create() error {
	s.once.Do(func() {
		s.err = os.Mkdir(s.dir, 0o700)
		s.created = s.err == nil
	})
	return s.err
}

func (s *scratch) remove() {
	if s.created {
		_ = os.RemoveAll(s.dir)
	}
}
