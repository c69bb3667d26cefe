package interp

import (
	"context"
	"io"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/builtins"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// JQOptions are what RunJQ's jq reads and writes: its stdio, working directory, the filesystem
// its file operands are read through, and the environment `$ENV` and `env` see.
type JQOptions struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Dir            string
	FS             *sandbox.FS
	Getenv         func(string) string
	Environ        func() []string
}

// RunJQ runs the sandbox's jq utility (gojq) with jq's command-line options (args without the
// command name) and returns its exit status: `mcp-bash jq`, the JSON tool of native tools.
func RunJQ(ctx context.Context, o JQOptions, args []string) int {
	jq, _ := builtins.Lookup("jq")
	env := &builtins.Env{Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, Dir: o.Dir, FS: o.FS,
		Getenv: o.Getenv, Environ: o.Environ, Now: time.Now}
	return jq(ctx, env, append([]string{"jq"}, args...))
}
