package builtins

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/benhoyt/goawk/lexer"
)

// goawk opens files and pipes with package os; the sandbox runs it with NoFileReads,
// NoFileWrites and NoExec, and rewrites the program so the file operations scripts use go
// through Go functions over the sandbox instead:
//
//	FILENAME                 -> __mcp_filename()
//	close(x)                 -> __mcp_close(x)
//	substr(s, m[, n])        -> __mcp_substr(s, m[, n])   (POSIX positions, see awkSubstr)
//	toupper(s), tolower(s)   -> __mcp_toupper(s), ...     (ASCII letters only, see awkCase)
//	getline [var] < file     -> a call of __mcp_getline(file) that assigns var (or $0)
//	print args > file        -> __mcp_out(file, ">", args joined by OFS, plus ORS)
//	printf fmt, args >> file -> __mcp_out(file, ">>", sprintf(fmt, args))
//
// and so that every loop iteration and every function call passes through __mcp_tick(), which
// ends the run at once when the call ended or its memory budget ran out (GoAWK itself checks
// its context only every 1000 instructions, and `while (1) gsub(/a/, "aa", s)` doubles s a few
// hundred times in that many):
//
//	while (c) / do ... while (c)  -> while (__mcp_tick() && (c))
//	for (i; c; p)                  -> for (i; __mcp_tick() && (c); p)   (for (;;): __mcp_tick())
//	function f(...) {             -> function f(...) { __mcp_tick();
//
// and so that a regular expression built at run time passes through __mcp_re(), which refuses
// one Go's regexp would compile for seconds (sandbox.CheckRegexp) before GoAWK compiles it:
//
//	x ~ e, x !~ e                  -> x ~ __mcp_re(e)            (e not a /regex/ literal)
//	match(s, e), split(s, a, e)    -> match(s, __mcp_re(e)), ...
//	sub(e, r, t), gsub(e, r, t)    -> sub(__mcp_re(e), r, t), ...
//
// and so that a printf or sprintf format passes through the checks of awk_format.go (a width or
// precision Go's fmt cannot print is refused, padding is charged before it is allocated):
//
//	sprintf("%*d", w, x)            -> sprintf("%*d", __mcp_w(w), x)   (a literal format: only its * values)
//	printf f, a, b                  -> printf __mcp_fmt(f, 2), A(0, a), A(1, b)
//	                                   where A(k, v) is (__mcp_arg(k, __mcp_t = (v)) ? __mcp_t : __mcp_t),
//	                                   which yields v unconverted, evaluated once
//
// The rewrite works on goawk's own tokens, so strings, regexes and comments are never touched.

type awkTok struct {
	tok   lexer.Token
	val   string
	start int // byte offset in the source
}

// awkTokens lexes src; "/" starts a regex where an operand is expected, as goawk's parser
// decides it. It neither checks the call's end nor charges what it holds (tests; a run lexes
// through its awkLexer).
func awkTokens(src string) ([]awkTok, bool) { return (*awkLexer)(nil).tokens(src) }

// awkLexer lexes a run's program text. A program is as long as its file: one of a million
// newlines is a million tokens, lexed once per pass of the rewrite. So the lexer checks the
// call's end as it goes and charges the slices it holds to the run's meter before it
// allocates them, one pass's worth at a time (pass releases the last pass's). Both stop the
// run with awkStopped, which the run turns into its status once the call has ended.
type awkLexer struct {
	ctx  context.Context
	held share
}

func newAwkLexer(ctx context.Context) *awkLexer {
	return &awkLexer{ctx: ctx, held: share{m: meterOf(ctx)}}
}

// awkLexCheck is how many tokens the lexer reads between two looks at the call's end.
const awkLexCheck = 4096

// awkTokSize is what one token costs in a token slice (its string shares the program's bytes).
const awkTokSize = int64(unsafe.Sizeof(awkTok{}))

// pass starts a pass of the rewrite: the last pass's tokens are garbage now.
func (l *awkLexer) pass() {
	if l != nil {
		_ = l.held.set(0)
	}
}

// charge adds n bytes to what the pass holds, stopping the run if the call has ended or the
// budget refuses them.
func (l *awkLexer) charge(n int64) {
	if l == nil {
		return
	}
	if l.ctx.Err() != nil || l.held.set(l.held.held+n) != nil {
		panic(awkStopped{})
	}
}

