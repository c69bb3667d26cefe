package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/signum"
)

// Background jobs and signals: the job table, wait, kill, jobs, disown, times.

// job is a background job.
type job struct {
	pid    int
	done   chan struct{}
	status int
	cancel context.CancelCauseFunc
	// procsub: a process substitution. `wait` and `wait $!` wait for it; job specs, jobs
	// and disown do not see it.
	procsub bool
	// output: a >(...) process substitution, which writes to its shell's output.
	output bool
	// sig reaches a background job's shell (nil for other jobs, which a signal ends).
	sig *jobSignals
	// stmt and src are a background job's command, for the report of its death; killedBy
	// is the signal that ended it (0: none), set before done closes.
	stmt     *syntax.Stmt
	src      *source
	killedBy int
	reported bool // its death has been reported (by the shell that started it)
}

// reportDeaths reports the jobs a signal killed since the shell last looked, as bash does
// once a command it waited for (a program it ran) ends.
func (r *Runner) reportDeaths() error {
	if r.jobs.killed.Swap(0) == 0 {
		return nil
	}
	for _, j := range r.jobs.jobs() {
		if j.finished() {
			if err := r.reportDeath(j); err != nil {
				return err
			}
		}
	}
	return nil
}

// sigDescriptions are strsignal's texts, which bash's job reports print.
var sigDescriptions = []string{"", "Hangup", "Interrupt", "Quit", "Illegal instruction", "Trace/breakpoint trap",
	"Aborted", "Bus error", "Floating point exception", "Killed", "User defined signal 1", "Segmentation fault",
	"User defined signal 2", "Broken pipe", "Alarm clock", "Terminated", "Stack fault", "Child exited", "Continued",
	"Stopped (signal)", "Stopped", "Stopped (tty input)", "Stopped (tty output)", "Urgent I/O condition",
	"CPU time limit exceeded", "File size limit exceeded", "Virtual timer expired", "Profiling timer expired",
	"Window changed", "I/O possible", "Power failure", "Bad system call"}

// reportDeath prints what bash's non-interactive shell prints when wait reaps a background
// job a signal killed: "NAME: line N:  PID Description             command". Like bash it
// says nothing of SIGINT, SIGTERM and SIGPIPE, nor of a signal this shell traps.
func (r *Runner) reportDeath(j *job) error {
	sig := j.killedBy
	if sig == 0 || sig == 2 || sig == 13 || sig == 15 || j.stmt == nil || j.reported {
		return nil
	}
	j.reported = true
	if _, trapped := r.traps.get("SIG" + signals[sig]); trapped {
		return nil
	}
	text, ok := jobText(j.src, j.stmt)
	if !ok {
		return r.refuseHere("the report of a background job that SIG"+signals[sig]+" killed, for this form of command",
			"make the job a simple command, a ( ) subshell or a { } group, or run the tool with the native engine")
	}
	_, _ = fmt.Fprintf(r.stderr(), "%s%5d %-24s%s\n", r.prefix(), j.pid, sigDescriptions[sig], text)
	return nil
}

// jobSignals is how kill reaches a background job's shell, which runs on: the traps it last
// set, and the trapped signals it has yet to take.
type jobSignals struct {
	traps   atomic.Pointer[traps]
	pending atomic.Uint64 // bit n: signal n
	wake    chan struct{} // ends a wait the shell is in (capacity 1)
	// cancel ends a job's shell; nil for a shell that is a process of the run's own (the
	// main shell, a child shell), whose end by a signal is refused.
	cancel context.CancelCauseFunc
	// nested counts the subshells, pipelines and child shells the job's shell waits for
	// now: bash's are processes of their own, which a signal to the job does not end.
	nested atomic.Int32
}

// enterNested marks the job's shell waiting for a nested process; the returned func ends it.
func (r *Runner) enterNested() func() {
	if r.sig == nil {
		return func() {}
	}
	s := r.sig
	s.nested.Add(1)
	return func() { s.nested.Add(-1) }
}

