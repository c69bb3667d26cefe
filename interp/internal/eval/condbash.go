package eval

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// bashCondError finds a [[ ]] that bash's conditional parser rejects where mvdan's parser
// reads on: bash's lexer always takes a `]]` word as the end of the expression, mvdan's takes
// it as an operand (`[[ -z ]]`, `[[ a == ]]`) and fails lines later, in other words. It reads
// the one-line [[ ]] commands from src[from:] up to the line where mvdan's parser failed as bash 5.2's
// cond_term does and returns the first one bash fails: bash's message lines (none when bash
// prints nothing, as for `[[ ! ]]`) and the offset of the [[. ok is false when there is none,
// or when the text holds something this reader does not know (quotes are kept whole, but
// substitutions, newlines and redirection-like words make it give up).
func bashCondError(src string, from int, pe *syntax.ParseError) (lines []string, at int, ok bool) {
	// mvdan's parser reports an unclosed [[ at the [[ itself, and an operand error where it
	// read on: the [[ that bash fails is before the end of the error's line.
	off := min(int(pe.Pos.Offset()), len(src))
	to := len(src)
	if nl := strings.IndexByte(src[off:], '\n'); nl >= 0 {
		to = off + nl
	}
	lines, at, ok = firstBashCondError(src, from, to)
	if ok && strings.Contains(src[from:at], "<<") {
		return nil, 0, false // the [[ may be a here-document's text
	}
	if ok && at > off && !strings.Contains(pe.Text, "`[[`") {
		return nil, 0, false
	}
	return lines, at, ok
}

func firstBashCondError(src string, from, to int) (lines []string, at int, ok bool) {
	for i := from; i < to && i < len(src); i++ {
		k := strings.Index(src[i:to], "[[")
		if k < 0 {
			return nil, 0, false
		}
		i += k
		if !condCommandPosition(src, from, i) || (i+2 < len(src) && src[i+2] != ' ' && src[i+2] != '\t') {
			continue
		}
		c := &condReader{src: src, pos: i + 2}
		lines, failed, known := c.parse()
		if !known {
			return nil, 0, false
		}
		if failed {
			return lines, i, true
		}
		i = c.pos - 1
	}
	return nil, 0, false
}

// condCommandPosition tells whether the [[ at i starts a command: what precedes it on its
// line is nothing, a separator or a reserved word that a command follows.
func condCommandPosition(src string, from, i int) bool {
	before := strings.TrimRight(src[from:i], " \t")
	if before == "" || strings.ContainsAny(before[len(before)-1:], "\n;&|({") {
		return true
	}
	f := strings.Fields(before)
	switch f[len(f)-1] {
	case "!", "then", "do", "else", "elif", "if", "while", "until", "time":
		return true
	}
	return false
}

// condReader reads the tokens of a [[ ]] expression the way bash's lexer does inside one.
type condReader struct {
	src string
	pos int
	// tok is the last token read: a word, or one of ]] ( ) && || < > and "" at the end.
	tok    string
	isWord bool
}

// errUnknown stops the reading at text this reader does not model.
type condUnknown struct{}

// next reads a token; it panics with condUnknown at what it does not know.
func (c *condReader) next() {
	s := c.src
	for c.pos < len(s) && (s[c.pos] == ' ' || s[c.pos] == '\t') {
		c.pos++
	}
	if c.pos >= len(s) || s[c.pos] == '\n' || s[c.pos] == '#' {
		panic(condUnknown{})
	}
	for _, op := range []string{"&&", "||", "(", ")", "<", ">"} {
		if strings.HasPrefix(s[c.pos:], op) {
			c.tok, c.isWord, c.pos = op, false, c.pos+len(op)
			return
		}
	}
	start := c.pos
	for c.pos < len(s) {
		switch ch := s[c.pos]; ch {
		case ' ', '\t', '\n', ';', '&', '|':
			if c.pos == start {
				panic(condUnknown{}) // ; & | and a newline inside [[ ]]
			}
			goto done
		case '(', ')', '<', '>', '`':
			// A word that runs into an operator (3<, a), @(x)), or a command substitution:
			// bash's lexer decides.
			panic(condUnknown{})
		case '\\':
			c.pos += 2
		case '\'':
			e := strings.IndexByte(s[c.pos+1:], '\'')
			if e < 0 {
				panic(condUnknown{})
			}
			c.pos += e + 2
		case '"':
			c.pos = quotedEnd(s, c.pos+1)
		case '$':
			if c.pos+1 < len(s) && (s[c.pos+1] == '(' || s[c.pos+1] == '{' || s[c.pos+1] == '[' || s[c.pos+1] == '\'' || s[c.pos+1] == '"') {
				panic(condUnknown{})
			}
			c.pos++
		default:
			c.pos++
		}
	}
done:
	c.pos = min(c.pos, len(s))
	c.tok, c.isWord = s[start:c.pos], true
	if c.tok == "]]" {
		c.isWord = false
	}
}

