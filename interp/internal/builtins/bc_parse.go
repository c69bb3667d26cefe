package builtins

import (
	"fmt"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// bc's tokens.
const (
	bcEOF = iota
	bcNumber
	bcName
	bcString
	bcOp
	bcNewline
)

type bcToken struct {
	kind int
	text string
	line int
}

type bcLexer struct {
	src  string
	pos  int
	line int
	m    *bcMachine
}

var bcOps = []string{"++", "--", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "^=",
	"+", "-", "*", "/", "%", "^", "=", "<", ">", "!", "(", ")", "[", "]", "{", "}", ",", ";"}

func (lx *bcLexer) next() (bcToken, error) {
	for lx.pos < len(lx.src) {
		c := lx.src[lx.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			lx.pos++
		case c == '\\' && lx.pos+1 < len(lx.src) && lx.src[lx.pos+1] == '\n':
			lx.pos += 2
			lx.line++
		case c == '#':
			for lx.pos < len(lx.src) && lx.src[lx.pos] != '\n' {
				lx.pos++
			}
		case strings.HasPrefix(lx.src[lx.pos:], "/*"):
			end := strings.Index(lx.src[lx.pos+2:], "*/")
			if end < 0 {
				return bcToken{}, bcSyntax{lx.line, "unterminated comment"}
			}
			lx.line += strings.Count(lx.src[lx.pos:lx.pos+2+end], "\n")
			lx.pos += end + 4
		default:
			return lx.token()
		}
	}
	return bcToken{kind: bcEOF, line: lx.line}, nil
}

func isBcDigit(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' }

func (lx *bcLexer) token() (bcToken, error) {
	s, i := lx.src, lx.pos
	c := s[i]
	line := lx.line
	switch {
	case c == '\n':
		lx.pos++
		lx.line++
		return bcToken{bcNewline, "\n", line}, nil
	case c == '"':
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return bcToken{}, bcSyntax{line, "unterminated string"}
		}
		text := s[i+1 : i+1+end]
		lx.line += strings.Count(text, "\n")
		lx.pos = i + end + 2
		return bcToken{bcString, text, line}, nil
	case isBcDigit(c) || c == '.' && i+1 < len(s) && isBcDigit(s[i+1]):
		j := i
		for j < len(s) && (isBcDigit(s[j]) || s[j] == '\\' && j+1 < len(s) && s[j+1] == '\n') {
			j++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isBcDigit(s[j]) {
				j++
			}
		}
		lx.pos = j
		text := strings.ReplaceAll(s[i:j], "\\\n", "")
		lx.line += strings.Count(s[i:j], "\n")
		return bcToken{bcNumber, text, line}, nil
	case c >= 'a' && c <= 'z':
		j := i
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_') {
			j++
		}
		lx.pos = j
		return bcToken{bcName, s[i:j], line}, nil
	case c == '.':
		lx.pos++
		return bcToken{bcName, "last", line}, nil
	}
	for _, op := range bcOps {
		if strings.HasPrefix(s[i:], op) {
			lx.pos += len(op)
			return bcToken{bcOp, op, line}, nil
		}
	}
	return bcToken{}, bcSyntax{line, fmt.Sprintf("unexpected character %q", c)}
}

// The syntax tree.
type (
	bcExpr interface{}
	bcStmt interface{}

	bcLit  struct{ text string }
	bcVar  struct{ name string }
	bcElem struct {
		name string
		idx  bcExpr
	}
	bcUnary struct {
		op string
		x  bcExpr
	}
	bcBin struct {
		op   string
		l, r bcExpr
	}
	bcAssign struct {
		op     string // "=", "+=", ...
		target bcExpr
		x      bcExpr
	}
	bcIncDec struct {
		pre    bool
		delta  int64
		target bcExpr
	}
	bcCall struct {
		name string
		args []bcExpr
	}
	bcBuiltin struct {
		name string
		x    bcExpr
	}

	bcExprStmt struct{ e bcExpr }
	bcStr      struct{ s string }
	bcPrint    struct{ items []bcExpr } // bcStr or expressions
	bcBlock    struct{ stmts []bcStmt }
	bcIf       struct {
		cond      bcExpr
		then, els bcStmt
	}
	bcWhile struct {
		cond bcExpr
		body bcStmt
	}
	bcFor struct {
		init, cond, post bcExpr
		body             bcStmt
	}
	bcBreak    struct{}
	bcContinue struct{}
	bcReturn   struct{ e bcExpr }
	bcHaltStmt struct{}
	bcDefine   struct {
		name string
		fn   *bcFunc
	}
)