func newJobSignals(t *traps, cancel context.CancelCauseFunc) *jobSignals {
	s := &jobSignals{wake: make(chan struct{}, 1), cancel: cancel}
	s.traps.Store(t)
	return s
}

// send delivers a signal as bash's shell takes it: a trapped one runs its trap once the
// command running now ends (a wait ends at once); an ignored one does nothing; any other
// ends the shell, which runs its EXIT trap first. It reports false, and does nothing, when
// the signal would end the shell while it waits for a nested process: bash's goes on as an
// orphan, which the engine cannot keep apart from the shell that ends.
func (s *jobSignals) send(sig int) bool {
	action, trapped := s.traps.Load().get("SIG" + signals[sig])
	switch {
	case sig == 9: // KILL cannot be caught
	case trapped && action == "":
		return true
	case trapped:
		s.pending.Or(1 << sig)
		select {
		case s.wake <- struct{}{}:
		default:
		}
		return true
	case ignoredByDefault(sig) || sig == 3:
		// Without job control, asynchronous commands ignore SIGQUIT (bash's SIGINT kills
		// them still).
		return true
	}
	if s.nested.Load() > 0 || s.cancel == nil {
		return false
	}
	s.cancel(&killSignal{sig})
	return true
}

// groupKill delivers the signal timeout sends a job's whole process group (SIGTERM unless
// -s names another): its nested processes end too, so nothing of the job goes on. A job that
// traps it is ended with a cause its shell refuses (checkCtx): bash's would run the trap once
// the signal had ended the command it waits for, which the engine cannot end apart from the
// job. One that ignores it goes on, as do asynchronous commands on SIGQUIT.
func (s *jobSignals) groupKill(sig int) {
	action, trapped := s.traps.Load().get("SIG" + signals[sig])
	switch {
	case sig == 9:
		s.cancel(&killSignal{9})
	case trapped && action == "":
	case trapped:
		s.cancel(errGroupTrapped)
	case ignoredByDefault(sig) || sig == 3:
	default:
		s.cancel(&killSignal{sig})
	}
}

// errGroupTrapped ends a job that traps the SIGTERM of its process group (groupKill).
var errGroupTrapped = errors.New("process group signalled")

// ignoredByDefault: CHLD, CONT, URG and WINCH do nothing to a process that has no handler.
func ignoredByDefault(sig int) bool { return signum.IgnoredByDefault(sig) }

// takeSignals runs the traps of the signals kill sent this job's shell, once a command ends.
func (r *Runner) takeSignals() {
	if r.sig == nil || r.inTrap > 0 || r.flow != flowNone || r.sig.pending.Load() == 0 {
		return
	}
	p := r.sig.pending.Swap(0)
	for sig := 1; sig < len(signals) && r.flow == flowNone; sig++ {
		if p&(1<<sig) == 0 {
			continue
		}
		// The trap may have changed since kill looked: deliver it again against this one.
		action, trapped := r.traps.get("SIG" + signals[sig])
		switch {
		case trapped && action != "":
			st := r.status
			r.runTrapString(action)
			if r.flow == flowNone {
				r.status = st
			}
		case !trapped && !ignoredByDefault(sig) && sig != 3:
			if r.sig.cancel == nil {
				r.signalSelf(sig) // refused: the shell's own end by a signal
				continue
			}
			r.sig.cancel(&killSignal{sig})
			if err := r.checkCtx(); err != nil {
				r.status = r.raise(err)
			}
		}
	}
}

// errTrapped ends a wait that a trapped signal interrupted: wait returns 128 plus it, and
// its trap runs.
type errTrapped struct{ sig int }

func (e *errTrapped) Error() string { return "interrupted by signal " + strconv.Itoa(e.sig) }

// trappedWake is the channel a trapped signal sent to this shell wakes (nil: never).
func (r *Runner) trappedWake() <-chan struct{} {
	if r.sig == nil {
		return nil
	}
	return r.sig.wake
}

// interrupted reports the lowest trapped signal waiting to be taken, as an *errTrapped.
func (r *Runner) interrupted() error {
	p := r.sig.pending.Load()
	for sig := 1; sig < len(signals); sig++ {
		if p&(1<<sig) != 0 {
			return &errTrapped{sig}
		}
	}
	return nil
}

