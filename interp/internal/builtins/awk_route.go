package builtins

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benhoyt/goawk/lexer"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// routePass sends the program's regular expression matching to the Go functions of
// awk_regex.go, which stop with the call (GoAWK's own matching cannot be stopped, and its gsub,
// split and regex field splitting are quadratic in the worst case):
//
//	x ~ e, x !~ e          -> (__mcp_m(x, e)), (!__mcp_m(x, e))
//	/re/ (as a value)      -> (length($0) < 1048576 ? /re/ : __mcp_m($0, "re"))
//	match(s, e)            -> ((RSTART = __mcp_mt(s, e)) + (RLENGTH = __mcp_rl()) * 0)
//	sub(e, r, t)           -> ((t = __mcp_sub(e, r, t)) ? __mcp_n() : __mcp_n())   (gsub: __mcp_gsub)
//	split(s, a, e)         -> split(__mcp_sp(s, e), a, __mcp_sep())   (split(s, a): e is FS)
//
// A regex literal becomes the string that GoAWK would compile ("re"). A single search is
// linear, and GoAWK's own is kept where the subject is short enough for it to end in a moment:
// when x (or s) is a plain name, field or element, x ~ e and match(s, e) test its length first
// and keep GoAWK's operation below 1 MiB, as bare /re/ patterns do for $0 (the sandbox's own
// matchers search subjects below 1 MiB without checks too). gsub, sub and split are always
// routed: they search once per match. sub and gsub assign their target always (GoAWK does),
// with a subscript or field index evaluated once and before the expression and replacement, as
// GoAWK evaluates it (__mcp_pk/__mcp_pi push it, __mcp_k/__mcp_i read it, __mcp_pop drops it);
// a plain name or number index is read where it stands. Operands are routed in turn (a match
// inside a gsub's target index). A shape this does not follow (a getline in the left operand
// of ~) is left to GoAWK, whose dynamic expressions regexPass still bounds.
//
// A program that reads records (it has a main rule or END) and may split them by a regular
// expression (it names FS, or the command line sets FS to more than one character) gets a first
// rule that runs __mcp_fs($0, FS) on every long record while FS is a regular expression: GoAWK splits fields with
// its own FindAll, so a long record is split ahead by the stoppable matcher (awkRegex.fieldCheck).
func routePass(src string, toks []awkTok, opt awkOptions) []edit {
	opt.fsChecks = opt.regexFS || namesFS(toks)
	edits := routeEdits(src, toks, 0, opt)
	if readsRecords(toks) && opt.fsChecks {
		edits = append([]edit{{0, 0, awkFSRule}}, edits...)
	}
	return edits
}

// awkFSRule is the first rule of a program that reads records.
// (FS reads as a string, so == compares strings; __mcp_F and __mcp_L keep the FS whose quick
// length was asked and that length.)
const awkFSRule = "length(FS) > 1 && (FS == __mcp_F || (__mcp_L = __mcp_fslim(__mcp_F = FS)) || 1) && length($0) > __mcp_L && __mcp_fs($0, FS) {}\n"

// awkLongSubject is where a single search is routed (sandbox.LongSubject's bound); tests set
// awkOptions.routeAll to route every operation, whatever its subject's length.
const awkLongSubject = "1048576"

// routeMaxDepth bounds the recursion into operands (the program's nesting is bounded before).
const routeMaxDepth = 64

// routeText routes the expression text src (an operand of a routed operation).
func routeText(src string, depth int, opt awkOptions) string {
	if depth > routeMaxDepth {
		return src
	}
	toks, ok := opt.lex.tokens(src)
	if !ok {
		return src
	}
	return applyEdits(src, routeEdits(src, toks, depth, opt))
}

type routeSpan struct {
	from, to int // token indexes
	text     string
}

