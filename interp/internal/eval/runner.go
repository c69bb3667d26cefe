package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/pgroup"
)

// call is the state one Run shares between all its shells (the main shell, subshells,
// pipeline stages, background jobs).
type call struct {
	cfg    *Config
	limits Limits
	fs     FS
	now    func() time.Time
	start  time.Time

	commands atomic.Int64
	mem      atomic.Int64
	ids      atomic.Uint64
	pids     atomic.Int64
	hashSeq  atomic.Uint64 // orders hash table entries by insertion (hashEntry.seq)

	// cancel ends the run's context; fatal holds the first error that ended the run.
	cancel  context.CancelCauseFunc
	fatalMu sync.Mutex
	fatalE  error
	// wg counts every goroutine the run started; Run waits for it.
	wg sync.WaitGroup

	rngMu sync.Mutex
	rng   *rand.Rand // made from seed on first use (most runs never read $RANDOM): random
	seed  uint64

	// live counts the jobs running now (background jobs, coprocesses, process substitutions),
	// which MaxJobs bounds.
	live atomic.Int64
	pats patCache

	// parsed is Config.Parsed, or a cache of this run's own.
	parsed *ParseCache

	// runCtx is the run's context: output process substitutions live in it, not in the
	// context of the subshell that started them.
	runCtx context.Context
	// orphans are output process substitutions whose shell ended before them: bash's go on
	// writing to the output they inherited, so the run waits for them before it ends.
	orphansMu sync.Mutex
	orphans   []*job
	// jobOrphans are the other jobs whose shell ended before them (background jobs, input
	// process substitutions): they go on until they end or the run does, after letRun's
	// grace. The finished ones are dropped as the list doubles (`(cmd &)` in a loop).
	jobOrphans []*job
	jobsKept   int
	// running are the background jobs and coprocesses running now, by pid: `kill PID` from any
	// shell of the run reaches them, as a signal reaches any process of bash's (the watchdog
	// `( sleep 5; kill $pid ) &` ends its parent's job).
	runningMu sync.Mutex
	running   map[int]*job
	// ended: Run has returned, every goroutine of the run with it (Runner.Release).
	ended bool
}

// random is the run's generator; rngMu is held.
func (c *call) random() *rand.Rand {
	if c.rng == nil {
		c.rng = rand.New(rand.NewPCG(c.seed, c.seed>>7|1))
	}
	return c.rng
}

// adopt keeps a job running after its shell ends.
func (c *call) adopt(j *job) {
	c.orphansMu.Lock()
	defer c.orphansMu.Unlock()
	if j.output {
		c.orphans = append(c.orphans, j)
		return
	}
	if len(c.jobOrphans) >= max(1024, 2*c.jobsKept) {
		c.jobOrphans = slices.DeleteFunc(c.jobOrphans, (*job).finished)
		c.jobsKept = len(c.jobOrphans)
	}
	c.jobOrphans = append(c.jobOrphans, j)
}

// awaitOrphans waits for the adopted output process substitutions (and any they adopt in
// turn) to end, or for ctx to end; the other adopted jobs have only letRun's grace.
func (c *call) awaitOrphans(ctx context.Context) {
	for waited := 0; ; {
		c.orphansMu.Lock()
		pending := c.orphans[waited:]
		c.orphansMu.Unlock()
		if len(pending) == 0 {
			return
		}
		for _, j := range pending {
			select {
			case <-j.done:
			case <-ctx.Done():
				return
			}
		}
		waited += len(pending)
	}
}

func (c *call) setFatal(err error) {
	c.fatalMu.Lock()
	if c.fatalE == nil {
		c.fatalE = err
	}
	c.fatalMu.Unlock()
	c.cancel(err)
}

func (c *call) fatal() error {
	c.fatalMu.Lock()
	defer c.fatalMu.Unlock()
	return c.fatalE
}

// goRun starts fn on a goroutine counted by the run; a panic ends the run with an
// InternalError instead of the process.
func (c *call) goRun(fn func()) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() {
			if p := recover(); p != nil {
				c.setFatal(&InternalError{Cause: p, Stack: string(debug.Stack())})
			}
		}()
		fn()
	}()
}

// flowKind is how control leaves the statement being run.
type flowKind uint8

const (
	flowNone flowKind = iota
	flowBreak
	flowContinue
	flowReturn
	flowExit
	// flowDiscard abandons the current top-level command (bash's expansion errors): the
	// enclosing eval, source, subshell or script line ends with status 1.
	flowDiscard
	// flowAbort ends the whole run with the call's fatal error.
	flowAbort
)

