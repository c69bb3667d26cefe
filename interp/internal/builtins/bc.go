package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
)

// bc is GNU bc's language over math/big: decimal numbers with a scale, + - * / % ^, sqrt,
// length, scale, ibase and obase 2 to 16, variables, arrays, comparisons, && || !, ++ --,
// if/while/for, print, strings, define/auto/return. What it cannot reproduce digit for digit
// it refuses: the -l math functions s c a l e j (scale=20 is set), fractions in a base other
// than ten, obase over 16, read(). Input runs a line at a time, as GNU bc runs it: a runtime
// error (divide by zero) abandons the rest of its line; a syntax error stops the run (GNU bc
// skips ahead in a way that is not reproduced).
func init() { register("bc", bc) }

// Bounds that keep one bc from eating the call: a scale, a power's size, call depth.
const (
	bcMaxScale  = 100000
	bcMaxDigits = 1000000
	bcMaxDepth  = 1000
	// bcMaxEval bounds how deeply evaluation nests, expressions within function calls within
	// expressions: each level is a few Go frames, so this keeps a bc run's stack to tens of MiB
	// (parsing bounds one expression; calls multiply it).
	bcMaxEval = 100000
)

type bcNum struct {
	v     *big.Int // the value times 10^scale
	scale int
}

func bcInt(n int64) bcNum { return bcNum{big.NewInt(n), 0} }

var bigTen = big.NewInt(10)

func pow10(n int) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(int64(n)), nil) }

// at returns n's value at scale s, truncating (toward zero) when s is smaller.
func (n bcNum) at(s int) *big.Int {
	switch {
	case s == n.scale:
		return new(big.Int).Set(n.v)
	case s > n.scale:
		return new(big.Int).Mul(n.v, pow10(s-n.scale))
	}
	return new(big.Int).Quo(n.v, pow10(n.scale-s))
}

func (n bcNum) trunc(s int) bcNum {
	if s >= n.scale {
		return n
	}
	return bcNum{n.at(s), s}
}

func (n bcNum) isZero() bool { return n.v == nil || n.v.Sign() == 0 }

func bcCmp(a, b bcNum) int {
	s := max(a.scale, b.scale)
	return a.at(s).Cmp(b.at(s))
}

func bcAdd(a, b bcNum, sub bool) bcNum {
	s := max(a.scale, b.scale)
	x, y := a.at(s), b.at(s)
	if sub {
		return bcNum{x.Sub(x, y), s}
	}
	return bcNum{x.Add(x, y), s}
}

func bcMul(a, b bcNum, scale int) (bcNum, error) {
	// Squaring in a loop doubles the digits each time: one multiplication of numbers of
	// millions of digits runs for seconds without a check of the call's end, and the next for
	// longer (red-team round 3: 14 s past a 20 s timeout). Products are bounded as powers are.
	if digits := int64(a.v.BitLen()+b.v.BitLen()) * 30103 / 100000; digits > bcMaxDigits {
		return bcNum{}, fmt.Errorf("a product of about %d digits is more than the sandbox's bc allows (%d)", digits, bcMaxDigits)
	}
	p := bcNum{new(big.Int).Mul(a.v, b.v), a.scale + b.scale}
	return p.trunc(min(a.scale+b.scale, max(scale, a.scale, b.scale))), nil
}

// bcError is a runtime error in GNU bc's own words (capitalised, as bc prints them).
type bcError string

func (e bcError) Error() string { return string(e) }

const (
	errBcDivZero = bcError("Divide by zero")
	errBcModZero = bcError("Modulo by zero")
)

// bcDiv is a/b truncated to scale digits.
func bcDiv(a, b bcNum, scale int) (bcNum, error) {
	if b.isZero() {
		return bcNum{}, errBcDivZero
	}
	// a/b = (a.v*10^b.scale) / (b.v*10^a.scale); times 10^scale for the result.
	num := new(big.Int).Mul(a.v, pow10(b.scale+scale))
	den := new(big.Int).Mul(b.v, pow10(a.scale))
	return bcNum{num.Quo(num, den), scale}, nil
}

func bcMod(a, b bcNum, scale int) (bcNum, error) {
	if b.isZero() {
		return bcNum{}, errBcModZero
	}
	q, err := bcDiv(a, b, scale)
	if err != nil {
		return bcNum{}, err
	}
	qb := bcNum{new(big.Int).Mul(q.v, b.v), q.scale + b.scale}
	s := max(scale+b.scale, a.scale)
	r := bcAdd(a, qb, true)
	return bcNum{r.at(s), s}, nil
}