func routeEdits(src string, toks []awkTok, depth int, opt awkOptions) []edit {
	var spans []routeSpan
	strRegex := map[int]bool{} // regex literals that are a string operand, not a match of $0
	sub := func(from, to int) string {
		return routeText(text(src, toks, from, to), depth+1, opt)
	}
	// operand is an expression operand: a regex literal as the string GoAWK compiles.
	regexArg := func(from, to int) string {
		if to == from+1 && toks[from].tok == lexer.REGEX {
			strRegex[from] = true
			return awkQuote(toks[from].val)
		}
		return "(" + sub(from, to) + ")"
	}
	for i, t := range toks {
		switch t.tok {
		case lexer.MATCH, lexer.NOT_MATCH:
			left, right := matchLeft(toks, i), matchOperand(toks, i+1)
			if left < 0 || right < 0 || left == i || right == i+1 {
				continue
			}
			lit := right == i+2 && toks[i+1].tok == lexer.REGEX
			call := "__mcp_m(" + sub(left, i) + ", " + regexArg(i+1, right) + ")"
			if t.tok == lexer.NOT_MATCH {
				call = "!" + call
			}
			if simpleOperand(toks, left, i) && (lit || simpleOperand(toks, i+1, right)) && !opt.routeAll {
				l := text(src, toks, left, i)
				call = "length(" + l + ") < " + awkLongSubject + " ? " + text(src, toks, left, right) + " : " + call
			}
			spans = append(spans, routeSpan{left, right, "(" + call + ")"})
		case lexer.F_MATCH:
			b := callArgs(toks, i)
			if len(b) != 3 {
				continue
			}
			s, e := sub(b[0]+1, b[1]), regexArg(b[1]+1, b[2])
			call := "(RSTART = __mcp_mt(" + s + ", " + e + ")) + (RLENGTH = __mcp_rl()) * 0"
			if simpleOperand(toks, b[0]+1, b[1]) && (strRegex[b[1]+1] || simpleOperand(toks, b[1]+1, b[2])) && !opt.routeAll {
				call = "length(" + s + ") < " + awkLongSubject + " ? " + text(src, toks, i, b[2]+1) + " : " + call
			}
			spans = append(spans, routeSpan{i, b[2] + 1, "(" + call + ")"})
		case lexer.F_SUB, lexer.F_GSUB:
			b := callArgs(toks, i)
			if len(b) != 3 && len(b) != 4 {
				continue
			}
			fn := "__mcp_sub("
			if t.tok == lexer.F_GSUB {
				fn = "__mcp_gsub("
			}
			args := fn + regexArg(b[0]+1, b[1]) + ", " + sub(b[1]+1, b[2]) + ", "
			var repl, target string
			stmt := isStatement(toks, i, b[len(b)-1]+1)
			switch {
			case len(b) == 3:
				target = "$0"
			case simpleTarget(toks, b[2]+1, b[3]):
				target = text(src, toks, b[2]+1, b[3])
			}
			switch {
			case target != "" && stmt:
				repl = "(" + target + " = " + args + target + "))"
			case target != "":
				repl = "((" + target + " = " + args + target + ")) ? __mcp_n() : __mcp_n())"
			default:
				if repl = subTarget(src, toks, b[2]+1, b[3], args, sub); repl == "" {
					continue
				}
			}
			// The record's and the separators' assignments are checked (sepPass): routed, never
			// GoAWK's sub on them.
			checked := target == "FS" || target == "RS" || target == "$0" && opt.fsChecks
			if n := shortLength(toks, b[0]+1, b[1], opt); n > 0 && target != "" && !checked {
				// GoAWK's own below a length where its FindAll is short (see the top).
				repl = "(length(" + target + ") <= " + strconv.Itoa(n) + " ? " + text(src, toks, i, b[len(b)-1]+1) + " : " + repl + ")"
			}
			spans = append(spans, routeSpan{i, b[len(b)-1] + 1, repl})
		case lexer.F_SPLIT:
			b := callArgs(toks, i)
			if len(b) != 3 && len(b) != 4 || b[2] != b[1]+2 || toks[b[1]+1].tok != lexer.NAME {
				continue
			}
			fs := "FS"
			if len(b) == 4 {
				fs = regexArg(b[2]+1, b[3])
			}
			repl := "split(__mcp_sp(" + sub(b[0]+1, b[1]) + ", " + fs + "), " + toks[b[1]+1].val + ", __mcp_sep())"
			if n := shortLength(toks, b[2]+1, b[len(b)-1], opt); len(b) == 4 && n > 0 && simpleOperand(toks, b[0]+1, b[1]) {
				repl = "(length(" + text(src, toks, b[0]+1, b[1]) + ") <= " + strconv.Itoa(n) + " ? " + text(src, toks, i, b[3]+1) + " : " + repl + ")"
			}
			spans = append(spans, routeSpan{i, b[len(b)-1] + 1, repl})
		}
	}
	for i, t := range toks {
		if t.tok == lexer.REGEX && !strRegex[i] && (i == 0 || toks[i-1].tok != lexer.MATCH && toks[i-1].tok != lexer.NOT_MATCH) {
			re := text(src, toks, i, i+1)
			call := "__mcp_m($0, " + awkQuote(t.val) + ")"
			if !opt.routeAll {
				call = "(length($0) < " + awkLongSubject + " ? " + re + " : " + call + ")"
			}
			spans = append(spans, routeSpan{i, i + 1, call})
		}
	}
	// The outermost spans: an inner one was routed with its operand.
	slices.SortStableFunc(spans, func(a, b routeSpan) int {
		if a.from != b.from {
			return a.from - b.from
		}
		return b.to - a.to
	})
	var edits []edit
	last := -1
	for _, s := range spans {
		if s.from < last {
			continue
		}
		last = s.to
		edits = append(edits, edit{toks[s.from].start, toks[s.to].start, s.text + " "})
	}
	return edits
}

