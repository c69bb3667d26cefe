package eval

import (
	"bytes"
	"context"
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
	if err := r.enter(); err != nil {
		return "", err
	}
	defer r.leave()
	if s, ok, err := r.readSubst(cs); ok {
		return s, err
	}
	child := r.fork(false)
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

// startJob counts one concurrent goroutine (pipeline stage, process substitution).
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
