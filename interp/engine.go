// Package interp is the sandbox engine: it runs a tool's Bash script in mvdan.cc/sh's
// interpreter, in-process, with every file access, command and variable routed through the
// sandbox policy and the SDK provided as Go builtins.
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
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/expand"
	shinterp "mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// SDKDir is the virtual directory MCP_SDK points at; sourcing anything in it is a no-op
// (tool-sdk.sh also turns on `set -euo pipefail`, as the original's does).
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
	ErrMemoryBudget = sandbox.ErrMemoryBudget
)

// Engine runs sandboxed scripts. It caches parsed scripts; it is safe for concurrent use.
type Engine struct {
	prelude      *syntax.File
	preludeFuncs []string
	mu           sync.Mutex
	cache        map[cacheKey]*parsed
	mem          memGuard
	// static is the call-independent part of every call's environment (see baseEnv).
	static []envPair
	// filters caches the SDK helpers' compiled jq filters across calls.
	filters sdk.FilterCache
	// defaultScratch is sandbox.ScratchBase(""), which stats /dev/shm, looked up once.
	defaultScratch func() string
	// vars recycles the Runner.Vars maps of finished runs (see call.run).
	vars sync.Pool
	// logf writes to the server's log (never to a client): the stack of a recovered panic.
	logf func(format string, args ...any)
}

type cacheKey struct {
	path  string
	size  int64
	mtime int64
}

type parsed struct {
	file  *syntax.File
	funcs []string
	// withPrelude is the SDK prelude followed by the script, run in one go (each Run of a
	// Runner copies every variable once at its end).
	withPrelude *syntax.File
	// procSubst is set when the script uses <(...) or >(...), which need the FIFO directory.
	procSubst bool
}

// NewEngine parses the SDK prelude once. maxHeapBytes bounds the process heap while sandboxed
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
}

// NewEngineWith is NewEngine with every option.
func NewEngineWith(o EngineOptions) (*Engine, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(sdk.Prelude+preludeTail), "mcp-bash-sdk")
	if err != nil {
		return nil, fmt.Errorf("interp: prelude: %w", err)
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Engine{prelude: f, preludeFuncs: funcNames(f), cache: map[cacheKey]*parsed{}, mem: memGuard{limit: o.MaxHeapBytes, meter: o.Meter},
		static: staticEnv(), defaultScratch: sync.OnceValue(func() string { return sandbox.ScratchBase("") }), logf: logf}, nil
}

// WatchMemory puts a run that is not a script (a wasm tool) under the heap guard: while it is
// registered, the guard cancels it with ErrMemoryLimit, as it cancels scripts, when the heap
// and the metered memory pass the limit. The returned function ends the registration.
func (e *Engine) WatchMemory(cancel context.CancelCauseFunc) func() {
	token := new(byte)
	e.mem.enter(token, cancel)
	return func() { e.mem.leave(token) }
}

// preludeTail restores the script's TMPDIR: the Runner was created with a private FIFO
// directory as TMPDIR (paths there bypass the open handler), which scripts never see.
const preludeTail = `
TMPDIR="$__MCPBASH_TMPDIR"; export TMPDIR; unset __MCPBASH_TMPDIR
`

// Job is one sandboxed run: the engine contract's Job (Script is the Bash script; Network and
// MemoryMiB apply to the commands it runs).
type Job = sdk.Job

// call is the per-run state shared by the handlers.
type call struct {
	e       *Engine
	job     *Job
	limits  sandbox.Limits
	fs      *sandbox.FS
	scratch *scratch
	rec     *sandbox.Record
	state   *sdk.State
	cancel  context.CancelCauseFunc
	work    string // scratch root visible to the script
	fifoDir string // the Runner's private TMPDIR for process substitution
	tmpDir  string
	budget  *sandbox.Budget // what the call's utilities may hold

	commands  atomic.Int64
	jobs      atomic.Int64 // background jobs started
	funcsMu   sync.Mutex
	funcs     map[string]bool
	maxFrames int
}

