package eval

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// biEval runs its arguments, joined by spaces, as shell code in the current shell.
func biEval(r *Runner, args []string) int {
	args = args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	} else if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		r.errorf("eval: %s: invalid option", args[0])
		r.usage("eval")
		return 2
	}
	text := strings.Join(args, " ")
	if strings.TrimSpace(text) == "" {
		return 0
	}
	return r.runText(text, "eval")
}

// runText parses and runs code in the current shell (eval); an expansion error ends the
// code with status 1 and nothing more.
func (r *Runner) runText(text, what string) int {
	if err := r.enter(); err != nil {
		return r.raise(err)
	}
	defer r.leave()
	src, stmts, clean, err := r.parseCached(text)
	if err != nil {
		return r.raise(r.syntaxRefusal(what, err))
	}
	src = src.withLineBase(r.lineno - 1)
	if !clean {
		if refs := checkStmts(src, stmts); len(refs) > 0 {
			return r.raise(r.fatal(&RefusalError{Refusal: refs[0]}))
		}
	}
	saved := r.cur
	r.cur = src
	r.status = 0
	r.traceLevel++
	r.stmtsRead(stmts)
	r.traceLevel--
	r.cur = saved
	if r.flow == flowDiscard {
		r.flow = flowNone
		return 1
	}
	return r.status
}

// biSource runs a file in the current shell.
func biSource(r *Runner, args []string) int {
	name := args[0]
	args = args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		r.errorf("%s: filename argument required", name)
		r.usage(name)
		return 2
	}
	file := args[0]
	if h := r.c.cfg.Source; h != nil && h(r.absPath(file)) {
		return 0
	}
	if prog := r.c.cfg.Sources[r.absPath(file)]; prog != nil && strings.Contains(file, "/") {
		return r.sourceProgram(name, file, prog, args[1:])
	}
	if of, ok, err := r.specialFile(file, os.O_RDONLY); ok {
		// source <(...) and source /dev/stdin read the shell's own descriptor.
		if err != nil {
			r.errorf("%s: %s", file, errText(err))
			return 1
		}
		data, err := r.readAll(fdReader{of})
		of.release()
		if err != nil {
			r.errorf("%s: %s", file, errText(err))
			return 1
		}
		return r.sourceText(name, file, data, args[1:])
	}
	p := r.findSource(file)
	if p == "" {
		r.errorf("%s: No such file or directory", file)
		return 1
	}
	if h := r.c.cfg.Source; h != nil && h(p) {
		return 0
	}
	if prog := r.c.cfg.Sources[p]; prog != nil {
		return r.sourceProgram(name, file, prog, args[1:])
	}
	data, err := r.readFile(p)
	if err != nil {
		r.errorf("%s: %s", file, errText(err))
		return 1
	}
	return r.sourceText(name, file, data, args[1:])
}

// sourceProgram sources one of Config.Sources: a file of `set` commands alone sets its
// options, one command at a time as running it would (each counts against MaxCommands), when
// nothing could see it run: no xtrace or verbose to print it, no trap (DEBUG, RETURN, ERR) to
// run during it, no function or alias to stand for set, no arguments to put in $@.
// Anything else runs its text.
func (r *Runner) sourceProgram(name, file string, prog *Program, args []string) int {
	sets := prog.setOnly()
	if sets == nil || len(args) > 0 || r.opts.has(optXtrace) || r.opts.has(optVerbose) || len(r.traps.m) > 0 ||
		r.funcs.m["set"] != nil || (r.shopts.has(shExpandAliases) && len(r.aliases) > 0) {
		return r.sourceText(name, file, prog.src.text, args)
	}
	if err := r.enter(); err != nil {
		return r.raise(err)
	}
	defer r.leave()
	r.status = 0
	for _, argv := range sets {
		r.countCommand()
		if r.flow != flowNone {
			return r.status
		}
		r.status = biSet(r, argv)
		r.afterSimple()
		if r.flow != flowNone {
			return r.status
		}
	}
	return r.status
}