// shError carries a control-flow change out of an expansion or assignment.
type shError struct {
	flow   flowKind
	status int
	// forceEOF marks a fatal expansion error (unbound variable, ${x:?}): bash's FORCE_EOF,
	// which a bash -c shell turns into status 127 (run_one_command) where a script exits 1.
	forceEOF bool
	// arith marks a flowDiscard from an arithmetic error: it does not trigger errexit.
	arith bool
}

func (e *shError) Error() string { return fmt.Sprintf("flow %d status %d", e.flow, e.status) }

// errStatus1 is a failure already reported (status 1) that does not change control flow.
var errStatus1 = &shError{flow: flowNone, status: 1}

// funcDef is a function definition.
type funcDef struct {
	body *syntax.Stmt
	src  *source
	name string
	// trace is declare -ft; readonly is readonly -f; exported is export -f.
	trace, readonly, exported bool
	// sdk marks a function Define installed (the SDK prelude): callable, but not listed by
	// declare -F/-f or set, since bash running the same script has no such function.
	sdk bool
	// aliases are those bash expanded in the body when it read the definition (nil: none);
	// the body runs with them, whatever alias and unalias did since.
	aliases map[string]string
}

type funcTable struct {
	m       map[string]*funcDef
	owner   uint64
	readers atomic.Int32
}

// frame is one entry of the function call stack (FUNCNAME, BASH_SOURCE, BASH_LINENO).
type frame struct {
	name   string
	src    *source
	callAt int // line of the call
}

// Runner is one shell: the main shell of a Run, or a subshell.
type Runner struct {
	// traceNot: the [[ ]] primary being evaluated is negated (xtrace prints "! ").
	traceNot bool
	// stopMatch asks whether the run's context ended, for pattern matches (made on first use).
	stopMatch func() bool
	// sh is the Shell given to this runner's builtins and Exec (shell): one per runner, so a
	// hook sees the same *Shell for every command the runner runs.
	sh  Shell
	c   *call
	id  uint64
	ctx context.Context

	scopes  []*scope
	funcs   *funcTable
	opts    optSet
	shopts  optSet
	params  []string
	arg0    string
	dir     string
	fds     *fdTable
	traps   *traps
	aliases map[string]string
	dirs    []string // pushd stack, without the current directory
	jobs    *jobTable
	// seenJobs are the jobs of the shell a command substitution copies, and of the shell whose
	// pipeline runs `jobs` as one of its stages: bash's child keeps its parent's job table
	// there (and only there: `( )`, other stages and `&` start with an empty one), so
	// `$(jobs -p)` lists the parent's jobs and `$(kill %1)` ends its first.
	seenJobs []*job
	// stageCall is the simple command a pipeline stage or a background job forks for: its words
	// are expanded in bash's child before it forgets the copied table (so `echo $(jobs -p) | cat`
	// lists the parent's jobs), which it keeps only for `jobs` itself in a pipeline stage
	// (bash's jobs_hack): stageKeeps.
	stageCall  *syntax.CallExpr
	stageKeeps bool
	// hashed is the command hash table; hashOwned says this shell may write it in place
	// (it is shared with subshells until one of them writes).
	hashed    map[string]hashEntry
	hashOwned bool
	// stdPath, while set, is the search path of `command -p` (bash's standard path): it
	// replaces $PATH for finding the command, never in the command's environment.
	stdPath string

	status   int // $?
	lastBg   int // $!
	bashpid  int
	subLevel int // BASH_SUBSHELL
	depth    int // functions, source, eval, subshells: bounded by MaxCallDepth
	frames   []frame
	cur      *source
	lineno   int
	// condPoison is the line of an eval whose [[ ]] syntax error bash 5.2 reported and went
	// on from (0: none). Bash's parser then fails the next [[ it reads, whatever it holds,
	// which the engine does not reproduce: a [[ read after it is refused.
	condPoison int
	funcDepth  int
	loopDepth  int
	// sig: this shell is a background job's, which kill reaches through it (nil otherwise:
	// subshells of the job are not signalled).
	sig *jobSignals
	// statusBefore is $? before the command running now: the EXIT trap's $? when a signal
	// ends the shell during that command.
	statusBefore int
	// ranProgram: the statement running now ran a program, after which bash reports the
	// jobs a signal killed meanwhile.
	ranProgram bool
	// shellSig reaches the shell $$ names (the main shell, or a child shell's own), which
	// `kill $$` from a subshell signals.
	shellSig *jobSignals
	// sigHandOff: the job is a ( ) subshell, which sig passes to when it starts.
	sigHandOff bool
	// group is the process group the shell runs in (a command under timeout), nil for the
	// run's own: its background jobs end when the group is signalled.
	group *pgroup.Group
	// stdinRedir: this subshell's input is a pipe or a redirection, which its background
	// jobs then read instead of /dev/null (bash's stdin_redir).
	stdinRedir bool
	// pipeIn: the ( ) subshell this pipeline stage runs next has the pipe as its input.
	pipeIn bool
	// bodyRedirLine: the line a function body's redirections report (its first), set for the
	// body's own statement.
	bodyRedirLine int
	noErrexit     int
	errexitOff    bool // errexit suspended in a command substitution (no inherit_errexit)
	// errexitSuspended: inside a negated pipeline (set -e lifts it).
	errexitSuspended bool
	inTrap           int
	// pipestatus is PIPESTATUS after a pipeline; nil means one command with status psOne.
	pipestatus []int
	psOne      int

	flow       flowKind
	flowN      int
	exitStatus int
	// discardArith: the flowDiscard under way comes from an arithmetic error, which bash's
	// reader loop takes without errexit (expr.c's evalerror jumps to the top level).
	discardArith bool

	// getopts remembers its position inside a cluster of options.
	optInd, optChar int
	// randState is the $RANDOM sequence; secondsBase the $SECONDS origin.
	secondsBase time.Time
	// unsetSpecial marks dynamic variables unset by the script (they lose their meaning).
	unsetSpecial map[string]bool
	// main is the top-level shell of the run.
	main bool

	sourceDepth int
	lastArg     string
	// curCmd is BASH_COMMAND: the command running (kept while a trap runs).
	curCmd curCommand
	// traceLevel is the xtrace nesting (command substitutions, eval): PS4's first
	// character is repeated once more per level.
	traceLevel int
	// pinned are the scopes this concurrent shell may read (see pinScopes).
	pinned      []*scope
	pinnedFuncs *funcTable
	// coproc is the shell's coprocess (nil: none).
	coproc *coproc
	// ulimits are the limits the shell set (ulimit); never changed in place (subshells
	// share it).
	ulimits  map[byte]ulimitValue
	umaskVal uint32
	umaskSet bool
	// shellPID is $$ and flags the invocation letters of $- ("c"): a new shell (RunScript)
	// has its own.
	shellPID    int
	flags       string
	aliasDefs   map[string]aliasDef
	aliasActive map[string]bool
	// bound is set when the commands running were read with boundAliases: bash expands
	// aliases as it reads, a line (a complete command) at a time, and a function body when it
	// reads the definition. Unset, in $(...) and <(...), the current aliases apply with a
	// position check (aliasExpand).
	bound         bool
	boundAliases  map[string]string
	procFDs       []procFD
	substSeen     bool
	substStatus   int
	pendingCredit int64
	// block is the memory New took the main shell from (Release); subshells copy it, and
	// Release ignores them.
	block *runBlock
}

