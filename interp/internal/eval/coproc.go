package eval

import (
	"context"
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// coproc is a coprocess: a command run asynchronously with two pipes to the shell, NAME[0]
// reading its output and NAME[1] writing its input, as bash's coproc keyword starts one.
type coproc struct {
	name   string
	job    *job
	rd, wr int // the shell's descriptors
}

// coprocClause runs `coproc [NAME] command`.
func (r *Runner) coprocClause(c *syntax.CoprocClause) {
	name := "COPROC"
	if c.Name != nil {
		name = c.Name.Lit()
	}
	if old := r.coproc; old != nil {
		// bash keeps one coprocess until the shell waits for it, finished or not.
		r.lineno = r.line(c.Pos())
		r.errorf("warning: execute_coproc: coproc [%d:%s] still exists", old.job.pid, old.name)
	}
	if err := r.startJob(); err != nil {
		r.status = r.raise(err)
		return
	}
	in, out := newPipe(r.ctx), newPipe(r.ctx)
	child := r.fork(true)
	child.fds.set(0, newOfile(pipeReader{in}, nil, pipeReader{in}))
	child.fds.set(1, newOfile(nil, pipeWriter{out}, pipeWriter{out}))
	ctx, cancel := context.WithCancelCause(r.ctx)
	child.ctx = ctx
	j := r.jobs.add(child.bashpid, cancel)
	r.c.register(j)
	// The shell's ends, high as bash puts them; a subshell or a new shell never sees them.
	cp := &coproc{name: name, job: j, rd: r.fds.highestFree(63)}
	r.fds.set(cp.rd, newOfile(pipeReader{out}, nil, pipeReader{out}))
	cp.wr = r.fds.highestFree(63)
	r.fds.set(cp.wr, newOfile(nil, pipeWriter{in}, pipeWriter{in}))
	r.coproc = cp
	inner := *c.Stmt
	r.c.goRun(func() {
		defer r.c.live.Add(-1)
		defer cancel(errRunDone)
		defer func() {
			st, _ := child.subshellStatus()
			child.finish()
			r.c.unregister(j)
			j.finish(st)
		}()
		child.stmt(&inner)
		if child.flow == flowDiscard {
			child.flow, child.status = flowNone, 1
		}
		child.runExitTrap()
	})
	r.lastBg = child.bashpid
	pid := strconv.Itoa(child.bashpid)
	err := r.assignArray(name, []arrayItem{{val: strconv.Itoa(cp.rd)}, {val: strconv.Itoa(cp.wr)}}, 0, false)
	if err == nil {
		err = r.assign(name+"_PID", pid, 0)
	}
	if err != nil {
		r.status = r.raise(err)
		return
	}
	r.status = 0
}

// reapCoproc forgets the coprocess of j once the shell has waited for it: bash then closes
// its descriptors and unsets NAME and NAME_PID.
func (r *Runner) reapCoproc(j *job) {
	cp := r.coproc
	if cp == nil || cp.job != j {
		return
	}
	r.coproc = nil
	r.fds.set(cp.rd, nil)
	r.fds.set(cp.wr, nil)
	_ = r.unsetVar(cp.name, true)
	_ = r.unsetVar(cp.name+"_PID", true)
}

// dropCoproc takes the coprocess's descriptors out of a new subshell's table: bash's are
// close-on-exec and closed in subshells.
func (s *Runner) dropCoproc(parent *Runner) {
	if cp := parent.coproc; cp != nil {
		s.fds.set(cp.rd, nil)
		s.fds.set(cp.wr, nil)
	}
}
