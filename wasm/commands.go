package wasm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Commands makes `*.wasm` programs in Dirs commands of a sandboxed script (engine.Commands),
// run on the runtime Runtime returns (started on first use by the caller). One Commands serves
// one call: every command the call runs, background jobs included, shares its memory budget.
type Commands struct {
	Runtime   func() (*Runtime, error)
	Dirs      []string
	Call      *engine.Call
	MemoryMiB int
	Cancelled func() bool
	// Allow, when not nil, names the only modules that are commands (a hosting tenant's wasm
	// list); any other NAME.wasm is not found, as if it were not there.
	Allow []string

	once   sync.Once
	budget *CallMemory
}

// Lookup finds NAME.wasm in Dirs.
func (w *Commands) Lookup(name string) (string, engine.Program) {
	if w.Allow != nil && !slices.Contains(w.Allow, name) {
		return "", nil
	}
	module := FindCommand(w.Dirs, name)
	if module == "" {
		return "", nil
	}
	return module, func(ctx context.Context, env *engine.Env, argv []string) int { return w.run(ctx, module, env, argv) }
}

// run runs one command with the script's stdio, exported variables and sandbox FS.
func (w *Commands) run(ctx context.Context, module string, env *engine.Env, argv []string) int {
	rt, err := w.Runtime()
	if err != nil {
		fmt.Fprintf(env.Stderr, "mcp-bash: %s: %v\n", argv[0], err)
		return 126
	}
	w.once.Do(func() { w.budget = NewCallMemory(w.MemoryMiB, rt.opts.Meter) })
	var environ []string
	if env.Environ != nil {
		environ = env.Environ()
	}
	st, err := rt.Run(ctx, Program{Module: module, Args: argv, Env: environ, Dir: env.Dir,
		Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, FS: env.FS, Memory: w.budget,
		Call: w.Call, Cancelled: w.Cancelled})
	switch {
	case errors.Is(err, ErrMemoryLimit):
		fmt.Fprintf(env.Stderr, "mcp-bash: %s: exceeded the memory limit (%d MiB for the call's wasm commands together, sandbox.memoryMiB)\n",
			argv[0], w.budget.Limit()>>20)
	case errors.Is(err, ErrProcessMemory):
		fmt.Fprintf(env.Stderr, "mcp-bash: %s: exceeded the server's memory limit for all guests (MCPBASH_MAX_HEAP_MB)\n", argv[0])
	}
	return st
}
