package eval

import (
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// testClause evaluates [[ ... ]].
func (r *Runner) testClause(c *syntax.TestClause) (bool, error) {
	if r.opts.has(optXtrace) {
		r.xtraceText("[[ " + r.cur.slice(c.X.Pos(), c.X.End()) + " ]]")
	}
	return r.testExpr(c.X)
}

func (r *Runner) testExpr(x syntax.TestExpr) (bool, error) {
	switch x := x.(type) {
	case *syntax.Word:
		s, err := r.expandString(x, ctxPlain)
		return s != "", err
	case *syntax.ParenTest:
		return r.testExpr(x.X)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsNot {
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
		return r.unaryTest(x.Op.String(), s, true)
	case *syntax.BinaryTest:
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
			pat, err := r.expandPattern(rw)
			if err != nil {
				return false, err
			}
			m := r.matchPattern(pat, left, r.shopts.has(shNocasematch))
			return m == (x.Op != syntax.TsNoMatch), nil
		case syntax.TsReMatch:
			return r.regexMatch(left, rw)
		}
		right, err := r.expandString(rw, ctxPlain)
		if err != nil {
			return false, err
		}
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
			a, err := r.arithString(left)
			if err != nil {
				return false, err
			}
			b, err := r.arithString(right)
			if err != nil {
				return false, err
			}
			return intCompare(x.Op.String(), a, b), nil
		}
		return r.binaryTest(x.Op.String(), left, right)
	}
	return false, r.refuseErr(x.Pos(), "this [[ ]] expression")
}

func intCompare(op string, a, b int64) bool {
	switch op {
	case "-eq":
		return a == b
	case "-ne":
		return a != b
	case "-lt":
		return a < b
	case "-le":
		return a <= b
	case "-gt":
		return a > b
	case "-ge":
		return a >= b
	}
	return false
}

// binaryTest evaluates the string and file binary operators shared by test and [[ ]].
func (r *Runner) binaryTest(op, a, b string) (bool, error) {
	switch op {
	case "=", "==":
		return a == b, nil
	case "!=":
		return a != b, nil
	case "<":
		return a < b, nil
	case ">":
		return a > b, nil
	case "-nt", "-ot":
		fa, ea := r.c.fs.Stat(r.absPath(a))
		fb, eb := r.c.fs.Stat(r.absPath(b))
		if op == "-nt" {
			return ea == nil && (eb != nil || fa.ModTime().After(fb.ModTime())), nil
		}
		return eb == nil && (ea != nil || fa.ModTime().Before(fb.ModTime())), nil
	case "-ef":
		fa, ea := r.c.fs.Stat(r.absPath(a))
		fb, eb := r.c.fs.Stat(r.absPath(b))
		return ea == nil && eb == nil && os.SameFile(fa, fb), nil
	}
	return false, nil
}

// unaryTest evaluates a unary operator; cond is true inside [[ ]].
func (r *Runner) unaryTest(op, s string, cond bool) (bool, error) {
	switch op {
	case "-z":
		return s == "", nil
	case "-n":
		return s != "", nil
	case "-o":
		o, ok := setOptByName(s)
		return ok && r.opts.has(o.bit), nil
	case "-v":
		return r.varIsSet(s)
	case "-R":
		_, v := r.find(s)
		return v.attrs&attrNameref != 0 && v.set, nil
	case "-t":
		return false, nil
	}
	if s == "" {
		return false, nil
	}
	p := s
	if f, ok, _ := r.specialFile(p, 0); ok {
		if f != nil {
			f.release()
		}
		switch op {
		case "-e", "-a", "-r", "-w", "-c":
			return f != nil, nil
		}
		return false, nil
	}
	p = r.absPath(s)
	fsys := r.c.fs
	switch op {
	case "-L", "-h":
		fi, err := fsys.Lstat(p)
		return err == nil && fi.Mode()&fs.ModeSymlink != 0, nil
	}
	fi, err := fsys.Stat(p)
	if err != nil {
		return false, nil
	}
	m := fi.Mode()
	switch op {
	case "-e", "-a":
		return true, nil
	case "-f":
		return m.IsRegular(), nil
	case "-d":
		return m.IsDir(), nil
	case "-b":
		return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0, nil
	case "-c":
		return m&fs.ModeCharDevice != 0, nil
	case "-p":
		return m&fs.ModeNamedPipe != 0, nil
	case "-S":
		return m&fs.ModeSocket != 0, nil
	case "-s":
		return fi.Size() > 0, nil
	case "-g":
		return m&fs.ModeSetgid != 0, nil
	case "-u":
		return m&fs.ModeSetuid != 0, nil
	case "-k":
		return m&fs.ModeSticky != 0, nil
	case "-r":
		return fsys.Access(p, 4) == nil, nil
	case "-w":
		return fsys.Access(p, 2) == nil, nil
	case "-x":
		return fsys.Access(p, 1) == nil, nil
	case "-O", "-G":
		// Every file the sandbox shows belongs to the virtual user.
		return true, nil
	case "-N":
		return fi.ModTime().After(accessTime(fi)), nil
	}
	return false, nil
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
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
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
	re, err := r.compileERE(b.String())
	if err != nil {
		if err == errRegexRefused {
			return false, r.refuseErr(w.Pos(), "the regular expression "+strconv.Quote(b.String())+" (POSIX ERE feature without an RE2 equivalent)")
		}
		return false, &shError{flow: flowNone, status: 2}
	}
	m := re.FindStringSubmatchIndex(s)
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
	re, err := regexp.Compile(b.String())
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
	name := args[0]
	args = args[1:]
	if name == "[" {
		if len(args) == 0 || args[len(args)-1] != "]" {
			r.errorf("[: missing `]'")
			return 2
		}
		args = args[:len(args)-1]
	}
	t := &testParser{r: r, args: args, name: name}
	ok, err := t.run()
	if err != nil {
		if se, isSe := err.(*shError); isSe && se.flow == flowNone {
			return se.status
		}
		return r.raise(err)
	}
	return boolStatus(ok)
}