// subTarget is the routed sub or gsub call (args: "__mcp_gsub(e, r, ") with the target
// toks[from:to]; "" for a shape left to GoAWK.
func subTarget(src string, toks []awkTok, from, to int, args string, sub func(int, int) string) string {
	count := " ? __mcp_n() : __mcp_n())"
	switch {
	case to == from+1 && toks[from].tok == lexer.NAME:
		t := toks[from].val
		return "((" + t + " = " + args + t + "))" + count
	case toks[from].tok == lexer.DOLLAR && primary(toks, from) == to:
		if to == from+2 && (toks[from+1].tok == lexer.NUMBER || toks[from+1].tok == lexer.NAME) {
			t := text(src, toks, from, to)
			return "((" + t + " = " + args + t + "))" + count
		}
		t := "$(__mcp_i())"
		return "(__mcp_pi(" + sub(from+1, to) + ") ? (((" + t + " = " + args + t + ")) ? __mcp_pop() : __mcp_pop())" + count + " : 0)"
	case toks[from].tok == lexer.NAME && toks[from+1].tok == lexer.LBRACKET && skipGroup(toks, from+1) == to:
		if to == from+4 && (toks[from+2].tok == lexer.NUMBER || toks[from+2].tok == lexer.NAME || toks[from+2].tok == lexer.STRING) {
			t := text(src, toks, from, to)
			return "((" + t + " = " + args + t + "))" + count
		}
		var key []string
		start := from + 2
		for _, k := range append(topLevel(toks, from+2, to-1, lexer.COMMA), to-1) {
			key = append(key, "("+sub(start, k)+")")
			start = k + 1
		}
		t := toks[from].val + "[__mcp_k()]"
		return "(__mcp_pk(" + strings.Join(key, " SUBSEP ") + ") ? (((" + t + " = " + args + t + ")) ? __mcp_pop() : __mcp_pop())" + count + " : 0)"
	}
	return ""
}

// shortLength returns, for a regex literal toks[from:to], the subject length up to which
// GoAWK's own FindAll of it is short enough to run unchecked (sandbox.Searcher.ShortLength),
// or 0.
func shortLength(toks []awkTok, from, to int, opt awkOptions) int {
	if to != from+1 || toks[from].tok != lexer.REGEX || opt.routeAll {
		return 0
	}
	re, err := regexp.Compile("(?s:" + toks[from].val + ")")
	if err != nil {
		return 0
	}
	return sandbox.NewSearcher(re, false).ShortLength()
}

// isStatement reports that toks[from:to] is a whole statement: its value is not used.
func isStatement(toks []awkTok, from, to int) bool {
	switch toks[to].tok {
	case lexer.SEMICOLON, lexer.NEWLINE, lexer.RBRACE, lexer.EOF:
	default:
		return false
	}
	if from == 0 {
		return false // a pattern
	}
	switch toks[from-1].tok {
	case lexer.LBRACE, lexer.SEMICOLON, lexer.ELSE, lexer.DO:
		return true
	case lexer.NEWLINE:
		// A statement inside braces after one that ended there (not after && || , ...).
		k := from - 1
		for k > 0 && toks[k].tok == lexer.NEWLINE {
			k--
		}
		switch toks[k].tok {
		case lexer.LBRACE, lexer.SEMICOLON, lexer.RBRACE, lexer.ELSE, lexer.DO, lexer.RPAREN, lexer.NAME, lexer.NUMBER,
			lexer.STRING, lexer.REGEX, lexer.RBRACKET, lexer.INCR, lexer.DECR, lexer.F_LENGTH, lexer.NEXT, lexer.BREAK,
			lexer.CONTINUE, lexer.GETLINE:
			return toks[k].tok != lexer.NEWLINE && insideBraces(toks, from)
		}
	case lexer.RPAREN:
		depth := 0
		for k := from - 1; k >= 0; k-- {
			switch toks[k].tok {
			case lexer.RPAREN:
				depth++
			case lexer.LPAREN:
				if depth--; depth == 0 {
					return k > 0 && (toks[k-1].tok == lexer.IF || toks[k-1].tok == lexer.WHILE || toks[k-1].tok == lexer.FOR)
				}
			}
		}
	}
	return false
}

