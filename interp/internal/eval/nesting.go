package eval

import (
	"fmt"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// MaxNesting bounds how deeply brackets may nest in any text the evaluator parses (scripts,
// sourced files, eval and trap strings, subscripts re-read at run time). The parser recurses
// once or more per level and a Go stack overflow cannot be recovered: it ends the process.
// Real scripts nest a few dozen levels.
const MaxNesting = sandbox.MaxNesting

// NestingError is text nested too deeply to parse safely.
type NestingError struct {
	Name  string
	Line  int // where the text first nests past the limit
	Depth int
}

func (e *NestingError) Error() string {
	return fmt.Sprintf("%s: line %d: nested %d deep exceed the sandbox's limit of %d (counting brackets, compound commands, pipelines and && || lists); "+
		"split the construct (a function per level, shorter pipelines and && || lists), or run the tool with \"exec\": \"native\"",
		e.Name, e.Line, e.Depth, MaxNesting)
}

// checkNesting returns a *NestingError when s could nest deeper than MaxNesting, counted
// without regard to quoting (an over-estimate is harmless at this bound). The parser and every
// walk of what it builds (the static check, the evaluator) recurse per level of brackets, of
// compound commands (if, while, until, for, select, case), and per operator of a pipeline or
// an && || list, which nest without brackets (`:|:|:|...` of 800 KB ended the process): each
// bracket or keyword opens a level, and each | or & of the statement being read counts one in
// its level until a ; or a newline ends the statement (not one after | or &, which continues it).
func checkNesting(name, s string) error {
	if len(s) < MaxNesting {
		return nil
	}
	counts := []int{0} // per open level: the operators of its statement being read
	depth, deepest := 1, 1
	line, past := 1, 0 // the line being read, and the first where depth passed the limit
	prev := byte(';')  // the last character that was not a blank
	open := func() {
		counts = append(counts, 0)
		depth++
	}
	closeLevel := func() {
		if len(counts) > 1 {
			depth -= counts[len(counts)-1] + 1
			counts = counts[:len(counts)-1]
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '(', '{', '[':
			open()
		case ')', '}', ']':
			closeLevel()
		case '|', '&':
			counts[len(counts)-1]++
			depth++
		case ';', '\n':
			if prev != '|' && prev != '&' {
				depth -= counts[len(counts)-1]
				counts[len(counts)-1] = 0
			}
		default:
			if isWordByte(c) && (i == 0 || !isWordByte(s[i-1])) {
				j := i
				for j < len(s) && isWordByte(s[j]) {
					j++
				}
				switch s[i:j] {
				case "if", "while", "until", "for", "select", "case":
					open()
				case "fi", "done", "esac":
					closeLevel()
				}
				i = j - 1
			}
		}
		if c != ' ' && c != '\t' {
			prev = c
		}
		if c == '\n' {
			line++
		}
		deepest = max(deepest, depth)
		if deepest > MaxNesting && past == 0 {
			past = line
		}
	}
	if deepest > MaxNesting {
		return &NestingError{Name: name, Line: past, Depth: deepest}
	}
	return nil
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
