package eval

import (
	"errors"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/testexpr"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// testClause evaluates [[ ... ]].
func (r *Runner) testClause(c *syntax.TestClause) (bool, error) {
	return r.testExpr(c.X)
}

// traceTest prints one primary of [[ ]] as xtrace shows it, operands expanded.
// Bash prints the operands as they are, ” for an empty one, and "! " before a negated
// primary (r.traceNot).
func (r *Runner) traceTest(parts ...string) {
	if r.opts.has(optXtrace) {
		neg := ""
		if r.traceNot {
			neg = "! "
		}
		r.xtraceText("[[ " + neg + strings.Join(parts, " ") + " ]]")
	}
}

// traceOperand is an operand of [[ ]] as xtrace shows it.
func traceOperand(s string) string {
	if s == "" {
		return "''"
	}
	return s
}

func (r *Runner) testExpr(x syntax.TestExpr) (bool, error) {
	switch x := x.(type) {
	case *syntax.Word:
		s, err := r.expandString(x, ctxPlain)
		r.traceTest("-n", traceOperand(s))
		return s != "", err
	case *syntax.ParenTest:
		saved := r.traceNot
		r.traceNot = false
		defer func() { r.traceNot = saved }()
		return r.testExpr(x.X)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsNot {
			saved := r.traceNot
			r.traceNot = !saved
			defer func() { r.traceNot = saved }()
			ok, err := r.testExpr(x.X)
			return !ok, err
		}
		w, ok := x.X.(*syntax.Word)
		if !ok {
			return false, r.refuseErr(x.Pos(), "this [[ ]] expression")
		}
		s, err := r.expandString(w, ctxPlain)
		if err != nil {
			return false, err
		}
		r.traceTest(x.Op.String(), traceOperand(s))
		return testexpr.Unary(x.Op.String(), s, testEnv{r}), nil
	case *syntax.BinaryTest:
		if x.Op == syntax.AndTest || x.Op == syntax.OrTest {
			saved := r.traceNot
			r.traceNot = false
			defer func() { r.traceNot = saved }()
		}
		switch x.Op {
		case syntax.AndTest:
			ok, err := r.testExpr(x.X)
			if err != nil || !ok {
				return false, err
			}
			return r.testExpr(x.Y)
		case syntax.OrTest:
			ok, err := r.testExpr(x.X)
			if err != nil || ok {
				return ok, err
			}
			return r.testExpr(x.Y)
		}
		lw, ok1 := x.X.(*syntax.Word)
		rw, ok2 := x.Y.(*syntax.Word)
		if !ok1 || !ok2 {
			return false, r.refuseErr(x.Pos(), "this [[ ]] expression")
		}
		left, err := r.expandString(lw, ctxPlain)
		if err != nil {
			return false, err
		}
		switch x.Op {
		case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch:
			// [[ == ]] reads extended patterns whatever extglob says.
			e := &expander{r: r, mode: modePattern, extglob: true}
			if err := e.parts(rw.Parts, false, true, false); err != nil {
				return false, err
			}
			e.emit(false)
			var pb, tb strings.Builder
			for i := range e.fields {
				pb.WriteString(e.fields[i].pattern())
				for _, sg := range e.fields[i].segs {
					if !sg.quoted {
						tb.WriteString(sg.s)
						continue
					}
					for _, c := range []byte(sg.s) {
						tb.WriteByte('\\')
						tb.WriteByte(c)
					}
				}
			}
			r.traceTest(traceOperand(left), x.Op.String(), traceOperand(tb.String()))
			opts := r.patOptions(r.shopts.has(shNocasematch), pb.String(), left)
			opts.ExtGlob = true
			p, err := r.compile(pb.String(), opts)
			if err != nil {
				return false, err
			}
			sp, err := r.stopping(p, left)
			if err != nil {
				return false, err
			}
			m, err := sp.Match(left)
			if err != nil {
				return false, r.patErr(pb.String(), err)
			}
			return m == (x.Op != syntax.TsNoMatch), nil
		case syntax.TsReMatch:
			return r.regexMatch(left, rw)
		}
		right, err := r.expandString(rw, ctxPlain)
		if err != nil {
			return false, err
		}
		r.traceTest(traceOperand(left), x.Op.String(), traceOperand(right))
		// An arithmetic error in an operand fails the [[ ]] (status 1), not the line.
		ok, err := testexpr.Binary(x.Op.String(), left, right, testEnv{r}, func(s string) (int64, error) {
			return r.arithEval(s, "[[: ")
		})
		var te *testexpr.Error
		if errors.As(err, &te) {
			r.errorf("%s", te.Msg)
			return false, &shError{flow: flowNone, status: 2}
		}
		return ok, err
	}
	return false, r.refuseErr(x.Pos(), "this [[ ]] expression")
}

// accessTime is a file's atime when the FileInfo carries it.
func accessTime(fi fs.FileInfo) time.Time {
	type atimer interface{ AccessTime() time.Time }
	if a, ok := fi.(atimer); ok {
		return a.AccessTime()
	}
	return fi.ModTime()
}

// varIsSet is test -v: a set variable, array element (name[sub]) or positional parameter.
func (r *Runner) varIsSet(s string) (bool, error) {
	name, sub, hasSub, ok := parseParamRef(s)
	if !ok {
		return false, nil
	}
	if hasSub && sub != "@" && sub != "*" {
		// The subscript is expanded (test -v 'm[$k]'), as bash expands an array reference's.
		var err error
		if sub, err = r.expandSubscriptText(sub); err != nil {
			return false, err
		}
	}
	pv, err := r.paramValue(name, sub, hasSub)
	if err != nil {
		return false, err
	}
	if pv.isList {
		return len(pv.list) > 0, nil
	}
	return pv.set, nil
}

// regexMatch is [[ s =~ re ]]: the quoted parts of the pattern match literally.
func (r *Runner) regexMatch(s string, w *syntax.Word) (bool, error) {
	var b strings.Builder
	inBracket := false
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				// A leading tilde expands, and its result matches literally.
				e := &expander{r: r, mode: modeString}
				rest, err := e.tilde(p.Value, w.Parts, 0)
				if err != nil {
					return false, err
				}
				if rest != p.Value {
					e.emit(false)
					for _, f := range e.fields {
						b.WriteString(regexp.QuoteMeta(f.text()))
					}
					p = &syntax.Lit{Value: rest}
				}
			}
			// A backslash quotes the next character: outside a bracket expression it stays as
			// the regexp's escape; inside one bash drops it (the character is literal there).
			v := p.Value
			for i := 0; i < len(v); i++ {
				c := v[i]
				switch {
				case c == '\\' && i+1 < len(v):
					if inBracket {
						b.WriteByte(v[i+1])
					} else {
						b.WriteByte(c)
						b.WriteByte(v[i+1])
					}
					i++
					continue
				case c == '[' && !inBracket:
					inBracket = true
					b.WriteByte(c)
					if i+1 < len(v) && v[i+1] == '^' {
						b.WriteByte('^')
						i++
					}
					if i+1 < len(v) && v[i+1] == ']' {
						b.WriteByte(']')
						i++
					}
					continue
				case c == ']' && inBracket:
					inBracket = false
				}
				b.WriteByte(c)
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = ansiC(v)
			}
			b.WriteString(regexp.QuoteMeta(v))
		default:
			e := &expander{r: r, mode: modeString}
			quoted := false
			if dq, ok := p.(*syntax.DblQuoted); ok {
				quoted = true
				if err := e.parts(dq.Parts, true, false, false); err != nil {
					return false, err
				}
			} else if err := e.parts([]syntax.WordPart{p}, false, false, false); err != nil {
				return false, err
			}
			e.emit(false)
			for _, f := range e.fields {
				for _, sg := range f.segs {
					if quoted || sg.quoted {
						b.WriteString(regexp.QuoteMeta(sg.s))
					} else {
						b.WriteString(sg.s)
					}
				}
			}
		}
	}
	r.traceTest(traceOperand(s), "=~", traceOperand(b.String()))
	re, err := r.compileERE(b.String())
	if err != nil {
		if err == errRegexRefused {
			return false, r.refuseErr(w.Pos(), "the regular expression "+strconv.Quote(b.String())+" (POSIX ERE feature without an RE2 equivalent)")
		}
		return false, &shError{flow: flowNone, status: 2}
	}
	m, err := sandbox.FindStringSubmatchIndex(r.ctx, re, s) // a long subject stops with the call
	if err != nil {
		return false, r.checkCtx()
	}
	if m == nil {
		_ = r.assignArray("BASH_REMATCH", nil, asGlobal, false)
		return false, nil
	}
	items := make([]arrayItem, 0, len(m)/2)
	for i := 0; i < len(m); i += 2 {
		v := ""
		if m[i] >= 0 {
			v = s[m[i]:m[i+1]]
		}
		items = append(items, arrayItem{val: v})
	}
	if err := r.assignArray("BASH_REMATCH", items, asGlobal, false); err != nil {
		return false, err
	}
	return true, nil
}

