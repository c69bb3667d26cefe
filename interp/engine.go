// Package interp is the sandbox engine: it runs a tool's Bash script in-process with our own
// evaluator (interp/internal/eval, over mvdan.cc/sh's syntax trees), with every file access,
// command and variable routed through the sandbox policy and the SDK provided as Go builtins.
package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/builtins"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// SDKDir is the virtual directory MCP_SDK points at; sourcing tool-sdk.sh there turns on the
// original's `set -euo pipefail`, the SDK functions themselves are built in.
const SDKDir = "/opt/mcp-bash/sdk"

// Limit causes that end a run early.
var (
	ErrStdoutLimit  = sandbox.ErrStdoutLimit
	ErrStderrLimit  = sandbox.ErrStderrLimit
	ErrCommandLimit = errors.New("command limit")
	ErrDepthLimit   = errors.New("call depth limit")
	ErrScriptLimit  = errors.New("script size limit")
	ErrMemoryLimit  = errors.New("memory limit")
	ErrJobLimit     = errors.New("background job limit")
	ErrFDLimit      = errors.New("open file descriptor limit")
	ErrMemoryBudget = sandbox.ErrMemoryBudget
)

// Engine runs sandboxed scripts. It caches parsed scripts; it is safe for concurrent use.
type Engine struct {
	// sdk is the SDK's Bash parsed, on the first run: a server answers initialize, lists
	// and pings without it, and parsing it was 2 % of the CPU of a cold start.
	sdk   func() (*sdkState, error)
	mu    sync.Mutex
	cache map[cacheKey]*parsed
	mem   memGuard
	// static is the call-independent part of every call's environment (see callEnv).
	static []string
	// filters caches the SDK helpers' compiled jq filters across calls, parsed the text
	// scripts source and eval.
	filters sdk.FilterCache
	parsed  *eval.ParseCache
	// defaultScratch is sandbox.ScratchBase(""), which stats /dev/shm, looked up once.
	defaultScratch func() string
	// logf writes to the server's log (never to a client): the stack of a recovered panic.
	logf func(format string, args ...any)
	// programs are the utilities, shown in /usr/bin and /bin with the call's allowlisted
	// commands: what command search finds there.
	programs []string
	// removing counts the scratch trees of answered calls still being removed (Wait).
	removing removals
}

// removals counts background removals. Not a sync.WaitGroup: a server's Close waits while a
// call may still be answering and start one, which a WaitGroup forbids (Add concurrent with a
// Wait at zero).
type removals struct {
	mu   sync.Mutex
	n    int
	done chan struct{} // closed when n drops to 0; nil while none runs
}

// start runs f on its own goroutine, counted until it returns.
func (r *removals) start(f func()) {
	r.mu.Lock()
	if r.n++; r.done == nil {
		r.done = make(chan struct{})
	}
	r.mu.Unlock()
	go func() {
		defer r.end()
		f()
	}()
}

func (r *removals) end() {
	r.mu.Lock()
	if r.n--; r.n == 0 {
		close(r.done)
		r.done = nil
	}
	r.mu.Unlock()
}

// wait returns when none of the removals started before it still runs (or none at all).
func (r *removals) wait() {
	r.mu.Lock()
	d := r.done
	r.mu.Unlock()
	if d != nil {
		<-d
	}
}

// sdkState is what the engine parses of the SDK, once.
type sdkState struct {
	// prelude defines the SDK functions written in Bash (sdk.Prelude).
	prelude *eval.Program
	// base is the evaluator's variables built from the engine's static environment.
	base *eval.Base
	// programs are the virtual SDK files (eval.Config.Sources).
	programs map[string]*eval.Program
}

// parseSDK parses the prelude and the virtual SDK files over the static environment.
func parseSDK(static []string) (*sdkState, error) {
	prelude, err := eval.Parse("mcp-bash-sdk", []byte(sdk.Prelude))
	if err == nil {
		err = prelude.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("interp: prelude: %w", err)
	}
	programs := make(map[string]*eval.Program, len(sdkFiles))
	for name, text := range sdkFiles {
		p, err := eval.Parse(SDKDir+"/"+name, []byte(text))
		if err != nil {
			return nil, fmt.Errorf("interp: %s: %w", name, err)
		}
		programs[SDKDir+"/"+name] = p
	}
	return &sdkState{prelude: prelude, base: eval.NewBase(static, identity, prelude), programs: programs}, nil
}