// New prepares the main shell of one run (cfg is copied: the caller may change or drop it).
func New(given *Config) *Runner {
	b, _ := runBlocks.Get().(*runBlock)
	if b == nil {
		b = new(runBlock)
	}
	// The configuration is copied into the block: the caller's may then live on its stack.
	b.cfg = *given
	cfg := &b.cfg
	c := &b.c
	*c = call{cfg: cfg, limits: cfg.Limits.withDefaults(), fs: cfg.FS, now: cfg.Now, parsed: cfg.Parsed}
	if c.parsed == nil {
		c.parsed = NewParseCache()
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.start = c.now()
	seed := cfg.Seed
	if seed == 0 {
		seed = c.start.UnixNano()
	}
	c.seed = uint64(seed)
	c.pids.Store(int64(cfg.Identity.PID))
	r := &b.r
	*r = Runner{c: c, main: true, block: b}
	r.id = c.ids.Add(1)
	base := cfg.Base
	if base == nil {
		base = NewBase(cfg.Environ, cfg.Identity)
	}
	// The global scope: the shared base, the run's own environment (Vars and PWD) read where
	// it is, and a map for what the script sets, made on its first write (writable).
	b.layer = callLayer{vars: cfg.Vars, pwd: cfg.Dir}
	b.global = scope{vars: b.keptVars, owner: r.id, base: base.vars, call: &b.layer}
	b.keptVars = nil
	b.scopes = [1]*scope{&b.global}
	r.scopes = b.scopes[:]
	if base.funcs != nil {
		r.funcs = base.funcs // shared: the first definition copies it (owner 0 is no runner)
	} else {
		r.funcs = &funcTable{m: map[string]*funcDef{}, owner: r.id}
	}
	r.opts = defaultSetOpts
	r.shopts = defaultShopts
	r.params = cfg.Args
	r.arg0 = cfg.Name
	r.dir = cfg.Dir
	r.bashpid = cfg.Identity.PID
	r.shellPID = cfg.Identity.PID
	r.flags = cfg.Flags
	if cfg.Umask != nil {
		r.umaskVal, r.umaskSet = uint32(*cfg.Umask&0o777), true
	}
	b.traps, b.jobs = traps{}, jobTable{}
	r.traps, r.jobs = &b.traps, &b.jobs
	r.sig = newJobSignals(r.traps, nil)
	r.shellSig = r.sig
	r.secondsBase = c.start
	r.lastArg = "/bin/bash"
	r.pipestatus = []int{} // no command has run yet: PIPESTATUS is empty
	r.fds = b.fdTable(cfg.Stdin, cfg.Stdout, cfg.Stderr)
	return r
}

// runBlock is what New allocates for a main shell, in one piece: the Runner, the run's call
// state, its global scope, traps, jobs, descriptor table and standard descriptors. After Run
// has returned (every goroutine of the run has ended), Release gives it back to runBlocks and
// the next New reuses it, every part zeroed and set again as a fresh one is: nothing of one
// run is seen by the next (TestReleasedRunnerStartsFresh).
type runBlock struct {
	r      Runner
	cfg    Config
	c      call
	global scope
	layer  callLayer
	scopes [1]*scope
	traps  traps
	jobs   jobTable
	fds    fdTable
	std    [3]ofile
	// keptVars is the global scope's map of the last run, emptied (nil: none kept), for the
	// next run's first variable: a small map (one that never held more than maxKeptVars) is
	// reused rather than made again.
	keptVars map[string]variable
}

// maxKeptVars bounds the map Release keeps: one a script filled with many variables goes to the
// garbage collector with the rest of its run.
const maxKeptVars = 32

var runBlocks sync.Pool

// fdTable is newFdTable with the table and the standard descriptors in the block.
func (b *runBlock) fdTable(stdin io.Reader, stdout, stderr io.Writer) *fdTable {
	b.fds, b.std = fdTable{}, [3]ofile{}
	t := &b.fds
	if stdin == nil {
		stdin = emptyReader{}
	}
	b.std[0].r = stdin
	t.lo[0] = &b.std[0]
	if stdout != nil {
		b.std[1].w = stdout
		t.lo[1] = &b.std[1]
	}
	if stderr != nil {
		b.std[2].w = stderr
		t.lo[2] = &b.std[2]
	}
	for _, f := range t.lo[:3] {
		if f != nil {
			f.refs.Store(1)
		}
	}
	return t
}

// Release gives the main shell's memory back for the next New, once Run has returned: the
// caller must not use r, or anything of its run (its Shell), after. A runner whose Run has not
// returned, or that New did not make, is left to the garbage collector.
func (r *Runner) Release() {
	b := r.block
	if b == nil || &b.r != r || !r.main || !r.c.ended {
		return
	}
	kept := b.global.vars
	if len(kept) > maxKeptVars || b.global.shrunk {
		kept = nil // its tables may be far larger than a run needs
	}
	clear(kept)
	*b = runBlock{}
	b.keptVars = kept
	runBlocks.Put(b)
}

// Run runs a program in the main shell and returns its exit status. The error is nil for any
// normal end (including `exit N` and syntax errors, status 2); otherwise it is a
// *LimitError, *CancelError, *InternalError or *RefusalError. Every goroutine the run started
// has ended when Run returns.
func (r *Runner) Run(ctx context.Context, p *Program) (status int, err error) {
	cancel := r.c.cfg.Cancel
	if cancel == nil {
		ctx, cancel = context.WithCancelCause(ctx)
	}
	r.c.cancel = cancel
	r.ctx, r.c.runCtx = ctx, ctx
	defer func() {
		if pv := recover(); pv != nil {
			r.c.setFatal(&InternalError{Cause: pv, Stack: string(debug.Stack())})
		}
		if r.c.fatal() == nil {
			// The script has ended: its descriptors close (an output process substitution
			// reads its end of input), and what those still write reaches the output
			// first, as bash's output does before the reader of the script's sees its end.
			r.adoptOutputSubsts()
			r.fds.closeAll()
			r.c.awaitOrphans(ctx)
			r.c.orphansMu.Lock()
			orphans := slices.Clone(r.c.jobOrphans)
			r.c.orphansMu.Unlock()
			letRun(ctx, append(r.jobs.jobs(), orphans...))
		}
		cancel(errRunDone)
		r.jobs.killAll()
		r.fds.closeAll()
		r.c.wg.Wait()
		if f := r.c.fatal(); f != nil {
			status, err = 1, f
		}
		r.c.ended = true
	}()
	r.cur = p.src
	if strings.Contains(r.c.cfg.Flags, "c") {
		// A plain variable over one from the environment (which keeps its export).
		if err := r.assign("BASH_EXECUTION_STRING", r.c.cfg.Command, 0); err != nil {
			return 1, err
		}
	}
	r.runTop(p.stmts, true)
	r.reachSyntaxError(p)
	r.runExitTrap()
	if r.flow == flowAbort {
		return 1, r.c.fatal()
	}
	if ctxErr := context.Cause(ctx); ctxErr != nil && r.c.fatal() == nil {
		return 1, &CancelError{Cause: ctxErr}
	}
	if r.flow == flowExit {
		return r.exitStatus, nil
	}
	return r.status, nil
}

// reachSyntaxError ends a script whose text stops at a syntax error once the lines before it
// have run, as bash reads and runs a script a line at a time: the message, and status 2 (a
// [[ ]] syntax error keeps the last status, as bash's does). A script or a new shell (bash -c,
// bash FILE) ends the same way.
func (r *Runner) reachSyntaxError(p *Program) {
	if r.flow == flowAbort || p.err == nil || r.flow == flowExit {
		return
	}
	if p.src.eofHdocs != nil {
		r.warnEOFHdocs(0) // read before the error, after what ran
	}
	r.lineno = int(p.err.Pos.Line())
	if !p.condQuiet {
		for _, line := range p.errLines {
			r.errorf("%s", line)
		}
	}
	if !p.condErr {
		r.status = 2
	}
	r.flow, r.exitStatus = flowExit, r.status
}

// errRunDone cancels what is left of a run once it has returned.
var errRunDone = errors.New("run finished")

// runTop runs top-level statements: an expansion error abandons the rest of its line only.
// read is set for a script's text, read a line at a time (a subshell's body was read with
// the line that holds it).
func (r *Runner) runTop(stmts []*syntax.Stmt, read bool) {
	for i := 0; i < len(stmts); i++ {
		if !r.shopts.has(shExtglob) && r.lineHasExtglob(stmts, i) {
			if lineTestNegGroup(stmts, i) {
				// With extglob off bash reads [[ !(x) ]] as ! ( x ); the parser has it as a pattern.
				ref := Refusal{File: r.cur.name, Line: r.line(stmts[i].Pos()), Col: int(stmts[i].Pos().Col()),
					Construct: "[[ !(...) ]] read with extglob off (bash takes it as ! ( ... ))",
					Fix:       "write [[ ! ( ... ) ]] with spaces, or run the tool with \"exec\": \"native\" in tool.meta.json"}
				r.status = r.raise(r.fatal(&RefusalError{Refusal: ref}))
				return
			}
			if lineCmdNegGroup(stmts, i) {
				// `if !(a && b); then` with extglob off: bash reads ! ( a && b ), a negated
				// subshell; the parser has a !(...) pattern as the command word.
				ref := Refusal{File: r.cur.name, Line: r.line(stmts[i].Pos()), Col: int(stmts[i].Pos().Col()),
					Construct: "a command starting with !( read with extglob off (bash takes it as ! ( ... ), a negated subshell)",
					Fix:       "write ! ( ... ) with a space after the !, or run the tool with \"exec\": \"native\" in tool.meta.json"}
				r.status = r.raise(r.fatal(&RefusalError{Refusal: ref}))
				return
			}
			// Bash reads a line before running it: extended patterns on a line read with
			// extglob off are a syntax error, and nothing of the line runs.
			r.lineno = r.line(stmts[i].Pos())
			r.errorf("syntax error near unexpected token `('")
			r.flow, r.exitStatus, r.status = flowExit, 2, 2
			return
		}
		if read && newLine(stmts, i) {
			r.readLine(stmts, i)
		}
		if r.readsPoisonedCond(stmts[i]) {
			return
		}
		r.stmt(stmts[i])
		if r.flow == flowDiscard {
			r.flow = flowNone
			r.status = 1
			arithErr := r.discardArith
			r.discardArith = false
			if !arithErr && r.opts.has(optErrexit) && !r.errexitOff && r.noErrexit == 0 {
				r.flow, r.exitStatus = flowExit, 1
				return
			}
			// Skip the statements that share the line (bash reads and runs whole lines).
			line := stmts[i].End().Line()
			for i+1 < len(stmts) && stmts[i+1].Pos().Line() == line {
				i++
			}
			continue
		}
		if r.flow != flowNone {
			if (r.flow == flowBreak || r.flow == flowContinue) && r.loopDepth == 0 {
				r.flow = flowNone
				continue
			}
			return
		}
	}
}

// lineHasExtglob reports whether the statements sharing the line of stmts[i] contain an
// extended pattern (checked once per line start).
func (r *Runner) lineHasExtglob(stmts []*syntax.Stmt, i int) bool {
	if i > 0 && stmts[i-1].End().Line() == stmts[i].Pos().Line() {
		return false // checked with the line's first statement
	}
	line := stmts[i].End().Line()
	for j := i; j < len(stmts); j++ {
		if j > i && stmts[j].Pos().Line() != line {
			break
		}
		if r.hasExtglob(stmts[j]) {
			return true
		}
		line = stmts[j].End().Line()
	}
	return false
}

// hasExtglob reports (cached) whether a statement contains an extended pattern.
func (r *Runner) hasExtglob(s *syntax.Stmt) bool {
	key := extglobKey{s}
	if v, ok := r.cur.cache.Load(key); ok {
		return v.(bool)
	}
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ExtGlob:
			found = true
		case *syntax.BinaryTest:
			// [[ x == @(a|b) ]] is read with extended patterns whatever extglob says.
			switch x.Op {
			case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch:
				syntax.Walk(x.X, func(m syntax.Node) bool {
					if _, ok := m.(*syntax.ExtGlob); ok {
						found = true
					}
					return !found
				})
				return false
			}
		}
		return !found
	})
	r.cur.cache.Store(key, found)
	return found
}