// setOnly is the argument lists of a program that is nothing but `set` commands whose words
// are option letters or -o/+o names the evaluator has (nil otherwise).
func (p *Program) setOnly() [][]string {
	p.setOnce.Do(func() {
		if p.err != nil || len(p.stmts) == 0 {
			return
		}
		var sets [][]string
		for _, st := range p.stmts {
			ce, ok := st.Cmd.(*syntax.CallExpr)
			if !ok || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || len(ce.Assigns) > 0 || len(ce.Args) < 2 {
				return
			}
			var argv []string
			for _, w := range ce.Args {
				s, ok := simpleLit(w)
				if !ok {
					return
				}
				argv = append(argv, s)
			}
			if argv[0] != "set" || !plainSetArgs(argv[1:]) {
				return
			}
			sets = append(sets, argv)
		}
		p.sets = sets
	})
	return p.sets
}

// plainSetArgs: -x/+x letter clusters and -o/+o names of options the evaluator reproduces.
func plainSetArgs(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			return false
		}
		for j := 1; j < len(a); j++ {
			if a[j] == 'o' {
				// -o NAME, also at the end of a cluster (-euo pipefail).
				if j != len(a)-1 || i+1 >= len(args) {
					return false
				}
				i++
				if o, ok := setOptByName(args[i]); !ok || !o.supported {
					return false
				}
				continue
			}
			if o, ok := setOptByLetter(a[j]); !ok || !o.supported {
				return false
			}
		}
	}
	return true
}

// sourceText runs the text of a sourced file; args are its positional parameters (none:
// the shell's stay).
func (r *Runner) sourceText(name, file, data string, args []string) int {
	if err := r.enter(); err != nil {
		return r.raise(err)
	}
	defer r.leave()
	src, stmts, clean, perr := r.c.parsed.parse(file, data)
	if perr != nil {
		// Bash runs the lines before the syntax error.
		prog, _ := Parse(file, []byte(data))
		if prog != nil {
			src, stmts = prog.src, prog.stmts
		}
	}
	if !clean {
		if refs := checkStmts(src, stmts); len(refs) > 0 {
			return r.raise(r.fatal(&RefusalError{Refusal: refs[0]}))
		}
	}
	savedParams := r.params
	if len(args) > 0 {
		r.params = args
	}
	savedSrc := r.cur
	r.cur = src
	r.frames = append(r.frames, frame{name: "source", src: src, callAt: r.lineno})
	r.sourceDepth++
	before := r.status
	r.status = 0
	r.stmtsRead(stmts)
	r.sourceDepth--
	r.frames = r.frames[:len(r.frames)-1]
	r.cur = savedSrc
	if len(args) > 0 {
		r.params = savedParams
	}
	if r.flow == flowReturn {
		r.flow = flowNone
	}
	if r.flow == flowNone && perr == nil {
		// The RETURN trap runs when a sourced file ends; its $? is the last command's (from
		// before the file when the file ran none).
		st := r.status
		if len(stmts) == 0 {
			r.status = before
		}
		r.runReturnTrap()
		r.status = st
	}
	if r.flow == flowDiscard {
		r.flow = flowNone
		return 1
	}
	if perr != nil && r.flow == flowNone {
		return r.raise(r.syntaxRefusal("source", perr))
	}
	return r.status
}

// findSource resolves a sourced file name: as a path when it has a slash, else through
// PATH (sourcepath), then the working directory.
func (r *Runner) findSource(file string) string {
	if strings.Contains(file, "/") {
		p := r.absPath(file)
		if fi, err := r.c.fs.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
		return ""
	}
	if r.shopts.has(shSourcepath) {
		pathVar, _ := r.scalar("PATH")
		for _, dir := range strings.Split(pathVar, ":") {
			if dir == "" {
				dir = "."
			}
			p := r.absPath(path.Join(dir, file))
			if fi, err := r.c.fs.Stat(p); err == nil && !fi.IsDir() {
				return p
			}
		}
	}
	p := r.absPath(file)
	if fi, err := r.c.fs.Stat(p); err == nil && !fi.IsDir() {
		return p
	}
	return ""
}