type cacheKey struct {
	path  string
	size  int64
	mtime int64
}

// parsed is a script ready to run, or the reason it never will.
type parsed struct {
	prog *eval.Program
	// refused is the first construct the evaluator does not run as bash does (eval.Check).
	refused *eval.Refusal
	// hostFacts are the commands that ask for a host fact the sandbox hides (hostFactUses).
	hostFacts []hostFactUse
}

// NewEngine makes an engine; it parses the SDK prelude once, on its first run. maxHeapBytes bounds the process heap while sandboxed
// calls run (0 = no limit).
func NewEngine(maxHeapBytes uint64) (*Engine, error) {
	return NewEngineWith(EngineOptions{MaxHeapBytes: maxHeapBytes})
}

// EngineOptions configure an Engine.
type EngineOptions struct {
	// MaxHeapBytes bounds the process heap, plus what Meter counts, while calls run (0: none).
	MaxHeapBytes uint64
	// Meter counts memory held outside the Go heap (wasm guests), weighed with the heap.
	Meter *sandbox.Meter
	// Logf receives what only the server's log may show (a recovered panic's stack).
	Logf func(format string, args ...any)
	// OwnsProcess: the engine's process serves calls and nothing else (the server, a worker),
	// so its soft memory limit (debug.SetMemoryLimit) may follow MaxHeapBytes.
	OwnsProcess bool
}

// NewEngineWith is NewEngine with every option.
func NewEngineWith(o EngineOptions) (*Engine, error) {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if o.OwnsProcess && o.MaxHeapBytes > 0 {
		softLimit(o.MaxHeapBytes)
	}
	static := staticEnv()
	return &Engine{sdk: sync.OnceValues(func() (*sdkState, error) { return parseSDK(static) }), cache: map[cacheKey]*parsed{}, mem: memGuard{limit: o.MaxHeapBytes, meter: o.Meter, soft: o.OwnsProcess && o.MaxHeapBytes > 0},
		static: static, parsed: eval.NewParseCache(), defaultScratch: sync.OnceValue(func() string { return sandbox.ScratchBase("") }), logf: logf,
		programs: builtins.Names()}, nil
}

// WatchMemory puts a run that is not a script (a wasm tool) under the heap guard: while it is
// registered, the guard cancels it with ErrMemoryLimit, as it cancels scripts, when the heap
// and the metered memory pass the limit. The returned function ends the registration.
func (e *Engine) WatchMemory(cancel context.CancelCauseFunc) func() {
	token := new(byte)
	e.mem.enter(token, cancel)
	return func() { e.mem.leave(token) }
}

// Job is one sandboxed run: the engine contract's Job (Script is the Bash script; Network and
// MemoryMiB apply to the commands it runs).
type Job = engine.Job

// call is the per-run state shared by the hooks.
type call struct {
	e   *Engine
	job *Job // &jobv
	// jobv is the job Run was given, held in the call (one allocation for both).
	jobv    Job
	limits  sandbox.Limits
	fs      *sandbox.FS
	scratch *scratch
	rec     *sandbox.Record
	state   *sdk.State
	cancel  context.CancelCauseFunc
	work    string          // scratch root visible to the script (host path); its tmp/ is scratch.tmp
	budget  *sandbox.Budget // what the call's utilities may hold
	plan    *planState      // what every call of the tool shares (nil: the job has no plan)
	sdk     *sdkState
	// sh are the call's paths as the script sees them (sandbox.ShellPath: the host paths on
	// Unix, /c/... on Windows).
	sh struct{ work, tmp, dir, script string }

	refusedMu sync.Mutex
	refused   *engine.Refusal // the first construct refused, before or while running
	// refusalShown: a refusal was printed on the call's stderr (a child shell's is printed
	// when it ends the call, unless one was).
	refusalShown bool

	// fns are the call's hooks for the evaluator, bound to this call once (a pooled call keeps
	// them: they name the same struct whatever run it serves).
	fns *callFns
	// varsBuf is the slice of the call's own variables (callVars), kept by a pooled call with
	// its contents cleared.
	varsBuf []eval.Var
	// sdkFns are the closures over one shell that its SDK builtins' environments share
	// (sdkEnv): made once per shell that runs SDK builtins, not once per builtin.
	sdkMu  sync.Mutex
	sdkFns sdkShellFns
}

