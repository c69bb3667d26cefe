package eval

import (
	"context"
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// stmts runs a list of statements until control flow leaves it.
func (r *Runner) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		r.stmt(s)
		if r.flow != flowNone {
			return
		}
	}
}

// stmt runs one statement: background, negation, redirections, the command.
func (r *Runner) stmt(s *syntax.Stmt) {
	if err := r.checkCtx(); err != nil {
		r.status = r.raise(err)
		return
	}
	if r.opts&optNoexec != 0 {
		// set -n: commands are read, not run.
		return
	}
	if s.Background || s.Coprocess {
		r.background(s)
		return
	}
	mark := len(r.procFDs)
	r.statusBefore = r.status
	r.stmtRun(s)
	if len(r.procFDs) > mark {
		r.closeProcFDs(mark)
	}
	if r.ranProgram {
		r.ranProgram = false
		if err := r.reportDeaths(); err != nil {
			r.status = r.raise(err)
		}
	}
	if r.sig != nil && r.sig.pending.Load() != 0 {
		r.takeSignals()
	}
}

func (r *Runner) stmtRun(s *syntax.Stmt) {
	if s.Negated {
		// Bash runs a negated pipeline with errexit suspended; a set -e inside (even in a
		// function) turns it back on.
		saved := r.errexitSuspended
		r.errexitSuspended = true
		r.command(s.Cmd, s.Redirs)
		r.errexitSuspended = saved
		if r.flow == flowNone || r.flow == flowReturn {
			if r.status == 0 {
				r.status = 1
			} else {
				r.status = 0
			}
		}
		return
	}
	r.command(s.Cmd, s.Redirs)
}

// curCommand is what BASH_COMMAND shows: printed when read.
type curCommand struct {
	cmd    syntax.Command
	redirs []*syntax.Redirect
	src    *source
}

// setCurCommand records BASH_COMMAND (not while a trap runs, as in bash).
func (r *Runner) setCurCommand(cmd syntax.Command, redirs []*syntax.Redirect) {
	if r.inTrap == 0 {
		r.curCmd = curCommand{cmd, redirs, r.cur}
	}
}

// bashCommand renders BASH_COMMAND.
func (r *Runner) bashCommand() string {
	c := r.curCmd
	if c.cmd == nil {
		return ""
	}
	p := &printer{r: r, src: c.src}
	p.stmtInline(&syntax.Stmt{Cmd: c.cmd, Redirs: c.redirs}, 0)
	if p.bad != nil {
		return c.src.slice(c.cmd.Pos(), c.cmd.End())
	}
	return p.b.String()
}