type extglobKey struct{ s *syntax.Stmt }

// lineTestNegGroup is testNegGroup for the statements on stmts[i]'s line (as lineHasExtglob).
func lineTestNegGroup(stmts []*syntax.Stmt, i int) bool {
	line := stmts[i].End().Line()
	for j := i; j < len(stmts); j++ {
		if j > i && stmts[j].Pos().Line() != line {
			break
		}
		if testNegGroup(stmts[j]) {
			return true
		}
		line = stmts[j].End().Line()
	}
	return false
}

// testNegGroup reports whether a [[ ]] in s has an operand word that starts with !( outside
// the pattern of ==, != or =~.
func testNegGroup(s *syntax.Stmt) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if tc, ok := n.(*syntax.TestClause); ok {
			found = found || negGroupIn(tc.X)
			return false
		}
		return !found
	})
	return found
}

func negGroupIn(x syntax.TestExpr) bool {
	found := false
	syntax.Walk(x, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch, syntax.TsReMatch:
				found = found || negGroupIn(x.X)
				return false
			}
		case *syntax.Word:
			found = found || negGroupWord(x)
			return false
		}
		return !found
	})
	return found
}

// lineCmdNegGroup reports whether a simple command on stmts[i]'s line (as lineHasExtglob)
// starts with a !( pattern.
func lineCmdNegGroup(stmts []*syntax.Stmt, i int) bool {
	line := stmts[i].End().Line()
	found := false
	for j := i; j < len(stmts) && !found; j++ {
		if j > i && stmts[j].Pos().Line() != line {
			break
		}
		syntax.Walk(stmts[j], func(n syntax.Node) bool {
			if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 && negGroupWord(ce.Args[0]) {
				found = true
			}
			return !found
		})
		line = stmts[j].End().Line()
	}
	return found
}