// parse reads one expression after its [[: failed says bash rejects it, with lines its
// messages; known is false when the reading stopped at text it does not model.
func (c *condReader) parse() (lines []string, failed, known bool) {
	defer func() {
		if rec := recover(); rec != nil {
			if _, ok := rec.(condUnknown); !ok {
				panic(rec)
			}
			lines, failed, known = nil, false, false
		}
	}()
	lines, failed = c.expr(0)
	if !failed && c.tok != "]]" {
		if !c.isWord {
			panic(condUnknown{}) // bash: syntax error near the token
		}
		return []string{"syntax error in conditional expression"}, true, true
	}
	return lines, failed, true
}

// expr is bash's cond_or and cond_and: terms joined by && and ||.
func (c *condReader) expr(depth int) ([]string, bool) {
	for {
		if lines, failed := c.term(depth); failed {
			return lines, true
		}
		if c.tok != "&&" && c.tok != "||" {
			return nil, false
		}
	}
}

var condUnaryOps = map[string]bool{"-a": true, "-b": true, "-c": true, "-d": true, "-e": true, "-f": true,
	"-g": true, "-h": true, "-k": true, "-p": true, "-r": true, "-s": true, "-t": true, "-u": true, "-w": true,
	"-x": true, "-O": true, "-G": true, "-L": true, "-S": true, "-N": true, "-z": true, "-n": true, "-o": true,
	"-v": true, "-R": true}

var condBinaryOps = map[string]bool{"=": true, "==": true, "!=": true, "=~": true, "-nt": true, "-ot": true,
	"-ef": true, "-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true}

// term is bash's cond_term; it leaves the token after the term in c.tok.
func (c *condReader) term(depth int) ([]string, bool) {
	if depth > 64 {
		panic(condUnknown{}) // deeper ( and ! are left to the general refusal, never recursed into
	}
	c.next()
	switch {
	case c.tok == "]]":
		return nil, true // bash: COND_ERROR with no message
	case c.tok == "(":
		lines, failed := c.expr(depth + 1)
		if !failed && c.tok == ")" {
			c.next()
			return nil, false
		}
		if !failed && c.tok == "]]" {
			return append(lines, "unexpected token `]]', expected `)'"), true
		}
		if !failed {
			panic(condUnknown{})
		}
		return append(lines, "expected `)'"), true
	case c.isWord && c.tok == "!":
		return c.term(depth + 1)
	case c.isWord && condUnaryOps[c.tok]:
		c.next()
		if !c.isWord {
			return []string{"unexpected argument `" + c.tok + "' to conditional unary operator"}, true
		}
		c.next()
		return nil, false
	case c.isWord:
		c.next()
		switch {
		case c.isWord && condBinaryOps[c.tok], c.tok == "<", c.tok == ">":
		case c.tok == "]]", c.tok == "&&", c.tok == "||", c.tok == ")":
			return nil, false // [[ x ]] is [[ -n x ]]
		case c.isWord:
			return []string{"conditional binary operator expected"}, true
		default:
			panic(condUnknown{})
		}
		c.next()
		if !c.isWord {
			return []string{"unexpected argument `" + c.tok + "' to conditional binary operator"}, true
		}
		c.next()
		return nil, false
	}
	panic(condUnknown{})
}

// quotedEnd is the offset after the closing quote of a double-quoted text starting at i; it
// panics with condUnknown at a substitution or an unclosed quote.
func quotedEnd(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			return i + 1
		case '\\':
			i++
		case '`':
			panic(condUnknown{})
		case '$':
			if i+1 < len(s) && strings.IndexByte("({[", s[i+1]) >= 0 {
				panic(condUnknown{})
			}
		}
	}
	panic(condUnknown{})
}