func (j *job) finish(st int) {
	j.status = st
	close(j.done)
}

// jobTable holds a shell's background jobs.
type jobTable struct {
	mu      sync.Mutex
	list    []*job
	started int
	closed  chan struct{} // the done of every compacted job
	// killed counts jobs a signal ended that the shell has not yet looked for to report.
	killed atomic.Int32
	// renumbered: a job left the table (wait, disown). Bash keeps the others' numbers, with
	// rules of its own for the holes and the next job's number; the list here closes up.
	renumbered bool
	// sticky: a job left otherwise than by a wait that named it while it ran; the numbers
	// stay bash's own to give.
	sticky bool
}

// maxDoneJobs is how many finished jobs a shell remembers for wait (bash remembers the
// statuses of CHILD_MAX of them, at most 32,768): a loop of `cmd &` that never waits would
// otherwise grow the table by a job each time, up to the command limit. compactJobsEvery jobs
// started, the finished ones keep only their pid and status (a few dozen bytes each).
const (
	maxDoneJobs      = 32768
	compactJobsEvery = 1024
)

func (t *jobTable) add(pid int, cancel context.CancelCauseFunc) *job {
	j := &job{pid: pid, done: make(chan struct{}), cancel: cancel}
	t.mu.Lock()
	if t.started++; t.started%compactJobsEvery == 0 {
		t.compact()
	}
	if !t.sticky && !slices.ContainsFunc(t.list, func(o *job) bool { return !o.procsub }) {
		// An empty table numbers from 1 again, in bash as here.
		t.renumbered = false
	}
	t.list = append(t.list, j)
	t.mu.Unlock()
	return j
}

// compact strips finished jobs down to their pid and status, and forgets the oldest past
// maxDoneJobs. Only the shell's own goroutine touches a job's cancel and done fields once its
// goroutine has closed done, so they change in place.
func (t *jobTable) compact() {
	if t.closed == nil {
		t.closed = make(chan struct{})
		close(t.closed)
	}
	done := 0
	for _, j := range t.list {
		if j.finished() {
			j.cancel, j.done = nil, t.closed
			done++
		}
	}
	drop := done - maxDoneJobs
	if drop <= 0 {
		return
	}
	t.list = slices.DeleteFunc(t.list, func(j *job) bool {
		if drop > 0 && j.finished() {
			drop--
			return true
		}
		return false
	})
}

func (j *job) finished() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// addProc adds a process substitution, forgetting finished earlier ones (bash remembers
// only the last).
func (t *jobTable) addProc(pid int, cancel context.CancelCauseFunc) *job {
	j := &job{pid: pid, done: make(chan struct{}), cancel: cancel, procsub: true}
	t.mu.Lock()
	t.list = slices.DeleteFunc(t.list, func(o *job) bool {
		return o.procsub && o.finished()
	})
	t.list = append(t.list, j)
	t.mu.Unlock()
	return j
}

func (t *jobTable) jobs() []*job {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.list)
}

// visible are the jobs proper (no process substitutions).
func (t *jobTable) visible() []*job {
	return slices.DeleteFunc(t.jobs(), func(j *job) bool { return j.procsub })
}

func (t *jobTable) remove(j *job) { t.removeWaited(j, false) }

// removeWaited takes j out of the table; clean: by a wait that named it while it ran, after
// which an empty table numbers from 1 again (add).
func (t *jobTable) removeWaited(j *job, clean bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := slices.Index(t.list, j); i >= 0 {
		t.list = slices.Delete(t.list, i, i+1)
		if !j.procsub {
			t.renumbered = true
			t.sticky = t.sticky || !clean
		}
	}
}

// jobGrace is how long the background jobs still running when the script ends may go on
// before they end with it.
const jobGrace = 100 * time.Millisecond