// command runs a command with the statement's redirections.
func (r *Runner) command(cmd syntax.Command, redirs []*syntax.Redirect) {
	switch cmd.(type) {
	case *syntax.CallExpr, *syntax.Subshell, *syntax.ArithmCmd, *syntax.TestClause, *syntax.DeclClause, *syntax.LetClause:
		r.setCurCommand(cmd, redirs)
	}
	switch c := cmd.(type) {
	case nil:
		// A statement of redirections only: they are performed (files created), then undone.
		r.countCommand()
		if r.flow != flowNone {
			return
		}
		if len(redirs) > 0 {
			// $LINENO in the words is this line, as for a simple command.
			r.lineno = r.line(redirs[0].Pos())
		}
		rs, err := r.redirect(redirs, false)
		if err != nil {
			r.status = r.raise(err)
			r.afterSimple()
			return
		}
		rs.restore()
		r.status = 0
		return
	case *syntax.CallExpr:
		r.callExpr(c, redirs)
		return
	case *syntax.DeclClause:
		r.declClause(c, redirs)
		return
	case *syntax.LetClause:
		r.letClause(c, redirs)
		return
	}
	if len(redirs) > 0 {
		// Bash has read the whole compound command, so its messages name the line of the
		// redirections after it (a function body's, the function's first line); $LINENO,
		// in an ERR trap too, stays the last simple command's.
		saved := r.lineno
		if r.bodyRedirLine > 0 {
			r.lineno, r.bodyRedirLine = r.bodyRedirLine, 0
		} else {
			r.lineno = r.line(redirs[len(redirs)-1].Pos())
		}
		if _, sub := cmd.(*syntax.Subshell); sub {
			saved = r.lineno // a subshell is a command of that line, as a simple command
		}
		rs, err := r.redirect(redirs, false)
		if err != nil {
			r.status = r.raise(err)
			r.lineno = saved
			r.afterSimple()
			return
		}
		r.lineno = saved
		defer rs.restore()
	}
	switch c := cmd.(type) {
	case *syntax.Block:
		r.stmts(c.Stmts)
	case *syntax.Subshell:
		// A ( ) subshell decides afresh: its own redirections, or a pipe into it.
		saved := r.stdinRedir
		r.stdinRedir, r.pipeIn = r.pipeIn || redirsStdin(redirs), false
		r.subshell(c.Stmts)
		r.stdinRedir = saved
	case *syntax.IfClause:
		r.ifClause(c)
	case *syntax.WhileClause:
		r.whileClause(c)
	case *syntax.ForClause:
		r.forClause(c)
	case *syntax.CaseClause:
		r.caseClause(c)
	case *syntax.BinaryCmd:
		r.binaryCmd(c)
	case *syntax.FuncDecl:
		r.funcDecl(c)
	case *syntax.ArithmCmd:
		r.lineno = r.line(c.Pos())
		r.countCommand()
		if r.flow != flowNone {
			return
		}
		r.xtraceArith(c)
		n, err := r.arithNode(c, c.X)
		if err != nil {
			r.status = r.raise(err)
			if r.flow == flowNone {
				r.afterSimple()
			}
			return
		}
		r.status = boolStatus(n != 0)
		r.afterSimple()
	case *syntax.TestClause:
		r.lineno = r.line(c.Pos())
		r.countCommand()
		if r.flow != flowNone {
			return
		}
		ok, err := r.testClause(c)
		if err != nil {
			r.status = r.raise(err)
			if r.flow == flowNone {
				r.afterSimple()
			}
			return
		}
		r.status = boolStatus(ok)
		r.afterSimple()
	case *syntax.TimeClause:
		r.timeClause(c)
	case *syntax.CoprocClause:
		r.coprocClause(c)
	case *syntax.TestDecl:
		r.refuse(c.Pos(), "@test", DefaultFix)
	default:
		r.refuse(cmd.Pos(), "this command", DefaultFix)
	}
}

func boolStatus(ok bool) int {
	if ok {
		return 0
	}
	return 1
}

// line is the script line of a position (LINENO).
func (r *Runner) line(p syntax.Pos) int { return int(p.Line()) + r.cur.lineBase }

// countCommand charges one command against MaxCommands.
func (r *Runner) countCommand() {
	if r.c.commands.Add(1) > r.c.limits.MaxCommands {
		r.status = r.raise(r.fatal(&LimitError{Kind: LimitCommands, Max: r.c.limits.MaxCommands}))
	}
}

// afterSimple records PIPESTATUS for a one-command pipeline, then applies the ERR trap and
// errexit.
func (r *Runner) afterSimple() {
	r.pipestatus = nil
	r.psOne = r.status
	r.afterCmd()
}

// afterCmd applies the ERR trap and errexit after a command that can trigger them (simple
// commands, (( )), [[ ]], subshells, pipelines).
func (r *Runner) afterCmd() {
	if r.status == 0 || r.noErrexit > 0 || r.errexitSuspended || r.flow != flowNone {
		return
	}
	r.runErrTrap()
	if r.flow != flowNone {
		return
	}
	if r.opts.has(optErrexit) && !r.errexitOff {
		r.flow, r.exitStatus = flowExit, r.status
	}
}

// refuse stops the run at a construct the evaluator does not run exactly as bash does.
func (r *Runner) refuse(pos syntax.Pos, construct, fix string) {
	ref := Refusal{File: r.cur.name, Line: r.line(pos), Col: int(pos.Col()), Construct: construct, Fix: fix}
	r.status = r.raise(r.fatal(&RefusalError{Refusal: ref}))
}

// refuseHere is the run-ending refusal of a construct found while running, at the current line.
func (r *Runner) refuseHere(construct, fix string) error {
	return r.fatal(&RefusalError{Refusal: Refusal{File: r.cur.name, Line: r.lineno, Construct: construct, Fix: fix}})
}

