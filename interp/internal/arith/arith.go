// Package arith evaluates Bash arithmetic ($(( )), (( )), let, declare -i, array
// subscripts) from the already-expanded expression text, exactly as Bash 5.2 does,
// including variables that hold expressions, lazy branches, 64-bit wrap-around and
// Bash's error messages with their "error token".
//
// The evaluator mirrors Bash's one-token-lookahead reader, so side effects (which
// variables are read, when subscripts are evaluated) and error texts follow Bash.
//
// Known limits:
//   - a subscript that still contains `$` or a backquote after the caller's expansion
//     (only possible through a variable holding an expression such as x='a[$i]') is
//     refused with *UnsupportedError: Bash expands it a second time, this package does not;
//   - nesting (parentheses, unary operators, right-associative chains) deeper than
//     MaxNest levels and evaluations longer than MaxSteps tokens end with *LimitError,
//     where Bash would crash its C stack or run for hours;
//   - associative-array keys are passed to the Env raw (Bash expands them once more).
//
// Callers turn errors into Bash's behaviour: *Error is printed as
// "bash: line N: " + prefix + err.Error(), where prefix is "((: " for (( )) and for
// ((;;)), "let: " for let, and empty for $(( )), declare -i and subscripts (and always
// empty when Error.NoCommandName is set); (( )) and let then return status 1, while an
// error in $(( )) aborts the command and, in a non-interactive shell, exits it with
// status 1. *UnboundError is set -u's fatal "name: unbound variable". Errors returned
// by Env.Set (readonly variables) are passed through unchanged and abort the evaluation.
package arith

import (
	"errors"
	"fmt"
	"strings"
)

const (
	// MaxDepth is Bash's limit on nested evaluations (variables holding expressions,
	// subscripts): MAX_EXPR_RECURSION_LEVEL.
	MaxDepth = 1024
	// MaxNest bounds syntactic nesting (Bash has no limit and crashes near 50,000).
	MaxNest = 10000
	// MaxSteps bounds the tokens read by one evaluation (variables referencing other
	// variables several times can take exponential time in Bash).
	MaxSteps = 1 << 22
)

// Ref names what an expression reads or assigns: a variable, or an element
// Name[Sub] of an array.
type Ref struct {
	Name   string
	HasSub bool
	// Sub is the subscript text as written between the brackets. For an
	// associative array it is the key. Sub is "", "@" or "*" for name[], name[@]
	// and name[*], which Bash reports as "bad array subscript" (0 is used).
	Sub string
	// Assoc is set when Name is an associative array (Env.IsAssoc).
	Assoc bool
	// Index is the evaluated subscript of an indexed array (may be negative:
	// counted from the end, as Bash does), valid when HasSub and !Assoc and Sub is
	// not "", "@" or "*".
	Index int64
}

// IndexValid reports whether r.Index holds an evaluated subscript.
func (r Ref) IndexValid() bool {
	return r.HasSub && !r.Assoc && !badSub(r.Sub)
}

func badSub(s string) bool { return s == "" || s == "@" || s == "*" }

// String formats the reference as written: name or name[sub].
func (r Ref) String() string {
	if r.HasSub {
		return r.Name + "[" + r.Sub + "]"
	}
	return r.Name
}

// Env is the shell state an expression reads and writes. Warnings Bash prints
// without stopping (a negative subscript out of range) are the Env's to print.
type Env interface {
	// Get returns the value of ref (element 0 for an array named without a
	// subscript) and whether the variable Name is set (for an element: whether
	// the array exists), which decides set -u's error. A non-nil error aborts.
	Get(ref Ref) (value string, set bool, err error)
	// Set assigns v to ref. A non-nil error (readonly variable) aborts the
	// evaluation and is returned by Eval unchanged; the Env prints its message.
	Set(ref Ref, v int64) error
	// IsAssoc reports whether name is an associative array.
	IsAssoc(name string) bool
	// Nounset reports whether set -u is on.
	Nounset() bool
}

// Kind classifies an *Error.
type Kind int