// letRun waits, up to jobGrace, for the background jobs still running when the script ends:
// bash's go on after the script (`echo done &` as its last line prints), and one that only
// waits to be scheduled, on a loaded machine for milliseconds, would otherwise lose its output.
// Jobs that block (sleep, a read) or run long end with the call after the grace.
func letRun(ctx context.Context, jobs []*job) {
	var grace *time.Timer
	for _, j := range jobs {
		if j.finished() {
			continue
		}
		if grace == nil {
			grace = time.NewTimer(jobGrace)
			defer grace.Stop()
		}
		select {
		case <-j.done:
		case <-grace.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (t *jobTable) killAll() {
	for _, j := range t.jobs() {
		if !j.finished() {
			j.cancel(errRunDone)
		}
	}
}

// find returns the job of a pid or a %jobspec.
func (t *jobTable) find(spec string) *job {
	if strings.HasPrefix(spec, "%") {
		return findSpec(t.visible(), spec)
	}
	pid, err := strconv.Atoi(spec)
	if err != nil {
		return nil
	}
	for _, j := range t.jobs() {
		if j.pid == pid {
			return j
		}
	}
	return nil
}

// findSpec returns the job a %jobspec names in list, the jobs in the order they started.
func findSpec(list []*job, spec string) *job {
	s := spec[1:]
	switch s {
	case "", "%", "+", "-":
		// The current job, or the one before it; a nil is a job a copied table forgot.
		nth := 0
		if s == "-" {
			nth = 1
		}
		for i := len(list) - 1; i >= 0; i-- {
			if list[i] != nil {
				if nth == 0 {
					return list[i]
				}
				nth--
			}
		}
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > len(list) {
		return nil
	}
	return list[n-1]
}

// shownJobs are the jobs this shell's job specs and `jobs` count: those of the shell it
// copies (seenJobs), then its own.
func (r *Runner) shownJobs() []*job {
	own := r.jobs.visible()
	if len(r.seenJobs) == 0 {
		return own
	}
	return append(slices.Clip(r.seenJobs), own...)
}

// substJobs is the job table a command substitution's shell starts with, of its parent's
// list: the jobs still running, and the last one started whatever its state. Bash's child
// forgets the other finished ones (`true & sleep 1 & ...; $(jobs -p)` lists one pid), where the
// parent and a pipeline stage's copy keep them.
//
// The forgotten ones stay as nils, so that the others keep their numbers (`%2`), as in bash.
func substJobs(list []*job) []*job {
	out := slices.Clone(list)
	for i, j := range out[:max(len(out)-1, 0)] {
		if j != nil && j.finished() {
			out[i] = nil
		}
	}
	return out
}

// jobNumberRefused refuses a job spec by number (%N, %-) in a shell whose table lost a job:
// bash keeps the others' numbers and numbers the next job by rules of its own, so the number
// could name another job here. It reports whether it refused.
func (r *Runner) jobNumberRefused(spec string) (int, bool) {
	if !strings.HasPrefix(spec, "%") || spec == "%" || spec == "%%" || spec == "%+" {
		return 0, false
	}
	r.jobs.mu.Lock()
	renumbered := r.jobs.renumbered
	r.jobs.mu.Unlock()
	if !renumbered {
		return 0, false
	}
	return r.raise(r.refuseHere("the job spec "+spec+" after a job was waited for or disowned (bash keeps the job numbers)", "name the job by its pid ($! when it started)")), true
}

// findJob returns the job spec names for this shell: a %jobspec among shownJobs, a pid among
// its own jobs; seen says the job is one of the copied shell's.
func (r *Runner) findJob(spec string) (j *job, seen bool) {
	if strings.HasPrefix(spec, "%") && len(r.seenJobs) > 0 {
		j = findSpec(r.shownJobs(), spec)
		return j, j != nil && slices.Contains(r.seenJobs, j)
	}
	return r.jobs.find(spec), false
}

// register makes a running job reachable by pid from every shell of the run (kill).
func (c *call) register(j *job) {
	c.runningMu.Lock()
	if c.running == nil {
		c.running = map[int]*job{}
	}
	c.running[j.pid] = j
	c.runningMu.Unlock()
}

func (c *call) unregister(j *job) {
	c.runningMu.Lock()
	if c.running[j.pid] == j {
		delete(c.running, j.pid)
	}
	c.runningMu.Unlock()
}

// runningJob is the running job of pid in any shell of the run (nil: none).
func (c *call) runningJob(spec string) *job {
	pid, err := strconv.Atoi(spec)
	if err != nil {
		return nil
	}
	c.runningMu.Lock()
	defer c.runningMu.Unlock()
	return c.running[pid]
}

// biWait waits for background jobs.
func biWait(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("wait", args[1:], "fnp:", false)
	if !ok {
		return 2
	}
	anyOne, pvar := false, ""
	for _, o := range opts {
		switch o.c {
		case 'n':
			anyOne = true
		case 'p':
			pvar = o.arg
		}
	}
	waitJob := func(j *job, named bool) (int, error) {
		// Bash numbers its jobs again from 1 once `wait PID` or `wait %N` has taken the
		// last one out of a table while it ran; a job that had ended before, or a plain
		// wait, leaves numbers bash gives by the timing of its reaping.
		clean := named && !j.finished()
		for wake := r.trappedWake(); ; {
			if wake != nil {
				if err := r.interrupted(); err != nil {
					return 0, err
				}
			}
			select {
			case <-j.done:
			case <-r.ctx.Done():
				return 0, r.checkCtx()
			case <-wake:
				continue
			}
			break
		}
		r.jobs.removeWaited(j, clean)
		r.reapCoproc(j)
		return j.status, r.reportDeath(j)
	}
	if anyOne {
		list := r.jobs.visible()
		if len(rest) > 0 {
			list = nil
			for _, s := range rest {
				if st, refused := r.jobNumberRefused(s); refused {
					return st
				}
				j, seen := r.findJob(s)
				if seen {
					return r.refuseSeenWait()
				}
				if j != nil {
					list = append(list, j)
				}
			}
		}
		if len(list) == 0 {
			return 127
		}
		for {
			for _, j := range list {
				select {
				case <-j.done:
					r.jobs.remove(j)
					r.reapCoproc(j)
					if err := r.reportDeath(j); err != nil {
						return r.raise(err)
					}
					if pvar != "" {
						if err := r.assign(pvar, strconv.Itoa(j.pid), 0); err != nil {
							return r.raise(err)
						}
					}
					return j.status
				default:
				}
			}
			if err := r.waitAny(list); err != nil {
				return r.waitErr(err)
			}
		}
	}
	if len(rest) == 0 {
		for _, j := range r.jobs.jobs() {
			if _, err := waitJob(j, false); err != nil {
				return r.waitErr(err)
			}
		}
		return 0
	}
	st := 0
	for _, s := range rest {
		if st, refused := r.jobNumberRefused(s); refused {
			return st
		}
		j, seen := r.findJob(s)
		if seen {
			return r.refuseSeenWait()
		}
		if j == nil {
			if strings.HasPrefix(s, "%") {
				r.errorf("wait: %s: no such job", s)
			} else if _, err := strconv.Atoi(s); err != nil {
				r.errorf("wait: `%s': not a pid or valid job spec", s)
				st = 1
				continue
			} else {
				r.errorf("wait: pid %s is not a child of this shell", s)
			}
			st = 127
			continue
		}
		var err error
		st, err = waitJob(j, true)
		if err != nil {
			return r.waitErr(err)
		}
		if pvar != "" {
			if err := r.assign(pvar, strconv.Itoa(j.pid), 0); err != nil {
				return r.raise(err)
			}
		}
	}
	return st
}

// waitAny blocks until one of the jobs finishes or the run ends.
func (r *Runner) waitAny(list []*job) error {
	done := make(chan struct{})
	var once sync.Once
	for _, j := range list {
		go func() {
			select {
			case <-j.done:
				once.Do(func() { close(done) })
			case <-done:
			}
		}()
	}
	wake := r.trappedWake()
	for {
		if wake != nil {
			if err := r.interrupted(); err != nil {
				once.Do(func() { close(done) })
				return err
			}
		}
		select {
		case <-done:
			return nil
		case <-r.ctx.Done():
			once.Do(func() { close(done) })
			return r.checkCtx()
		case <-wake:
		}
	}
}

// waitErr is wait's status for an error that ended its waiting.
func (r *Runner) waitErr(err error) int {
	var tr *errTrapped
	if errors.As(err, &tr) {
		return 128 + tr.sig
	}
	return r.raise(err)
}

// biKill sends a signal to one of the shell's own jobs (or to itself).
func biKill(r *Runner, args []string) int {
	args = args[1:]
	sig := 15
	if len(args) == 0 {
		r.usage("kill")
		return 2
	}
	if args[0] == "-l" || args[0] == "-L" {
		if len(args) == 1 {
			var b strings.Builder
			for i := 1; i < len(signals); i++ {
				fmt.Fprintf(&b, "%2d) SIG%s", i, signals[i])
				if i%5 == 0 {
					b.WriteByte('\n')
				} else {
					b.WriteByte('\t')
				}
			}
			b.WriteByte('\n')
			return r.out("kill", b.String())
		}
		st := 0
		for _, a := range args[1:] {
			if n, err := strconv.Atoi(a); err == nil {
				if n > 128 {
					n -= 128
				}
				if n > 0 && n < len(signals) {
					r.out("kill", signals[n]+"\n")
					continue
				}
			} else if n, ok := sigNumber(a); ok {
				r.out("kill", strconv.Itoa(n)+"\n")
				continue
			}
			r.errorf("kill: %s: invalid signal specification", a)
			st = 1
		}
		return st
	}
	switch {
	case args[0] == "-s" || args[0] == "-n":
		if len(args) < 2 {
			r.errorf("kill: %s: option requires an argument", args[0])
			return 2
		}
		n, ok := sigNumber(args[1])
		if !ok {
			r.errorf("kill: %s: invalid signal specification", args[1])
			return 1
		}
		sig, args = n, args[2:]
	case args[0] == "--":
		args = args[1:]
	case strings.HasPrefix(args[0], "-") && len(args[0]) > 1:
		n, ok := sigNumber(args[0][1:])
		if !ok {
			r.errorf("kill: %s: invalid signal specification", args[0][1:])
			return 1
		}
		sig, args = n, args[1:]
	}
	st := 0
	for _, a := range args {
		if a == strconv.Itoa(r.bashpid) {
			r.signalSelf(sig)
			continue
		}
		if a == strconv.Itoa(r.shellPID) {
			// A subshell signals its shell, which takes the signal as a job's shell does
			// (its trap after the command it runs now: this subshell, if it waits for it).
			if sig != 0 && !r.shellSig.send(sig) {
				r.refuseShellEnd(sig)
				return 1
			}
			continue
		}
		if st, refused := r.jobNumberRefused(a); refused {
			return st
		}
		j, _ := r.findJob(a)
		if j == nil {
			j = r.c.runningJob(a)
		}
		if j == nil {
			if strings.HasPrefix(a, "%") {
				r.errorf("kill: %s: no such job", a)
			} else if _, err := strconv.Atoi(a); err != nil {
				r.errorf("kill: %s: arguments must be process or job IDs", a)
			} else {
				r.errorf("kill: (%s) - No such process", a)
			}
			st = 1
			continue
		}
		// A finished job's process is gone (bash has reaped it), whatever the signal.
		if j.finished() {
			r.errorf("kill: (%s) - No such process", a)
			st = 1
			continue
		}
		switch {
		case sig == 0:
		case sig >= 19 && sig <= 22:
			// STOP, TSTP, TTIN, TTOU stop a process, which a later CONT resumes.
			r.status = r.raise(r.refuseHere("kill -"+signals[sig]+" of a background job (stopping a job)", "end the job instead (kill -TERM), or run the tool with the native engine"))
			return 1
		case j.sig != nil:
			if !j.sig.send(sig) {
				r.status = r.raise(r.refuseHere("kill of a background job while it runs a subshell, pipeline or child shell (bash's goes on after the job ends)", "wait for the job, or run the tool with the native engine"))
				return 1
			}
		case !ignoredByDefault(sig):
			j.cancel(&killSignal{sig})
		}
	}
	return st
}

// refuseSeenWait refuses `wait` for a job of the shell a command substitution copies: bash's
// child, whose child it is not, answers with a status of its own making (-1).
func (r *Runner) refuseSeenWait() int {
	return r.raise(r.refuseHere("wait in a command substitution for a job of the shell that runs it", "wait in the shell that started the job"))
}

// killSignal is the cancellation cause of a job killed by `kill`.
type killSignal struct{ sig int }

func (k *killSignal) Error() string { return "killed by signal " + strconv.Itoa(k.sig) }

// signalSelf delivers a signal to the shell itself: its trap, or its end.
func (r *Runner) signalSelf(sig int) {
	if sig == 0 {
		return
	}
	name := "SIG" + signals[sig]
	if action, ok := r.traps.get(name); ok {
		if action != "" {
			r.runTrapString(action)
		}
		return
	}
	switch sig {
	case 17, 18, 23, 28: // CHLD CONT URG WINCH are ignored by default
		return
	case 13: // PIPE: bash's parent reports nothing
	default:
		r.refuseShellEnd(sig)
		return
	}
	r.flow, r.exitStatus = flowExit, 128+sig
}

// refuseShellEnd refuses a signal that would end the shell $$ names: bash's parent reports
// the death ("Terminated", "PID Killed  (cmd)"...) with the real pid and its job text, which
// the engine cannot reproduce exactly.
func (r *Runner) refuseShellEnd(sig int) {
	r.status = r.raise(r.refuseHere("kill of the shell itself with SIG"+signals[sig], "exit with a status instead (exit 143), or run the tool with the native engine"))
}

func biJobs(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("jobs", args[1:], "lnprs", false)
	if !ok {
		return 2
	}
	var pids, running, stopped, other bool
	for _, o := range opts {
		switch o.c {
		case 'p':
			pids = true
		case 'r': // the last of -r and -s counts, as in bash
			running, stopped = true, false
		case 's':
			running, stopped = false, true
		default:
			other = true
		}
	}
	if pids && !other {
		list, st := r.shownJobs(), 0
		if len(rest) > 0 {
			list = nil
			for _, s := range rest {
				if st, refused := r.jobNumberRefused(s); refused {
					return st
				}
				if j, _ := r.findJob(s); j != nil {
					list = append(list, j)
				} else {
					r.errorf("jobs: %s: no such job", s)
					st = 1
				}
			}
		}
		var b strings.Builder
		for _, j := range list {
			// -r: running jobs only; -s: stopped ones, of which the sandbox has none (no job
			// control).
			if j != nil && !stopped && (!running || !j.finished()) {
				b.WriteString(strconv.Itoa(j.pid) + "\n")
			}
		}
		if ost := r.out("jobs", b.String()); ost != 0 {
			return ost
		}
		return st
	}
	return biRefusedOpt(r, "jobs")
}

func biDisown(r *Runner, args []string) int {
	_, rest, ok := r.parseOpts("disown", args[1:], "har", false)
	if !ok {
		return 2
	}
	for _, s := range rest {
		if st, refused := r.jobNumberRefused(s); refused {
			return st
		}
		if j, seen := r.findJob(s); seen {
			// The copy of the table forgets it; the shell that started it does not.
			r.seenJobs = slices.DeleteFunc(slices.Clone(r.seenJobs), func(o *job) bool { return o == j })
		} else if j != nil {
			r.jobs.remove(j)
		} else {
			r.errorf("disown: %s: no such job", s)
			return 1
		}
	}
	if len(rest) == 0 {
		list := r.jobs.visible()
		if len(list) > 0 {
			r.jobs.remove(list[len(list)-1])
		}
	}
	return 0
}

func biTimes(r *Runner, args []string) int {
	if len(args) > 1 {
		r.usage("times")
		return 2
	}
	return r.out("times", "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n")
}
