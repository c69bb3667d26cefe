package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() { register("sed", sed) }

var sedSpec = optSpec{
	short: "nErse:f:i::uzl:",
	long: []string{"quiet:n", "silent:n", "regexp-extended:E", "separate:s", "expression:e", "file:f",
		"in-place=?", "unbuffered:u", "null-data:z", "line-length:l", "posix", "sandbox", "follow-symlinks", "debug"},
	permute: true,
}

// sedInput is the input stream: all files as one stream (or one file at a time for -s/-i),
// read one line ahead so `$` is known.
type sedInput struct {
	ctx     context.Context
	env     *Env
	files   []string
	lr      *lineReader
	closer  io.Closer
	name    string
	pending []byte
	pendNL  bool
	has     bool
	status  int
	sep     byte
}

// fill reads the next line into pending, moving to the next file at the end of one.
func (in *sedInput) fill() {
	in.has = false
	for {
		if in.lr != nil {
			if line, nl, ok := in.lr.next(); ok {
				in.pending, in.pendNL, in.has = append(in.pending[:0], line...), nl, true
				return
			}
			if in.lr.err != nil && (in.ctx.Err() == nil || errors.Is(in.lr.err, sandbox.ErrMemoryBudget)) {
				in.status = errorf(in.env, 2, "sed", "read error on %s: %s", in.name, describe(in.lr.err))
			}
			in.closer.Close()
			in.lr = nil
		}
		if len(in.files) == 0 || in.ctx.Err() != nil {
			return
		}
		in.name, in.files = in.files[0], in.files[1:]
		r, err := openInput(in.env, in.name)
		if err != nil {
			in.status = errorf(in.env, 2, "sed", "can't read %s: %s", in.name, describe(err))
			continue
		}
		in.lr, in.closer = newLineReader(ctxRead(in.ctx, r)), r
		in.lr.sep = in.sep
	}
}

// sedRun executes a compiled script over an input.
type sedRun struct {
	cmds      []*sedCmd
	quiet     bool
	in        *sedInput
	out       *bufio.Writer
	sep       byte
	wrap      int
	ps, hold  string
	chomped   bool
	lineNo    int
	lastRE    *regexp.Regexp
	appendQ   []string
	tflag     bool
	quit      bool
	exit      int
	missingNL bool
	// mem is what the pattern and hold spaces and the append queue hold (budget.go); err is
	// the budget's refusal, which ends the run.
	mem   share
	err   error
	steps int
	// ctx is the call's: a search over a long pattern space stops when it ends.
	ctx context.Context
}

// room reserves what the spaces will hold once an operation has made a string of n bytes
// (besides the current pattern and hold spaces), and stops the run when the budget refuses.
func (r *sedRun) room(n int) bool {
	q := 0
	for _, t := range r.appendQ {
		q += len(t)
	}
	if err := r.mem.set(int64(len(r.ps) + len(r.hold) + q + n)); err != nil {
		r.err, r.quit = err, true
		return false
	}
	return true
}

func (r *sedRun) isLast() bool { return !r.in.has }

// read moves the next input line into the pattern space (or appends it for N).
func (r *sedRun) read(appendTo bool) bool {
	if !r.in.has {
		return false
	}
	line := string(r.in.pending)
	r.chomped = r.in.pendNL
	r.in.fill()
	r.lineNo++
	if appendTo {
		if !r.room(len(r.ps) + 1 + len(line)) {
			return false
		}
		r.ps += "\n" + line
	} else {
		r.ps = line
	}
	return true
}

// write emits s; a previous line that lacked its newline gets one first, as GNU sed does.
func (r *sedRun) write(s string, nl bool) {
	if r.missingNL {
		r.out.WriteByte(r.sep)
		r.missingNL = false
	}
	r.out.WriteString(s)
	if nl {
		r.out.WriteByte(r.sep)
	}
}

func (r *sedRun) printPS() {
	r.write(r.ps, r.chomped)
	if !r.chomped {
		r.missingNL = true
	}
}

func (r *sedRun) endCycle(autoprint bool) {
	if autoprint && !r.quiet {
		r.printPS()
	}
	for _, t := range r.appendQ {
		r.write(t, true)
	}
	r.appendQ = r.appendQ[:0]
}

func (r *sedRun) regex(re *regexp.Regexp) *regexp.Regexp {
	if re == nil {
		return r.lastRE
	}
	r.lastRE = re
	return re
}

func (r *sedRun) match(a *sedAddr) bool {
	switch a.kind {
	case addrLine:
		return r.lineNo == a.n
	case addrLast:
		return r.isLast()
	case addrStep:
		if a.step <= 0 {
			return r.lineNo == a.n
		}
		return r.lineNo >= a.n && (r.lineNo-a.n)%a.step == 0
	case addrRegex:
		re := r.regex(a.re)
		if re == nil {
			return false
		}
		ok, err := sandbox.MatchString(r.ctx, re, r.ps)
		if err != nil {
			r.quit = true
		}
		return ok
	}
	return false
}

