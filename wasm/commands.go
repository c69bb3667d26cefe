package wasm

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcp-bash/mcp-bash/sdk"
)

// Commands makes `*.wasm` programs in Dirs commands of a sandboxed script (sdk.Commands),
// run on the runtime Runtime returns (started on first use by the caller).
type Commands struct {
	Runtime   func() (*Runtime, error)
	Dirs      []string
	Call      *sdk.Call
	MemoryMiB int
	Cancelled func() bool
}

// Lookup finds NAME.wasm in Dirs.
func (w *Commands) Lookup(name string) string { return FindCommand(w.Dirs, name) }

// Run runs one command with the script's stdio, environment and sandbox FS.
func (w *Commands) Run(ctx context.Context, cmd sdk.Command) int {
	rt, err := w.Runtime()
	if err != nil {
		fmt.Fprintf(cmd.Stderr, "mcp-bash: %s: %v\n", cmd.Args[0], err)
		return 126
	}
	st, err := rt.Run(ctx, Program{Module: cmd.Program, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir,
		Stdin: cmd.Stdin, Stdout: cmd.Stdout, Stderr: cmd.Stderr, FS: cmd.FS, MemoryMiB: w.MemoryMiB,
		Call: w.Call, Cancelled: w.Cancelled})
	if errors.Is(err, ErrMemoryLimit) {
		fmt.Fprintf(cmd.Stderr, "mcp-bash: %s: exceeded the memory limit (%d MiB, sandbox.memoryMiB)\n", cmd.Args[0], w.MemoryMiB)
	}
	return st
}
