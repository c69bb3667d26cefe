package builtins

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// grepMatcher is what grep asks of its pattern: *regexp.Regexp, or perlLook for grep -P's
// lookaround and \K, which RE2 lacks.
type grepMatcher interface {
	Match(b []byte) bool
	FindAllIndex(b []byte, n int) [][]int
}

// perlLook matches the grep -P forms tool scripts use to extract a value:
//
//	(?<=A)B(?=C)   (?<!A)B   B(?=C)   A\KB   (each part optional as written)
//
// as PCRE does: at each position from the left, the lookbehind A must (or must not) match
// ending there (A has a fixed length, as PCRE2 requires), then B followed by C is matched
// there, alternatives tried in PCRE's order (RE2's leftmost-first); the match is B alone.
// A\KB is the leftmost-first match of AB, reported from the end of A.
type perlLook struct {
	behind    *regexp.Regexp // (?:A)$ over the text before the position
	behindNeg bool
	core      *regexp.Regexp // ^(B)(?:C) over the text from the position
	keep      *regexp.Regexp // (?:A)(B) for \K
}

func (m *perlLook) Match(b []byte) bool { return len(m.FindAllIndex(b, 1)) > 0 }

func (m *perlLook) FindAllIndex(b []byte, n int) [][]int {
	var out [][]int
	if m.keep != nil {
		for _, loc := range m.keep.FindAllSubmatchIndex(b, n) {
			out = append(out, []int{loc[2], loc[3]})
		}
		return out
	}
	for p := 0; p <= len(b) && (n < 0 || len(out) < n); {
		if m.behind != nil && m.behind.Match(b[:p]) == m.behindNeg {
			p++
			continue
		}
		loc := m.core.FindSubmatchIndex(b[p:])
		if loc == nil {
			p++
			continue
		}
		out = append(out, []int{p + loc[2], p + loc[3]})
		if loc[3] > 0 {
			p += loc[3]
		} else {
			p++
		}
	}
	return out
}

var errPerlLook = errors.New("lookaround of this form")

// perlLookaround builds a perlLook when p uses lookaround or \K in one of its forms; handled
// is false when p has none (RE2 compiles it, or refuses it).
func perlLookaround(p, flags string, word, line bool) (m *perlLook, handled bool, err error) {
	if !strings.Contains(p, "(?<") && !strings.Contains(p, "(?=") && !strings.Contains(p, "(?!") && !strings.Contains(p, `\K`) {
		return nil, false, nil
	}
	if word || line {
		return nil, true, errors.New("-w or -x with lookaround or \\K")
	}
	behind, neg, rest := "", false, p
	if strings.HasPrefix(p, "(?<=") || strings.HasPrefix(p, "(?<!") {
		end := perlGroupEnd(p, 0)
		if end < 0 {
			return nil, true, errPerlLook
		}
		behind, neg, rest = p[4:end], p[3] == '!', p[end+1:]
	}
	ahead := ""
	if i := strings.LastIndex(rest, "(?="); i >= 0 && perlGroupEnd(rest, i) == len(rest)-1 {
		ahead, rest = rest[i+3:len(rest)-1], rest[:i]
	}
	keepA := ""
	if i := perlTopLevelK(rest); i >= 0 {
		if behind != "" || ahead != "" {
			return nil, true, errPerlLook
		}
		keepA, rest = rest[:i], rest[i+2:]
	}
	for _, part := range []string{behind, rest, ahead, keepA} {
		if strings.Contains(part, "(?<") || strings.Contains(part, "(?=") || strings.Contains(part, "(?!") || strings.Contains(part, `\K`) {
			return nil, true, errPerlLook
		}
	}
	m = &perlLook{behindNeg: neg}
	if keepA != "" || strings.HasPrefix(p, `\K`) {
		m.keep, err = sandbox.CompileRegexp(flags + "(?:" + keepA + ")(" + rest + ")")
		return m, true, err
	}
	if behind != "" {
		if err := perlFixedWidth(behind); err != nil {
			return nil, true, err
		}
		if m.behind, err = sandbox.CompileRegexp(flags + "(?:" + behind + ")$"); err != nil {
			return nil, true, err
		}
	}
	if err := perlNoLeadingAssertion(rest); err != nil {
		return nil, true, err
	}
	if m.core, err = sandbox.CompileRegexp(flags + "^(" + rest + ")(?:" + ahead + ")"); err != nil {
		return nil, true, err
	}
	return m, true, nil
}

// perlGroupEnd finds the ')' closing the group opening at p[i], past escapes and classes.
func perlGroupEnd(p string, i int) int {
	depth, inClass := 0, false
	for j := i; j < len(p); j++ {
		switch c := p[j]; {
		case c == '\\':
			j++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if j+1 < len(p) && p[j+1] == '^' {
				j++
			}
			if j+1 < len(p) && p[j+1] == ']' {
				j++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// perlTopLevelK finds a \K outside every group and class (-1: none).
func perlTopLevelK(p string) int {
	depth, inClass := 0, false
	for j := 0; j < len(p); j++ {
		switch c := p[j]; {
		case c == '\\':
			if !inClass && depth == 0 && j+1 < len(p) && p[j+1] == 'K' {
				return j
			}
			j++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
	}
	return -1
}

// perlFixedWidth refuses a lookbehind whose alternatives are not each of one length (PCRE2,
// as grep uses it, rejects them; matching them here would print what grep does not).
func perlFixedWidth(a string) error {
	re, err := syntax.Parse(a, syntax.Perl)
	if err != nil {
		return err
	}
	alts := []*syntax.Regexp{re}
	if re.Op == syntax.OpAlternate {
		alts = re.Sub
	}
	for _, alt := range alts {
		if _, ok := fixedWidth(alt); !ok {
			return errors.New("a lookbehind that is not of fixed length")
		}
	}
	return nil
}

func fixedWidth(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return len(re.Rune), true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpBeginText:
		return 0, true
	case syntax.OpCapture:
		return fixedWidth(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			w, ok := fixedWidth(s)
			if !ok {
				return 0, false
			}
			n += w
		}
		return n, true
	case syntax.OpAlternate:
		w := -1
		for _, s := range re.Sub {
			sw, ok := fixedWidth(s)
			if !ok || (w >= 0 && sw != w) {
				return 0, false
			}
			w = sw
		}
		return w, true
	case syntax.OpRepeat:
		if re.Min == re.Max {
			w, ok := fixedWidth(re.Sub[0])
			return w * re.Min, ok
		}
	}
	return 0, false
}

// perlNoLeadingAssertion refuses a core that starts with \b, \B or ^: it is matched from the
// position on, where those would not see the text before it.
func perlNoLeadingAssertion(b string) error {
	re, err := syntax.Parse(b, syntax.Perl)
	if err != nil {
		return err
	}
	if leadingAssertion(re) {
		return errors.New("\\b, \\B or ^ at the start of what follows a lookbehind")
	}
	return nil
}

func leadingAssertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginLine, syntax.OpBeginText:
		return true
	case syntax.OpConcat, syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		return len(re.Sub) > 0 && leadingAssertion(re.Sub[0])
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if leadingAssertion(s) {
				return true
			}
		}
	}
	return false
}
