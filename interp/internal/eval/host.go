package eval

import (
	"context"
	"io"
	"maps"
	"path"
	"runtime"
	"slices"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/pgroup"
)

// This file is what the sandbox engine (package interp) needs beyond running one program:
// functions installed before a run (the SDK prelude) and executable scripts run as child
// shells that share the run's limits, counters and goroutines.

// Define installs the functions a program declares at its top level without running anything
// else of it. It is called before Run (the SDK prelude's functions).
func (r *Runner) Define(p *Program) {
	if r.funcs.owner != r.id || r.funcs.readers.Load() > 0 {
		r.funcs = &funcTable{m: maps.Clone(r.funcs.m), owner: r.id}
	}
	definePrelude(r.funcs.m, p)
}

// definePrelude adds the functions p defines to m, as the SDK's (not listed by declare -F).
func definePrelude(m map[string]*funcDef, p *Program) {
	for _, s := range p.stmts {
		if fd, ok := s.Cmd.(*syntax.FuncDecl); ok && fd.Name != nil {
			m[fd.Name.Value] = &funcDef{body: fd.Body, src: p.src, name: fd.Name.Value, sdk: true}
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
	// Options are `set` option arguments ("-e", "-o", "pipefail", "+x") applied before the
	// script runs, as bash applies its invocation flags.
	Options []string
	// Flags are the invocation letters of $- ("c" for bash -c, "s" for a script on stdin).
	Flags string
	// Command is bash -c's command string, the shell's $BASH_EXECUTION_STRING (set when Flags
	// has "c").
	Command string
}

// startDir is the working directory a new shell starts in, as bash's set_pwd finds it: the
// PWD of its environment when that is absolute and names the directory it was started in,
// else the directory with its symbolic links resolved (getcwd).
func (r *Runner) startDir(sc Script) string {
	pwd, ok := "", false
	for _, kv := range slices.Backward(sc.Environ) {
		if v, found := strings.CutPrefix(kv, "PWD="); found {
			pwd, ok = v, true
			break
		}
	}
	if ok && pwd == sc.Dir {
		return sc.Dir
	}
	real, err := r.c.fs.RealPath(sc.Dir)
	if err != nil {
		return sc.Dir
	}
	if ok && path.IsAbs(pwd) {
		if p, err := r.c.fs.RealPath(path.Clean(pwd)); err == nil && p == real {
			return path.Clean(pwd)
		}
	}
	return real
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
	dir := r.startDir(sc)
	child.scopes = []*scope{{vars: make(map[string]variable, 8), owner: child.id, base: NewBase(sc.Environ, id).vars, call: &callLayer{pwd: dir}}}
	child.funcs = &funcTable{m: map[string]*funcDef{}, owner: child.id}
	child.opts = defaultSetOpts
	child.shopts = defaultShopts
	child.params = sc.Args
	child.arg0 = sc.Name
	child.dir = dir
	child.bashpid = int(c.pids.Add(1))
	child.shellPID = child.bashpid
	child.flags = sc.Flags
	// A new process inherits the umask and the open descriptors (its 0, 1 and 2 are the
	// command's).
	child.umaskVal, child.umaskSet = r.umaskVal, r.umaskSet
	child.ulimits = r.ulimits
	child.traps = &traps{}
	child.sig = newJobSignals(child.traps, nil)
	child.shellSig = child.sig
	child.jobs = &jobTable{}
	child.secondsBase = c.now()
	child.lastArg = sc.Name
	child.depth = r.depth + 1
	defer r.enterNested()()
	child.group = r.group
	if g := pgroup.From(ctx); g != nil {
		child.group = g
	}
	child.fds = r.fds.dup()
	child.dropCoproc(r)
	std := newFdTable(sc.Stdin, sc.Stdout, sc.Stderr)
	for n := range 3 {
		child.fds.set(n, std.lo[n])
	}
	if strings.Contains(sc.Flags, "c") {
		// A plain variable over one from the environment (which keeps its export).
		if err := child.assign("BASH_EXECUTION_STRING", sc.Command, 0); err != nil {
			return 1, err
		}
	}
	for _, d := range sc.Define {
		child.Define(d)
	}
	// A new bash process imports the functions its parent exported (export -f), and nothing
	// else of the parent's functions; the SDK prelude's own come from its definitions.
	for name, fd := range r.funcs.m {
		if fd.exported && !fd.sdk {
			cp := *fd
			cp.readonly, cp.trace = false, false
			child.funcs.m[name] = &cp
		}
	}
	if len(sc.Options) > 0 {
		if st := biSet(child, append([]string{"set"}, sc.Options...)); st != 0 {
			return st, nil
		}
	}
	// Its background jobs keep their own descriptors and end with the run, as orphans of an
	// exited script would go on until the call ends.
	defer child.fds.closeAll()
	p := sc.Program
	child.cur = p.src
	child.runTop(p.stmts, true)
	child.reachSyntaxError(p)
	child.runExitTrapAfterSignal()
	child.adoptJobs()
	if child.flow == flowAbort {
		return 1, c.fatal()
	}
	if child.flow == flowExit {
		return child.exitStatus, nil
	}
	return child.status, nil
}

// BuiltinNames lists the evaluator's shell builtins, sorted.
func BuiltinNames() []string { return slices.Sorted(maps.Keys(builtinTable)) }

// IsBuiltin reports whether name is a shell builtin of the evaluator.
func IsBuiltin(name string) bool {
	_, ok := builtinTable[name]
	return ok
}

// awaitLive is called when one more goroutine would pass MaxJobs: the goroutines counted may
// only be waiting to be scheduled (`: <(true)` in a loop starts them faster than a loaded
// machine runs them to their end), so the shell yields until they have had their turn. It
// reports whether the count (including the new one) is back within the limit; goroutines that
// are really running or blocked keep it above, and the limit holds. On a loaded machine a
// few yields are not their turn (they wait for a CPU, or for the poller to see their pipe
// closed), so the shell then waits up to liveGrace, while the run lives, before the limit
// ends the run: a loop of thousands of `: >(cat)` ended at the limit under CI's load. The
// grace is measured on the clock, not in sleeps: a millisecond's sleep lasts 15 ms or more
// where the system timer is coarse (Windows), and 2,000 of them outlasted the `sleep 5` jobs
// that should have hit the limit.
func (c *call) awaitLive() bool {
	for range 64 {
		runtime.Gosched()
		if c.live.Load() <= c.limits.MaxJobs {
			return true
		}
	}
	for end := time.Now().Add(liveGrace); time.Now().Before(end); {
		if c.runCtx != nil && c.runCtx.Err() != nil {
			return false
		}
		time.Sleep(time.Millisecond)
		if c.live.Load() <= c.limits.MaxJobs {
			return true
		}
	}
	return false
}

// liveGrace is how long a shell over its job limit waits for finishing jobs to be counted out.
const liveGrace = 2 * time.Second

// Setenv sets exported variables (K=V) in the global scope before Run: the part of the initial
// environment that differs from run to run, over the shared Config.Base.
func (r *Runner) Setenv(environ []string) {
	g := r.writable(0).vars
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !validName(k) {
			continue
		}
		g[k] = variable{attrs: attrExport, set: true, str: v}
	}
}

// SetenvVar is Setenv for one exported variable, without building its K=V string.
func (r *Runner) SetenvVar(k, v string) {
	if validName(k) {
		r.writable(0).vars[k] = variable{attrs: attrExport, set: true, str: v}
	}
}

// SetOption reports whether name is a `set -o` option and whether the evaluator reproduces it
// (bash's -o invocation flag).
func SetOption(name string) (supported, ok bool) {
	o, ok := setOptByName(name)
	return o.supported, ok
}

// SetOptionLetter is SetOption for a single-letter flag (bash -e, -u, -x ...).
func SetOptionLetter(c byte) (supported, ok bool) {
	o, ok := setOptByLetter(c)
	return o.supported, ok
}

// Pos is the file and line of the command the shell is running (for a refusal's message).
func (s *Shell) Pos() (file string, line int) {
	if s.r.cur != nil {
		file = s.r.cur.name
	}
	return file, s.r.lineno
}