// selected evaluates a command's addresses, advancing its range state.
func (r *sedRun) selected(c *sedCmd) bool {
	if c.a1 == nil {
		return !c.negate
	}
	sel := false
	switch {
	case c.rangeKind == 0:
		sel = r.match(c.a1)
	case c.active:
		sel = true
		switch c.rangeKind {
		case rangeAddr:
			if c.a2.kind == addrLine {
				c.active = r.lineNo < c.a2.n
			} else {
				c.active = !r.match(c.a2)
			}
		case rangePlus:
			c.active = r.lineNo < c.rangeTo
		case rangeTilde:
			c.active = c.rangeN > 0 && r.lineNo%c.rangeN != 0
		}
	case r.match(c.a1):
		sel, c.active = true, true
		switch c.rangeKind {
		case rangeAddr:
			c.active = c.a2.kind != addrLine || c.a2.n > r.lineNo
			if c.a2.kind == addrLast && r.isLast() {
				c.active = false
			}
		case rangePlus:
			c.rangeTo = r.lineNo + c.rangeN
			c.active = c.rangeN > 0
		case rangeTilde:
			c.active = c.rangeN > 0 && r.lineNo%c.rangeN != 0
		}
	}
	return sel != c.negate
}

// cycle runs the script on the pattern space. It reports whether to autoprint.
func (r *sedRun) cycle(ctx context.Context) bool {
	defer r.room(0)
	for pc := 0; pc < len(r.cmds); pc++ {
		// A script can loop forever without reading input (`:a;ba`).
		if r.steps++; r.steps&1023 == 0 && ctx.Err() != nil {
			r.quit = true
			return false
		}
		c := r.cmds[pc]
		if !r.selected(c) {
			if c.name == '{' {
				pc = c.jump
			}
			continue
		}
		switch c.name {
		case '{', '}', ':':
		case '=':
			r.write(strconv.Itoa(r.lineNo), true)
		case 'a':
			if !r.room(len(c.text)) {
				return false
			}
			r.appendQ = append(r.appendQ, c.text)
		case 'i':
			r.write(c.text, true)
		case 'c':
			if c.rangeKind == 0 || !c.active || c.negate {
				r.write(c.text, true)
			}
			return false
		case 'b':
			pc = c.jump - 1
		case 't', 'T':
			if r.tflag == (c.name == 't') {
				pc = c.jump - 1
			}
			r.tflag = false
		case 'd':
			return false
		case 'D':
			i := strings.IndexByte(r.ps, '\n')
			if i < 0 {
				return false
			}
			r.ps = r.ps[i+1:]
			r.endCycle(false)
			if ctx.Err() != nil {
				return false
			}
			pc, r.tflag = -1, false
		case 'g':
			r.ps = r.hold
		case 'G':
			if !r.room(len(r.ps) + 1 + len(r.hold)) {
				return false
			}
			r.ps += "\n" + r.hold
		case 'h':
			r.hold = r.ps
		case 'H':
			if !r.room(len(r.hold) + 1 + len(r.ps)) {
				return false
			}
			r.hold += "\n" + r.ps
		case 'x':
			r.ps, r.hold = r.hold, r.ps
		case 'z':
			r.ps = ""
		case 'F':
			r.write(map[bool]string{true: "-", false: r.in.name}[r.in.name == "-"], true)
		case 'l':
			r.list(c.wrap)
		case 'n':
			if !r.in.has {
				r.quit = true
				return true
			}
			if !r.quiet {
				r.printPS()
			}
			r.read(false)
		case 'N':
			if !r.in.has {
				r.quit = true
				return true
			}
			if !r.read(true) {
				return false
			}
		case 'p':
			r.printPS()
		case 'P':
			first, _, found := strings.Cut(r.ps, "\n")
			r.write(first, found || r.chomped)
		case 'q':
			r.quit, r.exit = true, c.exit
			return true
		case 'Q':
			r.quit, r.exit = true, c.exit
			return false
		case 's':
			if !r.substitute(c) {
				return false
			}
		case 'y':
			if !r.room(len(r.ps) * utf8.UTFMax) {
				return false
			}
			r.ps = strings.Map(func(x rune) rune {
				if y, ok := c.ymap[x]; ok {
					return y
				}
				return x
			}, r.ps)
		}
	}
	return true
}

