// Package testexpr implements Bash 5.2's test and [ builtins: POSIX's
// argument-count rules, ! -a -o ( ) with Bash's precedence, every unary and
// binary operator, and Bash's messages, over an Env the caller implements.
//
// Unary and Binary are exported for [[ ]], where the caller passes an
// arithmetic evaluator for the integer operands.
//
// Known limits: more than 10000 nested ( or ! groups fail with "expression
// nested too deeply" (Bash has no limit and crashes far beyond); -N compares the modification and access times the Env
// reports (filesystems mounted noatime make it unreliable, as in Bash);
// string comparison with < and > is by bytes (Bash's test uses the C
// locale's order, which is the same in C.UTF-8).
package testexpr

import (
	"io/fs"
	"strconv"
	"strings"
	"time"
)

// FileInfo is what the file operators need to know about a file.
type FileInfo struct {
	Mode       fs.FileMode
	Size       int64
	Uid, Gid   uint32
	Dev, Ino   uint64
	ModTime    time.Time
	AccessTime time.Time
}

// Env is the shell and file system state the operators read.
type Env interface {
	Stat(name string) (FileInfo, error)  // follows symlinks
	Lstat(name string) (FileInfo, error) // does not
	// Access reports whether the file can be read (4), written (2) or
	// executed (1) with the effective ids (eaccess).
	Access(name string, mode uint32) bool
	IsTerminal(fd int) bool
	IsSet(name string) bool     // -v: a variable (or name[sub]) is set
	IsNameref(name string) bool // -R
	Option(name string) bool    // -o: a set -o option is on (false when unknown)
	Euid() uint32
	Egid() uint32
}

// Error is a syntax or operand error: Bash prints "test: " or "[: " + Msg
// and the status is 2.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Status converts a result to the builtin's exit status.
func Status(ok bool, err error) int {
	switch {
	case err != nil:
		return 2
	case ok:
		return 0
	}
	return 1
}

// Bracket evaluates [ args ]: args are the arguments after "[", the last of
// which must be "]".
func Bracket(args []string, env Env) (bool, error) {
	if len(args) == 0 || args[len(args)-1] != "]" {
		return false, &Error{"missing `]'"}
	}
	return Test(args[:len(args)-1], env)
}

type parser struct {
	argv []string // argv[0] is the command name, as in Bash's test.c
	pos  int
	env  Env
	nest int
}

// maxNest bounds ( and ! nesting (Bash recurses on the C stack without limit).
const maxNest = 10000

type abort struct{ err *Error }

func (p *parser) fail(format string, arg string) {
	panic(abort{&Error{strings.Replace(format, "%s", arg, 1)}})
}

// Test evaluates test args.
func Test(args []string, env Env) (ok bool, err error) {
	p := &parser{argv: append([]string{"test"}, args...), pos: 1, env: env}
	defer func() {
		if r := recover(); r != nil {
			a, isAbort := r.(abort)
			if !isAbort {
				panic(r)
			}
			ok, err = false, a.err
		}
	}()
	if p.pos >= len(p.argv) {
		return false, nil
	}
	v := p.posix()
	if p.pos != len(p.argv) {
		if p.argv[p.pos] != "" && p.argv[p.pos][0] == '-' {
			p.fail("syntax error: `%s' unexpected", p.argv[p.pos])
		}
		p.fail("too many arguments", "")
	}
	return v, nil
}

func (p *parser) argc() int { return len(p.argv) }

func (p *parser) advance(check bool) {
	p.pos++
	if check && p.pos >= p.argc() {
		p.fail("argument expected", "")
	}
}

func (p *parser) posix() bool {
	switch p.argc() - 1 {
	case 0:
		p.pos = p.argc()
		return false
	case 1:
		p.pos = p.argc()
		return p.argv[1] != ""
	case 2:
		v := p.two()
		p.pos = p.argc()
		return v
	case 3:
		return p.three()
	case 4:
		if p.argv[p.pos] == "!" {
			p.advance(true)
			return !p.three()
		}
		if p.argv[p.pos] == "(" && p.argv[p.argc()-1] == ")" {
			p.advance(true)
			v := p.two()
			p.pos = p.argc()
			return v
		}
	}
	return p.expr()
}

