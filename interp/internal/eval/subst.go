package eval

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// capture collects a command substitution's output, charging the memory budget as it
// grows. It is done when the last descriptor referring to it closes (a background job
// holding the output keeps the substitution waiting, as in bash).
type capture struct {
	r    *Runner
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
	err  error
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if err := c.r.charge(int64(len(p))); err != nil {
		c.err = err
		return 0, err
	}
	return c.buf.Write(p)
}

func (c *capture) Close() error {
	close(c.done)
	return nil
}

// cmdSubst runs $(...) or `...` and returns its output without trailing newlines.
func (r *Runner) cmdSubst(cs *syntax.CmdSubst) (string, error) {
	if cs.TempFile || cs.ReplyVar {
		// mksh's ${ cmd; } and ${|cmd; } (bash 5.3's): bash 5.2 reads them as a parameter
		// expansion it cannot make.
		return "", r.discardf("%s: bad substitution", r.cur.slice(cs.Pos(), cs.End()))
	}
	if err := r.enter(); err != nil {
		return "", err
	}
	defer r.leave()
	if s, ok, err := r.readSubst(cs); ok {
		return s, err
	}
	if s, ok, err := r.pureSubst(cs); ok {
		return s, err
	}
	child := r.fork(false)
	child.seenJobs = substJobs(r.shownJobs())
	// bash parses $(...) again when it runs it: the aliases of that moment apply.
	child.bound, child.boundAliases = false, nil
	c := &capture{r: r, done: make(chan struct{})}
	child.fds.set(1, newOfile(nil, c, c))
	if !r.shopts.has(shInheritErrexit) {
		child.opts &^= optErrexit
	}
	child.traceLevel++
	child.runSubshell(cs.Stmts)
	st, abort := child.subshellStatus()
	child.finish()
	select {
	case <-c.done:
	case <-r.ctx.Done():
	}
	c.mu.Lock()
	out := c.buf.String()
	captured := int64(c.buf.Len())
	c.buf = bytes.Buffer{}
	c.mu.Unlock()
	r.c.mem.Add(-captured)
	if abort {
		return "", &shError{flow: flowAbort, status: 1}
	}
	if err := r.checkCtx(); err != nil {
		return "", err
	}
	r.substStatus, r.substSeen = st, true
	r.status = st
	if strings.IndexByte(out, 0) >= 0 {
		r.warnf("command substitution: ignored null byte in input")
		out = strings.ReplaceAll(out, "\x00", "")
	}
	return strings.TrimRight(out, "\n"), nil
}

// pureSubst runs $(cmd args...) in place when cmd is a Pure builtin and nothing of the shell
// that a subshell would change or see differently can be involved: one simple command with
// plain words (literals, quotes, plain variables that are set), no redirection, assignment,
// trap, alias, xtrace or verbose. It does what the subshell would have done and nothing
// more: the command counts against MaxCommands, the subshell's BASHPID number is used up, its
// output is captured and charged, and an exit ends only the substitution. ok is false when
// the substitution needs a subshell.
func (r *Runner) pureSubst(cs *syntax.CmdSubst) (out string, ok bool, err error) {
	if r.c.cfg.Pure == nil || len(cs.Stmts) != 1 {
		return "", false, nil
	}
	st := cs.Stmts[0]
	ce, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || len(ce.Assigns) > 0 || len(ce.Args) == 0 ||
		r.opts.has(optXtrace) || r.opts.has(optVerbose) || len(r.traps.m) > 0 || (r.shopts.has(shExpandAliases) && len(r.aliases) > 0) {
		return "", false, nil
	}
	for _, w := range ce.Args {
		if !r.plainWord(w) {
			return "", false, nil
		}
	}
	saved := r.pendingCredit
	r.pendingCredit = 0
	defer func() {
		r.creditExpansion()
		r.pendingCredit = saved
	}()
	args, xerr := r.expandFields(ce.Args)
	if xerr != nil || len(args) == 0 || strings.IndexByte(args[0], '/') >= 0 || r.funcs.m[args[0]] != nil || !r.c.cfg.Pure(args[0]) {
		return "", false, nil
	}
	b := r.hookBuiltin(args[0])
	if b == nil {
		return "", false, nil
	}
	// While it runs, this shell shows what the subshell would (the builtin only reads): its
	// BASHPID (a number a fork would use up), BASH_SUBSHELL, depth, options, stdout, line.
	saved2 := substSaved{r.fds.lo[1], r.lineno, r.bashpid, r.subLevel, r.depth, r.traceLevel, r.opts}
	r.bashpid = int(r.c.pids.Add(1))
	r.subLevel++
	r.depth++
	r.traceLevel++
	if !r.shopts.has(shInheritErrexit) {
		r.opts &^= optErrexit
	}
	if r.c.commands.Add(1) > r.c.limits.MaxCommands {
		saved2.restore(r)
		return "", true, r.fatal(&LimitError{Kind: LimitCommands, Max: r.c.limits.MaxCommands})
	}
	// The capture buffer and the descriptor writing to it in one allocation.
	po := &pureOut{buf: substBuf{r: r}}
	po.f.w = &po.buf
	po.f.refs.Store(1)
	buf := &po.buf
	r.fds.lo[1] = &po.f
	r.lineno = r.line(callLine(ce))
	status, herr := b(r.ctx, r.shell(), args)
	saved2.restore(r)
	captured := int64(buf.b.Len())
	defer r.c.mem.Add(-captured)
	switch {
	case herr == nil:
	case isExitRequest(herr, &status):
		// it ends the subshell, not this shell
	default:
		var le *LimitError
		var ie *InternalError
		var re *RefusalError
		var ce *CancelError
		if !errors.As(herr, &le) && !errors.As(herr, &ie) && !errors.As(herr, &re) && !errors.As(herr, &ce) {
			herr = &InternalError{Cause: herr}
		}
		return "", true, r.fatal(herr)
	}
	if buf.err != nil {
		return "", true, &shError{flow: flowAbort, status: 1} // charge has ended the run
	}
	if err := r.checkCtx(); err != nil {
		return "", true, err
	}
	r.substStatus, r.substSeen = status&0xff, true
	r.status = status & 0xff
	out = buf.b.String()
	if strings.IndexByte(out, 0) >= 0 {
		r.warnf("command substitution: ignored null byte in input")
		out = strings.ReplaceAll(out, "\x00", "")
	}
	return strings.TrimRight(out, "\n"), true, nil
}

