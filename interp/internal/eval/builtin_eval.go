package eval

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The builtins that run shell text or another program in the current shell: eval, source
// (.), exec, and caller, which reports the frames they and functions push.

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
	if err := r.condPoisoned(text); err != nil {
		return r.raise(err)
	}
	src, stmts, clean, err := r.parseCached(text)
	base := r.lineno
	var condErr *condSyntaxError
	if ce, ok := err.(*condSyntaxError); ok && what == "eval" {
		// Bash reads and runs eval text a line at a time: the lines before a [[ ]] syntax
		// error run, then it reports the error in its own words (on the line of the [[,
		// counted from the eval's) and the eval ends with status 2; the script goes on.
		if ce.Pos.Line() == 1 {
			r.reportCondError(fmt.Sprintf("%s: eval: line %d", r.arg0OrBash(), base), ce.lines, base)
			return 2
		}
		if prog, _ := ParseContext(r.ctx, r.cur.name, []byte(text)); prog != nil && prog.condErr {
			src, stmts, clean, err, condErr = prog.src, prog.stmts, false, nil, ce
		}
	}
	if err != nil {
		if le := (*LimitError)(nil); errors.As(err, &le) {
			return r.raise(err)
		}
		if cerr := r.checkCtx(); cerr != nil {
			return r.raise(cerr) // the call ended while the text was parsed
		}
		return r.raise(r.syntaxRefusal(what, err))
	}
	if src.eofHdocs != nil {
		// Bash ends it at the end of the text too, but counts the lines of its warning from
		// the eval's own count, in a way that is not the script's.
		return r.raise(r.refuseHere(what+" text that ends inside a here-document (<<"+src.eofHdocs[0].stop+" without its delimiter line)",
			"end the here-document with its delimiter line "+src.eofHdocs[0].stop))
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
		r.flow, r.discardArith = flowNone, false
		return 1
	}
	if condErr != nil && r.flow == flowNone {
		r.reportCondError(fmt.Sprintf("%s: eval: line %d", r.arg0OrBash(), base+int(condErr.Pos.Line())-1), condErr.lines, base)
		return 2
	}
	return r.status
}

// reportCondError prints a [[ ]] syntax error of eval or source text as bash does, each line
// after "where: ", and marks what follows the command at line at: bash 5.2 then fails the
// next [[ it reads (condPoison).
func (r *Runner) reportCondError(where string, lines []string, at int) {
	for _, line := range lines {
		fmt.Fprintf(r.stderr(), "%s: %s\n", where, line)
	}
	r.condPoison = max(at, 1)
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
		data, err := r.readAll(io.LimitReader(fdReader{of}, r.c.limits.MaxScriptBytes+1))
		of.release()
		if err != nil {
			r.errorf("%s: %s", file, errText(err))
			return 1
		}
		return r.sourceText(name, file, data, args[1:])
	}
	p := r.findSource(file)
	if p == "" {
		if fi, err := r.c.fs.Stat(r.absPath(file)); err == nil && fi.IsDir() {
			r.errorf("%s: %s: is a directory", name, file)
		} else {
			r.errorf("%s: No such file or directory", file)
		}
		return r.sourceFailed()
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
		return r.sourceFailed()
	}
	return r.sourceText(name, file, data, args[1:])
}

// sourceFailed is the end of a source whose file could not be read: bash runs the RETURN
// trap all the same, with $? from before the source, and the status is 1.
func (r *Runner) sourceFailed() int {
	r.runReturnTrap()
	return 1
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
	if err := r.checkText(len(data)); err != nil {
		return r.raise(err)
	}
	if err := r.condPoisoned(data); err != nil {
		return r.raise(err)
	}
	src, stmts, clean, perr := r.c.parsed.parse(r.ctx, file, data)
	if cerr := r.checkCtx(); perr != nil && cerr != nil {
		return r.raise(cerr)
	}
	if perr != nil {
		// Bash runs the lines before the syntax error.
		prog, _ := ParseContext(r.ctx, file, []byte(data))
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
	at := r.lineno
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
		r.flow, r.discardArith = flowNone, false
		return 1
	}
	if perr != nil && r.flow == flowNone {
		if ce, ok := perr.(*condSyntaxError); ok {
			// As eval's: the lines before it ran; the source ends with status 2.
			r.reportCondError(fmt.Sprintf("%s: line %d", file, ce.Pos.Line()), ce.lines, at)
			return 2
		}
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
	// Only sourced files are read whole: past the script size limit they are refused
	// (sourceText), so reading further would only hold more.
	return r.readAll(io.LimitReader(f, r.c.limits.MaxScriptBytes+1))
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

// condPoisoned refuses text holding a [[ read after an eval's [[ ]] syntax error: bash 5.2
// fails the next [[ it parses ("syntax error near unexpected token"), whatever it holds.
func (r *Runner) condPoisoned(text string) error {
	if r.condPoison == 0 || !strings.Contains(text, "[[") {
		return nil
	}
	return r.refuseHere("a [[ ]] command read after a [[ ]] syntax error in eval text (bash 5.2 then fails the next [[ it reads as a syntax error; the engine does not reproduce that)",
		"fix the [[ ]] syntax error in the eval text")
}

// readsPoisonedCond refuses a statement bash reads after an eval's [[ ]] syntax error (on a
// later line) when it holds a [[, run or not: bash fails it when it reads it.
func (r *Runner) readsPoisonedCond(s *syntax.Stmt) bool {
	if r.condPoison == 0 || r.line(s.Pos()) <= r.condPoison {
		return false
	}
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.TestClause); ok {
			found = true
		}
		return !found
	})
	if found {
		r.lineno = r.line(s.Pos())
		r.status = r.raise(r.condPoisoned("[["))
	}
	return found
}