// callFns are a call's method values given to every run's evaluator.
type callFns struct {
	exec      eval.ExecFunc
	builtin   func(string) eval.BuiltinFunc
	lookup    func(name, path, dir string) (string, bool)
	lookupAll func(name, path, dir string) []string
	ulimit    func(opt byte) (soft, hard int64, settable bool)
	sdk       eval.BuiltinFunc
	sdkNamed  eval.BuiltinFunc
}

// calls holds the call structs of ended runs (Engine.Run): a run takes one, zeroed but for its
// hooks, and gives it back when nothing of the run is left (TestCallsReusedStartFresh).
var calls sync.Pool

// newCall is a call for job, from calls when one is there.
func newCall(e *Engine, job Job, sdkParsed *sdkState) *call {
	c, _ := calls.Get().(*call)
	if c == nil {
		c = new(call)
		c.fns = &callFns{exec: c.exec, builtin: c.builtin, lookup: c.lookup, lookupAll: c.lookupAll, ulimit: c.ulimit, sdk: c.sdkBuiltin, sdkNamed: c.sdkNamedBuiltin}
	}
	c.e, c.jobv, c.sdk = e, job, sdkParsed
	c.job = &c.jobv
	return c
}

// release zeroes c (its hooks kept) and gives it back to calls. The run has ended and its frame
// is closed: no goroutine of the run is left, and the outcome holds nothing of c.
func (c *call) release() {
	fns, vars := c.fns, c.varsBuf
	clear(vars[:cap(vars)])
	*c = call{}
	c.fns, c.varsBuf = fns, vars[:0]
	calls.Put(c)
}

// refuse reports a refused construct on stderr and records the first for the outcome.
func (c *call) refuse(r eval.Refusal, stderr io.Writer) {
	fmt.Fprintf(stderr, "mcp-bash: %s\n", r)
	c.record(r)
	c.refusedMu.Lock()
	c.refusalShown = true
	c.refusedMu.Unlock()
}

// record keeps the call's first refusal without printing it (a child shell's refusal is
// printed on the call's own stderr when it ends the call: the child's may be redirected away).
func (c *call) record(r eval.Refusal) {
	c.refusedMu.Lock()
	defer c.refusedMu.Unlock()
	if c.refused == nil {
		c.refused = &engine.Refusal{File: r.File, Line: r.Line, Col: r.Col, Construct: r.Construct, Fix: r.Fix}
	}
}

// Wait waits until the scratch trees of the calls answered so far are removed (Run removes
// them after answering). Whoever removes the scratch base itself waits first: on Windows a
// tree still being deleted is not empty yet, and the base's removal would fail.
func (e *Engine) Wait() { e.removing.wait() }