type bcParser struct {
	lx    bcLexer
	tok   bcToken
	err   error
	quit  bool
	inFn  bool
	loops int
	// depth counts the parser's own recursion (parentheses, prefix operators, right-associative
	// operators, nested statements): bounded by sandbox.MaxNesting before the Go stack could be
	// (a million nested parentheses ended the server; GNU bc stops at 10,000 too).
	depth int
}

// enter is called on entry to each recursive rule; false (with the error set) past the bound.
func (p *bcParser) enter() bool {
	if p.depth++; p.depth > sandbox.MaxNesting {
		if p.err == nil {
			p.err = bcRefusal{fmt.Sprintf("nesting deeper than %d levels", sandbox.MaxNesting)}
		}
		return false
	}
	return true
}

func (p *bcParser) leave() { p.depth-- }

func (p *bcParser) next() {
	if p.err != nil {
		return
	}
	p.tok, p.err = p.lx.next()
	if p.err != nil {
		p.tok = bcToken{kind: bcEOF}
	}
}

func (p *bcParser) fail(msg string) error {
	if p.err == nil {
		p.err = bcSyntax{p.tok.line, msg}
	}
	return p.err
}

// isOp is false once the parse failed: the token no longer advances then, and every loop of
// the parser stops on it.
func (p *bcParser) isOp(op string) bool {
	return p.err == nil && p.tok.kind == bcOp && p.tok.text == op
}

func (p *bcParser) expect(op string) bool {
	if !p.isOp(op) {
		p.fail(fmt.Sprintf("expected %q", op))
		return false
	}
	p.next()
	return true
}

func (p *bcParser) skipNewlines() {
	for p.tok.kind == bcNewline {
		p.next()
	}
}

// line parses the statements up to the end of a line (blocks and definitions may span lines).
func (p *bcParser) line() ([]bcStmt, bool, error) {
	var out []bcStmt
	for {
		if p.err != nil {
			return nil, false, p.err
		}
		switch {
		case p.tok.kind == bcEOF:
			return out, false, nil
		case p.tok.kind == bcNewline:
			p.next()
			return out, false, p.err
		case p.isOp(";"):
			p.next()
			continue
		}
		s := p.stmt()
		if p.quit {
			return nil, true, nil
		}
		if p.err != nil {
			return nil, false, p.err
		}
		if s != nil {
			out = append(out, s)
		}
		if !(p.isOp(";") || p.tok.kind == bcNewline || p.tok.kind == bcEOF) {
			return nil, false, p.fail("statements must be separated by ; or a newline")
		}
	}
}

var bcRefusedWords = map[string]string{"read": "read()", "limits": "limits", "warranty": "warranty"}