// readFile reads a whole file through the FS, charged against the memory budget while read.
func (r *Runner) readFile(p string) (string, error) {
	f, err := r.c.fs.Open(p, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return r.readAll(f)
}

// readAll reads to the end, charging the memory held.
func (r *Runner) readAll(f io.Reader) (string, error) {
	// The buffer starts small and doubles: most sourced files are a few lines, and a fixed
	// large buffer per read was most of what a tool call allocated.
	buf := make([]byte, 0, 512)
	var charged int64
	defer func() { r.c.mem.Add(-charged) }()
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), 1<<20))
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		if n > 0 {
			if cerr := r.charge(int64(n)); cerr != nil {
				return "", cerr
			}
			charged += int64(n)
			buf = buf[:len(buf)+n]
		}
		if err == io.EOF {
			return string(buf), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// biExec replaces the shell with a command: here, runs it and exits with its status.
// Without a command its redirections (applied by callExpr) are permanent.
func biExec(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("exec", args[1:], "cla:", false)
	if !ok {
		return 2
	}
	if len(opts) > 0 {
		return biRefusedOpt(r, "exec -"+string(opts[0].c))
	}
	if len(rest) == 0 {
		return 0
	}
	if b, ok := builtinTable[rest[0]]; ok && strings.IndexByte(rest[0], '/') < 0 {
		st := b(r, rest)
		if r.flow == flowNone {
			r.flow, r.exitStatus = flowExit, st
		}
		return st
	}
	r.execExternal(rest)
	if (r.status == 127 || r.status == 126) && r.shopts.has(shExecfail) && r.flow == flowNone {
		// execfail: a command that cannot be executed does not end the shell.
		return r.status
	}
	if r.status == 127 && r.flow == flowNone {
		r.flow, r.exitStatus = flowExit, 127
		return 127
	}
	if r.flow == flowNone {
		r.flow, r.exitStatus = flowExit, r.status
	}
	return r.status
}

// job is a background job.
type job struct {
	pid    int
	done   chan struct{}
	status int
	cancel context.CancelCauseFunc
	// procsub: a process substitution. `wait` and `wait $!` wait for it; job specs, jobs
	// and disown do not see it.
	procsub bool
}

func (j *job) finish(st int) {
	j.status = st
	close(j.done)
}

// jobTable holds a shell's background jobs.
type jobTable struct {
	mu   sync.Mutex
	list []*job
}

func (t *jobTable) add(pid int, cancel context.CancelCauseFunc) *job {
	j := &job{pid: pid, done: make(chan struct{}), cancel: cancel}
	t.mu.Lock()
	t.list = append(t.list, j)
	t.mu.Unlock()
	return j
}

// addProc adds a process substitution, forgetting finished earlier ones (bash remembers
// only the last).
func (t *jobTable) addProc(pid int, cancel context.CancelCauseFunc) *job {
	j := &job{pid: pid, done: make(chan struct{}), cancel: cancel, procsub: true}
	t.mu.Lock()
	t.list = slices.DeleteFunc(t.list, func(o *job) bool {
		if !o.procsub {
			return false
		}
		select {
		case <-o.done:
			return true
		default:
			return false
		}
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

func (t *jobTable) remove(j *job) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := slices.Index(t.list, j); i >= 0 {
		t.list = slices.Delete(t.list, i, i+1)
	}
}

func (t *jobTable) killAll() {
	for _, j := range t.jobs() {
		j.cancel(errRunDone)
	}
}

// find returns the job of a pid or a %jobspec.
func (t *jobTable) find(spec string) *job {
	list := t.jobs()
	if strings.HasPrefix(spec, "%") {
		list = t.visible()
		s := spec[1:]
		switch s {
		case "", "%", "+":
			if len(list) > 0 {
				return list[len(list)-1]
			}
			return nil
		case "-":
			if len(list) > 1 {
				return list[len(list)-2]
			}
			return nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > len(list) {
			return nil
		}
		return list[n-1]
	}
	pid, err := strconv.Atoi(spec)
	if err != nil {
		return nil
	}
	for _, j := range list {
		if j.pid == pid {
			return j
		}
	}
	return nil
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
	waitJob := func(j *job) (int, error) {
		select {
		case <-j.done:
		case <-r.ctx.Done():
			return 0, r.checkCtx()
		}
		r.jobs.remove(j)
		return j.status, nil
	}
	if anyOne {
		list := r.jobs.visible()
		if len(rest) > 0 {
			list = nil
			for _, s := range rest {
				if j := r.jobs.find(s); j != nil {
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
				return r.raise(err)
			}
		}
	}
	if len(rest) == 0 {
		for _, j := range r.jobs.jobs() {
			if _, err := waitJob(j); err != nil {
				return r.raise(err)
			}
		}
		return 0
	}
	st := 0
	for _, s := range rest {
		j := r.jobs.find(s)
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
		st, err = waitJob(j)
		if err != nil {
			return r.raise(err)
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
	select {
	case <-done:
		return nil
	case <-r.ctx.Done():
		once.Do(func() { close(done) })
		return r.checkCtx()
	}
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
		if a == strconv.Itoa(r.shellPID) || a == strconv.Itoa(r.bashpid) {
			r.signalSelf(sig)
			continue
		}
		j := r.jobs.find(a)
		if j == nil {
			if _, err := strconv.Atoi(a); err != nil && !strings.HasPrefix(a, "%") {
				r.errorf("kill: %s: arguments must be process or job IDs", a)
			} else {
				r.errorf("kill: (%s) - No such process", a)
			}
			st = 1
			continue
		}
		if sig == 0 {
			select {
			case <-j.done:
				r.errorf("kill: (%s) - No such process", a)
				st = 1
			default:
			}
			continue
		}
		j.cancel(&killSignal{sig})
	}
	return st
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
		// bash's parent reports the death ("Terminated", "PID Killed  (cmd)"...) with the
		// real pid and its job text, which the engine cannot reproduce exactly.
		r.status = r.raise(r.refuseHere("kill of the shell itself with SIG"+signals[sig], "exit with a status instead (exit 143), or run the tool with the native engine"))
		return
	}
	r.flow, r.exitStatus = flowExit, 128+sig
}

func biJobs(r *Runner, args []string) int {
	opts, _, ok := r.parseOpts("jobs", args[1:], "lnprs", false)
	if !ok {
		return 2
	}
	if len(opts) > 0 && opts[0].c == 'p' {
		var b strings.Builder
		for _, j := range r.jobs.visible() {
			b.WriteString(strconv.Itoa(j.pid) + "\n")
		}
		return r.out("jobs", b.String())
	}
	return biRefusedOpt(r, "jobs")
}

func biDisown(r *Runner, args []string) int {
	_, rest, ok := r.parseOpts("disown", args[1:], "har", false)
	if !ok {
		return 2
	}
	for _, s := range rest {
		if j := r.jobs.find(s); j != nil {
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

// biCaller prints the call stack frame n (the caller of the current function by default).
func biCaller(r *Runner, args []string) int {
	n := 0
	explicit := len(args) > 1
	if explicit {
		v, ok := numArg(args[1])
		if !ok || v < 0 {
			r.errorf("caller: %s: invalid number", args[1])
			r.usage("caller")
			return 2
		}
		n = int(v)
	}
	k := len(r.frames) - 1 - n
	if k < 0 {
		if !explicit && len(r.frames) == 0 && !strings.Contains(r.flags, "c") {
			// At the top level of a script bash reports line 0 of no file (not with -c).
			return r.out("caller", "0 NULL\n")
		}
		return 1
	}
	f := r.frames[k]
	callerName, callerSrc := "main", r.scriptName()
	if k > 0 {
		callerName, callerSrc = r.frames[k-1].name, r.frames[k-1].src.name
	}
	if !explicit {
		return r.out("caller", fmt.Sprintf("%d %s\n", f.callAt, callerSrc))
	}
	return r.out("caller", fmt.Sprintf("%d %s %s\n", f.callAt, callerName, callerSrc))
}

func biTimes(r *Runner, args []string) int {
	if len(args) > 1 {
		r.usage("times")
		return 2
	}
	return r.out("times", "0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n")
}

// umask is virtual: it only shapes the permissions of files the shell creates.
func (r *Runner) umask() uint32 {
	if r.umaskSet {
		return r.umaskVal
	}
	return 0o022
}

func biUmask(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("umask", args[1:], "pS", false)
	if !ok {
		return 2
	}
	p, sym := false, false
	for _, o := range opts {
		if o.c == 'p' {
			p = true
		} else {
			sym = true
		}
	}
	if len(rest) == 0 {
		m := r.umask()
		var s string
		if sym {
			s = umaskSymbolic(m)
		} else {
			s = fmt.Sprintf("%04o", m)
		}
		if p {
			if sym {
				s = "umask -S " + s
			} else {
				s = "umask " + s
			}
		}
		return r.out("umask", s+"\n")
	}
	a := rest[0]
	if a[0] >= '0' && a[0] <= '9' {
		n, err := strconv.ParseUint(a, 8, 32)
		if err != nil || n > 0o777 {
			r.errorf("umask: %s: octal number out of range", a)
			return 1
		}
		r.umaskVal, r.umaskSet = uint32(n), true
		return 0
	}
	m, ok := parseSymbolicUmask(r.umask(), a)
	if !ok {
		r.errorf("umask: `%c': invalid symbolic mode operator", a[len(a)-1])
		return 1
	}
	r.umaskVal, r.umaskSet = m, true
	return 0
}

func umaskSymbolic(m uint32) string {
	perm := ^m & 0o777
	part := func(shift uint) string {
		var s string
		p := (perm >> shift) & 7
		if p&4 != 0 {
			s += "r"
		}
		if p&2 != 0 {
			s += "w"
		}
		if p&1 != 0 {
			s += "x"
		}
		return s
	}
	return "u=" + part(6) + ",g=" + part(3) + ",o=" + part(0)
}

// parseSymbolicUmask applies a symbolic mode (u=rwx,g=rx,o=) to a umask.
func parseSymbolicUmask(cur uint32, s string) (uint32, bool) {
	perm := ^cur & 0o777
	for _, clause := range strings.Split(s, ",") {
		i := 0
		var who uint32
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			switch clause[i] {
			case 'u':
				who |= 0o700
			case 'g':
				who |= 0o070
			case 'o':
				who |= 0o007
			case 'a':
				who |= 0o777
			}
			i++
		}
		if who == 0 {
			who = 0o777
		}
		if i >= len(clause) {
			return 0, false
		}
		op := clause[i]
		if op != '=' && op != '+' && op != '-' {
			return 0, false
		}
		var bits uint32
		for _, c := range clause[i+1:] {
			switch c {
			case 'r':
				bits |= 0o444
			case 'w':
				bits |= 0o222
			case 'x':
				bits |= 0o111
			default:
				return 0, false
			}
		}
		bits &= who
		switch op {
		case '=':
			perm = perm&^who | bits
		case '+':
			perm |= bits
		case '-':
			perm &^= bits
		}
	}
	return ^perm & 0o777, true
}

// biAlias defines or lists aliases.
func biAlias(r *Runner, args []string) int {
	_, rest, ok := r.parseOpts("alias", args[1:], "p", false)
	if !ok {
		return 2
	}
	if len(rest) == 0 {
		names := make([]string, 0, len(r.aliases))
		for n := range r.aliases {
			names = append(names, n)
		}
		slices.Sort(names)
		var b strings.Builder
		for _, n := range names {
			b.WriteString("alias " + n + "=" + quoteSingleAlways(r.aliases[n]) + "\n")
		}
		return r.out("alias", b.String())
	}
	st := 0
	for _, a := range rest {
		name, val, hasVal := strings.Cut(a, "=")
		if !hasVal {
			v, ok := r.aliases[name]
			if !ok {
				r.errorf("alias: %s: not found", name)
				st = 1
				continue
			}
			r.out("alias", "alias "+name+"="+quoteSingleAlways(v)+"\n")
			continue
		}
		if name == "" || strings.ContainsAny(name, "/$`=\\ \t\n'\"|&;()<>") {
			r.errorf("alias: `%s': invalid alias name", name)
			st = 1
			continue
		}
		m := make(map[string]string, len(r.aliases)+1)
		for k, v := range r.aliases {
			m[k] = v
		}
		m[name] = val
		r.aliases = m
		if r.aliasDefs == nil {
			r.aliasDefs = map[string]aliasDef{}
		}
		r.aliasDefs[name] = aliasDef{src: r.cur, line: r.lineno}
	}
	return st
}

type aliasDef struct {
	src  *source
	line int
}

// aliasesReadAt are the aliases bash expands in a command read at pos (a function definition):
// none without expand_aliases, and none defined on that line or later of the same text (bash
// reads the whole command before running any of it).
func (r *Runner) aliasesReadAt(pos syntax.Pos) map[string]string {
	if r.bound {
		return r.boundAliases // a definition inside a body was read with the body
	}
	if !r.shopts.has(shExpandAliases) || len(r.aliases) == 0 {
		return nil
	}
	line := r.line(pos)
	var out map[string]string
	for n, d := range r.aliasDefs {
		if _, ok := r.aliases[n]; ok && d.src == r.cur && d.line >= line {
			if out == nil {
				out = maps.Clone(r.aliases)
			}
			delete(out, n)
		}
	}
	if out == nil {
		return r.aliases // never written in place: alias and unalias replace the map
	}
	return out
}

// bindRead makes the commands of a line about to be read expand the aliases in effect now.
func (r *Runner) bindRead() {
	r.bound, r.boundAliases = true, nil
	if r.shopts.has(shExpandAliases) {
		r.boundAliases = r.aliases // never written in place: alias and unalias replace the map
	}
}

// newLine tells whether stmts[i] begins a line bash reads after running the ones before.
func newLine(stmts []*syntax.Stmt, i int) bool {
	return i == 0 || stmts[i].Pos().Line() > stmts[i-1].End().Line()
}

// stmtsRead runs text parsed at run time (eval, source, traps) as bash reads it, a line at a
// time, with the aliases in effect when each line is read; the caller's binding (a function's)
// comes back after.
func (r *Runner) stmtsRead(stmts []*syntax.Stmt) {
	b, m := r.bound, r.boundAliases
	for i, s := range stmts {
		if newLine(stmts, i) {
			r.bindRead()
		}
		r.stmt(s)
		if r.flow != flowNone {
			break
		}
	}
	r.bound, r.boundAliases = b, m
}

func quoteSingleAlways(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func biUnalias(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("unalias", args[1:], "a", false)
	if !ok {
		return 2
	}
	if len(opts) > 0 {
		r.aliases = nil
		return 0
	}
	if len(rest) == 0 {
		r.usage("unalias")
		return 2
	}
	st := 0
	for _, n := range rest {
		if _, ok := r.aliases[n]; !ok {
			r.errorf("unalias: %s: not found", n)
			st = 1
			continue
		}
		m := make(map[string]string, len(r.aliases))
		for k, v := range r.aliases {
			if k != n {
				m[k] = v
			}
		}
		r.aliases = m
	}
	return st
}

// aliasWord is the text of a word bash looks up as an alias: one unquoted literal. Unlike a
// plain name it may hold glob and tilde characters (alias e_.~x=...), which bash checks
// before any expansion.
func aliasWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(l.Value, "\\=") {
		return "", false
	}
	return l.Value, true
}

// aliasExpand replaces a command's first word by its alias in table and runs the result. Bash
// expands aliases while reading; an alias therefore applies only to commands read after its
// definition, which the position check (posCheck, for the current aliases) reproduces.
func (r *Runner) aliasExpand(ce *syntax.CallExpr, redirs []*syntax.Redirect, table map[string]string, posCheck bool) bool {
	first := ce.Args[0]
	name, ok := aliasWord(first)
	if !ok || r.aliasActive[name] {
		return false
	}
	val, ok := table[name]
	if !ok {
		return false
	}
	if d, ok := r.aliasDefs[name]; posCheck && ok && d.src == r.cur && r.line(first.Pos()) <= d.line {
		return false
	}
	last := ce.Args[len(ce.Args)-1]
	text := r.cur.slice(ce.Pos(), first.Pos()) + val
	prevEnd, cur := first.End(), val
	// An alias value ending in a blank makes the next word an alias candidate too.
	for i := 1; i < len(ce.Args) && (strings.HasSuffix(cur, " ") || strings.HasSuffix(cur, "\t")); i++ {
		n, ok := aliasWord(ce.Args[i])
		v, isAlias := table[n]
		if !ok || !isAlias {
			break
		}
		text += r.cur.slice(prevEnd, ce.Args[i].Pos()) + v
		prevEnd, cur = ce.Args[i].End(), v
	}
	text += r.cur.slice(prevEnd, last.End())
	src, stmts, err := parseString(r.cur.name, text, r.lineno-1)
	if err != nil {
		r.status = r.raise(r.syntaxRefusal("alias expansion", err))
		return true
	}
	if r.aliasActive == nil {
		r.aliasActive = map[string]bool{}
	}
	r.aliasActive[name] = true
	defer delete(r.aliasActive, name)
	if len(redirs) > 0 {
		rs, err := r.redirect(redirs, false)
		if err != nil {
			r.status = r.raise(err)
			return true
		}
		defer rs.restore()
	}
	saved := r.cur
	r.cur = src
	r.stmts(stmts)
	r.cur = saved
	return true
}

// timeClause runs `time cmd` and reports times on stderr.
func (r *Runner) timeClause(c *syntax.TimeClause) {
	start := r.c.now()
	if c.Stmt != nil {
		r.stmt(c.Stmt)
	}
	el := r.c.now().Sub(start)
	if c.PosixFormat {
		fmt.Fprintf(r.stderr(), "real %.2f\nuser 0.00\nsys 0.00\n", el.Seconds())
		return
	}
	if f, ok := r.scalar("TIMEFORMAT"); ok {
		if f != "" {
			io.WriteString(r.stderr(), timeFormat(f, el)+"\n")
		}
		return
	}
	fmt.Fprintf(r.stderr(), "\nreal\t%s\nuser\t0m0.000s\nsys\t0m0.000s\n", fmtDur(el))
}

// timeFormat renders TIMEFORMAT: %[p][l]R, U, S (user and system time are 0 here), %P, %%.
func timeFormat(f string, real time.Duration) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		prec, long := 3, false
		if f[i] >= '0' && f[i] <= '9' {
			prec = min(int(f[i]-'0'), 3)
			i++
		}
		if i < len(f) && f[i] == 'l' {
			long = true
			i++
		}
		if i == len(f) {
			break
		}
		var d time.Duration
		switch f[i] {
		case '%':
			b.WriteByte('%')
			continue
		case 'P':
			b.WriteString("0.00")
			continue
		case 'R':
			d = real
		case 'U', 'S':
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
			continue
		}
		sec := d.Seconds()
		if long {
			m := int(sec / 60)
			fmt.Fprintf(&b, "%dm%.*fs", m, prec, sec-float64(m*60))
		} else {
			fmt.Fprintf(&b, "%.*f", prec, sec)
		}
	}
	return b.String()
}

func fmtDur(d time.Duration) string {
	m := int(d.Minutes())
	s := d.Seconds() - float64(m*60)
	return fmt.Sprintf("%dm%.3fs", m, s)
}
