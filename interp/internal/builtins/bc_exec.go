package builtins

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

var (
	errBcHalt     = errors.New("halt")
	errBcBreak    = errors.New("break")
	errBcContinue = errors.New("continue")
)

// bcReturned carries a return value up to the call.
type bcReturned struct{ v bcNum }

func (bcReturned) Error() string { return "return" }

// mathlibFuncs are bc -l's functions; their digits come from GNU's own series, not reproduced.
var mathlibFuncs = map[string]bool{"s": true, "c": true, "a": true, "l": true, "e": true, "j": true}

func (m *bcMachine) exec(s bcStmt) (bcNum, error) {
	if err := m.ctx.Err(); err != nil {
		return bcNum{}, err
	}
	if m.nest++; m.nest > bcMaxEval {
		m.nest--
		return bcNum{}, bcRefusal{fmt.Sprintf("evaluation nested deeper than %d levels", bcMaxEval)}
	}
	defer func() { m.nest-- }()
	switch s := s.(type) {
	case bcExprStmt:
		v, err := m.eval(s.e)
		if err != nil {
			return bcNum{}, err
		}
		if _, ok := s.e.(bcAssign); ok {
			return v, nil
		}
		if err := m.printNum(v); err != nil {
			return bcNum{}, err
		}
		m.outString("\n")
		m.last = v
	case bcStr:
		m.outString(s.s)
	case bcPrint:
		for _, it := range s.items {
			if str, ok := it.(bcStr); ok {
				text, err := bcEscapes(str.s)
				if err != nil {
					return bcNum{}, err
				}
				m.outString(text)
				continue
			}
			v, err := m.eval(it)
			if err != nil {
				return bcNum{}, err
			}
			if err := m.printNum(v); err != nil {
				return bcNum{}, err
			}
			m.last = v
		}
	case bcBlock:
		for _, st := range s.stmts {
			if _, err := m.exec(st); err != nil {
				return bcNum{}, err
			}
		}
	case bcIf:
		c, err := m.eval(s.cond)
		if err != nil {
			return bcNum{}, err
		}
		switch {
		case !c.isZero():
			return m.exec(s.then)
		case s.els != nil:
			return m.exec(s.els)
		}
	case bcWhile:
		return bcNum{}, m.loop(s.cond, s.body, nil)
	case bcFor:
		if s.init != nil {
			if _, err := m.eval(s.init); err != nil {
				return bcNum{}, err
			}
		}
		return bcNum{}, m.loop(s.cond, s.body, s.post)
	case bcBreak:
		return bcNum{}, errBcBreak
	case bcContinue:
		return bcNum{}, errBcContinue
	case bcReturn:
		v := bcInt(0)
		if s.e != nil {
			var err error
			if v, err = m.eval(s.e); err != nil {
				return bcNum{}, err
			}
		}
		return bcNum{}, bcReturned{v}
	case bcHaltStmt:
		return bcNum{}, errBcHalt
	case bcDefine:
		if mathlibFuncs[s.name] && m.mathlib {
			return bcNum{}, bcRefusal{"redefining the math library's " + s.name + "()"}
		}
		m.funcs[s.name] = s.fn
	}
	return bcNum{}, nil
}