func negGroupWord(w *syntax.Word) bool {
	if len(w.Parts) == 0 {
		return false
	}
	g, ok := w.Parts[0].(*syntax.ExtGlob)
	return ok && g.Op == syntax.GlobExcept
}

// fatal ends the run with err (a typed error) and returns the flow error that unwinds to it.
func (r *Runner) fatal(err error) error {
	r.c.setFatal(err)
	return &shError{flow: flowAbort, status: 1}
}

// raise applies an error returned by expansion or assignment to the control flow and
// returns the exit status to record.
func (r *Runner) raise(err error) int {
	var se *shError
	if errors.As(err, &se) {
		switch se.flow {
		case flowNone:
			return se.status
		case flowExit:
			st := se.status
			if se.forceEOF && r.subLevel == 0 && strings.Contains(r.flags, "c") {
				// Not in a subshell of it: there the subshell exits 1 to the -c shell.
				st = 127
			}
			r.flow, r.exitStatus = flowExit, st
			return st
		case flowDiscard:
			r.flow, r.discardArith = flowDiscard, se.arith
		case flowAbort:
			r.flow = flowAbort
		default:
			r.flow = se.flow
		}
		return se.status
	}
	var ex ExitRequest
	if errors.As(err, &ex) {
		r.flow, r.exitStatus = flowExit, ex.Status&0xff
		return ex.Status & 0xff
	}
	// A typed error from a hook (limit, internal): it ends the run.
	var le *LimitError
	var ie *InternalError
	var re *RefusalError
	var ce *CancelError
	if errors.As(err, &le) || errors.As(err, &ie) || errors.As(err, &re) || errors.As(err, &ce) {
		r.c.setFatal(err)
	} else {
		r.c.setFatal(&InternalError{Cause: err})
	}
	r.flow = flowAbort
	return 1
}