// Run executes the job and reports what it produced. It never panics and never leaves
// goroutines of the script running: the call's context is cancelled when Run returns.
func (e *Engine) Run(ctx context.Context, job Job) (out *engine.Outcome) {
	out = &engine.Outcome{}
	base := job.ScratchBase
	if base == "" {
		base = e.defaultScratch()
	}
	sc := newScratch(base)
	// Removal is off the response path; nothing of the script runs by then (the evaluator
	// has ended every goroutine it started when Run returns). Most calls never create their
	// scratch tree: they start no goroutine (one per call costs a thread wake-up).
	defer func() {
		if sc.Seal() {
			e.removing.start(sc.Remove)
		}
	}()
	sdkParsed, err := e.sdk()
	if err != nil {
		return internalFailure(out, err.Error())
	}
	c := newCall(e, job, sdkParsed)
	// Deferred first, so it runs after everything deferred below (the frame's close, the
	// memory guard's leave, the side directory's close).
	defer c.release()
	f, err := engine.BeginFrame(ctx, c.job, sc.Scratch("work"))
	if err != nil {
		return internalFailure(out, "roots: "+err.Error())
	}
	defer f.Close()
	f.FS.ShowPrograms(e.programs, job.Policy.Allow)
	limits := f.Limits
	c.limits, c.rec, c.fs, c.cancel, c.scratch, c.work, c.plan = limits, f.Record, f.FS, f.Stop, sc, sc.work, e.planState(c.job, sdkParsed)
	c.sh.work, c.sh.tmp = sandbox.ShellPath(sc.work), sandbox.ShellPath(sc.tmp)
	c.sh.dir, c.sh.script = sandbox.ShellPath(job.Dir), sandbox.ShellPath(job.Script)
	c.state = sdk.NewState(job.Call, f.Cancelled)
	c.state.Filters = &e.filters
	c.budget = sandbox.NewBudget(limits.MaxUtilityBytes, func() { f.Stop(ErrMemoryBudget) })

	e.mem.enter(c, f.Stop)
	defer e.mem.leave(c)

	status, runErr := c.run(f.Ctx, f.Stdout, f.Stderr)
	found := f.Finish(out, status, func(cause error) bool {
		switch {
		case errors.Is(cause, ErrMemoryBudget) || errors.Is(runErr, ErrMemoryBudget):
			out.SetLimit(engine.LimitMemory, "Tool exceeded the utility memory budget (%d MiB)", limits.MaxUtilityBytes>>20)
		case errors.As(cause, new(*eval.RefusalError)):
			// A child shell's refusal ended the call: it is reported on the call's own stderr,
			// where the script cannot redirect it away (bash -c '...' 2>/dev/null).
			var re *eval.RefusalError
			errors.As(cause, &re)
			c.refusedMu.Lock()
			shown := c.refusalShown
			c.refusedMu.Unlock()
			if !shown {
				fmt.Fprintf(f.Stderr, "mcp-bash: %s\n", re.Refusal)
			}
			if out.ExitCode == 0 {
				out.ExitCode = 2
			}
		case errors.Is(cause, ErrMemoryLimit):
			out.SetLimit(engine.LimitMemory, "Tool exceeded the memory limit (MCPBASH_MAX_HEAP_MB)")
		case errors.Is(runErr, ErrJobLimit):
			out.SetLimit(engine.LimitJobs, "Tool exceeded the background job limit (%d jobs)", limits.MaxJobs)
		case errors.Is(runErr, ErrCommandLimit):
			out.SetLimit(engine.LimitCommands, "Tool exceeded the command limit (%d commands)", limits.MaxCommands)
		case errors.Is(runErr, ErrDepthLimit):
			out.SetLimit(engine.LimitCallDepth, "Tool exceeded the function call depth limit (%d)", limits.MaxCallDepth)
		case errors.Is(runErr, ErrScriptLimit):
			out.SetLimit(engine.LimitScriptSize, "Tool script exceeds %d bytes", limits.MaxScriptBytes)
		default:
			return false
		}
		return true
	})
	if !found && runErr != nil {
		fmt.Fprintf(f.Stderr, "mcp-bash: %v\n", runErr)
		out.Stderr = f.Stderr.Tail()
	}
	// The stderr kept is a tail: a character its cut split is not the script's doing.
	for _, note := range sdk.NotUTF8Notes(out.Stdout, out.Stderr) {
		fmt.Fprintln(f.Stderr, note)
		out.Stderr = f.Stderr.Tail()
	}
	// The side files live in the call's scratch root, which the script writes: they are read
	// through a descriptor of that directory, never by path (sandbox.SideDir).
	var side *sandbox.SideDir
	if sc.Seal() {
		if side, err = sandbox.OpenSideDir(c.work); err != nil {
			fmt.Fprintf(f.Stderr, "mcp-bash: scratch directory: %v\n", err)
		}
		defer side.Close()
	}
	out.Fail = c.state.Failure()
	if data, ok := c.sideFile(side, "MCP_TOOL_ERROR_FILE", f.Stderr); ok && out.Fail == nil {
		out.Fail = sdk.ParseErrorFile(data)
	}
	out.Resources = c.state.Resources()
	if data, ok := c.sideFile(side, "MCP_TOOL_RESOURCES_FILE", f.Stderr); ok {
		out.Resources = append(out.Resources, sdk.ParseResourcesFile(data)...)
	}
	out.Embedded = sdk.EmbedResources(c.fs, c.sh.dir, out.Resources)
	c.forwardStreams(ctx, side, f.Stderr)
	out.Stderr = f.Stderr.Tail()
	f.Report(out)
	out.Refused = c.refused
	return out
}

// panicCause is a short, single-line description of a recovered panic value, for a client.
func panicCause(p any) string {
	msg := fmt.Sprint(p)
	if err, ok := p.(error); ok {
		msg = err.Error()
	}
	msg, _, _ = strings.Cut(msg, "\n")
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}