// insideBraces reports that toks[k] stands inside an action or a block.
func insideBraces(toks []awkTok, k int) bool {
	depth := 0
	for i := 0; i <= k; i++ {
		switch toks[i].tok {
		case lexer.LBRACE:
			depth++
		case lexer.RBRACE:
			depth--
		}
	}
	return depth > 0
}

// simpleTarget reports that toks[from:to] is a name, $name, $number or name[name, number or
// string]: a sub or gsub target whose place is found again at no cost.
func simpleTarget(toks []awkTok, from, to int) bool {
	return simpleOperand(toks, from, to) && (to > from+1 || toks[from].tok == lexer.NAME)
}

// simpleOperand reports that toks[from:to] is a name, a number, a string, $name, $number or
// name[name, number or string]: an operand read twice at no cost and with no effect.
func simpleOperand(toks []awkTok, from, to int) bool {
	isAtom := func(t lexer.Token) bool { return t == lexer.NAME || t == lexer.NUMBER || t == lexer.STRING }
	switch to - from {
	case 1:
		return isAtom(toks[from].tok)
	case 2:
		return toks[from].tok == lexer.DOLLAR && (toks[from+1].tok == lexer.NAME || toks[from+1].tok == lexer.NUMBER)
	case 4:
		return toks[from].tok == lexer.NAME && toks[from+1].tok == lexer.LBRACKET && isAtom(toks[from+2].tok) &&
			toks[from+3].tok == lexer.RBRACKET
	}
	return false
}

// matchLeft returns the index of the first token of the left operand of the ~ or !~ at toks[i]:
// what GoAWK's parser reads there (a comparison and all that binds tighter) back to the first
// token of lower precedence outside brackets; -1 for a shape this does not follow (getline).
func matchLeft(toks []awkTok, i int) int {
	var closes []int // the open ) and ] met, innermost last
	for k := i - 1; k >= 0; k-- {
		switch toks[k].tok {
		case lexer.RPAREN, lexer.RBRACKET:
			closes = append(closes, k)
		case lexer.LPAREN, lexer.LBRACKET:
			if len(closes) == 0 {
				return k + 1
			}
			end := closes[len(closes)-1]
			closes = closes[:len(closes)-1]
			if len(closes) == 0 && k > 0 {
				switch toks[k-1].tok {
				case lexer.IF, lexer.WHILE, lexer.FOR:
					return end + 1 // the header before a statement
				}
			}
		case lexer.GETLINE, lexer.PIPE:
			return -1
		case lexer.NEWLINE, lexer.SEMICOLON, lexer.LBRACE, lexer.RBRACE, lexer.COMMA, lexer.AND, lexer.OR,
			lexer.QUESTION, lexer.COLON, lexer.IN, lexer.MATCH, lexer.NOT_MATCH, lexer.ASSIGN, lexer.ADD_ASSIGN,
			lexer.SUB_ASSIGN, lexer.MUL_ASSIGN, lexer.DIV_ASSIGN, lexer.MOD_ASSIGN, lexer.POW_ASSIGN,
			lexer.PRINT, lexer.PRINTF, lexer.RETURN, lexer.ELSE, lexer.DO, lexer.EXIT, lexer.GREATER, lexer.APPEND:
			if len(closes) == 0 {
				return k + 1
			}
		}
	}
	if len(toks) > 0 && i > 0 {
		return 0
	}
	return -1
}

// awkQuote is the awk string literal of s.
func awkQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// namesFS reports whether the program names FS (it may set it).
func namesFS(toks []awkTok) bool {
	for _, t := range toks {
		if t.tok == lexer.NAME && t.val == "FS" {
			return true
		}
	}
	return false
}

// readsRecords reports whether the program has a main rule or an END action (GoAWK reads
// the input then): a token at the top level that is not part of BEGIN or a function.
func readsRecords(toks []awkTok) bool {
	depth, owned := 0, false // owned: the next { at the top level is BEGIN's or a function's
	for _, t := range toks {
		switch t.tok {
		case lexer.LBRACE:
			if depth == 0 && !owned {
				return true
			}
			depth++
			owned = false
		case lexer.RBRACE:
			depth--
		case lexer.NEWLINE, lexer.SEMICOLON, lexer.EOF:
		case lexer.BEGIN, lexer.FUNCTION:
			if depth == 0 {
				owned = true
			}
		default:
			if depth == 0 && !owned {
				return true
			}
		}
	}
	return false
}