// checkEvery checks the call's end at every 1024th step n of a loop over what a script made
// (millions of fields or elements take a second between two commands).
func (r *Runner) checkEvery(n int) error {
	if n&1023 != 1023 {
		return nil
	}
	return r.checkCtx()
}

// checkCtx turns a cancelled context into the end of this shell or of the run.
func (r *Runner) checkCtx() error {
	if r.ctx.Err() == nil {
		return nil
	}
	if r.c.fatal() != nil {
		return &shError{flow: flowAbort, status: 1}
	}
	cause := context.Cause(r.ctx)
	if errors.Is(cause, errRunDone) {
		// The run is over (a goroutine outliving its shell): unwind quietly.
		return &shError{flow: flowAbort, status: 1}
	}
	if errors.Is(cause, errSigpipe) {
		return &shError{flow: flowExit, status: 141}
	}
	var ks *killSignal
	if errors.As(cause, &ks) {
		return &shError{flow: flowExit, status: 128 + ks.sig}
	}
	if r.c.runCtx != nil && r.c.runCtx.Err() == nil {
		// The run goes on: the context that ended is a utility's (timeout), whose command
		// this shell is. It ends as a process timeout signals does.
		sig := 15
		if g := pgroup.From(r.ctx); g != nil {
			sig = g.Signal()
		}
		if _, trapped := r.traps.get("SIG" + signals[sig]); trapped {
			// bash's would take the signal in its trap (or ignore it), after the command
			// running now (which the signal ends too, unless ignored) and go on.
			return r.refuseHere("a trap on SIG"+signals[sig]+" in a shell that timeout ends", "end the script from the timeout's status (124) instead of a trap, or run the tool with the native engine")
		}
		return &shError{flow: flowExit, status: 128 + sig}
	}
	return r.fatal(&CancelError{Cause: cause})
}

