// Package builtins holds the utilities a sandboxed script may call (jq, cat, sleep, ...),
// implemented in Go. They read and write only through the sandbox filesystem and the call's
// stdio, and honour the call's context.
package builtins

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/strerror"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Env is what a utility may touch: the engine's one interface of in-process programs
// (engine.Env), which the SDK's builtins and wasm commands get too.
type Env = engine.Env

// fixPerm sets a just-created p to want under the shell's umask when the host process's own
// umask (bash's usual 022) took bits the script's umask leaves.
func fixPerm(e *Env, p string, want fs.FileMode) error {
	if e.Perm(want)&0o022 == 0 {
		return nil
	}
	return e.FS.Chmod(p, e.Perm(want))
}

// Func runs a utility; argv[0] is its name. It returns the exit status.
type Func = engine.Program

// table is fixed at init; lookups never mutate it.
var table = map[string]Func{}

// register adds a utility; each run gets its own meter on the call's budget (budget.go), given
// back when it returns.
func register(name string, f Func) {
	table[name] = func(ctx context.Context, env *Env, argv []string) int {
		m := &meter{b: env.Budget}
		defer m.close()
		return f(context.WithValue(ctx, meterKey{}, m), env, argv)
	}
}

// Lookup finds a utility by name.
func Lookup(name string) (Func, bool) {
	f, ok := table[name]
	return f, ok
}

// Names lists every utility, sorted.
func Names() []string {
	n := make([]string, 0, len(table))
	for k := range table {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// errorf prints "name: message" to stderr, GNU style, and returns status.
func errorf(env *Env, status int, name, format string, args ...any) int {
	fmt.Fprintf(env.Stderr, name+": "+format+"\n", args...)
	return status
}

// nativeFix is the fix for what only the host's program does (as the evaluator's DefaultFix).
const nativeFix = `run the tool with "exec": "native" in tool.meta.json`

// unsupported refuses what a program cannot do as GNU's does: the engine ends the call with a
// refusal naming the construct, where it is and the fix; without the engine's hook the
// program only says so.
func unsupported(env *Env, name, construct, fix string) int {
	if env.Refuse != nil {
		env.Refuse(name+" "+construct, fix)
		return 1
	}
	return errorf(env, 1, name, "%s is not supported in the sandbox; %s", construct, fix)
}

// describe turns a filesystem error into the words coreutils use, plus the sandbox's reason
// when it refused the operation for one.
func describe(err error) string {
	if why := sandbox.Reason(err); why != "" {
		return "Permission denied (sandbox: " + why + ")"
	}
	return strerror.Words(err)
}

// openInput opens a named input ("-" is stdin).
func openInput(env *Env, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(env.Stdin), nil
	}
	p := env.Abs(name)
	if f, ok, err := openDevice(env, p); ok {
		return f, err
	}
	fi, err := env.FS.Stat(p)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	f, err := env.FS.Open(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ctxReader ends reads when the call's context ends.
type ctxReader = sandbox.CtxReader

func ctxRead(ctx context.Context, r io.Reader) ctxReader { return ctxReader{Ctx: ctx, R: r} }

// ctxWriter fails its writes once ctx has ended: a utility that formats a long output from
// what it holds (diff's millions of lines) stops with the call, since a bufio.Writer over it
// keeps the error and its writers stop at the first.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

func init() {
	register("cat", cat)
	register("sleep", sleep)
	register("true", func(context.Context, *Env, []string) int { return 0 })
	register("false", func(context.Context, *Env, []string) int { return 1 })
}

// sleep accepts seconds with an optional s/m/h/d suffix and fractions, summing its arguments.
func sleep(ctx context.Context, env *Env, argv []string) int {
	if len(argv) < 2 {
		return errorf(env, 1, "sleep", "missing operand")
	}
	var total time.Duration
	for _, a := range argv[1:] {
		d, ok := parseSleep(a)
		if !ok {
			return errorf(env, 1, "sleep", "invalid time interval '%s'", a)
		}
		total += d
	}
	t := time.NewTimer(total)
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-ctx.Done():
		return 130
	}
}

func parseSleep(s string) (time.Duration, bool) {
	if s == "" {
		return 0, false
	}
	unit := time.Second
	switch s[len(s)-1] {
	case 's':
		s = s[:len(s)-1]
	case 'm':
		unit, s = time.Minute, s[:len(s)-1]
	case 'h':
		unit, s = time.Hour, s[:len(s)-1]
	case 'd':
		unit, s = 24*time.Hour, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) {
		return 0, false
	}
	if f > 1e6 {
		f = 1e6
	}
	return time.Duration(f * float64(unit)), true
}