func (p *parser) two() bool {
	a := p.argv[p.pos]
	if a == "!" {
		return p.argv[p.pos+1] == ""
	}
	if len(a) == 2 && a[0] == '-' && IsUnary(a) {
		return p.unary()
	}
	p.fail("%s: unary operator expected", a)
	return false
}

func andOr(s string) bool { return s == "-a" || s == "-o" }

func (p *parser) three() bool {
	a, op, b := p.argv[p.pos], p.argv[p.pos+1], p.argv[p.pos+2]
	var v bool
	switch {
	case IsBinary(op):
		v = p.binary()
	case andOr(op):
		if op == "-a" {
			v = a != "" && b != ""
		} else {
			v = a != "" || b != ""
		}
	case a == "!":
		p.advance(true)
		v = !p.two()
	case strings.HasPrefix(a, "(") && strings.HasPrefix(b, ")"):
		v = op != ""
	default:
		p.fail("%s: binary operator expected", op)
	}
	p.pos = p.argc()
	return v
}

func (p *parser) expr() bool {
	if p.pos >= p.argc() {
		p.fail("argument expected", "")
	}
	return p.or()
}

func (p *parser) or() bool {
	v := p.and()
	if p.pos < p.argc() && p.argv[p.pos] == "-o" {
		p.advance(false)
		v2 := p.or()
		return v || v2
	}
	return v
}

func (p *parser) and() bool {
	v := p.term()
	if p.pos < p.argc() && p.argv[p.pos] == "-a" {
		p.advance(false)
		v2 := p.and()
		return v && v2
	}
	return v
}

func (p *parser) term() bool {
	if p.pos >= p.argc() {
		p.fail("argument expected", "")
	}
	if p.argv[p.pos] == "!" {
		neg := false
		for p.pos < p.argc() && p.argv[p.pos] == "!" {
			p.advance(true)
			neg = !neg
		}
		p.nest++
		if p.nest > maxNest {
			p.fail("expression nested too deeply", "")
		}
		defer func() { p.nest-- }()
		if neg {
			return !p.term()
		}
		return p.term()
	}
	if p.argv[p.pos] == "(" {
		p.nest++
		if p.nest > maxNest {
			p.fail("expression nested too deeply", "")
		}
		defer func() { p.nest-- }()
		p.advance(true)
		v := p.expr()
		if p.pos >= p.argc() {
			p.fail("`)' expected", "")
		}
		if p.argv[p.pos] != ")" {
			p.fail("`)' expected, found %s", p.argv[p.pos])
		}
		p.advance(false)
		return v
	}
	if p.pos+3 <= p.argc() && IsBinary(p.argv[p.pos+1]) {
		return p.binary()
	}
	if p.pos+2 <= p.argc() && IsUnary(p.argv[p.pos]) {
		return p.unary()
	}
	v := p.argv[p.pos] != ""
	p.advance(false)
	return v
}

func (p *parser) unary() bool {
	op := p.argv[p.pos]
	if op == "-t" {
		p.advance(false)
		if p.pos < p.argc() {
			if _, ok := legalNumber(p.argv[p.pos]); ok {
				p.advance(false)
				return Unary(op, p.argv[p.pos-1], p.env)
			}
			return false
		}
		return Unary(op, "1", p.env)
	}
	p.advance(true)
	v := Unary(op, p.argv[p.pos], p.env)
	p.advance(false)
	return v
}

func (p *parser) binary() bool {
	v, err := Binary(p.argv[p.pos+1], p.argv[p.pos], p.argv[p.pos+2], p.env, nil)
	if err != nil {
		panic(abort{err.(*Error)})
	}
	p.pos += 3
	return v
}

// IsUnary reports whether op is a unary operator of test.
func IsUnary(op string) bool {
	return len(op) == 2 && op[0] == '-' && strings.IndexByte("abcdefghknoprstuvwxzGLNORS", op[1]) >= 0
}