// prefix is what bash prints before an error message: "NAME: line N: ".
func (r *Runner) prefix() string {
	return r.errorName() + ": line " + strconv.Itoa(r.lineno) + ": "
}

// errorName is the name bash's messages start with: ${BASH_SOURCE[0]} (the file of the
// running function or sourced text), or $0 where that is empty (the script's own lines).
func (r *Runner) errorName() string {
	if n := len(r.frames); n > 0 {
		if src := r.frames[n-1].src; src != nil && src.name != "" {
			return src.name
		}
	}
	return r.arg0OrBash()
}

// arg0OrBash is the name messages start with.
func (r *Runner) arg0OrBash() string {
	if r.arg0 == "" {
		return "bash"
	}
	return r.arg0
}

// errorf prints an error message as bash does.
func (r *Runner) errorf(format string, args ...any) {
	msg := r.prefix() + fmt.Sprintf(format, args...) + "\n"
	_, _ = io.WriteString(r.stderr(), msg)
}

// warnf prints a warning as bash does.
func (r *Runner) warnf(format string, args ...any) {
	name := r.arg0
	if name == "" {
		name = "bash"
	}
	msg := name + ": warning: " + fmt.Sprintf(format, args...) + "\n"
	_, _ = io.WriteString(r.stderr(), msg)
}

// discardf reports an error that abandons the current command line (status 1).
func (r *Runner) discardf(format string, args ...any) error {
	r.errorf(format, args...)
	return &shError{flow: flowDiscard, status: 1}
}

// exitf reports an error that exits the shell (status 1), as `${x:?}` and set -u do.
func (r *Runner) exitf(format string, args ...any) error {
	r.errorf(format, args...)
	return &shError{flow: flowExit, status: 1, forceEOF: true}
}