func (r *Runner) refuseErr(pos syntax.Pos, construct string) error {
	ref := Refusal{File: r.cur.name, Line: r.line(pos), Col: int(pos.Col()), Construct: construct, Fix: DefaultFix}
	return r.fatal(&RefusalError{Refusal: ref})
}

// subshell runs statements in a copy of the shell.
func (r *Runner) subshell(list []*syntax.Stmt) {
	r.countCommand()
	if r.flow != flowNone {
		return
	}
	if err := r.enter(); err != nil {
		r.status = r.raise(err)
		return
	}
	defer r.leave()
	s := r.fork(false)
	s.loopDepth = 0 // bash (compat > 44): a subshell is no longer in its shell's loop
	if r.sigHandOff {
		// `( ... ) &` is one process in bash: kill reaches the subshell's own traps.
		r.sigHandOff = false
		s.sig, r.sig = r.sig, nil
		s.sig.traps.Store(s.traps)
	}
	defer r.enterNested()()
	s.runSubshell(list)
	st, abort := s.subshellStatus()
	s.finish()
	if abort {
		r.flow = flowAbort
		return
	}
	r.status = st
	r.afterSimple()
}

// runSubshell runs statements as the body of a subshell, with its EXIT trap. A break or
// continue of its shell's loop (in $(...), <(...) or a simple command of a pipeline or in the
// background, which stay in the loop) ends it, and bash runs no command after it, the EXIT
// trap's neither.
func (s *Runner) runSubshell(list []*syntax.Stmt) {
	s.runTop(list, false)
	if s.flow == flowDiscard {
		s.flow, s.status = flowNone, 1
	}
	if s.flow == flowBreak || s.flow == flowContinue {
		return
	}
	s.runExitTrapAfterSignal()
}

// stdinFromPipe marks a compound pipeline stage whose input is the pipe: its background
// jobs read it, as bash's (execute_in_subshell's stdin_redir).
func (s *Runner) stdinFromPipe(st *syntax.Stmt, piped bool) {
	switch st.Cmd.(type) {
	case *syntax.CallExpr:
	case *syntax.Subshell:
		s.pipeIn = piped
	default:
		s.stdinRedir = s.stdinRedir || piped
	}
}

// redirsStdin reports whether redirs set the standard input.
func redirsStdin(redirs []*syntax.Redirect) bool {
	for _, rd := range redirs {
		switch rd.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if rd.N == nil || rd.N.Value == "0" {
				return true
			}
		}
	}
	return false
}

// leaveLoopFor is what bash's execute_in_subshell does for a compound command run as a
// pipeline stage or in the background: the subshell is no longer in its shell's loop. A
// simple command (`continue &`, `echo | break`) stays in it.
func (s *Runner) leaveLoopFor(st *syntax.Stmt) {
	if _, simple := st.Cmd.(*syntax.CallExpr); !simple {
		s.loopDepth = 0
	}
}

func (r *Runner) ifClause(c *syntax.IfClause) {
	for ; c != nil; c = c.Else {
		if c.ThenPos.IsValid() || c.Cond != nil {
			r.noErrexit++
			r.stmts(c.Cond)
			r.noErrexit--
			if r.flow != flowNone {
				return
			}
			if r.status != 0 {
				continue
			}
		}
		r.stmts(c.Then)
		return
	}
	r.status = 0
}

// loopBody runs a loop body and reports whether the loop must stop.
func (r *Runner) loopBody(body []*syntax.Stmt) bool {
	r.loopDepth++
	r.stmts(body)
	r.loopDepth--
	switch r.flow {
	case flowBreak:
		if r.flowN > 1 {
			r.flowN--
			return true
		}
		r.flow = flowNone
		return true
	case flowContinue:
		if r.flowN > 1 {
			r.flowN--
			return true
		}
		r.flow = flowNone
		return false
	case flowNone:
		return false
	}
	return true
}

func (r *Runner) whileClause(c *syntax.WhileClause) {
	status := 0
	for {
		if err := r.checkCtx(); err != nil {
			r.status = r.raise(err)
			return
		}
		r.noErrexit++
		r.loopDepth++
		r.stmts(c.Cond)
		r.loopDepth--
		r.noErrexit--
		if r.flow != flowNone {
			// break/continue in the condition act on this loop.
			if r.flow == flowBreak || r.flow == flowContinue {
				stop := r.flowN > 1 || r.flow == flowBreak
				if r.flowN > 1 {
					r.flowN--
				} else {
					r.flow = flowNone
				}
				if stop {
					r.status = status
					return
				}
				continue
			}
			return
		}
		if (r.status == 0) == c.Until {
			break
		}
		if r.loopBody(c.Do) {
			return
		}
		status = r.status
	}
	r.status = status
}