func internalFailure(out *engine.Outcome, msg string) *engine.Outcome {
	out.ExitCode = 1
	out.Stderr = []byte("mcp-bash: " + msg)
	return out
}

// identity is what the script sees of itself: the virtual user, host and pids.
var identity = eval.Identity{PID: atoi(sandbox.VirtualPID), PPID: atoi(sandbox.VirtualPPID), UID: atoi(sandbox.VirtualUID),
	EUID: atoi(sandbox.VirtualUID), GID: atoi(sandbox.VirtualUID), User: sandbox.VirtualUser, Hostname: sandbox.VirtualHostname}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// run parses and runs the script; it returns the exit status and the error that ended the run
// early (a limit, an internal failure), which Run reports.
func (c *call) run(ctx context.Context, stdout, stderr io.Writer) (status int, err error) {
	defer func() {
		// The evaluator recovers its own goroutines; this is the last line for the engine's.
		if p := recover(); p != nil {
			c.e.logf("sandbox engine panic in %s: %v\n%s", c.job.Script, p, debug.Stack())
			status, err = 1, fmt.Errorf("interpreter failure: %s", panicCause(p))
		}
	}()
	pf, err := c.parseFile(ctx, c.sh.script)
	if err != nil {
		if errors.Is(err, ErrScriptLimit) {
			fmt.Fprintf(stderr, "mcp-bash: %v\n", err)
			return 1, err
		}
		fmt.Fprintf(stderr, "mcp-bash: %v\n", err)
		return 2, nil
	}
	if pf.refused != nil {
		c.refuse(*pf.refused, stderr)
		return 2, nil
	}
	for _, h := range pf.hostFacts {
		// An allowlisted command reads the host itself (confined); hostname and uname are the
		// sandbox's own even when allowlisted.
		if h.cmd != "hostname" && h.cmd != "uname" && slices.Contains(c.job.Policy.Allow, h.cmd) {
			continue
		}
		c.refuse(h.r, stderr)
		return 2, nil
	}
	l := c.limits
	base := c.sdk.base
	if c.plan != nil {
		base = c.plan.base
	}
	vars, err := c.callVars(c.plan)
	if err != nil {
		return 1, err
	}
	r := eval.New(&eval.Config{
		FS: evalFS{c}, Exec: c.fns.exec, Builtin: c.fns.builtin, Pure: pureBuiltin, Lookup: c.fns.lookup, LookupAll: c.fns.lookupAll, Missing: c.missing,
		Base: base, Parsed: c.e.parsed, Sources: c.sdk.programs, Vars: vars, Home: c.sh.work, Dir: c.sh.dir, Name: c.sh.script, Args: c.job.Args,
		Stdout: stdout, Stderr: stderr, Identity: identity, Now: now, Cancel: c.cancel, Ulimit: c.fns.ulimit,
		Limits: eval.Limits{MaxCallDepth: l.MaxCallDepth, MaxCommands: l.MaxCommands, MaxJobs: l.MaxJobs, MaxMemory: l.MaxUtilityBytes,
			MaxScriptBytes: l.MaxScriptBytes},
	})
	status, err = r.Run(ctx, pf.prog)
	err = c.runError(err, stderr)
	// Nothing of the run is used after this (the shells it gave the builtins have ended with
	// it): its memory goes to the next call's runner, zeroed.
	r.Release()
	return status, err
}

// runError turns an error that ended the evaluator's run into the engine's cause (nil when the
// frame's own cause, a timeout, a cap or a cancellation, explains it).
func (c *call) runError(err error, stderr io.Writer) error {
	if err == nil {
		return nil // before the targets below, which errors.As moves to the heap
	}
	var le *eval.LimitError
	var ce *eval.CancelError
	var ie *eval.InternalError
	var re *eval.RefusalError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le):
		switch le.Kind {
		case eval.LimitDepth:
			return ErrDepthLimit
		case eval.LimitCommands:
			return ErrCommandLimit
		case eval.LimitJobs:
			c.cancel(ErrJobLimit)
			return ErrJobLimit
		case eval.LimitMemory:
			return ErrMemoryBudget
		case eval.LimitScript:
			return ErrScriptLimit
		}
		return fmt.Errorf("%w (%d)", ErrFDLimit, le.Max)
	case errors.As(err, &ce):
		return nil
	case errors.As(err, &ie):
		c.e.logf("evaluator failure in %s: %v\n%s", c.job.Script, ie.Cause, ie.Stack)
		return fmt.Errorf("interpreter failure: %s", panicCause(ie.Cause))
	case errors.As(err, &re):
		c.refuse(re.Refusal, stderr)
		return nil
	}
	return err
}