func (l *awkLexer) tokens(src string) ([]awkTok, bool) {
	nl := strings.Count(src, "\n")
	l.charge(int64(nl+1) * int64(unsafe.Sizeof(0)))
	lines := make([]int, 1, nl+1)
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			lines = append(lines, i+1)
		}
	}
	offset := func(p lexer.Position) int { return lines[p.Line-1] + p.Column - 1 }
	lx := lexer.NewLexer([]byte(src))
	l.charge(int64(len(src)))
	var toks []awkTok
	for {
		if len(toks) == cap(toks) {
			// Charged before append would allocate it: the capacity it would choose, about.
			more := max(cap(toks), 64)
			l.charge(int64(more) * awkTokSize)
			toks = slices.Grow(toks, more)
		}
		if l != nil && len(toks)%awkLexCheck == 0 && l.ctx.Err() != nil {
			panic(awkStopped{})
		}
		pos, tok, val := lx.Scan()
		if (tok == lexer.DIV || tok == lexer.DIV_ASSIGN) && regexAllowed(toks) {
			pos, tok, val = lx.ScanRegex()
		}
		if tok == lexer.ILLEGAL {
			return nil, false
		}
		toks = append(toks, awkTok{tok, val, offset(pos)})
		if tok == lexer.EOF {
			return toks, true
		}
	}
}

func regexAllowed(toks []awkTok) bool {
	return len(toks) == 0 || awkOperandExpected(toks[len(toks)-1].tok)
}

// edit replaces src[from:to] with text.
type edit struct {
	from, to int
	text     string
}

func applyEdits(src string, edits []edit) string {
	var b strings.Builder
	last := 0
	for _, e := range edits {
		if e.from < last {
			continue // overlapping edits: keep the first
		}
		b.WriteString(src[last:e.from])
		b.WriteString(e.text)
		last = e.to
	}
	b.WriteString(src[last:])
	return b.String()
}

// awkOptions are a run's choices of the rewrite.
type awkOptions struct {
	// regexFS: the command line sets FS to what may be a regular expression (-F, -v FS=, an FS=
	// operand): routePass then adds its FS rule whatever the program.
	regexFS bool
	// lex lexes the program's text for the passes (nil: unchecked and uncharged, in tests).
	lex *awkLexer
	// routeAll routes every regular expression operation to the stoppable matchers, whatever
	// its subject's length (tests: the routed operations give GoAWK's results).
	routeAll bool
	// fsChecks (set by the passes from the program and regexFS): FS may be a regular
	// expression, so the record's assignments are checked (sepPass).
	fsChecks bool
}

// rewriteAwk applies the passes; each pass re-lexes the previous one's output. It
// returns src unchanged if it cannot lex it (goawk then reports the syntax error).
func rewriteAwk(src string) string { return rewriteAwkOpts(src, awkOptions{}) }

// rewriteAwkOpts is rewriteAwk for a run with the options opt.
func rewriteAwkOpts(src string, opt awkOptions) string {
	route := func(src string, toks []awkTok) []edit { return routePass(src, toks, opt) }
	sep := func(src string, toks []awkTok) []edit { return sepPass(src, toks, opt.regexFS || namesFS(toks)) }
	for _, pass := range []func(string, []awkTok) []edit{renamePass, getlinePass, printPass, tickPass, route, sep, regexPass, fmtPass} {
		opt.lex.pass()
		toks, ok := opt.lex.tokens(src)
		if !ok {
			return src
		}
		src = applyEdits(src, pass(src, toks))
	}
	return src
}

func isAssignTok(t lexer.Token) bool {
	switch t {
	case lexer.ASSIGN, lexer.ADD_ASSIGN, lexer.SUB_ASSIGN, lexer.MUL_ASSIGN, lexer.DIV_ASSIGN,
		lexer.MOD_ASSIGN, lexer.POW_ASSIGN, lexer.INCR, lexer.DECR:
		return true
	}
	return false
}

func renamePass(src string, toks []awkTok) []edit {
	var edits []edit
	for i, t := range toks {
		switch {
		case t.tok == lexer.NAME && t.val == "FILENAME" && !isAssignTok(toks[i+1].tok):
			edits = append(edits, edit{t.start, t.start + len("FILENAME"), "__mcp_filename()"})
		case t.tok == lexer.F_CLOSE:
			edits = append(edits, edit{t.start, t.start + len("close"), "__mcp_close"})
		case t.tok == lexer.F_SUBSTR:
			edits = append(edits, edit{t.start, t.start + len("substr"), "__mcp_substr"})
		case t.tok == lexer.F_TOUPPER:
			edits = append(edits, edit{t.start, t.start + len("toupper"), "__mcp_toupper"})
		case t.tok == lexer.F_TOLOWER:
			edits = append(edits, edit{t.start, t.start + len("tolower"), "__mcp_tolower"})
		}
	}
	return edits
}