func (r *Runner) forClause(c *syntax.ForClause) {
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		if c.Select {
			r.selectClause(c, l)
			return
		}
		r.lineno = r.line(c.Pos())
		var items []string
		if l.InPos.IsValid() {
			var err error
			items, err = r.expandFields(l.Items)
			if err != nil {
				r.status = r.raise(err)
				return
			}
		} else {
			items = r.params
		}
		name := l.Name.Value
		if !validName(name) {
			// Outside POSIX mode bash reports it and the loop fails (status 1); the shell goes on.
			r.errorf("`%s': not a valid identifier", name)
			r.status = 1
			return
		}
		r.status = 0
		for _, it := range items {
			if err := r.checkCtx(); err != nil {
				r.status = r.raise(err)
				return
			}
			if r.opts.has(optXtrace) {
				text := "for " + name
				if l.InPos.IsValid() && len(l.Items) > 0 {
					text += " in " + r.cur.slice(l.Items[0].Pos(), l.Items[len(l.Items)-1].End())
				} else if !l.InPos.IsValid() {
					text += ` in "$@"` // bash shows the implied list
				}
				r.xtraceText(text)
			}
			if err := r.assign(name, it, 0); err != nil {
				var se *shError
				if errors.As(err, &se) && se.flow == flowDiscard {
					// A loop variable bash cannot assign (readonly): it reports it and the loop
					// fails with status 1, the rest of the line running (unlike after a plain
					// assignment), without the ERR trap; under set -e the shell exits, even where
					// errexit is ignored (an if condition, before ||).
					r.status = 1
					if r.opts.has(optErrexit) {
						r.flow, r.exitStatus = flowExit, 1
					}
					return
				}
				r.status = r.raise(err)
				return
			}
			if r.loopBody(c.Do) {
				return
			}
		}
	case *syntax.CStyleLoop:
		r.lineno = r.line(c.Pos())
		traceArith := func(x syntax.ArithmExpr) {
			if r.opts.has(optXtrace) {
				if text, err := r.arithText(l, x); err == nil {
					r.xtraceText("(( " + strings.TrimSpace(text) + " ))")
				}
			}
		}
		if l.Init != nil {
			traceArith(l.Init)
			if _, err := r.arithNode(l, l.Init); err != nil {
				r.status = r.raise(err)
				return
			}
		}
		r.status = 0
		for {
			if err := r.checkCtx(); err != nil {
				r.status = r.raise(err)
				return
			}
			if l.Cond != nil {
				r.lineno = r.line(c.Pos())
				traceArith(l.Cond)
				n, err := r.arithNode(l, l.Cond)
				if err != nil {
					r.status = r.raise(err)
					return
				}
				if n == 0 {
					break
				}
			}
			if r.loopBody(c.Do) {
				return
			}
			if l.Post != nil {
				traceArith(l.Post)
				if _, err := r.arithNode(l, l.Post); err != nil {
					r.status = r.raise(err)
					return
				}
			}
		}
	}
}

func (r *Runner) caseClause(c *syntax.CaseClause) {
	r.lineno = r.line(c.Pos())
	if r.opts.has(optXtrace) {
		r.xtraceText("case " + r.cur.slice(c.Word.Pos(), c.Word.End()) + " in")
	}
	word, err := r.expandString(c.Word, ctxCaseWord)
	if err != nil {
		r.status = r.raise(err)
		return
	}
	r.status = 0
	matched := false
	for i := 0; i < len(c.Items); i++ {
		it := c.Items[i]
		if !matched {
			for _, p := range it.Patterns {
				pat, err := r.expandPattern(p)
				if err != nil {
					r.status = r.raise(err)
					return
				}
				if r.matchPattern(pat, word, r.shopts.has(shNocasematch)) {
					matched = true
					break
				}
			}
			if !matched {
				continue
			}
		}
		r.stmts(it.Stmts)
		if r.flow != flowNone {
			return
		}
		switch it.Op {
		case syntax.Fallthrough: // ;& runs the next body without testing
			continue
		case syntax.Resume, syntax.ResumeKorn: // ;;& tests the next patterns
			matched = false
			continue
		}
		return
	}
}

