package eval

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// condSyntaxLines words a syntax error inside [[ ]] as bash's conditional parser does, or
// returns nil when err is not one this knows. The parser's own words name its token types
// ("not a valid test operator: LitRedir" for the 3< of `[[ a 3< b ]]`); bash says what it
// expected, from how much of the expression it had read (before is the text up to the error):
//
//	[[ a b ]], [[ a 3< b ]]      conditional binary operator expected
//	[[ a & b ]]                  unexpected token `&', conditional binary operator expected
//	[[ a == b c ]]               syntax error in conditional expression
//	[[ ( a b ) ]]                conditional binary operator expected, then expected `)'
//	[[ ( a == b c ) ]]           expected `)' (one line per open parenthesis)
func condSyntaxLines(pe *syntax.ParseError, before string) []string {
	var tok string
	switch t := pe.Text; {
	case strings.HasPrefix(t, "not a valid test operator: "):
		tok = strings.TrimPrefix(t, "not a valid test operator: ")
	case t == "test operator words must consist of a single literal":
		tok = "word"
	default:
		return nil
	}
	at := strings.LastIndex(before, "[[")
	if at < 0 {
		return nil
	}
	operands, open := 0, 0 // since the last && || ! or (, and the ( not closed
	for _, f := range strings.Fields(before[at+2:]) {
		switch f {
		case "&&", "||", "!":
			operands = 0
		case "(":
			operands, open = 0, open+1
		case ")":
			operands, open = 1, max(open-1, 0)
		default:
			operands++
		}
	}
	var lines []string
	switch {
	case operands >= 2:
		if open == 0 {
			lines = append(lines, "syntax error in conditional expression")
		}
	case strings.HasPrefix(tok, "`") && strings.Trim(tok, "`&|;<>()") == "":
		lines = append(lines, "unexpected token "+strings.TrimSuffix(tok, "`")+"', conditional binary operator expected")
	default:
		lines = append(lines, "conditional binary operator expected")
	}
	for range open {
		lines = append(lines, "expected `)'")
	}
	return lines
}

// condSyntaxError is a [[ ]] syntax error in text parsed while running, with bash's words.
type condSyntaxError struct {
	syntax.ParseError
	lines []string
}

func (e *condSyntaxError) Unwrap() error { return e.ParseError }

// bashWords returns the bash wording of a parse error of src (see condSyntaxLines), with err
// itself when it has none.
func bashWords(err error, src string) error {
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	off := min(int(pe.Pos.Offset()), len(src))
	if lines, at, ok := bashCondError(src, 0, &pe); ok {
		pe.Pos = posAt(src, at)
		return &condSyntaxError{pe, lines}
	}
	if lines := condSyntaxLines(&pe, src[:off]); lines != nil {
		return &condSyntaxError{pe, lines}
	}
	return err
}