// plainWord reports whether expanding w in this shell gives what a subshell would give and
// changes nothing: literals, quotes, and variables and positional parameters that are set.
func (r *Runner) plainWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				switch y := q.(type) {
				case *syntax.Lit:
				case *syntax.ParamExp:
					if !r.plainParam(y) {
						return false
					}
				default:
					return false
				}
			}
		case *syntax.ParamExp:
			if !r.plainParam(x) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// plainParam is $name or ${name} of a set scalar that is not special, or a positional
// parameter that is set.
func (r *Runner) plainParam(pe *syntax.ParamExp) bool {
	if pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Names != 0 || pe.Exp != nil {
		return false
	}
	name := pe.Param.Value
	if n, err := strconv.Atoi(name); err == nil {
		return n >= 1 && n <= len(r.params)
	}
	if !validName(name) || r.isDynamic(name) {
		return false
	}
	_, v := r.find(name)
	return v.set && v.attrs&(attrNameref|attrArray|attrAssoc|attrDeleted) == 0
}

// substSaved is what pureSubst changes of a shell while the builtin runs.
type substSaved struct {
	out                              *ofile
	lineno, bashpid, subLevel, depth int
	traceLevel                       int
	opts                             optSet
}

func (s substSaved) restore(r *Runner) {
	r.fds.lo[1], r.lineno, r.bashpid, r.subLevel, r.depth, r.traceLevel, r.opts = s.out, s.lineno, s.bashpid, s.subLevel, s.depth, s.traceLevel, s.opts
}

// substBuf is the output of a substitution run in place, charged as it grows.
// pureOut is a pure command substitution's capture buffer and the open file description of
// the builtin's stdout that writes to it (pureSubst).
type pureOut struct {
	buf substBuf
	f   ofile
}

// isExitRequest reports whether err is an ExitRequest, setting *status to its status (out of
// line: the ExitRequest errors.As fills is then allocated only when there is an error).
func isExitRequest(err error, status *int) bool {
	var ex ExitRequest
	if !errors.As(err, &ex) {
		return false
	}
	*status = ex.Status
	return true
}

type substBuf struct {
	r   *Runner
	b   bytes.Buffer
	err error
}

func (c *substBuf) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if err := c.r.charge(int64(len(p))); err != nil {
		c.err = err
		return 0, err
	}
	return c.b.Write(p)
}

// readSubst handles $(< file): the file's content, read by the shell itself.
func (r *Runner) readSubst(cs *syntax.CmdSubst) (string, bool, error) {
	if len(cs.Stmts) != 1 {
		return "", false, nil
	}
	st := cs.Stmts[0]
	if st.Cmd != nil || len(st.Redirs) != 1 || st.Redirs[0].Op != syntax.RdrIn || st.Negated || st.Background {
		return "", false, nil
	}
	name, err := r.redirWord(st.Redirs[0])
	if err != nil {
		return "", true, err
	}
	f, err := r.openRedir(name, os.O_RDONLY, false)
	if err != nil {
		r.substStatus, r.substSeen = 1, true
		return "", true, nil
	}
	defer f.release()
	var b bytes.Buffer
	buf := make([]byte, 32<<10)
	for {
		if err := r.checkCtx(); err != nil {
			return "", true, err
		}
		n, rerr := f.Read(buf)
		if n > 0 {
			if err := r.charge(int64(n)); err != nil {
				return "", true, err
			}
			b.Write(buf[:n])
		}
		if rerr != nil {
			break
		}
	}
	r.c.mem.Add(-int64(b.Len()))
	r.substStatus, r.substSeen = 0, true
	return strings.TrimRight(b.String(), "\n"), true, nil
}

