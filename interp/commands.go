package interp

import (
	"context"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// extCommand returns the program behind a command name from the job's Commands ("" when none).
func (c *call) extCommand(name string) string {
	if c.job.Commands == nil || name == "" || strings.Contains(name, "/") {
		return ""
	}
	return c.job.Commands.Lookup(name)
}

// runExt runs a program of the job's Commands.
func (c *call) runExt(ctx context.Context, cc cmdCtx, prog string, args []string) int {
	c.rec.Add(sandbox.Access{Op: "exec", Path: prog, Allowed: true, Reason: "wasm command"})
	return c.job.Commands.Run(ctx, engine.Command{Program: prog, Args: args, Dir: cc.dir, Env: cc.environ(),
		Stdin: cc.stdin, Stdout: cc.stdout, Stderr: cc.stderr, FS: c.fs})
}