// substitute runs s///. It reports false when the budget stopped the run: the matches (each
// costs a slice of submatch offsets) and the new pattern space are charged before they exist.
func (r *sedRun) substitute(c *sedCmd) bool {
	re := r.regex(c.re)
	if re == nil {
		return true
	}
	src := r.ps
	// At most len(src)+1 matches, each a slice of submatch offsets, charged before they exist;
	// a non-global s needs only the first nth.
	perMatch := 16*(re.NumSubexp()+1) + 24
	found := share{m: r.mem.m}
	defer found.set(0)
	want := len(src) + 1
	if !c.global {
		want = min(want, max(c.nth, 1))
	}
	var matches [][]int
	var err error
	if sandbox.LongSubject(len(src)) {
		// The first match is searched so that the call's end stops it: a long pattern space
		// without one (or with only one, as for s/.*/&&/) is done then.
		var m []int
		if m, err = sandbox.FindStringSubmatchIndex(r.ctx, re, src); err != nil {
			r.quit = true
			return false
		}
		switch {
		case m == nil:
			return true
		case want == 1:
			matches = [][]int{m}
		}
	}
	if matches == nil {
		var stopped error // the call ended during the search (sandbox.FindAllStringSubmatchIndex)
		matches, err = findAllBudgeted(&found, want, perMatch, func(n int) [][]int {
			var all [][]int
			all, stopped = sandbox.FindAllStringSubmatchIndex(r.ctx, re, src, n, true) // sed's are leftmost-longest
			return all
		})
		if stopped != nil {
			r.quit = true
			return false
		}
	}
	if err != nil {
		r.err, r.quit = err, true
		return false
	}
	var b strings.Builder
	last, n, done := 0, 0, false
	for i, m := range matches {
		n++
		if n < max(c.nth, 1) || (done && !c.global) {
			continue
		}
		b.WriteString(src[last:m[0]])
		expandReplacement(&b, c.repl, m, src)
		last, done = m[1], true
		// A replacement can multiply the text (`s/a/&&&&/g`): charge as it grows.
		if i&1023 == 1023 && !r.room(b.Cap()) {
			return false
		}
	}
	if !done {
		return true
	}
	if !r.room(b.Len() + len(src) - last) {
		return false
	}
	b.WriteString(src[last:])
	r.ps, r.tflag = b.String(), true
	for i := 0; i < c.printN; i++ {
		r.printPS()
	}
	return true
}

// expandReplacement writes one replacement, applying \U \L \u \l \E.
func expandReplacement(b *strings.Builder, parts []replPart, m []int, src string) {
	var mode, once byte
	put := func(s string) {
		if s == "" {
			return
		}
		switch mode {
		case 'U':
			s = strings.ToUpper(s)
		case 'L':
			s = strings.ToLower(s)
		}
		if once != 0 {
			r, size := utf8.DecodeRuneInString(s)
			if once == 'u' {
				r = unicode.ToUpper(r)
			} else {
				r = unicode.ToLower(r)
			}
			s = string(r) + s[size:]
			once = 0
		}
		b.WriteString(s)
	}
	for _, p := range parts {
		switch {
		case p.caseOp == 'u' || p.caseOp == 'l':
			once = p.caseOp
		case p.caseOp == 'E':
			mode, once = 0, 0
		case p.caseOp != 0:
			mode = p.caseOp
		case p.group >= 0:
			if 2*p.group+1 < len(m) && m[2*p.group] >= 0 {
				put(src[m[2*p.group]:m[2*p.group+1]])
			}
		default:
			put(p.lit)
		}
	}
}

// list prints the pattern space unambiguously (the l command).
func (r *sedRun) list(wrap int) {
	if wrap == 0 {
		wrap = r.wrap
	}
	var b strings.Builder
	col := 0
	emit := func(s string) {
		if wrap > 1 && col+len(s) > wrap-1 {
			b.WriteString("\\\n")
			col = 0
		}
		b.WriteString(s)
		col += len(s)
	}
	for i := 0; i < len(r.ps); i++ {
		c := r.ps[i]
		switch {
		case c == '\\':
			emit(`\\`)
		case c == '\n':
			emit(`\n`)
		case c == '\t':
			emit(`\t`)
		case c == '\a':
			emit(`\a`)
		case c == '\b':
			emit(`\b`)
		case c == '\f':
			emit(`\f`)
		case c == '\r':
			emit(`\r`)
		case c == '\v':
			emit(`\v`)
		case c < 32 || c >= 127:
			emit(fmt.Sprintf("\\%03o", c))
		default:
			emit(string(c))
		}
	}
	b.WriteString("$")
	r.write(b.String(), true)
}

// run processes the whole input stream.
func (r *sedRun) run(ctx context.Context) {
	r.in.fill()
	for !r.quit && ctx.Err() == nil && r.read(false) {
		r.tflag = false
		r.endCycle(r.cycle(ctx))
	}
}