var errRegexRefused = &shError{flow: flowNone, status: 2}

// compileERE converts a POSIX extended regular expression to RE2 and compiles it with
// leftmost-longest semantics. Constructs whose meaning differs are refused.
func (r *Runner) compileERE(src string) (*regexp.Regexp, error) {
	var b strings.Builder
	inBracket := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inBracket {
			switch {
			case c == ']' && !bracketStart(src, i):
				inBracket = false
				b.WriteByte(c)
			case c == '[' && i+1 < len(src) && (src[i+1] == ':' || src[i+1] == '=' || src[i+1] == '.'):
				end := strings.Index(src[i+2:], string(src[i+1])+"]")
				if end < 0 {
					return nil, errStatus1
				}
				cls := src[i : i+2+end+2]
				if src[i+1] != ':' {
					return nil, errRegexRefused
				}
				b.WriteString(cls)
				i += 2 + end + 1
			case c == '\\':
				// A backslash is literal inside a POSIX bracket expression.
				b.WriteString(`\\`)
			default:
				b.WriteByte(c)
			}
			continue
		}
		switch c {
		case '[':
			inBracket = true
			b.WriteByte(c)
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case '\\':
			if i+1 >= len(src) {
				b.WriteString(`\\`)
				continue
			}
			i++
			d := src[i]
			switch {
			case d >= '1' && d <= '9':
				return nil, errRegexRefused
			case d == '<' || d == '>' || d == '`' || d == '\'':
				return nil, errRegexRefused
			case d == 'w' || d == 'W' || d == 's' || d == 'S' || d == 'b' || d == 'B':
				b.WriteByte('\\')
				b.WriteByte(d)
			case d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d >= '0' && d <= '9':
				// An undefined escape of an ordinary character is the character.
				b.WriteByte(d)
			default:
				b.WriteString(regexp.QuoteMeta(string(d)))
			}
		case '{':
			// A brace not starting a valid interval is literal in glibc.
			j := strings.IndexByte(src[i:], '}')
			if j < 0 || !validInterval(src[i+1:i+j]) || i == 0 {
				// glibc rejects a brace that does not start a valid interval.
				return nil, errStatus1
			}
			b.WriteString(src[i : i+j+1])
			i += j
		default:
			b.WriteByte(c)
		}
	}
	if inBracket {
		return nil, errStatus1
	}
	expr := b.String()
	if r.shopts.has(shNocasematch) {
		expr = "(?i)" + expr
	}
	re, err := sandbox.CompileRegexp(expr)
	if err != nil {
		return nil, errStatus1
	}
	re.Longest()
	return re, nil
}