// testParser evaluates test's arguments with POSIX's rules by argument count, then bash's
// precedence parser beyond four arguments.
type testParser struct {
	r    *Runner
	args []string
	pos  int
	name string
}

func (t *testParser) fail(format string, a ...any) error {
	t.r.errorf(t.name+": "+format, a...)
	return &shError{flow: flowNone, status: 2}
}

func isUnaryOp(s string) bool {
	switch s {
	case "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-n", "-o", "-p", "-r", "-s", "-t", "-u", "-w",
		"-x", "-z", "-G", "-L", "-N", "-O", "-S", "-v", "-R":
		return true
	}
	return false
}

func isBinaryOp(s string) bool {
	switch s {
	case "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef":
		return true
	}
	return false
}

func (t *testParser) run() (bool, error) {
	a := t.args
	switch len(a) {
	case 0:
		return false, nil
	case 1:
		return a[0] != "", nil
	case 2:
		if a[0] == "!" {
			return a[1] == "", nil
		}
		if isUnaryOp(a[0]) {
			return t.unary(a[0], a[1])
		}
		return false, t.fail("%s: unary operator expected", a[0])
	case 3:
		if isBinaryOp(a[1]) {
			return t.binary(a[0], a[1], a[2])
		}
		if a[1] == "-a" || a[1] == "-o" {
			l, r := a[0] != "", a[2] != ""
			if a[1] == "-a" {
				return l && r, nil
			}
			return l || r, nil
		}
		if a[0] == "!" {
			t.args = a[1:]
			ok, err := t.run()
			return !ok, err
		}
		if a[0] == "(" && a[2] == ")" {
			return a[1] != "", nil
		}
		return false, t.fail("%s: binary operator expected", a[1])
	case 4:
		if a[0] == "!" {
			t.args = a[1:]
			ok, err := t.run()
			return !ok, err
		}
		if a[0] == "(" && a[3] == ")" {
			t.args = a[1:3]
			return t.run()
		}
	}
	ok, err := t.or()
	if err != nil {
		return false, err
	}
	if t.pos < len(t.args) {
		return false, t.fail("too many arguments")
	}
	return ok, nil
}

func (t *testParser) or() (bool, error) {
	ok, err := t.and()
	if err != nil {
		return false, err
	}
	for t.pos < len(t.args) && t.args[t.pos] == "-o" {
		t.pos++
		ok2, err := t.and()
		if err != nil {
			return false, err
		}
		ok = ok || ok2
	}
	return ok, nil
}

func (t *testParser) and() (bool, error) {
	ok, err := t.term()
	if err != nil {
		return false, err
	}
	for t.pos < len(t.args) && t.args[t.pos] == "-a" {
		t.pos++
		ok2, err := t.term()
		if err != nil {
			return false, err
		}
		ok = ok && ok2
	}
	return ok, nil
}

func (t *testParser) term() (bool, error) {
	if t.pos >= len(t.args) {
		return false, t.fail("argument expected")
	}
	a := t.args[t.pos]
	switch {
	case a == "!":
		t.pos++
		ok, err := t.term()
		return !ok, err
	case a == "(":
		t.pos++
		ok, err := t.or()
		if err != nil {
			return false, err
		}
		if t.pos >= len(t.args) || t.args[t.pos] != ")" {
			return false, t.fail("`)' expected")
		}
		t.pos++
		return ok, nil
	case t.pos+2 < len(t.args)+0 && t.pos+1 < len(t.args) && isBinaryOp(t.args[t.pos+1]) && t.pos+2 < len(t.args):
		l, op, r := a, t.args[t.pos+1], t.args[t.pos+2]
		t.pos += 3
		return t.binary(l, op, r)
	case isUnaryOp(a) && t.pos+1 < len(t.args):
		t.pos += 2
		return t.unary(a, t.args[t.pos-1])
	}
	t.pos++
	return a != "", nil
}

func (t *testParser) unary(op, s string) (bool, error) {
	return t.r.unaryTest(op, s, false)
}

func (t *testParser) binary(a, op, b string) (bool, error) {
	switch op {
	case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		x, ok := testInt(a)
		if !ok {
			return false, t.fail("%s: integer expression expected", a)
		}
		y, ok := testInt(b)
		if !ok {
			return false, t.fail("%s: integer expression expected", b)
		}
		return intCompare(op, x, y), nil
	}
	return t.r.binaryTest(op, a, b)
}

// testInt parses test's integer operands (blanks allowed around, optional sign).
func testInt(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return n, err == nil
}