// readProcSubst runs <(< file) as bash 5.2 does $(< file): the file's bytes are the
// output, with no command run. It reports whether stmts had that form.
func (r *Runner) readProcSubst(stmts []*syntax.Stmt) bool {
	if len(stmts) != 1 {
		return false
	}
	st := stmts[0]
	if st.Cmd != nil || len(st.Redirs) != 1 || st.Redirs[0].Op != syntax.RdrIn || st.Negated || st.Background {
		return false
	}
	r.status = 1
	name, err := r.redirWord(st.Redirs[0])
	if err != nil {
		r.raise(err)
		return true
	}
	f, err := r.openRedir(name, os.O_RDONLY, false)
	if err != nil {
		return true
	}
	defer f.release()
	out := r.stdout()
	buf := make([]byte, 32<<10)
	for r.checkCtx() == nil {
		n, rerr := f.Read(buf)
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				return true
			}
		}
		if rerr != nil {
			r.status = 0
			return true
		}
	}
	return true
}

// procSubst starts <(cmd) or >(cmd) and returns the /dev/fd path the command sees.
func (r *Runner) procSubst(ps *syntax.ProcSubst) (string, error) {
	if ps.Op == syntax.CmdInTemp {
		return "", r.refuseErr(ps.Pos(), "=(...)")
	}
	if err := r.startJob(); err != nil {
		return "", err
	}
	// An output substitution lives in the run's context: it may outlive its shell.
	parent := r.ctx
	if ps.Op != syntax.CmdIn && r.c.runCtx != nil {
		parent = r.c.runCtx
	}
	p := newPipe(parent)
	rd := newOfile(pipeReader{p}, nil, pipeReader{p})
	wr := newOfile(nil, pipeWriter{p}, pipeWriter{p})
	child := r.fork(true)
	child.bound, child.boundAliases = false, nil // parsed again when it runs, as $(...)
	n := r.fds.highestFree(63)
	if ps.Op == syntax.CmdIn {
		child.fds.set(1, wr)
		r.fds.set(n, rd)
	} else {
		child.fds.set(0, rd)
		r.fds.set(n, wr)
	}
	r.procFDs = append(r.procFDs, procFD{t: r.fds, n: n})
	stmts := ps.Stmts
	ctx, cancel := context.WithCancelCause(parent)
	child.ctx = ctx
	j := r.jobs.addProc(child.bashpid, cancel)
	j.output = ps.Op != syntax.CmdIn
	r.c.goRun(func() {
		defer r.c.live.Add(-1)
		defer cancel(errRunDone)
		if ps.Op == syntax.CmdIn && child.readProcSubst(stmts) {
			child.finish()
			j.finish(child.status)
			return
		}
		child.runSubshell(stmts)
		st, _ := child.subshellStatus()
		child.finish()
		j.finish(st)
	})
	// $! is the process substitution's, so `wait $!` (and `wait`) wait for it.
	r.lastBg = child.bashpid
	return "/dev/fd/" + strconv.Itoa(n), nil
}

// procFD is a process substitution's descriptor, closed when its command ends.
type procFD struct {
	t *fdTable
	n int
}

// closeProcFDs closes the process-substitution descriptors opened since mark.
func (r *Runner) closeProcFDs(mark int) {
	for _, p := range r.procFDs[mark:] {
		p.t.set(p.n, nil)
	}
	r.procFDs = r.procFDs[:mark]
}

// startJob counts one running job (background job, coprocess, process substitution); its
// goroutine uncounts it when it ends.
func (r *Runner) startJob() error {
	if r.c.live.Add(1) > r.c.limits.MaxJobs && !r.c.awaitLive() {
		r.c.live.Add(-1)
		return r.fatal(&LimitError{Kind: LimitJobs, Max: r.c.limits.MaxJobs})
	}
	return nil
}

// highestFree finds the highest free descriptor <= from (process substitutions count down
// from 63, as bash's do).
func (t *fdTable) highestFree(from int) int {
	for n := from; n >= 10; n-- {
		if t.get(n) == nil {
			return n
		}
	}
	return t.lowestFree(64)
}

var _ io.Writer = (*capture)(nil)
