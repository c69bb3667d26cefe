package interp

import (
	"context"
	"io"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Commands are programs the sandbox runs in-process besides its own utilities (wasm commands):
// found by name, run over the call's sandbox filesystem with the script's stdio, working
// directory and exported variables.
type Commands interface {
	// Lookup returns the program a command name runs ("" when none).
	Lookup(name string) string
	// Run runs a program found by Lookup and returns its exit status.
	Run(ctx context.Context, cmd Command) int
}

// Command is one run of a program from Commands.
type Command struct {
	Program string
	// Args is argv, the command name first.
	Args []string
	// Dir is the script's working directory; Env its exported variables.
	Dir            string
	Env            []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// FS is the call's sandbox filesystem, the only one the program may see.
	FS *sandbox.FS
}

// extCommand returns the program behind a command name from the job's Commands ("" when none).
func (c *call) extCommand(name string) string {
	if c.job.Commands == nil || name == "" || strings.Contains(name, "/") {
		return ""
	}
	return c.job.Commands.Lookup(name)
}

// runExt runs a program of the job's Commands.
func (c *call) runExt(ctx context.Context, cc cmdCtx, prog string, args []string) error {
	c.rec.Add(sandbox.Access{Op: "exec", Path: prog, Allowed: true, Reason: "wasm command"})
	return status(c.job.Commands.Run(ctx, Command{Program: prog, Args: args, Dir: cc.dir, Env: exported(cc.env),
		Stdin: cc.stdin, Stdout: cc.stdout, Stderr: cc.stderr, FS: c.fs}))
}
