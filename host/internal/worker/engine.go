package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/wasm"
)

// Engine is the sandbox engine behind process isolation (MCPBASH_ISOLATION=process): it
// implements the engine contract by running each Job in a worker process of Pool, the Job's
// callbacks staying in this process.
type Engine struct {
	Pool *Pool
	// CPU bounds the CPU time of one call in its worker (0: twice its timeout plus 2 s).
	CPU time.Duration
	// Project is the project root (a confined worker may read all of it).
	Project string
}

// Run runs a sandboxed job in a worker. Only wasm commands (*wasm.Commands) can cross to a
// worker: the worker builds them again from their directories.
func (e *Engine) Run(ctx context.Context, job engine.Job) *engine.Outcome {
	p := job.Policy
	spec := Spec{Call: CallOf(job.Call), Script: job.Script, Dir: job.Dir, Roots: RootsOf(p), ToolDir: p.ToolDir,
		Allow: p.Allow, Limits: p.Limits, ScratchBase: job.ScratchBase, Args: job.Args, Spill: job.Spill,
		CPU: e.CPU, Project: e.Project, Confine: job.Confiner != nil, Layer: p.Layer,
		RequireConfinement: job.Confiner != nil && job.Confiner.Required, Network: job.Network}
	spec.sendArgsOnce(job.AllEnv())
	if t, ok := ctx.Value(tenantKey{}).(Tenant); ok {
		spec.Tenant, spec.ConfineRoots, spec.HeapMiB = t.ID, RootsOf(sandbox.Policy{Roots: t.Roots}), t.HeapMiB
		if spec.ConfineRoots == nil {
			spec.ConfineRoots = []RootSpec{} // a tenant without roots: confined to none
		}
	}
	switch cmds := job.Commands.(type) {
	case nil:
	case *wasm.Commands:
		spec.Wasm = &WasmSpec{Dirs: cmds.Dirs, MemoryMiB: cmds.MemoryMiB, Allow: cmds.Allow}
	default:
		return &engine.Outcome{ExitCode: 126, Stderr: []byte(fmt.Sprintf("mcp-bash: commands of type %T cannot run in a worker process", cmds))}
	}
	return e.Pool.Run(ctx, spec, job.Call, job.Cancelled)
}

// Tenant is the hosting tenant a call runs for: its worker processes serve only that tenant and
// are Landlock-confined to Roots (the tenant's, not a client's narrowed list).
type Tenant struct {
	ID    string
	Roots []sandbox.Root
	// HeapMiB is the heap limit of the tenant's workers (0: the pool's).
	HeapMiB int
}

type tenantKey struct{}

// WithTenant marks ctx's calls as t's: Engine.Run runs them in t's own workers.
func WithTenant(ctx context.Context, t Tenant) context.Context {
	return context.WithValue(ctx, tenantKey{}, t)
}

// Environment is the environment a job's script starts with (the sandbox's).
func (e *Engine) Environment(job engine.Job) []string { return interp.Environment(job) }
