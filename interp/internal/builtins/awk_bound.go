package builtins

import (
	"context"
	"fmt"

	"github.com/benhoyt/goawk/lexer"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// awkNesting bounds, from its tokens alone and before GoAWK parses it, how deeply a program
// can make GoAWK's parser, resolver and compiler recurse: they recurse on the Go stack, and a
// Go stack overflow ends the process (issue 27: `awk "$prog"` with 200,000 nested parentheses
// did). The measure is an upper bound of the syntax tree's height: every bracket opens a level,
// and every token of the statement being read counts one level in its bracket (operators,
// operands, and if/else/while/for/do without braces, which nest statements). A statement ends
// at a newline or ; that cannot continue it (after && || , { do else and an if, while or for
// header a newline continues it), unless an else follows. Real programs stay in the hundreds.
func awkNesting(ctx context.Context, src string) error {
	type frame struct {
		count  int  // tokens of the statement being read in this bracket
		header bool // the parentheses of an if, while or for header
	}
	frames := []frame{{}}
	height := 1 // the measure: the open brackets plus their counts
	lx := lexer.NewLexer([]byte(src))
	prev := lexer.NEWLINE
	body := false  // a header just closed: its body follows, after newlines
	ended := false // a separator ended the statement: the next token starts another (but else)
	for n := 1; ; n++ {
		if n%awkLexCheck == 0 && ctx.Err() != nil {
			panic(awkStopped{})
		}
		pos, tok, val := lx.Scan()
		if (tok == lexer.DIV || tok == lexer.DIV_ASSIGN) && awkOperandExpected(prev) {
			pos, tok, val = lx.ScanRegex()
		}
		if tok == lexer.REGEX {
			if err := sandbox.CheckRegexp(val); err != nil {
				return fmt.Errorf("line %d: %v", pos.Line, err) // GoAWK compiles literals as it parses
			}
		}
		switch tok {
		case lexer.EOF, lexer.ILLEGAL:
			return nil // GoAWK reports the error; what came before it was bounded
		case lexer.NEWLINE, lexer.SEMICOLON:
			if tok == lexer.SEMICOLON || !(body || awkContinues(prev)) {
				ended, body = true, false
				prev = tok
			}
			continue
		}
		top := &frames[len(frames)-1]
		if ended && tok != lexer.ELSE {
			height -= top.count
			top.count = 0
		}
		ended, body = false, false
		switch tok {
		case lexer.LPAREN, lexer.LBRACKET, lexer.LBRACE:
			header := tok == lexer.LPAREN && (prev == lexer.IF || prev == lexer.WHILE || prev == lexer.FOR)
			frames = append(frames, frame{header: header})
			height++
		case lexer.RPAREN, lexer.RBRACKET, lexer.RBRACE:
			if len(frames) > 1 {
				f := frames[len(frames)-1]
				frames = frames[:len(frames)-1]
				height -= f.count + 1
				body = f.header
				ended = tok == lexer.RBRACE // a block ends its statement (an else may follow)
			}
		default:
			top.count++
			height++
		}
		if height > sandbox.MaxNesting {
			return fmt.Errorf("the program nests deeper than %d levels at line %d (parentheses, operators and statements); the sandbox's awk refuses it before parsing; split the expression, or run the tool with \"exec\": \"native\"", sandbox.MaxNesting, pos.Line)
		}
		prev = tok
	}
}

// awkOperandExpected reports that a / after prev starts a regex, as GoAWK's parser decides.
func awkOperandExpected(prev lexer.Token) bool {
	switch prev {
	case lexer.NAME, lexer.NUMBER, lexer.STRING, lexer.REGEX, lexer.RPAREN, lexer.RBRACKET,
		lexer.DOLLAR, lexer.INCR, lexer.DECR, lexer.F_LENGTH:
		return false
	}
	return true
}

// awkContinues reports that a newline after prev continues the statement (awk's grammar
// allows newlines there).
func awkContinues(prev lexer.Token) bool {
	switch prev {
	case lexer.AND, lexer.OR, lexer.COMMA, lexer.LBRACE, lexer.DO, lexer.ELSE:
		return true
	}
	return false
}
