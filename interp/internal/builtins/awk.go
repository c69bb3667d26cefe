package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/benhoyt/goawk/interp"
	"github.com/benhoyt/goawk/lexer"
	"github.com/benhoyt/goawk/parser"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() {
	register("awk", awk)
	register("gawk", awk)
	register("mawk", awk)
}

// awk is GoAWK (POSIX awk plus a few gawk extensions) with every file and command operation
// confined: input files, getline < file, print > file and close() go through the sandbox
// (see awk_rewrite.go); system(), pipes and "cmd" | getline are refused.
func awk(ctx context.Context, env *Env, argv []string) int {
	return awkCommand(ctx, env, argv, awkOptions{})
}

// awkCommand is awk with the rewrite's options opt (regexFS is found from the command line).
func awkCommand(ctx context.Context, env *Env, argv []string, opt awkOptions) int {
	args := argv[1:]
	var vars []string
	var progFiles []string
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		name, val := a[:2], a[2:]
		if strings.HasPrefix(a, "--") {
			return errorf(env, 2, "awk", "unsupported option %s", a)
		}
		if val == "" && strings.IndexByte("Fvf", a[1]) >= 0 {
			if len(args) < 2 {
				return errorf(env, 2, "awk", "option requires an argument -- %c", a[1])
			}
			val, args = args[1], args[1:]
		}
		args = args[1:]
		switch name {
		case "-F":
			if val == "t" {
				val = `\t`
			}
			vars = append(vars, "FS", awkUnescape(val))
		case "-v":
			k, v, ok := strings.Cut(val, "=")
			if !ok {
				return errorf(env, 2, "awk", "invalid -v argument: %s", val)
			}
			vars = append(vars, k, awkUnescape(v))
		case "-f":
			progFiles = append(progFiles, val)
		default:
			return errorf(env, 2, "awk", "unsupported option %s", a)
		}
	}
	src, args, st := awkProgram(env, progFiles, args)
	if st != 0 {
		return st
	}
	opt.regexFS = awkRegexFS(vars, args)
	return runAwk(ctx, env, src, vars, args, opt)
}

func awkUnescape(s string) string {
	if u, err := lexer.Unescape(s); err == nil {
		return u
	}
	return s
}