func (p *bcParser) stmt() bcStmt {
	defer p.leave()
	if !p.enter() {
		return nil
	}
	t := p.tok
	if t.kind == bcString {
		p.next()
		return bcStr{t.text}
	}
	if p.isOp("{") {
		p.next()
		stmts, ok := p.stmtsToBrace()
		if !ok {
			return nil
		}
		p.expect("}")
		return bcBlock{stmts}
	}
	if t.kind == bcName {
		if what, ok := bcRefusedWords[t.text]; ok {
			p.err = bcRefusal{what}
			return nil
		}
		switch t.text {
		case "quit":
			p.quit = true
			return nil
		case "halt":
			p.next()
			return bcHaltStmt{}
		case "break", "continue":
			if p.loops == 0 {
				p.fail(t.text + " outside a loop")
				return nil
			}
			p.next()
			if t.text == "break" {
				return bcBreak{}
			}
			return bcContinue{}
		case "return":
			if !p.inFn {
				p.fail("return outside of a function")
				return nil
			}
			p.next()
			if p.isOp(";") || p.isOp("}") || p.tok.kind == bcNewline || p.tok.kind == bcEOF {
				return bcReturn{}
			}
			return bcReturn{p.expr()}
		case "print":
			p.next()
			var items []bcExpr
			for {
				if p.tok.kind == bcString {
					items = append(items, bcStr{p.tok.text})
					p.next()
				} else {
					items = append(items, p.expr())
				}
				if !p.isOp(",") {
					return bcPrint{items}
				}
				p.next()
			}
		case "if":
			p.next()
			p.expect("(")
			cond := p.expr()
			p.expect(")")
			p.skipNewlines()
			then := p.stmtOrEmpty()
			var els bcStmt
			if p.tok.kind == bcName && p.tok.text == "else" {
				p.next()
				p.skipNewlines()
				els = p.stmtOrEmpty()
			}
			return bcIf{cond, then, els}
		case "while":
			p.next()
			p.expect("(")
			cond := p.expr()
			p.expect(")")
			p.skipNewlines()
			p.loops++
			body := p.stmtOrEmpty()
			p.loops--
			return bcWhile{cond, body}
		case "for":
			p.next()
			p.expect("(")
			var f bcFor
			if !p.isOp(";") {
				f.init = p.expr()
			}
			p.expect(";")
			if !p.isOp(";") {
				f.cond = p.expr()
			}
			p.expect(";")
			if !p.isOp(")") {
				f.post = p.expr()
			}
			p.expect(")")
			p.skipNewlines()
			p.loops++
			f.body = p.stmtOrEmpty()
			p.loops--
			return f
		case "define":
			return p.define()
		}
	}
	return bcExprStmt{p.expr()}
}

// stmtOrEmpty is the body of if/while/for: a statement, or nothing before ; or a newline.
func (p *bcParser) stmtOrEmpty() bcStmt {
	if p.isOp(";") || p.tok.kind == bcNewline || p.tok.kind == bcEOF {
		return bcBlock{}
	}
	return p.stmt()
}