// Error kinds, one per Bash message.
const (
	ErrSyntax             Kind = iota // syntax errors of any shape
	ErrDivZero                        // division by 0
	ErrExponent                       // exponent less than 0
	ErrNonVariable                    // attempted assignment to non-variable
	ErrBadSubscript                   // bad array subscript
	ErrRecursion                      // expression recursion level exceeded
	ErrBase                           // invalid arithmetic base
	ErrNumber                         // value too great for base, invalid number, invalid integer constant
	ErrLvalue                         // ++/--: assignment requires lvalue
	ErrMissingParen                   // missing `)'
	ErrConditional                    // `:' expected / expression expected
	ErrIdentifierExpected             // identifier expected after pre-increment or pre-decrement
)

// Error is an arithmetic error as Bash reports it.
type Error struct {
	Kind  Kind
	Expr  string // the expression Bash prints (leading blanks removed)
	Msg   string // Bash's message text
	Token string // the error token
	// NoCommandName is set when the error happened inside an array subscript:
	// Bash then prints no "((: " or "let: " prefix.
	NoCommandName bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s (error token is \"%s\")", e.Expr, e.Msg, e.Token)
}

// UnboundError is set -u's error for a variable read in an expression.
type UnboundError struct{ Name string }

func (e *UnboundError) Error() string { return e.Name + ": unbound variable" }

// LimitError reports that an expression exceeded MaxNest or MaxSteps.
type LimitError struct{ What string }

func (e *LimitError) Error() string { return "arithmetic expression too complex: " + e.What }

// UnsupportedError reports a construct this package does not evaluate as Bash does.
type UnsupportedError struct{ Expr, Reason string }

func (e *UnsupportedError) Error() string { return e.Expr + ": " + e.Reason }

// Eval evaluates expr (already expanded by the caller) in env.
func Eval(expr string, env Env) (int64, error) {
	ev := &evaluator{env: env}
	var v int64
	err := ev.catch(func() { v = ev.subexpr(expr) })
	return v, err
}

// evaluator is the state shared by an evaluation and its nested evaluations.
type evaluator struct {
	env   Env
	depth int // nested subexpr contexts
	nest  int // syntactic nesting, across contexts
	steps int
	inSub int // > 0 while evaluating a subscript
}

// abort carries an error out of the recursive descent.
type abort struct{ err error }

func (ev *evaluator) catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			a, ok := r.(abort)
			if !ok {
				panic(r)
			}
			err = a.err
		}
	}()
	f()
	return nil
}

func (ev *evaluator) fail(err error) { panic(abort{err}) }

type token int

const (
	tEOF token = iota
	tNUM
	tSTR
	tEQ    // =
	tGT    // >
	tLT    // <
	tPLUS  // +
	tMINUS // -
	tMUL   // *
	tDIV   // /
	tMOD   // %
	tNOT   // !
	tLPAR  // (
	tRPAR  // )
	tBAND  // &
	tBOR   // |
	tBXOR  // ^
	tBNOT  // ~
	tQUES  // ?
	tCOL   // :
	tCOMMA // ,
	tEQEQ  // ==
	tNEQ   // !=
	tLEQ   // <=
	tGEQ   // >=
	tLSH   // <<
	tRSH   // >>
	tLAND  // &&
	tLOR   // ||
	tPOWER // **
	tPOSTINC
	tPOSTDEC
	tPREINC
	tPREDEC
	tOPASSIGN // op=
	tCOND     // marks a finished ?: for the assignment check
)

var singleTok = [256]token{
	'=': tEQ, '>': tGT, '<': tLT, '+': tPLUS, '-': tMINUS, '*': tMUL, '/': tDIV,
	'%': tMOD, '!': tNOT, '(': tLPAR, ')': tRPAR, '&': tBAND, '|': tBOR, '^': tBXOR,
	'~': tBNOT, '?': tQUES, ':': tCOL, ',': tCOMMA,
}

func isMultiOp(t token) bool { return t >= tEQEQ }

// lval is the variable a STR token denotes, with its subscript evaluated once.
type lval struct {
	ref    Ref
	cached bool // ref.Index/Assoc resolved when the value was read
}

// parser is one evaluation context (Bash's EXPR_CONTEXT).
type parser struct {
	ev      *evaluator
	expr    string
	tp      int // next read position
	lasttp  int // start of the last token read (-1: none)
	curtok  token
	lasttok token
	tokstr  string // text of the last STR token
	hasStr  bool
	tokval  int64
	assign  token // operator of tOPASSIGN
	noeval  int
	curlval lval
}

