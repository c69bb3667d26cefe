package wasm

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"slices"
	"sync"
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
func (w *Commands) Lookup(name string) string {
	if w.Allow != nil && !slices.Contains(w.Allow, name) {
		return ""
	}
	return FindCommand(w.Dirs, name)
}

// Run runs one command with the script's stdio, environment and sandbox FS.
func (w *Commands) Run(ctx context.Context, cmd engine.Command) int {
	rt, err := w.Runtime()
	if err != nil {
		fmt.Fprintf(cmd.Stderr, "mcp-bash: %s: %v\n", cmd.Args[0], err)
		return 126
	}
	w.once.Do(func() { w.budget = NewCallMemory(w.MemoryMiB, rt.opts.Meter) })
	st, err := rt.Run(ctx, Program{Module: cmd.Program, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir,
		Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, FS: cmd.FS, Memory: w.budget,
		Call: w.Call, Cancelled: w.Cancelled})
	switch {
	case errors.Is(err, ErrMemoryLimit):
		fmt.Fprintf(cmd.Stderr, "mcp-bash: %s: exceeded the memory limit (%d MiB for the call's wasm commands together, sandbox.memoryMiB)\n",
			cmd.Args[0], w.budget.Limit()>>20)
	case errors.Is(err, ErrProcessMemory):
		fmt.Fprintf(cmd.Stderr, "mcp-bash: %s: exceeded the server's memory limit for all guests (MCPBASH_MAX_HEAP_MB)\n", cmd.Args[0])
	}
	return st
}