func (p *bcParser) define() bcStmt {
	p.next()
	if p.tok.kind != bcName {
		p.fail("a function name must follow define")
		return nil
	}
	name := p.tok.text
	p.next()
	p.expect("(")
	fn := &bcFunc{}
	for p.tok.kind == bcName {
		fn.params = append(fn.params, p.tok.text)
		p.next()
		if p.isOp("[") {
			p.err = bcRefusal{"an array parameter (" + name + ")"}
			return nil
		}
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	p.expect(")")
	p.skipNewlines()
	if !p.isOp("{") {
		p.fail("a function body must start with {")
		return nil
	}
	p.next()
	p.skipNewlines()
	if p.tok.kind == bcName && p.tok.text == "auto" {
		p.next()
		for p.tok.kind == bcName {
			fn.autos = append(fn.autos, p.tok.text)
			p.next()
			if p.isOp("[") {
				p.err = bcRefusal{"an auto array (" + name + ")"}
				return nil
			}
			if !p.isOp(",") {
				break
			}
			p.next()
		}
	}
	outer, loops := p.inFn, p.loops
	p.inFn, p.loops = true, 0
	defer func() { p.inFn, p.loops = outer, loops }()
	body, ok := p.stmtsToBrace()
	if !ok {
		return nil
	}
	fn.body = append(fn.body, body...)
	p.expect("}")
	return bcDefine{name, fn}
}

func (p *bcParser) expr() bcExpr {
	defer p.leave()
	if !p.enter() {
		return bcLit{"0"}
	}
	l := p.andExpr()
	for p.isOp("||") {
		p.next()
		l = bcBin{"||", l, p.andExpr()}
	}
	return l
}

func (p *bcParser) andExpr() bcExpr {
	l := p.notExpr()
	for p.isOp("&&") {
		p.next()
		l = bcBin{"&&", l, p.notExpr()}
	}
	return l
}

func (p *bcParser) notExpr() bcExpr {
	if p.isOp("!") {
		defer p.leave()
		if !p.enter() {
			return bcLit{"0"}
		}
		p.next()
		return bcUnary{"!", p.notExpr()}
	}
	return p.relExpr()
}

func (p *bcParser) relExpr() bcExpr {
	l := p.assignExpr()
	for p.err == nil && p.tok.kind == bcOp {
		switch op := p.tok.text; op {
		case "<", "<=", ">", ">=", "==", "!=":
			p.next()
			l = bcBin{op, l, p.assignExpr()}
			continue
		}
		break
	}
	return l
}

func isLvalue(e bcExpr) bool {
	switch e.(type) {
	case bcVar, bcElem:
		return true
	}
	return false
}

func (p *bcParser) assignExpr() bcExpr {
	l := p.addExpr()
	if p.tok.kind == bcOp {
		switch op := p.tok.text; op {
		case "=", "+=", "-=", "*=", "/=", "%=", "^=":
			if !isLvalue(l) {
				p.fail("assignment to a non-variable")
				return l
			}
			defer p.leave()
			if !p.enter() {
				return l
			}
			p.next()
			return bcAssign{op, l, p.assignExpr()}
		}
	}
	return l
}

func (p *bcParser) addExpr() bcExpr {
	l := p.mulExpr()
	for p.isOp("+") || p.isOp("-") {
		op := p.tok.text
		p.next()
		l = bcBin{op, l, p.mulExpr()}
	}
	return l
}

func (p *bcParser) mulExpr() bcExpr {
	l := p.powExpr()
	for p.isOp("*") || p.isOp("/") || p.isOp("%") {
		op := p.tok.text
		p.next()
		l = bcBin{op, l, p.powExpr()}
	}
	return l
}

func (p *bcParser) powExpr() bcExpr {
	l := p.unary()
	if p.isOp("^") {
		defer p.leave()
		if !p.enter() {
			return l
		}
		p.next()
		return bcBin{"^", l, p.powExpr()}
	}
	return l
}

func (p *bcParser) unary() bcExpr {
	switch {
	case p.isOp("-"):
		defer p.leave()
		if !p.enter() {
			return bcLit{"0"}
		}
		p.next()
		return bcUnary{"-", p.unary()}
	case p.isOp("++") || p.isOp("--"):
		d := int64(1)
		if p.tok.text == "--" {
			d = -1
		}
		p.next()
		t := p.primary()
		if !isLvalue(t) {
			p.fail("++ or -- of a non-variable")
		}
		return bcIncDec{true, d, t}
	}
	e := p.primary()
	if (p.isOp("++") || p.isOp("--")) && isLvalue(e) {
		d := int64(1)
		if p.tok.text == "--" {
			d = -1
		}
		p.next()
		return bcIncDec{false, d, e}
	}
	return e
}

func (p *bcParser) primary() bcExpr {
	t := p.tok
	switch t.kind {
	case bcNumber:
		p.next()
		return bcLit{t.text}
	case bcOp:
		if t.text == "(" {
			p.next()
			e := p.expr()
			p.expect(")")
			return e
		}
	case bcName:
		if what, ok := bcRefusedWords[t.text]; ok {
			p.err = bcRefusal{what}
			return bcLit{"0"}
		}
		p.next()
		switch t.text {
		case "length", "sqrt", "scale":
			if t.text == "scale" && !p.isOp("(") {
				return bcVar{"scale"}
			}
			p.expect("(")
			x := p.expr()
			p.expect(")")
			return bcBuiltin{t.text, x}
		case "if", "else", "while", "for", "define", "auto", "return", "break", "continue", "print", "halt", "quit":
			p.fail("unexpected " + t.text)
			return bcLit{"0"}
		}
		if p.isOp("(") {
			p.next()
			var args []bcExpr
			for !p.isOp(")") && p.err == nil {
				args = append(args, p.expr())
				if !p.isOp(",") {
					break
				}
				p.next()
			}
			p.expect(")")
			return bcCall{t.text, args}
		}
		if p.isOp("[") {
			p.next()
			idx := p.expr()
			p.expect("]")
			return bcElem{t.text, idx}
		}
		return bcVar{t.text}
	}
	p.fail(fmt.Sprintf("unexpected %q", strings.TrimSpace(t.text)))
	return bcLit{"0"}
}

// stmtsToBrace reads statements up to a closing brace (not consumed) or the end; false when
// the program quit or failed inside them.
func (p *bcParser) stmtsToBrace() ([]bcStmt, bool) {
	var stmts []bcStmt
	for {
		for p.tok.kind == bcNewline || p.isOp(";") {
			p.next()
		}
		if p.isOp("}") || p.err != nil || p.tok.kind == bcEOF {
			return stmts, true
		}
		s := p.stmt()
		if p.quit || p.err != nil {
			return nil, false
		}
		if s != nil {
			stmts = append(stmts, s)
		}
	}
}
