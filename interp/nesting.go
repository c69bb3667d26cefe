package interp

import "fmt"

// maxNesting bounds how deeply brackets may nest in any source the interpreter is about to
// parse (the script, `source`d files, and the text of eval, let, trap, alias and unset). The
// parser recurses once or more per level, and a Go stack overflow is fatal to the whole
// process (it cannot be recovered): `eval "$(( (((...1...))) ))"` with a million levels took the
// server down. Real scripts nest a few dozen levels.
const maxNesting = 10000

// nestingDepth is the deepest run of unclosed ( { [ in s, counted without regard to quoting
// (an over-estimate is harmless at this bound).
func nestingDepth(s string) int {
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
	return deepest
}

// nestingError reports source nested too deeply to parse safely, or nil.
func nestingError(what, s string) error {
	if len(s) < maxNesting {
		return nil
	}
	if d := nestingDepth(s); d > maxNesting {
		return fmt.Errorf("%s: brackets nested %d deep exceed the sandbox's limit of %d", what, d, maxNesting)
	}
	return nil
}

// parsingBuiltins parse (some of) their arguments as shell code or arithmetic.
var parsingBuiltins = map[string]bool{"eval": true, "let": true, "trap": true, "alias": true, "unset": true,
	"declare": true, "typeset": true, "local": true, "export": true, "readonly": true}

// deepArgs refuses a parsing builtin (also behind `builtin`/`command`) whose arguments nest too
// deeply; it returns the refusal message or "".
func deepArgs(args []string) string {
	i := 0
	for i < len(args)-1 && (args[i] == "builtin" || args[i] == "command") {
		i++
	}
	if !parsingBuiltins[args[i]] {
		return ""
	}
	for _, a := range args[i+1:] {
		if err := nestingError(args[i], a); err != nil {
			return err.Error()
		}
	}
	return ""
}