func bracketStart(src string, i int) bool {
	return i > 0 && (src[i-1] == '[' || (src[i-1] == '^' && i > 1 && src[i-2] == '['))
}

func validInterval(s string) bool {
	if s == "" {
		return false
	}
	a, b, two := strings.Cut(s, ",")
	if a == "" || !isDigits(a) {
		return false
	}
	return !two || b == "" || isDigits(b)
}

// biTest is test and [.
func biTest(r *Runner, args []string) int {
	env := testEnv{r}
	var ok bool
	var err error
	if args[0] == "[" {
		ok, err = testexpr.Bracket(args[1:], env)
	} else {
		ok, err = testexpr.Test(args[1:], env)
	}
	if err != nil {
		r.errorf("%s: %s", args[0], err.Error())
	}
	return testexpr.Status(ok, err)
}

// testEnv gives package testexpr the shell's files (through the FS) and state.
type testEnv struct{ r *Runner }

func (t testEnv) info(name string, follow bool) (testexpr.FileInfo, error) {
	r := t.r
	if f, ok, err := r.specialFile(name, 0); ok {
		if err != nil {
			return testexpr.FileInfo{}, err
		}
		defer f.release()
		// A descriptor on one of the shell's pipes (a pipeline, a process substitution) is
		// a FIFO, as bash's kernel pipe is (prw-------).
		_, pr := f.r.(pipeReader)
		_, pw := f.w.(pipeWriter)
		if pr || pw {
			return testexpr.FileInfo{Mode: fs.ModeNamedPipe | 0o600, Uid: t.Euid(), Gid: t.Egid()}, nil
		}
		return testexpr.FileInfo{Mode: fs.ModeDevice | fs.ModeCharDevice | 0o666, Uid: t.Euid(), Gid: t.Egid()}, nil
	}
	p := r.absPath(name)
	var fi fs.FileInfo
	var err error
	if follow {
		fi, err = r.c.fs.Stat(p)
	} else {
		fi, err = r.c.fs.Lstat(p)
	}
	if err != nil {
		return testexpr.FileInfo{}, err
	}
	// Every file the sandbox shows belongs to the virtual user.
	out := testexpr.FileInfo{Mode: fi.Mode(), Size: fi.Size(), ModTime: fi.ModTime(), AccessTime: accessTime(fi),
		Uid: t.Euid(), Gid: t.Egid()}
	st := sandbox.StatOf(fi)
	out.Dev, out.Ino = st.Dev, st.Ino
	return out, nil
}

func (t testEnv) Stat(name string) (testexpr.FileInfo, error)  { return t.info(name, true) }
func (t testEnv) Lstat(name string) (testexpr.FileInfo, error) { return t.info(name, false) }
func (t testEnv) Access(name string, mode uint32) bool {
	if f, ok, err := t.r.specialFile(name, 0); ok {
		if f != nil {
			f.release()
		}
		return err == nil
	}
	return t.r.c.fs.Access(t.r.absPath(name), mode) == nil
}
func (t testEnv) IsTerminal(int) bool { return false }
func (t testEnv) IsSet(name string) bool {
	ok, _ := t.r.varIsSet(name)
	return ok
}
func (t testEnv) IsNameref(name string) bool {
	_, v := t.r.find(name)
	return v.attrs&attrNameref != 0 && v.set
}
func (t testEnv) Option(name string) bool {
	o, ok := setOptByName(name)
	return ok && t.r.opts.has(o.bit)
}
func (t testEnv) Euid() uint32 { return uint32(t.r.c.cfg.Identity.EUID) }
func (t testEnv) Egid() uint32 { return uint32(t.r.c.cfg.Identity.GID) }
