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
	Depth int
}

func (e *NestingError) Error() string {
	return fmt.Sprintf("%s: brackets nested %d deep exceed the sandbox's limit of %d", e.Name, e.Depth, MaxNesting)
}

// checkNesting returns a *NestingError when s nests ( { [ deeper than MaxNesting, counted
// without regard to quoting (an over-estimate is harmless at this bound).
func checkNesting(name, s string) error {
	if len(s) < MaxNesting {
		return nil
	}
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[':
			depth++
			deepest = max(deepest, depth)
		case ')', '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	if deepest > MaxNesting {
		return &NestingError{Name: name, Depth: deepest}
	}
	return nil
}