func cwhite(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// subexpr evaluates text in a new context, as Bash's subexpr.
func (ev *evaluator) subexpr(text string) int64 {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i] // Bash strings end at NUL
	}
	i := 0
	for i < len(text) && cwhite(text[i]) {
		i++
	}
	if i == len(text) {
		return 0
	}
	p := &parser{ev: ev, expr: text, lasttp: -1}
	ev.depth++
	defer func() { ev.depth-- }()
	p.readtok()
	v := p.expcomma()
	if p.curtok != tEOF {
		p.errorf(ErrSyntax, "syntax error in expression")
	}
	return v
}

// errorf aborts with Bash's message for the current token.
func (p *parser) errorf(k Kind, msg string) {
	p.errorAt(k, msg, len(p.expr))
}

// errorAt is errorf with the expression cut at end (Bash NUL-terminates the text
// after a number while converting it).
func (p *parser) errorAt(k Kind, msg string, end int) {
	e := p.expr[:end]
	tok := ""
	if p.lasttp >= 0 && p.lasttp < end {
		tok = e[p.lasttp:]
	}
	p.ev.fail(&Error{Kind: k, Expr: strings.TrimLeft(e, " \t"), Msg: msg, Token: tok, NoCommandName: p.ev.inSub > 0})
}

// nested evaluates text (a variable's value) one level deeper.
func (p *parser) nested(text string) int64 {
	if p.ev.depth >= MaxDepth {
		p.errorf(ErrRecursion, "expression recursion level exceeded")
	}
	return p.ev.subexpr(text)
}

func (p *parser) enter() {
	p.ev.nest++
	if p.ev.nest > MaxNest {
		p.ev.fail(&LimitError{What: fmt.Sprintf("more than %d nested levels", MaxNest)})
	}
}

func (p *parser) leave() { p.ev.nest-- }

type saved struct {
	curtok, lasttok token
	tp, lasttp      int
	tokval          int64
	tokstr          string
	hasStr          bool
	noeval          int
	curlval         lval
}

func (p *parser) save() saved {
	return saved{p.curtok, p.lasttok, p.tp, p.lasttp, p.tokval, p.tokstr, p.hasStr, p.noeval, p.curlval}
}