func (r *Runner) binaryCmd(c *syntax.BinaryCmd) {
	switch c.Op {
	case syntax.AndStmt, syntax.OrStmt:
		r.noErrexit++
		r.stmt(c.X)
		r.noErrexit--
		if r.flow != flowNone {
			return
		}
		if (r.status == 0) == (c.Op == syntax.AndStmt) {
			r.stmt(c.Y)
		}
	case syntax.Pipe, syntax.PipeAll:
		r.pipeline(c)
	}
}

func (r *Runner) funcDecl(c *syntax.FuncDecl) {
	r.countCommand()
	if r.flow != flowNone {
		return
	}
	if c.Name == nil {
		r.errorf("syntax error near unexpected token `('")
		r.flow, r.exitStatus, r.status = flowExit, 2, 2
		return
	}
	name := c.Name.Value
	if r.funcs.owner != r.id || r.funcs.readers.Load() > 0 {
		m := make(map[string]*funcDef, len(r.funcs.m)+1)
		for k, v := range r.funcs.m {
			m[k] = v
		}
		r.funcs = &funcTable{m: m, owner: r.id}
	}
	if old := r.funcs.m[name]; old != nil && old.readonly {
		r.errorf("%s: readonly function", name)
		r.status = 1
		return
	}
	r.funcs.m[name] = &funcDef{body: c.Body, src: r.cur, name: name, aliases: r.aliasesReadAt(c.Pos())}
	r.status = 0
}

// background starts a statement as a background job.
func (r *Runner) background(s *syntax.Stmt) {
	if err := r.startJob(); err != nil {
		r.status = r.raise(err)
		return
	}
	child := r.fork(true)
	// Without job control, a background command's default input is /dev/null, unless the
	// subshell it runs in has its input from a pipe or a redirection (bash's stdin_redir).
	if !r.stdinRedir {
		child.fds.set(0, newOfile(nullFile{}, nil, nil))
	}
	// A job lives in the run's context, as a process of its own: the end of the subshell or
	// pipeline stage that started it does not end it.
	parent := r.ctx
	if r.c.runCtx != nil {
		parent = r.c.runCtx
	}
	ctx, cancel := context.WithCancelCause(parent)
	child.ctx = ctx
	jobs := r.jobs
	child.stageSees(r, s, false)
	j := jobs.add(child.bashpid, cancel)
	j.stmt, j.src = s, r.cur
	r.c.register(j)
	child.sig = newJobSignals(child.traps, cancel)
	j.sig = child.sig
	unhook := func() bool { return false }
	if r.group != nil {
		// The SIGTERM timeout sends its command's process group, this job included.
		g, js := r.group, j.sig
		unhook = g.OnKill(func() { js.groupKill(g.Signal()) })
	}
	_, child.sigHandOff = s.Cmd.(*syntax.Subshell)
	inner := *s
	inner.Background, inner.Coprocess = false, false
	child.leaveLoopFor(s)
	if _, simple := s.Cmd.(*syntax.CallExpr); simple {
		// An asynchronous simple command is the whole child: no ERR trap or errexit there.
		child.noErrexit++
	}
	r.c.goRun(func() {
		defer r.c.live.Add(-1)
		defer cancel(errRunDone)
		defer unhook()
		defer func() {
			st, _ := child.subshellStatus()
			child.finish()
			killed := false
			if ks, ok := context.Cause(ctx).(*killSignal); ok && st == 128+ks.sig {
				j.killedBy, killed = ks.sig, true
			}
			r.c.unregister(j)
			j.finish(st)
			if killed {
				jobs.killed.Add(1)
			}
		}()
		child.stmt(&inner)
		if child.flow == flowDiscard {
			child.flow, child.status = flowNone, 1
		}
		child.runExitTrapAfterSignal()
	})
	r.lastBg = child.bashpid
	r.status = 0
}