// sideFiles are the original's side-channel files, inside the call's scratch root.
var sideFiles = map[string]string{"MCP_TOOL_ERROR_FILE": ".mcp-error.json", "MCP_TOOL_RESOURCES_FILE": ".mcp-resources.json",
	"MCP_PROGRESS_STREAM": ".mcp-progress.ndjson", "MCP_LOG_STREAM": ".mcp-log.ndjson"}

// sideFileList is sideFiles in a fixed order (a call's environment is built from it).
var sideFileList = []struct{ env, name string }{{"MCP_TOOL_ERROR_FILE", ".mcp-error.json"}, {"MCP_TOOL_RESOURCES_FILE", ".mcp-resources.json"},
	{"MCP_PROGRESS_STREAM", ".mcp-progress.ndjson"}, {"MCP_LOG_STREAM", ".mcp-log.ndjson"}}

// parseFile reads a script through the sandbox and parses it (cached by path, size, mtime),
// with the static check of what the evaluator refuses.
func (c *call) parseFile(ctx context.Context, p string) (*parsed, error) {
	planned := c.plan != nil && p == c.sh.script
	if planned {
		if ps := c.plan.script.Load(); ps != nil && ps.key.path == p {
			if ps.key.size > c.limits.MaxScriptBytes {
				return nil, fmt.Errorf("%s: %w (%d bytes)", p, ErrScriptLimit, ps.key.size)
			}
			return ps.pf, nil
		}
	}
	var fi os.FileInfo
	var err error
	if p == c.sh.script {
		// The tool's own script is always readable (its directory is a root); a plain stat is
		// enough to key the cache, and content is only ever read through the sandbox.
		fi, err = os.Stat(c.job.Script)
	} else {
		fi, err = c.fs.Stat(p)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if fi.Size() > c.limits.MaxScriptBytes {
		return nil, fmt.Errorf("%s: %w (%d bytes)", p, ErrScriptLimit, fi.Size())
	}
	key := cacheKey{p, fi.Size(), fi.ModTime().UnixNano()}
	c.e.mu.Lock()
	pf := c.e.cache[key]
	c.e.mu.Unlock()
	if pf != nil {
		if planned {
			c.plan.script.Store(&planScript{key: key, pf: pf})
		}
		return pf, nil
	}
	data, err := c.fs.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	pf, err = parseScript(ctx, p, data)
	if err != nil {
		return nil, err
	}
	c.e.mu.Lock()
	if len(c.e.cache) > 1024 {
		clear(c.e.cache)
	}
	c.e.cache[key] = pf
	c.e.mu.Unlock()
	if planned {
		c.plan.script.Store(&planScript{key: key, pf: pf})
	}
	return pf, nil
}

// parseScript parses a script and checks it for refused constructs. On Windows a carriage
// return before a line feed is not part of the script (bash's igncr, which Git-Bash's MSYS
// bash has too): editors and git's autocrlf write scripts with CRLF line ends there, and a
// Windows user's tool must run as on Linux. Elsewhere bash reads the CR, and so does the
// evaluator.
func parseScript(ctx context.Context, name string, data []byte) (*parsed, error) {
	if ignoreCR && bytes.Contains(data, []byte("\r\n")) {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	prog, err := eval.ParseContext(ctx, name, data)
	if err != nil {
		return nil, err
	}
	pf := &parsed{prog: prog}
	if f := prog.File(); f != nil {
		if refs := eval.Check(f); len(refs) > 0 {
			pf.refused = &refs[0]
		}
		if pf.refused == nil && !ignoreCR && bytes.IndexByte(data, '\r') >= 0 {
			if line, col, ok := eval.UnquotedCR(f, data); ok {
				pf.refused = &eval.Refusal{File: name, Line: line, Col: col, Construct: eval.CRConstruct, Fix: eval.CRFix}
			}
		}
		pf.hostFacts = hostFactUses(f)
	}
	return pf, nil
}

// sideFile reads one of the call's side-channel files; false when it is absent. What cannot be
// read as the contract says (a symlink, a FIFO, a file over its cap) is named on stderr; an
// oversized error file still fails the call.
func (c *call) sideFile(side *sandbox.SideDir, env string, stderr io.Writer) ([]byte, bool) {
	if side == nil {
		return nil, false
	}
	data, err := side.ReadFile(sideFiles[env], sandbox.SideFileMax)
	switch {
	case err == nil:
		return data, true
	case errors.Is(err, fs.ErrNotExist):
		return nil, false
	case errors.Is(err, sandbox.ErrSideFileTooLarge) && env == "MCP_TOOL_ERROR_FILE":
		fmt.Fprintf(stderr, "mcp-bash: %s exceeds %d bytes; its content was not read\n", env, sandbox.SideFileMax)
		return []byte(fmt.Sprintf("%s exceeds %d bytes", env, sandbox.SideFileMax)), true
	}
	fmt.Fprintf(stderr, "mcp-bash: %s ignored: %v\n", env, errors.Unwrap(err))
	return nil, false
}

// forwardStreams relays lines a script wrote directly to MCP_PROGRESS_STREAM / MCP_LOG_STREAM
// (scripts written against the original's file contract), up to sandbox.SideStreamMax bytes each.
func (c *call) forwardStreams(ctx context.Context, side *sandbox.SideDir, stderr io.Writer) {
	if side == nil {
		return
	}
	for _, env := range []string{"MCP_PROGRESS_STREAM", "MCP_LOG_STREAM"} {
		f, err := side.OpenRegular(sideFiles[env])
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "mcp-bash: %s ignored: %v\n", env, errors.Unwrap(err))
			continue
		}
		if n := sdk.ForwardStream(ctx, c.job.Call, f, sandbox.SideStreamMax); n >= sandbox.SideStreamMax {
			fmt.Fprintf(stderr, "mcp-bash: %s exceeds %d bytes; the rest was not forwarded\n", env, sandbox.SideStreamMax)
		}
		f.Close()
	}
}