// awkProgram returns the program text (from -f files or the first operand) and the operands.
func awkProgram(env *Env, progFiles, args []string) (string, []string, int) {
	if len(progFiles) == 0 {
		if len(args) == 0 {
			return "", nil, errorf(env, 2, "awk", "usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]")
		}
		return args[0], args[1:], 0
	}
	var b strings.Builder
	for _, f := range progFiles {
		data, err := env.FS.ReadFile(env.Abs(f))
		if err != nil {
			return "", nil, errorf(env, 2, "awk", "can't open file %s: %s", f, describe(err))
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String(), args, 0
}

// runAwk runs the program under a heap watch (GoAWK has no allocation hook: budget.go).
func runAwk(ctx context.Context, env *Env, src string, vars, args []string, opt awkOptions) int {
	wctx, stop, _ := watchHeap(ctx, env.Budget)
	st := runAwkWatched(wctx, env, src, vars, args, opt)
	if stop() || meterOf(ctx).refused {
		return errorf(env, 2, "awk", "%v", env.Budget.Err())
	}
	return st
}

func runAwkWatched(ctx context.Context, env *Env, src string, vars, args []string, opt awkOptions) (status int) {
	defer func() {
		if p := recover(); p != nil {
			switch p := p.(type) {
			case awkStopped:
				status = 130
			case awkRegexRefused:
				status = errorf(env, 2, "awk", "%v", p.err)
			case awkFormatRefused:
				status = errorf(env, 2, "awk", "%s", p.msg)
			default:
				panic(p)
			}
		}
	}()
	opt.lex = newAwkLexer(ctx)
	// Before the rewrite and GoAWK's parser, both of which recurse on the program's nesting.
	if err := awkNesting(ctx, src); err != nil {
		return errorf(env, 2, "awk", "%v", err)
	}
	if toks, ok := opt.lex.tokens(src); ok {
		if err := awkSepRefusal(toks); err != nil {
			return errorf(env, 2, "awk", "%v", err)
		}
	}
	rx := newAwkRegex(ctx)
	rx.rs = "\n"
	for i := 0; i+1 < len(vars); i += 2 {
		if vars[i] == "FS" || vars[i] == "RS" {
			if err := checkSep(vars[i], vars[i+1]); err != nil {
				return errorf(env, 2, "awk", "%v", err)
			}
		}
		if vars[i] == "RS" {
			rx.rs = vars[i+1]
		}
	}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && (k == "FS" || k == "RS") {
			if err := checkSep(k, awkUnescape(v)); err != nil {
				return errorf(env, 2, "awk", "%v", err)
			}
		}
	}
	aio := newAwkIO(ctx, env)
	defer aio.closeAll()
	funcs := aio.funcs()
	rx.funcs(funcs)
	prog, err := parser.ParseProgram([]byte(rewriteAwkOpts(src, opt)), &parser.ParserConfig{Funcs: funcs})
	if err != nil {
		// Report the error against the script as written.
		if _, oerr := parser.ParseProgram([]byte(src), &parser.ParserConfig{Funcs: funcs}); oerr != nil {
			err = oerr
		}
		return errorf(env, 2, "awk", "%v", err)
	}
	var environ []string
	if env.Environ != nil {
		for _, kv := range env.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				environ = append(environ, k, v)
			}
		}
	}
	if environ == nil {
		environ = []string{}
	}
	in, goArgs := aio.inputs(args, rx)
	out := bufio.NewWriter(env.Stdout)
	aio.stdout = out
	cfg := &interp.Config{
		Stdin: in, Output: out, Error: env.Stderr, Argv0: "awk", Args: goArgs, Vars: vars,
		Funcs: funcs, Environ: environ, NoExec: true, NoFileWrites: true, NoFileReads: true,
		ShellCommand: []string{"/nonexistent"},
	}
	it, err := interp.New(prog)
	if err != nil {
		return errorf(env, 2, "awk", "%v", err)
	}
	status, err = it.ExecuteContext(ctx, cfg)
	out.Flush()
	switch {
	case ctx.Err() != nil:
		return 130
	case err != nil:
		msg := err.Error()
		if in.err != nil {
			msg = in.err.Error()
		}
		if strings.Contains(msg, "NoExec") {
			msg += ": running commands from awk is not available in the sandbox"
		}
		if strings.Contains(msg, bufio.ErrTooLong.Error()) {
			// GoAWK reads records of at most 10 MiB; gawk has no such bound.
			msg = "a record longer than 10 MiB is more than the sandbox's awk reads (" + msg +
				"); split the input into shorter records, or run the tool with \"exec\": \"native\""
		}
		return errorf(env, 2, "awk", "%s", msg)
	}
	return status
}

// awkRegexFS reports whether the command line sets FS to what may be a regular expression (more
// than one character), with -F, -v FS= or an FS= operand.
func awkRegexFS(vars, args []string) bool {
	for i := 0; i+1 < len(vars); i += 2 {
		if vars[i] == "FS" && len(vars[i+1]) > 1 {
			return true
		}
	}
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "FS="); ok && len(v) > 1 {
			return true
		}
	}
	return false
}

// awkIO holds one run's sandboxed files: the main input, getline sources and outputs.
type awkIO struct {
	ctx     context.Context
	env     *Env
	stdout  *bufio.Writer
	main    *awkInput
	readers map[string]*lineReader
	closers map[string]io.Closer
	writers map[string]io.WriteCloser
	line    string
	status  int
	fmts    []fmtFrame // the printf/sprintf calls in progress (awk_format.go)
}

func newAwkIO(ctx context.Context, env *Env) *awkIO {
	return &awkIO{ctx: ctx, env: env, readers: map[string]*lineReader{}, closers: map[string]io.Closer{},
		writers: map[string]io.WriteCloser{}}
}

// inputs maps file operands to "-" and returns the reader that serves them in turn, so that
// goawk still sees one input per operand (FNR, NR==FNR and nextfile keep working).
//
// rx keeps the RS in effect: the input's records are found by the stoppable matcher too when
// it is a regular expression (awkRecords); an RS= operand sets it for the files after it.
func (a *awkIO) inputs(args []string, rx *awkRegex) (*awkInput, []string) {
	in := &awkInput{ctx: a.ctx, env: a.env, rx: rx}
	goArgs := make([]string, len(args))
	var rs *string
	for i, arg := range args {
		if k, v, ok := strings.Cut(arg, "="); ok && isAwkName(k) {
			goArgs[i] = arg
			if k == "RS" {
				v = awkUnescape(v)
				rs = &v
			}
			continue
		}
		goArgs[i] = "-"
		in.sources = append(in.sources, arg)
		in.rsAt = append(in.rsAt, rs)
		rs = nil
	}
	if len(in.sources) == 0 {
		in.sources, in.implicit, in.rsAt = []string{"-"}, true, []*string{rs}
	}
	a.main = in
	return in, goArgs
}