// IsBinary reports whether op is a binary operator of test.
func IsBinary(op string) bool {
	switch op {
	case "=", "==", "!=", "<", ">", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		return true
	}
	return false
}

// legalNumber is Bash's legal_number: decimal, optional sign, surrounding
// whitespace allowed.
func legalNumber(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	t = strings.TrimRight(t, " \t\n\v\f\r")
	if t == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || strings.HasPrefix(t, "+") && strings.HasPrefix(t[1:], "-") {
		return 0, false
	}
	return v, true
}

// Unary applies a unary operator (IsUnary) to arg.
func Unary(op, arg string, env Env) bool {
	c := op[1]
	switch c {
	case 'n':
		return arg != ""
	case 'z':
		return arg == ""
	case 'o':
		return env.Option(arg)
	case 'v':
		return env.IsSet(arg)
	case 'R':
		return env.IsNameref(arg)
	case 't':
		fd, ok := legalNumber(arg)
		return ok && fd >= 0 && fd <= 1<<30 && env.IsTerminal(int(fd))
	case 'r', 'w', 'x':
		if arg == "" {
			return false
		}
		mode := map[byte]uint32{'r': 4, 'w': 2, 'x': 1}[c]
		return env.Access(arg, mode)
	case 'h', 'L':
		fi, err := env.Lstat(arg)
		return err == nil && arg != "" && fi.Mode&fs.ModeSymlink != 0
	}
	if arg == "" {
		return false
	}
	fi, err := env.Stat(arg)
	if err != nil {
		return false
	}
	m := fi.Mode
	switch c {
	case 'a', 'e':
		return true
	case 'f':
		return m.IsRegular()
	case 'd':
		return m.IsDir()
	case 's':
		return fi.Size > 0
	case 'S':
		return m&fs.ModeSocket != 0
	case 'c':
		return m&fs.ModeCharDevice != 0
	case 'b':
		return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0
	case 'p':
		return m&fs.ModeNamedPipe != 0
	case 'u':
		return m&fs.ModeSetuid != 0
	case 'g':
		return m&fs.ModeSetgid != 0
	case 'k':
		return m&fs.ModeSticky != 0
	case 'O':
		return fi.Uid == env.Euid()
	case 'G':
		return fi.Gid == env.Egid()
	case 'N':
		return fi.ModTime.After(fi.AccessTime)
	}
	return false
}

// Binary applies a binary operator (IsBinary). num parses the integer
// operands; nil means test's rule (decimal, else "x: integer expression
// expected"); [[ ]] passes its arithmetic evaluator.
func Binary(op, a, b string, env Env, num func(string) (int64, error)) (bool, error) {
	switch op {
	case "=", "==":
		return a == b, nil
	case "!=":
		return a != b, nil
	case "<":
		return a < b, nil
	case ">":
		return a > b, nil
	case "-nt", "-ot", "-ef":
		fa, ea := env.Stat(a)
		fb, eb := env.Stat(b)
		switch op {
		case "-nt":
			return ea == nil && (eb != nil || fa.ModTime.After(fb.ModTime)), nil
		case "-ot":
			return eb == nil && (ea != nil || fa.ModTime.Before(fb.ModTime)), nil
		}
		return ea == nil && eb == nil && fa.Dev == fb.Dev && fa.Ino == fb.Ino, nil
	}
	if num == nil {
		num = func(s string) (int64, error) {
			v, ok := legalNumber(s)
			if !ok {
				return 0, &Error{s + ": integer expression expected"}
			}
			return v, nil
		}
	}
	x, err := num(a)
	if err != nil {
		return false, err
	}
	y, err := num(b)
	if err != nil {
		return false, err
	}
	switch op {
	case "-eq":
		return x == y, nil
	case "-ne":
		return x != y, nil
	case "-lt":
		return x < y, nil
	case "-le":
		return x <= y, nil
	case "-gt":
		return x > y, nil
	case "-ge":
		return x >= y, nil
	}
	return false, &Error{op + ": binary operator expected"}
}