// bcEscapes decodes print's string escapes.
func bcEscapes(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		r, ok := map[byte]string{'a': "\a", 'b': "\b", 'f': "\f", 'n': "\n", 'r': "\r", 'q': `"`, 't': "\t", '\\': `\`}[s[i]]
		if !ok {
			return "", bcRefusal{fmt.Sprintf("the escape \\%c in a print string", s[i])}
		}
		b.WriteString(r)
	}
	return b.String(), nil
}

func (m *bcMachine) get(name string) bcNum {
	switch name {
	case "scale":
		return bcInt(int64(m.scale))
	case "ibase":
		return bcInt(int64(m.ibase))
	case "obase":
		return bcInt(int64(m.obase))
	case "last":
		return m.last
	}
	if v, ok := m.vars[name]; ok {
		return v
	}
	return bcInt(0)
}

func (m *bcMachine) warn(format string, args ...any) {
	m.w.Flush()
	fmt.Fprintf(m.env.Stderr, "Runtime warning: "+format+"\n", args...)
}

func (m *bcMachine) set(target bcExpr, v bcNum) error {
	switch t := target.(type) {
	case bcVar:
		switch t.name {
		case "scale", "ibase", "obase":
			n := v.at(0)
			if !n.IsInt64() || n.Int64() > bcMaxScale {
				return bcRefusal{fmt.Sprintf("%s above %d", t.name, bcMaxScale)}
			}
			x := int(n.Int64())
			switch t.name {
			case "scale":
				if x < 0 {
					m.warn("negative scale, set to 0")
					x = 0
				}
				m.scale = x
			case "ibase", "obase":
				if x > 16 {
					return bcRefusal{t.name + " above 16"}
				}
				if x < 2 {
					m.warn(t.name + " too small, set to 2")
					x = 2
				}
				if t.name == "ibase" {
					m.ibase = x
				} else {
					m.obase = x
				}
			}
		case "last":
			m.last = v
		default:
			m.vars[t.name] = v
		}
	case bcElem:
		idx, err := m.index(t.idx)
		if err != nil {
			return err
		}
		a := m.arrays[t.name]
		if a == nil {
			a = map[string]bcNum{}
			m.arrays[t.name] = a
		}
		a[idx] = v
	}
	return nil
}

func (m *bcMachine) index(e bcExpr) (string, error) {
	v, err := m.eval(e)
	if err != nil {
		return "", err
	}
	i := v.at(0)
	if i.Sign() < 0 || i.Cmp(big.NewInt(16777215)) > 0 {
		return "", bcRuntime{"Array index out of bounds"}
	}
	return i.String(), nil
}

func (m *bcMachine) lookup(target bcExpr) (bcNum, error) {
	switch t := target.(type) {
	case bcVar:
		return m.get(t.name), nil
	case bcElem:
		idx, err := m.index(t.idx)
		if err != nil {
			return bcNum{}, err
		}
		if v, ok := m.arrays[t.name][idx]; ok {
			return v, nil
		}
	}
	return bcInt(0), nil
}

func bool01(b bool) bcNum {
	if b {
		return bcInt(1)
	}
	return bcInt(0)
}

func (m *bcMachine) arith(op string, a, b bcNum) (bcNum, error) {
	var r bcNum
	var err error
	switch op {
	case "+", "-":
		r = bcAdd(a, b, op == "-")
	case "*":
		r, err = bcMul(a, b, m.scale)
	case "/":
		r, err = bcDiv(a, b, m.scale)
	case "%":
		r, err = bcMod(a, b, m.scale)
	case "^":
		if b.scale > 0 && b.v.Cmp(b.at(0).Mul(b.at(0), pow10(b.scale))) != 0 {
			m.warn("non-zero scale in exponent")
		}
		r, err = bcPow(a, b, m.scale)
	}
	if errors.Is(err, errBcDivZero) || errors.Is(err, errBcModZero) {
		return bcNum{}, bcRuntime{err.Error()}
	}
	if err != nil {
		return bcNum{}, bcRefusal{err.Error()}
	}
	return r, nil
}

func (m *bcMachine) eval(e bcExpr) (bcNum, error) {
	if m.nest++; m.nest > bcMaxEval {
		m.nest--
		return bcNum{}, bcRefusal{fmt.Sprintf("evaluation nested deeper than %d levels", bcMaxEval)}
	}
	defer func() { m.nest-- }()
	switch e := e.(type) {
	case bcLit:
		return m.literal(e.text)
	case bcVar, bcElem:
		return m.lookup(e)
	case bcUnary:
		x, err := m.eval(e.x)
		if err != nil {
			return bcNum{}, err
		}
		if e.op == "!" {
			return bool01(x.isZero()), nil
		}
		return bcNum{new(big.Int).Neg(x.v), x.scale}, nil
	case bcBin:
		// A left-associative chain (1+2+...+n, what paste -sd+ feeds bc) is a spine of bcBin
		// down the left: walked with a slice, so its length never becomes Go stack depth.
		var buf [8]bcBin
		spine := append(buf[:0], e)
		for {
			l, ok := spine[len(spine)-1].l.(bcBin)
			if !ok {
				break
			}
			spine = append(spine, l)
			if len(spine)&1023 == 0 {
				if err := m.ctx.Err(); err != nil {
					return bcNum{}, err
				}
			}
		}
		acc, err := m.eval(spine[len(spine)-1].l)
		for i := len(spine) - 1; i >= 0 && err == nil; i-- {
			acc, err = m.binary(spine[i], acc)
		}
		return acc, err
	case bcAssign:
		v, err := m.eval(e.x)
		if err != nil {
			return bcNum{}, err
		}
		if e.op != "=" {
			cur, err := m.lookup(e.target)
			if err != nil {
				return bcNum{}, err
			}
			if v, err = m.arith(strings.TrimSuffix(e.op, "="), cur, v); err != nil {
				return bcNum{}, err
			}
		}
		if err := m.set(e.target, v); err != nil {
			return bcNum{}, err
		}
		return m.lookup(e.target)
	case bcIncDec:
		cur, err := m.lookup(e.target)
		if err != nil {
			return bcNum{}, err
		}
		nv := bcAdd(cur, bcInt(e.delta), false)
		if err := m.set(e.target, nv); err != nil {
			return bcNum{}, err
		}
		if e.pre {
			return m.lookup(e.target)
		}
		return cur, nil
	case bcBuiltin:
		x, err := m.eval(e.x)
		if err != nil {
			return bcNum{}, err
		}
		switch e.name {
		case "scale":
			return bcInt(int64(x.scale)), nil
		case "length":
			intPart := new(big.Int).Abs(x.at(0))
			if intPart.Sign() == 0 {
				return bcInt(int64(max(x.scale, 1))), nil
			}
			return bcInt(int64(len(intPart.String()) + x.scale)), nil
		}
		r, err := bcSqrt(x, m.scale)
		if err != nil {
			return bcNum{}, bcRuntime{err.Error()}
		}
		return r, nil
	case bcCall:
		return m.call(e)
	}
	return bcNum{}, fmt.Errorf("internal: unknown bc expression %T", e)
}

// binary applies e to its left operand's value l: it evaluates e.r unless && or || is
// decided by l already (short-circuit, as GNU bc).
func (m *bcMachine) binary(e bcBin, l bcNum) (bcNum, error) {
	switch e.op {
	case "&&", "||":
		if l.isZero() == (e.op == "&&") {
			return bool01(e.op == "||"), nil
		}
		r, err := m.eval(e.r)
		if err != nil {
			return bcNum{}, err
		}
		return bool01(!r.isZero()), nil
	}
	r, err := m.eval(e.r)
	if err != nil {
		return bcNum{}, err
	}
	switch c := bcCmp(l, r); e.op {
	case "<":
		return bool01(c < 0), nil
	case "<=":
		return bool01(c <= 0), nil
	case ">":
		return bool01(c > 0), nil
	case ">=":
		return bool01(c >= 0), nil
	case "==":
		return bool01(c == 0), nil
	case "!=":
		return bool01(c != 0), nil
	}
	return m.arith(e.op, l, r)
}

func (m *bcMachine) call(c bcCall) (bcNum, error) {
	fn, ok := m.funcs[c.name]
	if !ok {
		if m.mathlib && mathlibFuncs[c.name] {
			return bcNum{}, bcRefusal{"the math library function " + c.name + "() (its digits come from GNU bc's own series)"}
		}
		return bcNum{}, bcRuntime{"Function " + c.name + " not defined."}
	}
	if len(c.args) != len(fn.params) {
		return bcNum{}, bcRuntime{"Parameter number mismatch"}
	}
	if m.depth >= bcMaxDepth {
		return bcNum{}, bcRefusal{fmt.Sprintf("recursion deeper than %d calls", bcMaxDepth)}
	}
	args := make([]bcNum, len(c.args))
	for i, a := range c.args {
		v, err := m.eval(a)
		if err != nil {
			return bcNum{}, err
		}
		args[i] = v
	}
	// Parameters and autos are dynamically scoped: saved, set, and restored after the call.
	type saved struct {
		v  bcNum
		ok bool
	}
	names := append(append([]string{}, fn.params...), fn.autos...)
	old := make([]saved, len(names))
	for i, n := range names {
		v, ok := m.vars[n]
		old[i] = saved{v, ok}
	}
	for i, n := range names {
		if i < len(args) {
			m.vars[n] = args[i]
		} else {
			m.vars[n] = bcInt(0)
		}
	}
	m.depth++
	defer func() {
		m.depth--
		for i, n := range names {
			if old[i].ok {
				m.vars[n] = old[i].v
			} else {
				delete(m.vars, n)
			}
		}
	}()
	for _, s := range fn.body {
		_, err := m.exec(s)
		var ret bcReturned
		switch {
		case errors.As(err, &ret):
			return ret.v, nil
		case err != nil:
			return bcNum{}, err
		}
	}
	return bcInt(0), nil
}

// literal converts a number in the input base: a single digit is its own value (A is 10 in
// any base); in longer numbers a digit at or over the base counts as base-1, as GNU bc has it.
func (m *bcMachine) literal(text string) (bcNum, error) {
	intText, frac, hasFrac := strings.Cut(text, ".")
	if hasFrac && m.ibase != 10 && frac != "" {
		return bcNum{}, bcRefusal{"a fraction in an input base other than 10 (" + text + ")"}
	}
	if strings.ContainsAny(frac, "ABCDEF") {
		return bcNum{}, bcRefusal{"hexadecimal digits after the point (" + text + ")"}
	}
	digit := func(c byte) int64 {
		if c <= '9' {
			return int64(c - '0')
		}
		return int64(c-'A') + 10
	}
	if len(intText) == 1 && !hasFrac {
		return bcInt(digit(intText[0])), nil
	}
	if len(intText)+len(frac) > bcMaxDigits {
		return bcNum{}, bcRefusal{fmt.Sprintf("a number of more than %d digits", bcMaxDigits)}
	}
	// The digits in the input base, a digit at or over it counted as base-1.
	clamped := make([]byte, len(intText))
	for i := 0; i < len(intText); i++ {
		d := min(digit(intText[i]), int64(m.ibase)-1)
		clamped[i] = "0123456789abcdef"[d]
	}
	v, err := bigFromDigits(m.ctx, string(clamped), m.ibase)
	if err != nil {
		return bcNum{}, err
	}
	if !hasFrac || frac == "" {
		return bcNum{v, 0}, nil
	}
	f, err := bigFromDigits(m.ctx, frac, 10)
	if err != nil {
		return bcNum{}, err
	}
	v.Mul(v, pow10(len(frac)))
	return bcNum{v.Add(v, f), len(frac)}, nil
}

// bigFromDigits is the value of digits (valid in base) in time near a multiplication's:
// halves converted alone and joined, where big.Int.SetString alone is quadratic (a million
// digits: over a second without a check of the call's end), with the call's end checked
// between halves.
func bigFromDigits(ctx context.Context, digits string, base int) (*big.Int, error) {
	const leaf = 4096 // digits SetString converts in well under a millisecond
	if len(digits) <= leaf {
		v, ok := new(big.Int).SetString(digits, base)
		if !ok {
			v = new(big.Int) // "": no digits before the point
		}
		return v, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	k := len(digits) / 2
	hi, err := bigFromDigits(ctx, digits[:len(digits)-k], base)
	if err != nil {
		return nil, err
	}
	lo, err := bigFromDigits(ctx, digits[len(digits)-k:], base)
	if err != nil {
		return nil, err
	}
	scale := new(big.Int).Exp(big.NewInt(int64(base)), big.NewInt(int64(k)), nil)
	return hi.Mul(hi, scale).Add(hi, lo), nil
}

// outString writes text that GNU bc does not split, keeping the column for numbers.
func (m *bcMachine) outString(s string) {
	m.w.WriteString(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		m.col = len(s) - i - 1
	} else {
		m.col += len(s)
	}
}

// printNum writes v in obase, splitting long numbers with a backslash-newline as GNU bc does
// (BC_LINE_LENGTH, 70 by default; 0 never splits).
func (m *bcMachine) printNum(v bcNum) error {
	var text string
	switch {
	case v.isZero():
		text = "0"
	case m.obase == 10:
		abs := new(big.Int).Abs(v.v).String()
		if len(abs) <= v.scale {
			abs = strings.Repeat("0", v.scale-len(abs)+1) + abs
		}
		ip, fp := abs[:len(abs)-v.scale], abs[len(abs)-v.scale:]
		if ip == "0" && v.scale > 0 {
			ip = ""
		}
		text = ip
		if v.scale > 0 {
			text += "." + fp
		}
		if v.v.Sign() < 0 {
			text = "-" + text
		}
	default:
		if v.scale > 0 {
			return bcRefusal{"printing a number with a fraction in an output base other than 10"}
		}
		text = strings.ToUpper(v.v.Text(m.obase))
	}
	for i := 0; i < len(text); i++ {
		m.col++
		if m.lineLen > 0 && m.col == m.lineLen-1 {
			m.w.WriteString("\\\n")
			m.col = 1
		}
		m.w.WriteByte(text[i])
	}
	return nil
}

// loop runs body while cond (nil: always) is non-zero, then post (nil: nothing) after each
// pass: while and for share it; break ends it, continue ends the pass.
func (m *bcMachine) loop(cond bcExpr, body bcStmt, post bcExpr) error {
	for {
		if cond != nil {
			c, err := m.eval(cond)
			if err != nil {
				return err
			}
			if c.isZero() {
				return nil
			}
		}
		if _, err := m.exec(body); errors.Is(err, errBcBreak) {
			return nil
		} else if err != nil && !errors.Is(err, errBcContinue) {
			return err
		}
		if post != nil {
			if _, err := m.eval(post); err != nil {
				return err
			}
		}
	}
}
