package builtins

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/benhoyt/goawk/lexer"
)

// sepPass makes the program's assignments of the separators and of the record pass through Go
// functions (awk_regex.go) before GoAWK acts on them:
//
//	FS = v       -> FS = (__mcp_fsset(__mcp_t0 = (v), $0) ? __mcp_t0 : __mcp_t0)
//	RS = v       -> RS = (__mcp_rsset(__mcp_t0 = (v)) ? __mcp_t0 : __mcp_t0)
//	$0 = v       -> $0 = ((length(__mcp_t0 = (v)) <= L || __mcp_rec(__mcp_t0, FS)) ? __mcp_t0 : __mcp_t0)
//	                ($e = v too; L is awkFSLimit, FS's quick length kept as the FS rule keeps it)
//	getline      -> __mcp_gl(getline, $0, FS)                                   (getline $e too)
//
// GoAWK compiles an FS or RS of more than one character as a regular expression when it is
// assigned, a compile that cannot be stopped: __mcp_fsset and __mcp_rsset refuse what
// sandbox.CheckRegexp refuses, as __mcp_re does for the other dynamic expressions. GoAWK splits
// a record into fields when a field is first read, by the FS of that moment, with its own
// FindAll, which cannot be stopped: every (record, FS) pair it may split is split first by the
// stoppable matcher when either is set (the FS rule of routePass at each record read; here the
// record the program assigns, and the record at hand when FS is assigned), as the FS rule does.
// __mcp_rsset keeps RS for the input's record reading (awkInput, awkRecords). Each value is
// evaluated once and yielded unconverted (__mcp_t0). The record's assignments are followed only
// when FS may be a regular expression (fsChecks: the program names FS or the command line sets
// one); getline FS, getline RS and a for-in loop over FS or RS are refused (awkSepRefusal).
func sepPass(src string, toks []awkTok, fsChecks bool) []edit {
	type wrap struct {
		from, to      int // byte offsets of the value
		before, after string
	}
	var wraps []wrap
	value := func(from, to int, before, after string) {
		wraps = append(wraps, wrap{toks[from].start, toks[to].start, before, after})
	}
	for i, t := range toks {
		switch {
		case t.tok == lexer.NAME && (t.val == "FS" || t.val == "RS") && toks[i+1].tok == lexer.ASSIGN &&
			(i == 0 || toks[i-1].tok != lexer.DOLLAR):
			end := assignEnd(toks, i+2)
			if end < 0 || end == i+2 {
				continue
			}
			if t.val == "FS" {
				value(i+2, end, "(__mcp_fsset(__mcp_t0 = (", "), $0) ? __mcp_t0 : __mcp_t0)")
			} else {
				value(i+2, end, "(__mcp_rsset(__mcp_t0 = (", ")) ? __mcp_t0 : __mcp_t0)")
			}
		case t.tok == lexer.DOLLAR && fsChecks:
			lhs := primary(toks, i)
			if lhs < 0 || toks[lhs].tok != lexer.ASSIGN || nonZeroIndex(toks, i+1, lhs) {
				continue
			}
			end := assignEnd(toks, lhs+1)
			if end < 0 || end == lhs+1 {
				continue
			}
			value(lhs+1, end, "((length(__mcp_t0 = (", ")) <= "+awkFSLimit+" || __mcp_rec(__mcp_t0, FS)) ? __mcp_t0 : __mcp_t0)")
		case t.tok == lexer.GETLINE && fsChecks && (i == 0 || toks[i-1].tok != lexer.PIPE):
			end := i + 1
			if toks[end].tok == lexer.DOLLAR {
				if end = primary(toks, end); end < 0 {
					continue
				}
			} else if toks[end].tok == lexer.NAME || toks[end].tok == lexer.LESS {
				continue // into a variable (no record), or from a file (getlinePass)
			}
			value(i, end, "__mcp_gl(", ", $0, FS)")
		}
	}
	// Zero-width edits in order; at one offset, the closing of the value that opened last
	// comes first (FS = RS = v closes RS's value, then FS's).
	slices.SortStableFunc(wraps, func(a, b wrap) int { return a.from - b.from })
	closes := slices.Clone(wraps)
	slices.SortStableFunc(closes, func(a, b wrap) int {
		if a.to != b.to {
			return a.to - b.to
		}
		return b.from - a.from
	})
	var edits []edit
	for len(wraps) > 0 || len(closes) > 0 {
		if len(wraps) > 0 && (len(closes) == 0 || wraps[0].from < closes[0].to) {
			edits = append(edits, edit{wraps[0].from, wraps[0].from, wraps[0].before})
			wraps = wraps[1:]
		} else {
			edits = append(edits, edit{closes[0].to, closes[0].to, closes[0].after})
			closes = closes[1:]
		}
	}
	return edits
}

// awkFSLimit is the quick length of FS (fieldLimit), found again only when FS changed: shorter
// records need no check. __mcp_F and __mcp_L are the FS rule's (awkFSRule).
const awkFSLimit = "(FS == __mcp_F ? __mcp_L : (__mcp_L = __mcp_fslim(__mcp_F = FS)))"

// nonZeroIndex reports that toks[from:to], a field index, is a number other than 0: $1 = v sets a
// field and builds the record from the fields, with no split.
func nonZeroIndex(toks []awkTok, from, to int) bool {
	if to != from+1 || toks[from].tok != lexer.NUMBER {
		return false
	}
	f, err := strconv.ParseFloat(toks[from].val, 64)
	return err == nil && f != 0
}

// assignEnd returns the index after the value of an assignment that starts at toks[i]: what
// GoAWK's parser reads there (a conditional expression and all that binds tighter, or another
// assignment), up to the first token of lower precedence outside brackets; -1 when the value
// holds something this does not follow (getline).
func assignEnd(toks []awkTok, i int) int {
	depth, open := 0, 0 // open: the ?s whose : is still to come
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
		case lexer.QUESTION:
			if depth == 0 {
				open++
			}
		case lexer.COLON:
			if depth == 0 {
				if open == 0 {
					return k
				}
				open--
			}
		case lexer.NEWLINE:
			switch toks[k-1].tok {
			case lexer.AND, lexer.OR, lexer.QUESTION, lexer.COLON, lexer.COMMA:
				continue // the expression goes on on the next line
			}
			if depth == 0 {
				return k
			}
		case lexer.COMMA, lexer.SEMICOLON, lexer.RBRACE, lexer.LBRACE, lexer.EOF:
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// awkSepRefusal refuses the assignments of FS and RS that sepPass does not follow: getline FS
// (or RS), and a for-in loop whose variable is FS or RS.
func awkSepRefusal(toks []awkTok) error {
	for i, t := range toks {
		if t.tok != lexer.NAME || t.val != "FS" && t.val != "RS" || i == 0 {
			continue
		}
		what := ""
		switch {
		case toks[i-1].tok == lexer.GETLINE:
			what = "getline " + t.val
		case toks[i-1].tok == lexer.LPAREN && i > 1 && toks[i-2].tok == lexer.FOR && toks[i+1].tok == lexer.IN:
			what = "for (" + t.val + " in ...)"
		default:
			continue
		}
		return fmt.Errorf("%s is not available in the sandbox's awk (%s is checked where the program assigns it with =); read into a variable and assign %s = variable, or run the tool with \"exec\": \"native\"", what, t.val, t.val)
	}
	return nil
}