// ignoreCR is whether scripts are read with bash's igncr (parseScript).
const ignoreCR = runtime.GOOS == "windows"

// now is the clock used by builtins.
func now() time.Time { return time.Now() }

// absIn resolves p against dir.
func absIn(dir, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(dir, p)
}

// Environment is the environment a job's script starts with (run-tool --print-env), with the
// per-call paths named rather than created.
func Environment(job Job) []string {
	env := sandbox.BaseEnv("$HOME (per-call scratch)", "$TMPDIR (per-call scratch)", job.AllEnv())
	return append(env, "MCP_SDK="+SDKDir)
}

// Environment is the package's Environment, for the engine contract's optional Environment.
func (e *Engine) Environment(job Job) []string { return Environment(job) }

// ulimit is what the ulimit builtin reports in the sandbox: the call's own limits (open files,
// bytes written as the largest file, the in-process memory budget, background jobs, the
// timeout as CPU seconds), in ulimit's units, none of which a script may change; and the
// resources the sandbox has no use for (core files, priorities, locks), which it may.
func (c *call) ulimit(opt byte) (soft, hard int64, settable bool) {
	l := c.limits
	fixed := func(n int64) (int64, int64, bool) { return n, n, false }
	switch opt {
	case 'n':
		return fixed(int64(l.MaxOpenFiles))
	case 'f':
		return fixed(l.MaxBytesWritten / 1024)
	case 'v':
		return fixed(l.MaxUtilityBytes / 1024)
	case 'u':
		return fixed(l.MaxJobs)
	case 't':
		return fixed(int64((l.Timeout + time.Second - 1) / time.Second))
	case 'd', 'm', 's':
		// Memory is the call's budget (-v); recursion is bounded by depth, not stack.
		return fixed(eval.Unlimited)
	case 'p':
		return fixed(8) // bash's PIPE_BUF in 512-byte blocks
	case 'c', 'i', 'l', 'q':
		// No core files, queued signals, locked memory or message queues: none now, and a
		// script may set what it likes.
		return 0, eval.Unlimited, true
	case 'R', 'x':
		return eval.Unlimited, eval.Unlimited, true
	}
	// e, r: priorities, which an unprivileged user may not raise.
	return 0, 0, true
}