// sed is GNU sed's common subset; e, r, R, w and W are refused (they would run commands or
// touch files behind the sandbox's back).
func sed(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "sed", 1, sedSpec, argv[1:])
	if !ok {
		return st
	}
	var scripts []string
	for _, o := range fl.opts {
		switch o.name {
		case "e":
			scripts = append(scripts, o.val)
		case "f":
			b, err := env.FS.ReadFile(env.Abs(o.val))
			if err != nil {
				return errorf(env, 1, "sed", "couldn't open file %s: %s", o.val, describe(err))
			}
			scripts = append(scripts, strings.TrimSuffix(string(b), "\n"))
		}
	}
	files := fl.operands
	if len(scripts) == 0 {
		if len(files) == 0 {
			return errorf(env, 1, "sed", "%v", errSedNoScript)
		}
		scripts, files = files[:1], files[1:]
	}
	script := strings.Join(scripts, "\n")
	quiet := fl.has("n") || script == "#n" || strings.HasPrefix(script, "#n\n")
	p := &sedParser{s: script, ere: fl.has("E", "r"), utf8: isUTF8Locale(env), ctx: ctx, mem: share{m: meterOf(ctx)}}
	cmds, err := p.parse()
	if err != nil {
		if ctx.Err() != nil {
			return 130
		}
		return errorf(env, 1, "sed", "%v", err)
	}
	defer p.mem.set(0)
	r := &sedRun{cmds: cmds, quiet: quiet, sep: '\n', wrap: 70, mem: share{m: meterOf(ctx)}, ctx: ctx}
	if fl.has("z") {
		r.sep = 0
	}
	if v, ok := fl.val("l"); ok {
		r.wrap, _ = strconv.Atoi(v)
	}
	suffix, inPlace := fl.val("i", "in-place")
	if inPlace {
		return sedInPlace(ctx, env, r, files, suffix)
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	r.out = bufio.NewWriter(env.Stdout)
	status := 0
	groups := [][]string{files}
	if fl.has("s") {
		groups = groups[:0]
		for _, f := range files {
			groups = append(groups, []string{f})
		}
	}
	for _, g := range groups {
		r.in = &sedInput{ctx: ctx, env: env, files: g, sep: r.sep}
		r.lineNo = 0
		r.run(ctx)
		status = max(status, r.in.status)
		if r.quit {
			break
		}
	}
	r.out.Flush()
	if r.err != nil {
		return errorf(env, 4, "sed", "%v", r.err)
	}
	if ctx.Err() != nil {
		return 130
	}
	if r.exit != 0 {
		return r.exit
	}
	return status
}

// sedInPlace edits each file separately, writing the result back through the sandbox.
func sedInPlace(ctx context.Context, env *Env, r *sedRun, files []string, suffix string) int {
	if len(files) == 0 {
		return errorf(env, 1, "sed", "no input files")
	}
	status := 0
	for _, f := range files {
		p := env.Abs(f)
		fi, err := env.FS.Stat(p)
		if err != nil {
			status = errorf(env, 4, "sed", "can't read %s: %s", f, describe(err))
			continue
		}
		if !fi.Mode().IsRegular() {
			status = errorf(env, 4, "sed", "couldn't edit %s: not a regular file", f)
			continue
		}
		buf := &meteredBuffer{mem: share{m: meterOf(ctx)}}
		r.out = bufio.NewWriter(buf)
		r.in = &sedInput{ctx: ctx, env: env, files: []string{f}, sep: r.sep}
		r.lineNo, r.missingNL = 0, false
		r.run(ctx)
		r.out.Flush()
		buf.mem.set(0)
		if r.err == nil {
			r.err = buf.err
		}
		if r.err != nil {
			return errorf(env, 4, "sed", "%v", r.err)
		}
		if ctx.Err() != nil {
			return 130
		}
		if r.in.status != 0 {
			status = 4
			continue
		}
		if suffix != "" {
			backup := strings.ReplaceAll(suffix, "*", path.Base(p))
			if !strings.Contains(suffix, "*") {
				backup = path.Base(p) + suffix
			}
			if err := copyFile(ctx, env, p, path.Join(path.Dir(p), backup), fi.Mode()); err != nil {
				return errorf(env, 4, "sed", "couldn't create backup of %s: %s", f, describe(err))
			}
		}
		if err := env.FS.WriteFile(p, buf.Bytes(), fi.Mode().Perm()); err != nil {
			status = errorf(env, 4, "sed", "couldn't edit %s: %s", f, describe(err))
		}
		if r.quit {
			break
		}
	}
	if r.exit != 0 {
		return r.exit
	}
	return status
}