// fork makes a subshell. async is true when it runs concurrently with r (pipeline stages,
// background jobs, process substitutions): then every shared scope is frozen for both.
func (r *Runner) fork(async bool) *Runner {
	s := &Runner{
		c:                r.c,
		id:               r.c.ids.Add(1),
		ctx:              r.ctx,
		scopes:           append([]*scope(nil), r.scopes...),
		funcs:            r.funcs,
		opts:             r.opts,
		shopts:           r.shopts,
		params:           r.params,
		arg0:             r.arg0,
		dir:              r.dir,
		traps:            r.traps.forSubshell(r.opts),
		aliases:          r.aliases,
		dirs:             slices.Clip(r.dirs),
		jobs:             &jobTable{},
		hashed:           r.hashed,
		status:           r.status,
		lastBg:           r.lastBg,
		bashpid:          int(r.c.pids.Add(1)),
		subLevel:         r.subLevel + 1,
		depth:            r.depth + 1,
		frames:           slices.Clip(r.frames),
		cur:              r.cur,
		lineno:           r.lineno,
		condPoison:       r.condPoison,
		funcDepth:        r.funcDepth,
		loopDepth:        r.loopDepth,
		stdinRedir:       r.stdinRedir,
		group:            r.group,
		noErrexit:        r.noErrexit,
		errexitOff:       r.errexitOff,
		errexitSuspended: r.errexitSuspended,
		inTrap:           r.inTrap,
		pipestatus:       r.pipestatus,
		optInd:           r.optInd,
		optChar:          r.optChar,

		secondsBase:  r.secondsBase,
		lastArg:      r.lastArg,
		traceLevel:   r.traceLevel,
		unsetSpecial: r.unsetSpecial,
		umaskVal:     r.umaskVal,
		umaskSet:     r.umaskSet,
		ulimits:      r.ulimits,
		shellPID:     r.shellPID,
		shellSig:     r.shellSig,
		flags:        r.flags,
		aliasDefs:    maps.Clone(r.aliasDefs),
		bound:        r.bound,
		boundAliases: r.boundAliases,
	}
	s.fds = r.fds.dup()
	s.dropCoproc(r)
	r.hashOwned = false // shared with s now: the next write copies it
	if async {
		r.pinScopes(s)
	}
	return s
}

// finish releases what a subshell holds (its file descriptors, its jobs).
func (s *Runner) finish() {
	s.unpin()
	s.adoptOutputSubsts()
	s.adoptJobs()
	s.fds.closeAll()
}

// adoptOutputSubsts hands the shell's running output process substitutions to the run: bash's
// are processes of their own that outlive the subshell that started them.
func (s *Runner) adoptOutputSubsts() {
	for _, j := range s.jobs.jobs() {
		if !j.output {
			continue
		}
		select {
		case <-j.done:
		default:
			s.jobs.remove(j)
			s.c.adopt(j)
		}
	}
}

// adoptJobs hands the jobs still running when a subshell ends to the call: bash's go on as
// orphans (`(echo a &)` prints, `$(echo c & echo d)` reads both), until they end or the call's
// end (after letRun's grace) ends them.
func (s *Runner) adoptJobs() {
	for _, j := range s.jobs.jobs() {
		if !j.finished() {
			s.jobs.remove(j)
			s.c.adopt(j)
		}
	}
}

// subshellStatus is the status a finished subshell reports to its parent, and whether it
// ended the run.
func (s *Runner) subshellStatus() (int, bool) {
	switch s.flow {
	case flowAbort:
		return 1, true
	case flowExit:
		return s.exitStatus, false
	case flowDiscard:
		return 1, false
	}
	return s.status, false
}

// enter counts one nesting level (function, source, eval, subshell) against MaxCallDepth.
func (r *Runner) enter() error {
	if r.depth >= r.c.limits.MaxCallDepth {
		return r.fatal(&LimitError{Kind: LimitDepth, Max: int64(r.c.limits.MaxCallDepth)})
	}
	r.depth++
	return nil
}

func (r *Runner) leave() { r.depth-- }

// nextRandom is $RANDOM (0..32767).
func (r *Runner) nextRandom() int {
	r.c.rngMu.Lock()
	defer r.c.rngMu.Unlock()
	return int(r.c.random().Int32N(32768))
}

func (r *Runner) seedRandom(v string) {
	n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	r.c.rngMu.Lock()
	r.c.rng = rand.New(rand.NewPCG(uint64(n), uint64(n)>>7|1))
	r.c.rngMu.Unlock()
}