func (p *parser) restore(s saved) {
	p.curtok, p.lasttok, p.tp, p.lasttp, p.tokval, p.tokstr, p.hasStr, p.noeval, p.curlval =
		s.curtok, s.lasttok, s.tp, s.lasttp, s.tokval, s.tokstr, s.hasStr, s.noeval, s.curlval
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool  { return isLetter(c) && c != '_' || isDigit(c) }

// readtok reads the next token, as Bash's readtok (including its one-token peek
// after a variable name, which decides whether the variable is read).
func (p *parser) readtok() token { return p.read(false) }

// readtokRaw reads one token for a peek: identifiers do not peek again (the
// caller loops over a run of identifiers, which reads the same tokens).
func (p *parser) readtokRaw() token { return p.read(true) }

func (p *parser) read(raw bool) token {
	p.ev.steps++
	if p.ev.steps > MaxSteps {
		p.ev.fail(&LimitError{What: fmt.Sprintf("more than %d tokens", MaxSteps)})
	}
	cp := p.tp
	for cp < len(p.expr) && cwhite(p.expr[cp]) {
		cp++
	}
	if cp == len(p.expr) {
		p.lasttok = p.curtok
		p.curtok = tEOF
		p.tp = cp
		return tEOF
	}
	p.lasttp = cp
	start := cp
	c := p.expr[cp]
	switch {
	case isLetter(c) && raw:
		_, _, p.tp = p.scanName(start)
		p.curtok = tSTR
	case isLetter(c):
		p.readIdent(start)
	case isDigit(c):
		for cp < len(p.expr) && (isAlnum(p.expr[cp]) || p.expr[cp] == '#' || p.expr[cp] == '@' || p.expr[cp] == '_') {
			cp++
		}
		v := p.number(start, cp)
		if !raw {
			p.tokval = v
		}
		p.tp = cp
		p.lasttok = p.curtok
		p.curtok = tNUM
	default:
		p.readOp(cp)
	}
	return p.curtok
}

// scanName scans a variable name and its optional [subscript] at start; sub
// is -1 without a subscript, else the index of '['.
func (p *parser) scanName(start int) (nameEnd, sub, end int) {
	cp := start
	for cp < len(p.expr) && (isLetter(p.expr[cp]) || isDigit(p.expr[cp])) {
		cp++
	}
	nameEnd, sub = cp, -1
	if cp < len(p.expr) && p.expr[cp] == '[' {
		e := skipSubscript(p.expr, cp)
		if e < 0 {
			p.errorf(ErrBadSubscript, "bad array subscript")
		}
		sub, cp = cp, e+1
	}
	return nameEnd, sub, cp
}

func (p *parser) readIdent(start int) {
	nameEnd, sub, cp := p.scanName(start)
	ref := Ref{Name: p.expr[start:nameEnd]}
	if sub >= 0 {
		ref.HasSub = true
		ref.Sub = p.expr[sub+1 : cp-1]
	}
	prev := p.curtok
	p.tokstr = p.expr[start:cp]
	p.hasStr = true
	p.curlval = lval{}
	p.tp = cp

	// Peek at the next token without evaluating: a plain `=` means the variable
	// is only assigned, so Bash does not read it (set -u does not fire).
	s := p.save()
	p.noeval = 1
	peek := tEOF
	for first := true; ; first = false {
		p.curtok = tSTR
		t := p.readtokRaw()
		if first {
			peek = t
		}
		if t != tSTR {
			break
		}
	}
	p.restore(s)

	p.tokval = 0
	if prev == tPREINC || prev == tPREDEC || peek != tEQ {
		p.tokval = p.streval(ref)
	}
	p.lasttok = p.curtok
	p.curtok = tSTR
}

// skipSubscript returns the index of the `]` closing the `[` at open, or -1.
func skipSubscript(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func (p *parser) readOp(cp int) {
	c := p.expr[cp]
	var c1, c2 byte
	if cp+1 < len(p.expr) {
		c1 = p.expr[cp+1]
	}
	if cp+2 < len(p.expr) {
		c2 = p.expr[cp+2]
	}
	n := 2 // bytes consumed when a two-character operator matches
	t := singleTok[c]
	switch {
	case c == '=' && c1 == '=':
		t = tEQEQ
	case c == '!' && c1 == '=':
		t = tNEQ
	case c == '>' && c1 == '=':
		t = tGEQ
	case c == '<' && c1 == '=':
		t = tLEQ
	case c == '<' && c1 == '<':
		t = tLSH
		if c2 == '=' {
			p.assign, t, n = tLSH, tOPASSIGN, 3
		}
	case c == '>' && c1 == '>':
		t = tRSH
		if c2 == '=' {
			p.assign, t, n = tRSH, tOPASSIGN, 3
		}
	case c == '&' && c1 == '&':
		t = tLAND
	case c == '|' && c1 == '|':
		t = tLOR
	case c == '*' && c1 == '*':
		t = tPOWER
	case (c == '-' || c == '+') && c1 == c && p.curtok == tSTR:
		t = tPOSTINC
		if c == '-' {
			t = tPOSTDEC
		}
	case (c == '-' || c == '+') && c1 == c && p.curtok == tNUM && (p.lasttok == tPREINC || p.lasttok == tPREDEC):
		// --x++ and the like
		p.errorf(ErrLvalue, string([]byte{c, c})+": assignment requires lvalue")
	case (c == '-' || c == '+') && c1 == c:
		x := cp + 2
		for x < len(p.expr) && cwhite(p.expr[x]) {
			x++
		}
		if x < len(p.expr) && isLetter(p.expr[x]) {
			t = tPREINC
			if c == '-' {
				t = tPREDEC
			}
		} else {
			n = 1 // a unary + or -; the second one is read next
		}
	case c1 == '=' && strings.IndexByte("*/%+-&^|", c) >= 0:
		p.assign = singleTok[c]
		t = tOPASSIGN
	case t == tEOF:
		// not an operator character
		if p.curtok == tEOF || p.curtok >= tEQ && p.curtok <= tCOMMA || isMultiOp(p.curtok) {
			p.errorf(ErrSyntax, "syntax error: operand expected")
		}
		p.errorf(ErrSyntax, "syntax error: invalid arithmetic operator")
	default:
		n = 1
	}
	p.tp = cp + n
	p.lasttok = p.curtok
	p.curtok = t
}

// digitValue returns c's value as a digit in base (Bash's alphabet: 0-9, a-z,
// A-Z, @, _; letters are case-insensitive up to base 36), or -1.
func digitValue(c byte, base int64) int64 {
	switch {
	case isDigit(c):
		return int64(c - '0')
	case c >= 'a' && c <= 'z':
		return int64(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		if base <= 36 {
			return int64(c-'A') + 10
		}
		return int64(c-'A') + 36
	case c == '@':
		return 62
	case c == '_':
		return 63
	}
	return -1
}

// number converts the constant expr[start:end] as Bash's strlong.
func (p *parser) number(start, end int) int64 {
	s := p.expr[start:end]
	var base int64 = 10
	foundBase := false
	i := 0
	if s[0] == '0' {
		i++
		if len(s) == 1 {
			return 0
		}
		if s[1] == 'x' || s[1] == 'X' {
			base = 16
			i++
		} else {
			base = 8
		}
		foundBase = true
	}
	var val int64
	for ; i < len(s); i++ {
		c := s[i]
		if c == '#' {
			if foundBase {
				p.errorAt(ErrNumber, "invalid number", end)
			}
			if val < 2 || val > 64 {
				p.errorAt(ErrBase, "invalid arithmetic base", end)
			}
			base, val, foundBase = val, 0, true
			if i+1 >= len(s) || digitValue(s[i+1], base) < 0 {
				p.errorAt(ErrNumber, "invalid integer constant", end)
			}
			continue
		}
		d := digitValue(c, base)
		if d >= base {
			p.errorAt(ErrNumber, "value too great for base", end)
		}
		val = val*base + d // wraps as Bash's does
	}
	return val
}

// streval reads the variable ref and evaluates its value as an expression.
func (p *parser) streval(ref Ref) int64 {
	if p.noeval > 0 {
		return 0
	}
	env := p.ev.env
	ref = p.resolve(ref)
	val, set, err := env.Get(ref)
	if err != nil {
		p.ev.fail(err)
	}
	if !set && env.Nounset() {
		p.ev.fail(&UnboundError{Name: ref.Name})
	}
	var v int64
	if val != "" {
		v = p.nested(val)
	}
	p.curlval = lval{ref: ref, cached: true}
	return v
}

// resolve decides how ref's subscript is used: a key for an associative array,
// an arithmetic expression (evaluated now) for an indexed one.
func (p *parser) resolve(ref Ref) Ref {
	if !ref.HasSub {
		return ref
	}
	if p.ev.env.IsAssoc(ref.Name) {
		ref.Assoc = true
		return ref
	}
	if badSub(ref.Sub) {
		return ref
	}
	if strings.ContainsAny(ref.Sub, "$`") {
		p.ev.fail(&UnsupportedError{Expr: ref.String(), Reason: "subscript needs a second expansion (Bash expands `$` in a subscript read from a variable); compute the index first"})
	}
	if p.ev.depth >= MaxDepth {
		p.errorf(ErrRecursion, "expression recursion level exceeded")
	}
	p.ev.inSub++
	ref.Index = p.ev.subexpr(ref.Sub)
	p.ev.inSub--
	return ref
}

// bind assigns v to the variable of the last STR token (lv when its subscript was
// already evaluated).
func (p *parser) bind(lv lval, name string, v int64) {
	if p.noeval > 0 {
		return
	}
	ref := lv.ref
	if !lv.cached {
		ref = p.parseRef(name)
		ref = p.resolve(ref)
	}
	if err := p.ev.env.Set(ref, v); err != nil {
		p.ev.fail(err)
	}
}

// parseRef splits a STR token's text into a Ref.
func (p *parser) parseRef(s string) Ref {
	if i := strings.IndexByte(s, '['); i >= 0 && strings.HasSuffix(s, "]") {
		return Ref{Name: s[:i], HasSub: true, Sub: s[i+1 : len(s)-1]}
	}
	return Ref{Name: s}
}

func (p *parser) expcomma() int64 {
	v := p.expassign()
	for p.curtok == tCOMMA {
		p.readtok()
		v = p.expassign()
	}
	return v
}

func (p *parser) expassign() int64 {
	v := p.expcond()
	if p.curtok != tEQ && p.curtok != tOPASSIGN {
		return v
	}
	special := p.curtok == tOPASSIGN
	if p.lasttok != tSTR {
		p.errorf(ErrNonVariable, "attempted assignment to non-variable")
	}
	op := p.assign
	lhs := v
	if !p.hasStr {
		p.errorf(ErrSyntax, "syntax error in variable assignment")
	}
	name := p.tokstr
	lv := p.curlval
	p.readtok()
	p.enter()
	v = p.expassign()
	p.leave()
	if special {
		if (op == tDIV || op == tMOD) && v == 0 {
			if p.noeval == 0 {
				p.errorf(ErrDivZero, "division by 0")
			}
			v = 1
		}
		v = binop(op, lhs, v)
	}
	p.bind(lv, name, v)
	p.curlval = lval{}
	p.hasStr = false
	p.tokstr = ""
	return v
}

// binop applies a binary operator with Bash's (C's on x86-64) semantics; the
// divisor is never 0 here.
func binop(op token, a, b int64) int64 {
	switch op {
	case tMUL:
		return a * b
	case tDIV:
		if b == -1 {
			return -a // wraps for the minimum, as Bash
		}
		return a / b
	case tMOD:
		if b == -1 {
			return 0
		}
		return a % b
	case tPLUS:
		return a + b
	case tMINUS:
		return a - b
	case tLSH:
		return a << (uint64(b) & 63)
	case tRSH:
		return a >> (uint64(b) & 63)
	case tBAND:
		return a & b
	case tBOR:
		return a | b
	case tBXOR:
		return a ^ b
	}
	panic("arith: bad operator")
}

func (p *parser) expcond() int64 {
	cval := p.explor()
	if p.curtok != tQUES {
		return cval
	}
	p.enter()
	defer p.leave()
	if cval == 0 {
		p.noeval++
	}
	p.readtok()
	if p.curtok == tEOF || p.curtok == tCOL {
		p.errorf(ErrConditional, "expression expected")
	}
	v1 := p.expcomma()
	if cval == 0 {
		p.noeval--
	}
	if p.curtok != tCOL {
		p.errorf(ErrConditional, "`:' expected for conditional expression")
	}
	if cval != 0 {
		p.noeval++
	}
	p.readtok()
	if p.curtok == tEOF {
		p.errorf(ErrConditional, "expression expected")
	}
	v2 := p.expcond()
	if cval != 0 {
		p.noeval--
	}
	p.lasttok = tCOND
	if cval != 0 {
		return v1
	}
	return v2
}

func (p *parser) explor() int64 {
	v := p.expland()
	for p.curtok == tLOR {
		skip := v != 0
		if skip {
			p.noeval++
		}
		p.readtok()
		v2 := p.expland()
		if skip {
			p.noeval--
		}
		v = b2i(v != 0 || v2 != 0)
		p.lasttok = tLOR
	}
	return v
}

func (p *parser) expland() int64 {
	v := p.expbor()
	for p.curtok == tLAND {
		skip := v == 0
		if skip {
			p.noeval++
		}
		p.readtok()
		v2 := p.expbor()
		if skip {
			p.noeval--
		}
		v = b2i(v != 0 && v2 != 0)
		p.lasttok = tLAND
	}
	return v
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// binary is one left-associative level of the grammar.
func (p *parser) binary(next func() int64, ops ...token) int64 {
	v := next()
	for {
		op := p.curtok
		found := false
		for _, o := range ops {
			if o == op {
				found = true
			}
		}
		if !found {
			return v
		}
		p.readtok()
		v2 := next()
		switch op {
		case tEQEQ:
			v = b2i(v == v2)
		case tNEQ:
			v = b2i(v != v2)
		case tLEQ:
			v = b2i(v <= v2)
		case tGEQ:
			v = b2i(v >= v2)
		case tLT:
			v = b2i(v < v2)
		case tGT:
			v = b2i(v > v2)
		default:
			v = binop(op, v, v2)
		}
		p.lasttok = tNUM
	}
}

func (p *parser) expbor() int64  { return p.binary(p.expbxor, tBOR) }
func (p *parser) expbxor() int64 { return p.binary(p.expband, tBXOR) }
func (p *parser) expband() int64 { return p.binary(p.expeq, tBAND) }
func (p *parser) expeq() int64   { return p.binary(p.expcmp, tEQEQ, tNEQ) }
func (p *parser) expcmp() int64  { return p.binary(p.expshift, tLEQ, tGEQ, tLT, tGT) }
func (p *parser) expshift() int64 {
	return p.binary(p.expaddsub, tLSH, tRSH)
}
func (p *parser) expaddsub() int64 { return p.binary(p.expmuldiv, tPLUS, tMINUS) }

func (p *parser) expmuldiv() int64 {
	v := p.exppower()
	for p.curtok == tMUL || p.curtok == tDIV || p.curtok == tMOD {
		op := p.curtok
		stp := p.tp
		p.readtok()
		v2 := p.exppower()
		if (op == tDIV || op == tMOD) && v2 == 0 {
			if p.noeval == 0 {
				// Bash names the divisor's text as the error token.
				for stp < len(p.expr) && (p.expr[stp] == ' ' || p.expr[stp] == '\t') {
					stp++
				}
				p.lasttp = stp
				p.errorf(ErrDivZero, "division by 0")
			}
			v2 = 1
		} else if op == tMOD && v == -1<<63 && v2 == -1 {
			v = 0
			continue // Bash skips its lasttok update here
		}
		v = binop(op, v, v2)
		p.lasttok = tNUM
	}
	return v
}

func (p *parser) exppower() int64 {
	v := p.expunary()
	for p.curtok == tPOWER {
		p.enter()
		p.readtok()
		e := p.exppower() // right-associative
		p.leave()
		p.lasttok = tNUM
		if e == 0 {
			return 1
		}
		if e < 0 {
			p.errorf(ErrExponent, "exponent less than 0")
		}
		v = ipow(v, e)
	}
	return v
}

func ipow(b, e int64) int64 {
	r := int64(1)
	for e != 0 {
		if e&1 != 0 {
			r *= b
		}
		e >>= 1
		b *= b
	}
	return r
}

func (p *parser) expunary() int64 {
	switch p.curtok {
	case tNOT, tBNOT, tMINUS, tPLUS:
		op := p.curtok
		p.enter()
		p.readtok()
		v := p.expunary()
		p.leave()
		switch op {
		case tNOT:
			v = b2i(v == 0)
		case tBNOT:
			v = ^v
		case tMINUS:
			v = -v
		}
		p.lasttok = tNUM
		return v
	}
	return p.exp0()
}

func (p *parser) exp0() int64 {
	var v int64
	switch p.curtok {
	case tPREINC, tPREDEC:
		stok := p.curtok
		p.lasttok = stok
		p.readtok()
		if p.curtok != tSTR {
			p.errorf(ErrIdentifierExpected, "identifier expected after pre-increment or pre-decrement")
		}
		v = p.tokval + 1
		if stok == tPREDEC {
			v = p.tokval - 1
		}
		p.bind(p.curlval, p.tokstr, v)
		p.curtok = tNUM // so that --x=7 is an error
		p.readtok()
	case tLPAR:
		p.enter()
		p.readtok()
		v = p.expcomma()
		if p.curtok != tRPAR {
			p.errorf(ErrMissingParen, "missing `)'")
		}
		p.leave()
		p.readtok()
	case tNUM, tSTR:
		v = p.tokval
		if p.curtok == tSTR {
			s := p.save()
			p.noeval = 1
			t := p.readtok()
			if t == tPOSTINC || t == tPOSTDEC {
				p.tokstr, p.hasStr, p.noeval, p.curlval = s.tokstr, s.hasStr, s.noeval, s.curlval
				p.lasttok = tSTR
				nv := v + 1
				if t == tPOSTDEC {
					nv = v - 1
				}
				p.bind(p.curlval, p.tokstr, nv)
				p.curtok = tNUM // so that x++=7 is an error
			} else {
				p.restore(s)
			}
		}
		p.readtok()
	default:
		p.errorf(ErrSyntax, "syntax error: operand expected")
	}
	return v
}

// Is reports whether err is an *Error of kind k.
func Is(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}