// stageSees prepares the shell forked for a pipeline stage or a background job st of r: a
// simple command sees r's jobs while its words are expanded, and `jobs` as a stage after
// (stageCall).
func (s *Runner) stageSees(r *Runner, st *syntax.Stmt, stage bool) {
	if ce, ok := st.Cmd.(*syntax.CallExpr); ok {
		s.seenJobs, s.stageCall, s.stageKeeps = r.shownJobs(), ce, stage
	}
}

// pipeline runs `a | b | c`: every stage but the last in a concurrent subshell joined by
// in-memory pipes; the last in a subshell too, or in this shell with lastpipe.
func (r *Runner) pipeline(c *syntax.BinaryCmd) {
	defer r.enterNested()()
	var stages []*syntax.Stmt
	var all []bool // |& after stage i
	var flatten func(s *syntax.Stmt, pipeAll bool)
	flatten = func(s *syntax.Stmt, pipeAll bool) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) &&
			!s.Negated && !s.Background && len(s.Redirs) == 0 {
			flatten(b.X, b.Op == syntax.PipeAll)
			flatten(b.Y, pipeAll)
			return
		}
		stages = append(stages, s)
		all = append(all, pipeAll)
	}
	flatten(c.X, c.Op == syntax.PipeAll)
	flatten(c.Y, false)

	n := len(stages)
	r.lineno = r.line(stages[n-1].Pos())
	statuses := make([]int, n)
	done := make([]chan struct{}, n-1)
	aborted := false
	var in *ofile
	for i := 0; i < n-1; i++ {
		p := newPipe(r.ctx)
		rd := newOfile(pipeReader{p}, nil, pipeReader{p})
		wr := newOfile(nil, pipeWriter{p}, pipeWriter{p})
		child := r.fork(true)
		ctx, cancel := context.WithCancelCause(r.ctx)
		child.ctx = ctx
		wr.onEPIPE = func() { cancel(errSigpipe) }
		if in != nil {
			child.fds.set(0, in)
		}
		child.fds.set(1, wr)
		if all[i] {
			child.fds.set(2, wr.ref())
		}
		in = rd
		done[i] = make(chan struct{})
		i := i
		st := stages[i]
		child.stageSees(r, st, true)
		child.leaveLoopFor(st)
		child.stdinFromPipe(st, i > 0)
		r.c.goRun(func() {
			defer close(done[i])
			defer cancel(errRunDone)
			child.runSubshell([]*syntax.Stmt{st})
			statuses[i], _ = child.subshellStatus()
			if child.flow == flowAbort {
				statuses[i] = -1
			}
			child.finish()
		})
	}
	last := stages[n-1]
	if r.shopts.has(shLastpipe) {
		saved := r.fds.get(0)
		if saved != nil {
			saved.ref()
		}
		r.fds.set(0, in)
		r.stmt(last)
		r.fds.set(0, saved)
		statuses[n-1] = r.status
	} else {
		child := r.fork(false)
		child.fds.set(0, in)
		child.stageSees(r, last, true)
		child.leaveLoopFor(last)
		child.stdinFromPipe(last, true)
		child.runSubshell([]*syntax.Stmt{last})
		st, abort := child.subshellStatus()
		child.finish()
		statuses[n-1] = st
		aborted = abort
	}
	for _, d := range done {
		<-d
	}
	for i, st := range statuses {
		if st == -1 {
			aborted = true
			statuses[i] = 1
		}
	}
	if aborted || r.flow == flowAbort {
		r.flow = flowAbort
		return
	}
	if r.flow != flowNone {
		// lastpipe: the last stage ran in this shell and left it (exit, return, break).
		r.pipestatus = statuses
		return
	}
	status := statuses[n-1]
	if r.opts.has(optPipefail) {
		for _, st := range statuses {
			if st != 0 {
				status = st
			}
		}
	}
	r.pipestatus = statuses
	r.status = status
	if _, ok := last.Cmd.(*syntax.Subshell); ok && status != 0 && r.noErrexit == 0 && !r.shopts.has(shLastpipe) &&
		!r.opts.has(optErrtrace) {
		// Bash 5.2 runs the ERR trap an extra time when a failing pipeline ends in a
		// subshell, even when the pipeline is negated. (With set -E the stage's own
		// subshell runs it instead, as here.)
		r.runErrTrap()
		r.status = status
		if r.flow != flowNone {
			return
		}
	}
	r.afterCmd()
}
