package eval

import (
	"context"
	"io"
	"runtime"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file is what the sandbox engine (package interp) needs beyond running one program:
// functions installed before a run (the SDK prelude) and executable scripts run as child
// shells that share the run's limits, counters and goroutines.

// Define installs the functions a program declares at its top level without running anything
// else of it. It is called before Run (the SDK prelude's functions).
func (r *Runner) Define(p *Program) {
	for _, s := range p.stmts {
		if fd, ok := s.Cmd.(*syntax.FuncDecl); ok && fd.Name != nil {
			r.funcs.m[fd.Name.Value] = &funcDef{body: fd.Body, src: p.src, name: fd.Name.Value, sdk: true}
		}
	}
}

// Script is an executable shell script run as bash runs one: in a new shell whose variables
// are the exported environment it is given, with its own functions, options and traps.
type Script struct {
	Program *Program
	// Name is $0, Args $1...; Dir the working directory; Environ the exported variables.
	Name    string
	Args    []string
	Dir     string
	Environ []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// Define lists programs whose functions the new shell starts with (the SDK prelude).
	Define []*Program
}

// RunScript runs a script in a child shell of this one. The child counts one nesting level
// against MaxCallDepth and shares the run's command, job, memory and descriptor limits, its
// cancellation and its goroutines (its background jobs end with the run). The error is one
// of the run-ending errors of Run; the status is the script's exit status.
func (s *Shell) RunScript(ctx context.Context, sc Script) (int, error) {
	r := s.r
	c := r.c
	if r.depth >= c.limits.MaxCallDepth {
		return 1, &LimitError{Kind: LimitDepth, Max: int64(c.limits.MaxCallDepth)}
	}
	id := c.cfg.Identity
	id.PPID = r.bashpid
	child := &Runner{c: c, id: c.ids.Add(1), ctx: ctx}
	child.scopes = []*scope{{vars: make(map[string]variable, 8), owner: child.id, base: NewBase(sc.Environ, id).vars}}
	child.funcs = &funcTable{m: map[string]*funcDef{}, owner: child.id}
	child.opts = defaultSetOpts
	child.shopts = defaultShopts
	child.params = sc.Args
	child.arg0 = sc.Name
	child.dir = sc.Dir
	child.bashpid = int(c.pids.Add(1))
	child.traps = &traps{}
	child.jobs = &jobTable{}
	child.secondsBase = c.now()
	child.lastArg = sc.Name
	child.depth = r.depth + 1
	child.fds = newFdTable(sc.Stdin, sc.Stdout, sc.Stderr)
	child.initVars()
	for _, d := range sc.Define {
		child.Define(d)
	}
	// Exported functions go to the child as bash passes them in its environment.
	for name, f := range r.funcs.m {
		if f.exported && !f.sdk {
			child.funcs.m[name] = f
		}
	}
	// Its background jobs keep their own descriptors and end with the run, as orphans of an
	// exited script would go on until the call ends.
	defer child.fds.closeAll()
	p := sc.Program
	child.cur = p.src
	child.runTop(p.stmts)
	if child.flow != flowAbort && p.err != nil && child.flow != flowExit {
		child.lineno = int(p.err.Pos.Line())
		child.errorf("syntax error: %s", p.err.Text)
		child.status = 2
		child.flow, child.exitStatus = flowExit, 2
	}
	child.runExitTrap()
	if child.flow == flowAbort {
		return 1, c.fatal()
	}
	if child.flow == flowExit {
		return child.exitStatus, nil
	}
	return child.status, nil
}

// IsBuiltin reports whether name is a shell builtin of the evaluator.
func IsBuiltin(name string) bool {
	_, ok := builtinTable[name]
	return ok
}

// awaitLive is called when one more goroutine would pass MaxJobs: the goroutines counted may
// only be waiting to be scheduled (`: <(true)` in a loop starts them faster than a loaded
// machine runs them to their end), so the shell yields until they have had their turn. It
// reports whether the count (including the new one) is back within the limit; goroutines that
// are really running or blocked keep it above, and the limit holds.
func (c *call) awaitLive() bool {
	for range 64 {
		runtime.Gosched()
		if c.live.Load() <= c.limits.MaxJobs {
			return true
		}
	}
	return false
}

// Setenv sets exported variables (K=V) in the global scope before Run: the part of the initial
// environment that differs from run to run, over the shared Config.Base.
func (r *Runner) Setenv(environ []string) {
	g := r.scopes[0].vars
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !validName(k) {
			continue
		}
		g[k] = variable{attrs: attrExport, set: true, str: v}
	}
}