// Run executes the job and reports what it produced. It never panics and never leaves
// goroutines of the script running: the call's context is cancelled when Run returns.
func (e *Engine) Run(ctx context.Context, job Job) (out *sdk.Outcome) {
	out = &sdk.Outcome{}
	base := job.ScratchBase
	if base == "" {
		base = e.defaultScratch()
	}
	sc := newScratch(base)
	// Removal is off the response path; nothing of the script runs by then (the call's
	// context is cancelled first, below).
	defer func() { go sc.Remove() }()
	f, err := sdk.BeginFrame(ctx, &job, sc.Scratch("work"))
	if err != nil {
		return internalFailure(out, "roots: "+err.Error())
	}
	defer f.Close() // background jobs end with the call
	limits := f.Limits
	c := &call{e: e, job: &job, limits: limits, rec: f.Record, fs: f.FS, cancel: f.Stop, scratch: sc, work: sc.work, fifoDir: sc.fifo,
		tmpDir: sc.tmp, funcs: map[string]bool{}}
	for _, n := range e.preludeFuncs {
		c.funcs[n] = true
	}
	// Frames of Go stack per Bash call level are bounded; this keeps the deepest recursion far
	// below Go's stack limit (see TestRecursionIsBounded).
	c.maxFrames = 60*limits.MaxCallDepth + 200
	c.fs.SetPipeDir(c.fifoDir)
	c.state = sdk.NewState(job.Call, f.Cancelled)
	c.budget = sandbox.NewBudget(limits.MaxUtilityBytes, func() { f.Stop(ErrMemoryBudget) })

	e.mem.enter(c, f.Stop)
	defer e.mem.leave(c)

	status, runErr := c.run(f.Ctx, f.Stdout, f.Stderr)
	found := f.Finish(out, status, func(cause error) bool {
		switch {
		case errors.Is(cause, ErrMemoryBudget):
			out.SetLimit(sdk.LimitMemory, "Tool exceeded the utility memory budget (%d MiB)", limits.MaxUtilityBytes>>20)
		case errors.Is(cause, ErrMemoryLimit):
			out.SetLimit(sdk.LimitMemory, "Tool exceeded the memory limit (MCPBASH_MAX_HEAP_MB)")
		case errors.Is(cause, ErrJobLimit):
			out.SetLimit(sdk.LimitJobs, "Tool exceeded the background job limit (%d jobs)", limits.MaxJobs)
		case errors.Is(runErr, ErrCommandLimit):
			out.SetLimit(sdk.LimitCommands, "Tool exceeded the command limit (%d commands)", limits.MaxCommands)
		case errors.Is(runErr, ErrDepthLimit):
			out.SetLimit(sdk.LimitCallDepth, "Tool exceeded the function call depth limit (%d)", limits.MaxCallDepth)
		case errors.Is(runErr, ErrScriptLimit):
			out.SetLimit(sdk.LimitScriptSize, "Tool script exceeds %d bytes", limits.MaxScriptBytes)
		default:
			return false
		}
		return true
	})
	if !found && runErr != nil && !isExit(runErr) {
		fmt.Fprintf(f.Stderr, "mcp-bash: %v\n", runErr)
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
	out.Embedded = sdk.EmbedResources(c.fs, c.job.Dir, out.Resources)
	c.forwardStreams(ctx, side, f.Stderr)
	out.Stderr = f.Stderr.Tail()
	out.Access = f.AccessJSON()
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

func isExit(err error) bool {
	_, ok := exitStatusOf(err)
	return ok
}

// exitStatusOf extracts a shell exit status from a Runner or handler error.
func exitStatusOf(err error) (uint8, bool) {
	var es shinterp.ExitStatus
	if errors.As(err, &es) {
		return uint8(es), true
	}
	return 0, false
}

func internalFailure(out *sdk.Outcome, msg string) *sdk.Outcome {
	out.ExitCode = 1
	out.Stderr = []byte("mcp-bash: " + msg)
	return out
}

// run parses and runs the script; it returns the exit status and the runner's error.
func (c *call) run(ctx context.Context, stdout, stderr io.Writer) (status int, err error) {
	defer func() {
		// A panic inside the interpreter (it has known ones) must not take the server down.
		if p := recover(); p != nil {
			// The cause goes to the script's stderr; the stack only to the server's log.
			c.e.logf("interpreter panic in %s: %v\n%s", c.job.Script, p, debug.Stack())
			status, err = 1, fmt.Errorf("interpreter failure: %s", panicCause(p))
		}
	}()
	file, err := c.parseFile(c.job.Script)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bash: %v\n", err)
		if errors.Is(err, ErrScriptLimit) {
			return 1, err
		}
		return 2, nil
	}
	r, err := c.newRunner(c.job.Dir, c.baseEnv(), nil, stdout, stderr, c.job.Args...)
	if err != nil {
		return 1, err
	}
	// Run copies every variable into Vars when it ends, which nothing reads: a map from the
	// engine's pool saves allocating and growing one (about 12 KB) on every call. It goes back
	// emptied, and only after a normal return (the script's background jobs are subshells with
	// their own maps).
	vars, _ := c.e.vars.Get().(map[string]expand.Variable)
	if vars == nil {
		vars = make(map[string]expand.Variable, 96)
	}
	r.Vars = vars
	err = r.Run(ctx, file)
	r.Vars = nil
	clear(vars)
	c.e.vars.Put(vars)
	if st, ok := exitStatusOf(err); ok {
		return int(st), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// sideFiles are the original's side-channel files, inside the call's scratch root.
var sideFiles = map[string]string{"MCP_TOOL_ERROR_FILE": ".mcp-error.json", "MCP_TOOL_RESOURCES_FILE": ".mcp-resources.json",
	"MCP_PROGRESS_STREAM": ".mcp-progress.ndjson", "MCP_LOG_STREAM": ".mcp-log.ndjson"}

// parseFile reads a script through the sandbox and parses it (cached by path, size, mtime); the
// result starts with the SDK prelude.
func (c *call) parseFile(p string) (*syntax.File, error) {
	var fi os.FileInfo
	var err error
	if p == c.job.Script {
		// The tool's own script is always readable (its directory is a root); a plain stat is
		// enough to key the cache, and content is only ever read through the sandbox.
		fi, err = os.Stat(p)
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
	if pf == nil {
		data, err := c.fs.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if err := nestingError(p, string(data)); err != nil {
			return nil, err
		}
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), p)
		if err != nil {
			return nil, err
		}
		if pos, bad := unsupportedArith(f); bad {
			return nil, errors.New(arithMessage(p, pos))
		}
		rewrite(f)
		pf = &parsed{file: f, funcs: funcNames(f), procSubst: hasProcSubst(f)}
		pf.withPrelude = &syntax.File{Name: f.Name, Stmts: append(slices.Clone(c.e.prelude.Stmts), f.Stmts...)}
		c.e.mu.Lock()
		if len(c.e.cache) > 1024 {
			clear(c.e.cache)
		}
		c.e.cache[key] = pf
		c.e.mu.Unlock()
	}
	c.addFuncs(pf.funcs)
	if pf.procSubst {
		if err := c.scratch.Ensure(); err != nil {
			return nil, fmt.Errorf("scratch directory: %w", err)
		}
	}
	return pf.withPrelude, nil
}

func (c *call) addFuncs(names []string) {
	c.funcsMu.Lock()
	defer c.funcsMu.Unlock()
	for _, n := range names {
		c.funcs[n] = true
	}
}

func (c *call) isFunc(name string) bool {
	c.funcsMu.Lock()
	defer c.funcsMu.Unlock()
	return c.funcs[name]
}

// newRunner builds a Runner whose every outside contact goes through the call's handlers.
func (c *call) newRunner(dir string, env expand.Environ, stdin io.Reader, stdout, stderr io.Writer, params ...string) (*shinterp.Runner, error) {
	opts := []shinterp.RunnerOption{
		shinterp.Env(virtualEnviron{env}),
		shinterp.Dir(dir),
		shinterp.StdIO(stdin, stdout, stderr),
		shinterp.OpenHandler(c.open),
		shinterp.ReadDirHandler2(c.readDir),
		shinterp.StatHandler(c.stat),
		shinterp.AccessHandler(c.access),
		shinterp.CallHandler(c.callHandler),
		shinterp.ExecHandlers(func(shinterp.ExecHandlerFunc) shinterp.ExecHandlerFunc { return c.exec }),
	}
	if len(params) > 0 {
		opts = append(opts, shinterp.Params(append([]string{"--"}, params...)...))
	}
	return shinterp.New(opts...)
}

// virtualEnviron answers `~user` lookups ("HOME <user>") itself, so tilde expansion never
// reads the host's user database.
type virtualEnviron struct{ expand.Environ }

func (v virtualEnviron) Get(name string) expand.Variable {
	if user, ok := strings.CutPrefix(name, "HOME "); ok {
		if user == sandbox.VirtualUser {
			return v.Environ.Get("HOME")
		}
		return expand.Variable{Set: true, Kind: expand.String, Str: "~" + user}
	}
	return v.Environ.Get(name)
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
	env := sandbox.BaseEnv("$HOME (per-call scratch)", "$TMPDIR (per-call scratch)", job.Env)
	return append(env, "MCP_SDK="+SDKDir)
}

// Environment is the package's Environment, for the engine contract's optional Environment.
func (e *Engine) Environment(job Job) []string { return Environment(job) }