func isAwkName(s string) bool {
	if s == "" || !(s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (a *awkIO) funcs() map[string]any {
	return map[string]any{
		"__mcp_filename": func() string { return a.main.name() },
		"__mcp_close":    a.close,
		"__mcp_substr":   awkSubstr,
		"__mcp_toupper":  func(s string) string { return awkCase(s, 'a', 'z', 'A'-'a') },
		"__mcp_tolower":  func(s string) string { return awkCase(s, 'A', 'Z', 'a'-'A') },
		"__mcp_getline":  a.getline,
		"__mcp_line":     func() string { return a.line },
		"__mcp_status":   func() int { return a.status },
		"__mcp_one":      func(string) int { return 1 },
		"__mcp_out":      a.out,
		"__mcp_tick":     a.tick,
		"__mcp_re":       a.re,
		"__mcp_fmt":      a.checkFormat,
		"__mcp_arg":      a.argument,
		"__mcp_w":        a.width,
	}
}

// awkRegexRefused unwinds GoAWK from __mcp_re with the reason.
type awkRegexRefused struct{ err error }

// re passes a regular expression built at run time on to GoAWK, unless compiling it would take
// more than a moment (sandbox.CheckRegexp): GoAWK's compile cannot be stopped.
func (a *awkIO) re(expr string) string {
	if err := sandbox.CheckRegexp(expr); err != nil {
		panic(awkRegexRefused{err})
	}
	return expr
}

// awkStopped unwinds GoAWK from __mcp_tick when the call ended or the budget ran out.
type awkStopped struct{}

// tick is called at every loop test and function entry (awk_rewrite.go): it stops the run at
// once when its context ended (the call's timeout or cancellation, or the heap watch).
func (a *awkIO) tick() int {
	if a.ctx.Err() != nil {
		panic(awkStopped{})
	}
	return 1
}

func (a *awkIO) getline(name string) int {
	lr, ok := a.readers[name]
	if !ok {
		var r io.ReadCloser
		var err error
		if name == "-" || name == "/dev/stdin" {
			r = io.NopCloser(a.env.Stdin)
		} else {
			r, err = openInput(a.env, name)
		}
		if err != nil {
			a.status = -1
			return -1
		}
		lr = newLineReader(ctxRead(a.ctx, r))
		a.readers[name], a.closers[name] = lr, r
	}
	line, _, ok := lr.next()
	switch {
	case ok:
		a.line, a.status = string(line), 1
	case lr.err != nil:
		a.status = -1
	default:
		a.status = 0
	}
	return a.status
}

func (a *awkIO) out(name, mode, s string) (int, error) {
	switch name {
	case "-", "/dev/stdout":
		a.stdout.WriteString(s)
		return 0, nil
	case "/dev/stderr":
		a.stdout.Flush()
		io.WriteString(a.env.Stderr, s)
		return 0, nil
	}
	w, ok := a.writers[name]
	if !ok {
		f, err := openFile(a.env, name, writeFlags(mode == ">>"), a.env.Perm(0o666))
		if err != nil {
			return 0, fmt.Errorf("can't redirect to %s: %s", name, describe(err))
		}
		a.writers[name], w = f, f
	}
	if _, err := io.WriteString(w, s); err != nil {
		return 0, fmt.Errorf("write to %s: %s", name, describe(err))
	}
	return 0, nil
}

func (a *awkIO) close(name string) int {
	if w, ok := a.writers[name]; ok {
		delete(a.writers, name)
		if w.Close() != nil {
			return -1
		}
		return 0
	}
	if c, ok := a.closers[name]; ok {
		delete(a.closers, name)
		delete(a.readers, name)
		c.Close()
		return 0
	}
	return -1
}

func (a *awkIO) closeAll() {
	for _, w := range a.writers {
		w.Close()
	}
	for _, c := range a.closers {
		c.Close()
	}
	if a.main != nil && a.main.cur != nil {
		a.main.cur.Close()
	}
}

// awkInput serves the main input files one after another: each file ends with io.EOF, and
// the next Read (from goawk's scanner for the next "-" operand) opens the next file.
type awkInput struct {
	ctx        context.Context
	env        *Env
	sources    []string
	implicit   bool
	next       int
	cur        io.ReadCloser
	curName    string
	pendingEOF bool
	err        error
	rx         *awkRegex   // the RS in effect (rx.rs)
	rsAt       []*string   // per source: the RS an RS= operand before it sets, or nil
	recs       *awkRecords // the open source's records by a regular expression RS, or nil
}

func (in *awkInput) name() string {
	if in.implicit {
		return ""
	}
	return in.curName
}

func (in *awkInput) Read(p []byte) (int, error) {
	if in.pendingEOF {
		in.pendingEOF, in.recs = false, nil
		return 0, io.EOF
	}
	if in.cur == nil {
		if in.next >= len(in.sources) {
			return 0, io.EOF
		}
		name := in.sources[in.next]
		if rs := in.rsAt[in.next]; rs != nil {
			in.rx.rs = *rs
		}
		in.next++
		r, err := openInput(in.env, name)
		if err != nil {
			in.err = fmt.Errorf("cannot open %s: %s", name, describe(err))
			return 0, in.err
		}
		in.cur, in.curName = r, name
		// GoAWK made its reader of this source's records with the RS in effect now.
		in.recs = newAwkRecords(in.rx)
	}
	n, err := ctxRead(in.ctx, in.cur).Read(p)
	if in.recs != nil && n > 0 {
		if rerr := in.recs.add(in.ctx, p[:n]); rerr != nil {
			return 0, rerr
		}
	}
	if errors.Is(err, io.EOF) {
		in.cur.Close()
		in.cur = nil
		if n > 0 {
			in.pendingEOF = true
			return n, nil
		}
		in.recs = nil
	}
	return n, err
}

// awkRecords follows GoAWK's reading of the records of one source by a regular expression RS:
// its bufio.Scanner searches, after every read, what it holds and has not made a record of yet
// for the first match (one FindIndex per record, each of which may read to the end of what it
// holds, and none of which can be stopped: RS = "(a.*z)*a" over a long run of a's went on for
// hours). add makes the same searches with the stoppable matcher over the same bytes before
// GoAWK gets them, so GoAWK's own searches repeat ones that ended before the call's end.
type awkRecords struct {
	re  *sandbox.Searcher
	win string // what GoAWK's scanner holds and has not made a record of yet
}

// newAwkRecords returns the records of a source read by RS, rx.rs, or nil when RS is not a
// regular expression (one character, a newline, or empty: GoAWK splits on a byte).
func newAwkRecords(rx *awkRegex) *awkRecords {
	if utf8.RuneCountInString(rx.rs) <= 1 {
		return nil
	}
	re, err := rx.compile(rx.rs)
	if err != nil {
		return nil // GoAWK refused RS when it was set
	}
	return &awkRecords{re: re}
}

// add is a read of b: the records GoAWK's scanner makes of it are found, as its split function
// (a non-empty match ends a record; an empty match or none asks for more).
func (m *awkRecords) add(ctx context.Context, b []byte) error {
	began := time.Now()
	m.win += string(b)
	for len(m.win) > 0 {
		loc, err := m.re.FindIndex(ctx, m.win)
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return err
		}
		if loc == nil || loc[0] == loc[1] {
			break
		}
		m.win = m.win[loc[1]:]
	}
	return awaitRepeat(ctx, time.Since(began))
}

// awkCase is toupper or tolower as awk's strings are bytes here (length("é") is 2): ASCII
// letters change, every other byte stays, as in mawk, BWK awk and gawk in the C locale.
// GoAWK's own changes every Unicode letter ("é" to "É") and turns invalid bytes into U+FFFD.
func awkCase(s string, lo, hi byte, by int) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= rune(lo) && r <= rune(hi) })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if b[i] >= lo && b[i] <= hi {
			b[i] = byte(int(b[i]) + by)
		}
	}
	return string(b)
}

// awkSubstr is substr as POSIX and gawk define it: the characters at positions m through
// m+n-1 (rounded), counted from 1, of those that exist. GoAWK moves a start below 1 up to 1
// and keeps the length (substr("hello", 0, 2) is "he" there, "h" in gawk).
func awkSubstr(s string, m float64, n ...float64) string {
	start := math.RoundToEven(m)
	end := math.Inf(1)
	if len(n) > 0 {
		if math.IsNaN(n[0]) {
			return ""
		}
		end = start + math.RoundToEven(n[0])
	}
	if math.IsNaN(start) {
		return ""
	}
	start = max(start, 1)
	end = min(end, float64(len(s)+1))
	if end <= start {
		return ""
	}
	return s[int(start)-1 : int(end)-1]
}
