package sandbox

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Regular expressions from scripts and clients (grep, sed, find -regex, [[ =~ ]], ...) are
// compiled by Go's regexp, which matches in linear time but compiles in time that grows with
// the program it builds, and cannot be stopped: `x{1,100}` repeated 8,000 times (64 KiB)
// compiles 1.6 million instructions in seconds, and every \pL parses a Unicode table (20,000 of
// them take a second and a half). CompileRegexp bounds what it compiles before compiling it.
const (
	// MaxRegexpBytes bounds the expression's text.
	MaxRegexpBytes = 64 << 10
	// maxRegexpClasses bounds the Unicode classes (\pL, \p{Greek}, and what [[:alpha:]] and
	// case folding of letters make in a UTF-8 locale) an expression names.
	maxRegexpClasses = 256
	// maxRegexpInsts bounds the program's size, repetitions counted as expanded: about a
	// tenth of a second of compiling on a loaded machine.
	maxRegexpInsts = 100_000
)

// CompileRegexp is regexp.Compile for an expression a script or a client gave: one that would
// take more than a moment to compile is refused with an error that says so.
func CompileRegexp(expr string) (*regexp.Regexp, error) {
	if err := CheckRegexp(expr); err != nil {
		return nil, err
	}
	return regexp.Compile(expr)
}

// CheckRegexp refuses, as CompileRegexp does, an expression that would take more than a moment
// to compile, without compiling it (for compilers of our dependencies, such as GoAWK's for a
// dynamic regular expression). An expression that does not parse is not refused here: the
// compiler reports it.
func CheckRegexp(expr string) error {
	if len(expr) > MaxRegexpBytes {
		return regexpTooBig(fmt.Sprintf("%d bytes", len(expr)))
	}
	if n := strings.Count(expr, `\p`) + strings.Count(expr, `\P`); n > maxRegexpClasses {
		return regexpTooBig(fmt.Sprintf("%d Unicode classes", n))
	}
	if re, err := syntax.Parse(expr, syntax.Perl); err == nil {
		if n := regexpSize(re, maxRegexpInsts); n > maxRegexpInsts {
			return regexpTooBig("more than " + fmt.Sprint(maxRegexpInsts) + " instructions once its repetitions are expanded")
		}
	}
	return nil
}

func regexpTooBig(what string) error {
	return fmt.Errorf("regular expression too large for the sandbox (%s); simplify it, or run the tool with \"exec\": \"native\"", what)
}

// regexpSize estimates the instructions re compiles to, repetitions expanded, stopping past
// limit. Go's parser bounds the nesting (1,000), so the recursion is short.
func regexpSize(re *syntax.Regexp, limit int) int {
	n := 1
	switch re.Op {
	case syntax.OpCharClass:
		n += len(re.Rune) / 2
	case syntax.OpLiteral:
		n += len(re.Rune)
	case syntax.OpRepeat:
		times := re.Max
		if times < 0 {
			times = re.Min + 1
		}
		sub := regexpSize(re.Sub[0], limit)
		if times > 0 && sub > limit/times {
			return limit + 1
		}
		return n + sub*max(times, 1)
	}
	for _, s := range re.Sub {
		if n += regexpSize(s, limit); n > limit {
			return n
		}
	}
	return n
}