// bcPow raises a to an integer power; the caller warns about a fractional exponent.
func bcPow(a, b bcNum, scale int) (bcNum, error) {
	e := b.at(0)
	if !e.IsInt64() || e.Int64() > bcMaxDigits || e.Int64() < -bcMaxDigits {
		return bcNum{}, errors.New("exponent too large")
	}
	n := e.Int64()
	neg := n < 0
	if neg {
		n = -n
	}
	if digits := int64(len(a.v.String())) * n; digits > bcMaxDigits {
		return bcNum{}, fmt.Errorf("a power of %d digits is more than the sandbox's bc allows (%d)", digits, bcMaxDigits)
	}
	p := bcNum{new(big.Int).Exp(a.v, big.NewInt(n), nil), a.scale * int(n)}
	if neg {
		return bcDiv(bcInt(1), p, scale)
	}
	return p.trunc(min(a.scale*int(n), max(scale, a.scale))), nil
}

func bcSqrt(a bcNum, scale int) (bcNum, error) {
	if a.v.Sign() < 0 {
		return bcNum{}, bcError("Square root of a negative number")
	}
	s := max(scale, a.scale)
	x := a.at(2 * s)
	return bcNum{x.Sqrt(x), s}, nil
}

// bcRefusal is what the sandbox's bc does not do; it ends the run.
type bcRefusal struct{ what string }

func (r bcRefusal) Error() string {
	return r.what + " is not available in the sandbox's bc; run the tool with \"exec\": \"native\""
}

// bcSyntax is a syntax error: it ends the run (see bc).
type bcSyntax struct {
	line int
	msg  string
}

func (e bcSyntax) Error() string {
	return fmt.Sprintf("(standard_in) %d: syntax error (%s); the sandbox's bc stops at a syntax error", e.line, e.msg)
}

// bcRuntime is a runtime error: reported, and the rest of the line is abandoned.
type bcRuntime struct{ msg string }

func (e bcRuntime) Error() string { return "Runtime error: " + e.msg }

func bc(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "bc", 1, optSpec{short: "lqhv", permute: true,
		long: []string{"mathlib:l", "quiet:q"}}, argv[1:])
	if !ok {
		return st
	}
	if fl.has("h") || fl.has("v") {
		return errorf(env, 1, "bc", "%v", bcRefusal{"-h/-v"})
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	m := &bcMachine{ctx: ctx, env: env, w: w, vars: map[string]bcNum{}, arrays: map[string]map[string]bcNum{},
		funcs: map[string]*bcFunc{}, ibase: 10, obase: 10, lineLen: 70, last: bcInt(0)}
	if v := env.Getenv("BC_LINE_LENGTH"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && (n == 0 || n > 1) {
			m.lineLen = n
		}
	}
	if fl.has("l") {
		m.scale, m.mathlib = 20, true
	}
	inputs := append(append([]string{}, fl.operands...), "-")
	status := 0
	for _, name := range inputs {
		var src []byte
		r, err := openInput(env, name)
		if err == nil {
			src, err = readAll(ctx, ctxRead(ctx, r))
			r.Close()
		}
		if err != nil {
			if ctx.Err() != nil {
				return 130
			}
			w.Flush()
			return errorf(env, 1, "bc", "%s: %s", name, describe(err))
		}
		done, err := m.run(string(src))
		if err != nil {
			w.Flush()
			return errorf(env, 1, "bc", "%v", err)
		}
		if done {
			break
		}
	}
	if w.Flush() != nil {
		status = 1
	}
	return status
}

type bcFunc struct {
	params, autos []string
	body          []bcStmt
}

type bcMachine struct {
	ctx                 context.Context
	env                 *Env
	w                   *bufio.Writer
	vars                map[string]bcNum
	arrays              map[string]map[string]bcNum
	funcs               map[string]*bcFunc
	scale, ibase, obase int
	last                bcNum
	lineLen, col        int
	mathlib             bool
	depth               int
	nest                int // evaluation nesting (bcMaxEval)
}

// run parses and runs src a line (a complete statement list) at a time; done is set by quit
// and halt.
func (m *bcMachine) run(src string) (done bool, err error) {
	p := &bcParser{lx: bcLexer{src: src, line: 1, m: m}}
	p.next()
	for {
		if p.tok.kind == bcEOF {
			return false, nil
		}
		stmts, quit, err := p.line()
		if err != nil {
			return false, err
		}
		if quit {
			return true, nil
		}
	stmts:
		for _, s := range stmts {
			_, err := m.exec(s)
			var rt bcRuntime
			switch {
			case err == nil:
			case errors.As(err, &rt):
				m.w.Flush()
				fmt.Fprintf(m.env.Stderr, "%v\n", err)
				break stmts
			case errors.Is(err, errBcHalt):
				return true, nil
			default:
				return false, err
			}
		}
	}
}