// skipGroup returns the index after the bracket group opening at toks[i].
func skipGroup(toks []awkTok, i int) int {
	open, close := toks[i].tok, lexer.RPAREN
	if open == lexer.LBRACKET {
		close = lexer.RBRACKET
	}
	depth := 0
	for ; i < len(toks) && toks[i].tok != lexer.EOF; i++ {
		switch toks[i].tok {
		case open:
			depth++
		case close:
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// primary returns the index after a simple operand at toks[i]: a literal, a name with an
// optional subscript, $operand, or a parenthesized expression.
func primary(toks []awkTok, i int) int {
	switch toks[i].tok {
	case lexer.STRING, lexer.NUMBER:
		return i + 1
	case lexer.NAME:
		if toks[i+1].tok == lexer.LBRACKET {
			return skipGroup(toks, i+1)
		}
		return i + 1
	case lexer.DOLLAR:
		return primary(toks, i+1)
	case lexer.LPAREN:
		return skipGroup(toks, i)
	}
	return -1
}

func text(src string, toks []awkTok, from, to int) string {
	return strings.TrimSpace(src[toks[from].start:toks[to].start])
}

func getlinePass(src string, toks []awkTok) []edit {
	var edits []edit
	for i, t := range toks {
		if t.tok != lexer.GETLINE || (i > 0 && toks[i-1].tok == lexer.PIPE) {
			continue
		}
		j, target := i+1, "$0"
		if toks[j].tok == lexer.NAME || toks[j].tok == lexer.DOLLAR {
			end := primary(toks, j)
			if end < 0 {
				continue
			}
			target, j = text(src, toks, j, end), end
		}
		if toks[j].tok != lexer.LESS {
			continue
		}
		end := primary(toks, j+1)
		if end < 0 {
			continue
		}
		file := text(src, toks, j+1, end)
		repl := "(__mcp_getline(" + file + ") > 0 ? __mcp_one(" + target + " = __mcp_line()) : __mcp_status())"
		edits = append(edits, edit{t.start, toks[end].start, repl + " "})
	}
	return edits
}

// printPass rewrites print and printf statements redirected to a file.
func printPass(src string, toks []awkTok) []edit {
	var edits []edit
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.tok != lexer.PRINT && t.tok != lexer.PRINTF {
			continue
		}
		redirect, end, depth := -1, i+1, 0
	scan:
		for ; end < len(toks); end++ {
			switch toks[end].tok {
			case lexer.LPAREN, lexer.LBRACKET:
				depth++
			case lexer.RPAREN, lexer.RBRACKET:
				depth--
			case lexer.GREATER, lexer.APPEND, lexer.PIPE:
				if depth == 0 && redirect < 0 {
					redirect = end
				}
			case lexer.NEWLINE, lexer.SEMICOLON, lexer.EOF, lexer.RBRACE:
				if depth <= 0 {
					break scan
				}
			}
		}
		if redirect < 0 || toks[redirect].tok == lexer.PIPE || redirect+1 >= end {
			continue
		}
		args := awkArgs(src, toks, i+1, redirect)
		var value string
		switch {
		case t.tok == lexer.PRINTF:
			value = "sprintf(" + strings.Join(args, ", ") + ")"
		case len(args) == 0:
			value = "$0 ORS"
		default:
			value = "(" + strings.Join(args, ") OFS (") + ") ORS"
		}
		mode := ">"
		if toks[redirect].tok == lexer.APPEND {
			mode = ">>"
		}
		dest := text(src, toks, redirect+1, end)
		edits = append(edits, edit{t.start, toks[end].start, "__mcp_out((" + dest + "), \"" + mode + "\", " + value + ")"})
		i = end
	}
	return edits
}

// awkArgs splits print's argument tokens at top-level commas; print (a, b) is unwrapped.
func awkArgs(src string, toks []awkTok, from, to int) []string {
	if from == to {
		return nil
	}
	if toks[from].tok == lexer.LPAREN && skipGroup(toks, from) == to {
		from, to = from+1, to-1
	}
	var args []string
	start := from
	for _, k := range topLevel(toks, from, to, lexer.COMMA) {
		args = append(args, text(src, toks, start, k))
		start = k + 1
	}
	return append(args, text(src, toks, start, to))
}

// topLevel returns the indices of the sep tokens in toks[from:to] that stand outside every
// parenthesis and bracket.
func topLevel(toks []awkTok, from, to int, sep lexer.Token) []int {
	var at []int
	depth := 0
	for k := from; k < to; k++ {
		switch toks[k].tok {
		case lexer.LPAREN, lexer.LBRACKET:
			depth++
		case lexer.RPAREN, lexer.RBRACKET:
			depth--
		case sep:
			if depth == 0 {
				at = append(at, k)
			}
		}
	}
	return at
}

// tickPass makes every loop test and every function body call __mcp_tick().
func tickPass(src string, toks []awkTok) []edit {
	var edits []edit
	for i, t := range toks {
		switch t.tok {
		case lexer.WHILE:
			if toks[i+1].tok != lexer.LPAREN {
				continue
			}
			end := skipGroup(toks, i+1)
			if end < 0 {
				continue
			}
			edits = append(edits, tickAnd(toks[i+1].start+1, toks[end-1].start)...)
		case lexer.FOR:
			if toks[i+1].tok != lexer.LPAREN {
				continue
			}
			end := skipGroup(toks, i+1)
			if end < 0 {
				continue
			}
			semis := topLevel(toks, i+2, end-1, lexer.SEMICOLON)
			if len(semis) != 2 {
				continue // for (k in a): a finite walk over the keys
			}
			from, to := semis[0]+1, semis[1]
			if from == to {
				edits = append(edits, edit{toks[to].start, toks[to].start, " __mcp_tick() "})
				continue
			}
			edits = append(edits, tickAnd(toks[from].start, toks[to].start)...)
		case lexer.FUNCTION:
			for k := i + 1; k < len(toks) && toks[k].tok != lexer.EOF; k++ {
				if toks[k].tok == lexer.LBRACE {
					edits = append(edits, edit{toks[k].start + 1, toks[k].start + 1, " __mcp_tick(); "})
					break
				}
			}
		}
	}
	return edits
}

// tickAnd makes the condition src[from:to] "__mcp_tick() && (condition)".
func tickAnd(from, to int) []edit {
	return []edit{{from, from, "__mcp_tick() && ("}, {to, to, ")"}}
}

// regexPass routes every dynamic regular expression through __mcp_re (see the top).
func regexPass(src string, toks []awkTok) []edit {
	var edits []edit
	wrap := func(from, to int) {
		if to <= from || to == from+1 && toks[from].tok == lexer.REGEX {
			return // a literal: its size was bounded with the program (awkNesting)
		}
		if to == from+3 && toks[from].val == "__mcp_sep" {
			return // routePass's split: the separator was checked and used by __mcp_sp
		}
		edits = append(edits, edit{toks[from].start, toks[from].start, "__mcp_re("}, edit{toks[to].start, toks[to].start, ")"})
	}
	for i, t := range toks {
		switch t.tok {
		case lexer.MATCH, lexer.NOT_MATCH:
			if end := matchOperand(toks, i+1); end > 0 {
				wrap(i+1, end)
			}
		case lexer.F_MATCH, lexer.F_SPLIT, lexer.F_SUB, lexer.F_GSUB:
			bounds := callArgs(toks, i)
			if bounds == nil {
				continue
			}
			k := map[lexer.Token]int{lexer.F_MATCH: 1, lexer.F_SPLIT: 2, lexer.F_SUB: 0, lexer.F_GSUB: 0}[t.tok]
			if k+1 < len(bounds) {
				wrap(bounds[k]+1, bounds[k+1])
			}
		}
	}
	slices.SortStableFunc(edits, func(a, b edit) int { return a.from - b.from })
	return edits
}

// callArgs splits the arguments of the builtin call at toks[i]: the argument k is
// toks[bounds[k]+1 : bounds[k+1]]; nil when no parenthesized list follows.
func callArgs(toks []awkTok, i int) (bounds []int) {
	if i+1 >= len(toks) || toks[i+1].tok != lexer.LPAREN {
		return nil
	}
	end := skipGroup(toks, i+1)
	if end < 0 {
		return nil
	}
	return append(append([]int{i + 1}, topLevel(toks, i+2, end-1, lexer.COMMA)...), end-1)
}

// matchOperand returns the index after the right operand of ~ or !~ starting at toks[i]: what
// GoAWK's parser reads there (a comparison and all that binds tighter), up to the first token
// of lower precedence outside brackets; -1 when the operand holds something this does not
// follow (getline), which is then left alone.
func matchOperand(toks []awkTok, i int) int {
	depth := 0
	for k := i; k < len(toks); k++ {
		switch toks[k].tok {
		case lexer.LPAREN, lexer.LBRACKET:
			depth++
		case lexer.RPAREN, lexer.RBRACKET:
			if depth == 0 {
				return k
			}
			depth--
		case lexer.GETLINE, lexer.PIPE:
			return -1
		case lexer.MATCH, lexer.NOT_MATCH, lexer.IN, lexer.AND, lexer.OR, lexer.QUESTION, lexer.COLON, lexer.COMMA,
			lexer.RBRACE, lexer.LBRACE, lexer.SEMICOLON, lexer.NEWLINE, lexer.EOF, lexer.ASSIGN, lexer.ADD_ASSIGN,
			lexer.SUB_ASSIGN, lexer.MUL_ASSIGN, lexer.DIV_ASSIGN, lexer.MOD_ASSIGN, lexer.POW_ASSIGN:
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// fmtPass routes printf and sprintf formats through the checks of awk_format.go (see the top).
func fmtPass(src string, toks []awkTok) []edit {
	var edits []edit
	wrap := func(from, to int, before, after string) {
		edits = append(edits, edit{toks[from].start, toks[from].start, before}, edit{toks[to].start, toks[to].start, after})
	}
	for i, t := range toks {
		var bounds []int // the argument k is toks[bounds[k]+1 : bounds[k+1]]
		switch t.tok {
		case lexer.F_SPRINTF:
			if bounds = callArgs(toks, i); bounds == nil {
				continue
			}
		case lexer.PRINTF:
			from, to := i+1, printEnd(toks, i+1)
			if to < 0 {
				continue
			}
			if toks[from].tok == lexer.LPAREN && skipGroup(toks, from) == to {
				from, to = from+1, to-1
			}
			bounds = append(append([]int{from - 1}, topLevel(toks, from, to, lexer.COMMA)...), to)
		default:
			continue
		}
		if bounds[1] <= bounds[0]+1 {
			continue // no format: GoAWK reports it
		}
		values := len(bounds) - 2
		if f := toks[bounds[0]+1]; f.tok == lexer.STRING && bounds[1] == bounds[0]+2 {
			s := scanAwkFormat(f.val)
			if !s.ok {
				continue
			}
			if s.big != "" || s.pad > awkPadUnchecked {
				wrap(bounds[0]+1, bounds[1], "__mcp_fmt(", ", 0)")
			}
			for _, k := range s.stars {
				if k < values && bounds[k+2] > bounds[k+1]+1 {
					wrap(bounds[k+1]+1, bounds[k+2], "__mcp_w(", ")")
				}
			}
			continue
		}
		wrap(bounds[0]+1, bounds[1], "__mcp_fmt(", ", "+strconv.Itoa(values)+")")
		for k := range values {
			if bounds[k+2] > bounds[k+1]+1 {
				wrap(bounds[k+1]+1, bounds[k+2], "(__mcp_arg("+strconv.Itoa(k)+", __mcp_t = (", ")) ? __mcp_t : __mcp_t)")
			}
		}
	}
	slices.SortStableFunc(edits, func(a, b edit) int { return a.from - b.from })
	return edits
}

// awkPadUnchecked is the padding a literal format may ask for without a check at run time.
const awkPadUnchecked = 4096

// printEnd returns the index of the token that ends the print or printf statement whose
// arguments start at toks[i] (a redirection or the statement's end), or -1.
func printEnd(toks []awkTok, i int) int {
	depth := 0
	for k := i; k < len(toks); k++ {
		switch toks[k].tok {
		case lexer.LPAREN, lexer.LBRACKET:
			depth++
		case lexer.RPAREN, lexer.RBRACKET:
			depth--
		case lexer.GREATER, lexer.APPEND, lexer.PIPE:
			if depth == 0 {
				return k
			}
		case lexer.NEWLINE, lexer.SEMICOLON, lexer.EOF, lexer.RBRACE:
			if depth <= 0 {
				return k
			}
		}
	}
	return -1
}
