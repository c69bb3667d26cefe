package wasm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Engine is the wasm engine of the engine contract: it runs tool modules
// (`tools/<name>/tool.wasm`, the Job's Script) on the runtime Runtime returns, which the caller
// starts on first use (a project without wasm never pays for one).
type Engine struct {
	Runtime func() (*Runtime, error)
}

// Run runs a wasm tool (see Runtime.RunTool).
func (e *Engine) Run(ctx context.Context, job engine.Job) *engine.Outcome {
	rt, err := e.Runtime()
	if err != nil {
		return &engine.Outcome{ExitCode: 1, Stderr: []byte("mcp-bash: " + err.Error())}
	}
	return rt.RunTool(ctx, job)
}

// RunTool runs a wasm tool (the module t.Script) as the sandbox engine runs a script: the
// arguments JSON on stdin and in MCP_TOOL_ARGS_JSON, stdout the result, the exit status, a
// stderr tail, the call's timeout and output caps, t.MemoryMiB of memory, and the roots
// (through sandbox.FS) as the only filesystem.
func (r *Runtime) RunTool(ctx context.Context, t engine.Job) *engine.Outcome {
	out := &engine.Outcome{}
	scratch := sandbox.NewCallDir(sandbox.ScratchBase(t.ScratchBase), "mcpbash-wasm-")
	defer scratch.Remove()
	f, err := engine.BeginFrame(ctx, &t, scratch.Scratch(""))
	if err != nil {
		out.ExitCode = 1
		out.Stderr = []byte("mcp-bash: roots: " + err.Error())
		return out
	}
	defer f.Close()
	if r.opts.WatchMemory != nil {
		// The server's heap guard weighs the heap with every guest's memory: past
		// MCPBASH_MAX_HEAP_MB it stops the run, as it stops scripts.
		defer r.opts.WatchMemory(func(cause error) { f.Stop(fmt.Errorf("%w: %w", ErrProcessMemory, cause)) })()
	}
	extra := map[string]string{}
	t.EachEnv(func(k, v string) { extra[k] = v })
	sh := sandbox.ShellPath(scratch.Path) // the guest sees the sandbox's paths
	env := sandbox.BaseEnv(sh, sh, extra)
	args := []byte("{}")
	if t.Call != nil && len(t.Call.Args) > 0 {
		args = t.Call.Args
	}
	name := filepath.Base(filepath.Dir(t.Script))
	if t.Call != nil && t.Call.Tool != "" {
		name = t.Call.Tool
	}
	status, runErr := r.Run(f.Ctx, Program{
		Module: t.Script, Args: []string{name}, Env: env, Dir: sandbox.ShellPath(t.Dir),
		Stdin: bytes.NewReader(args), Stdout: f.Stdout, Stderr: f.Stderr,
		FS: f.FS, Memory: NewCallMemory(t.MemoryMiB, r.opts.Meter), Call: t.Call, Cancelled: f.Cancelled,
	})
	memMiB := t.MemoryMiB
	if memMiB <= 0 {
		memMiB = DefaultMemoryMiB
	}
	f.Finish(out, status, func(cause error) bool {
		switch {
		case errors.Is(cause, ErrProcessMemory), errors.Is(runErr, ErrProcessMemory):
			out.SetLimit(engine.LimitMemory, "Tool exceeded the memory limit (MCPBASH_MAX_HEAP_MB)")
		case errors.Is(runErr, ErrMemoryLimit):
			out.SetLimit(engine.LimitMemory, "Tool exceeded the memory limit (%d MiB, sandbox.memoryMiB)", memMiB)
		default:
			return false
		}
		return true
	})
	f.Report(out)
	return out
}

// Environment is the environment a tool module starts with (run-tool --print-env), with the
// per-call scratch named rather than created.
func (e *Engine) Environment(job engine.Job) []string {
	return sandbox.BaseEnv("$HOME (per-call scratch)", "$TMPDIR (per-call scratch)", job.AllEnv())
}
