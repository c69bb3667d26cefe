package builtins

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// errBackref is returned for \1..\9 in a pattern: RE2 cannot match backreferences.
var errBackref = errors.New("backreferences are not supported (the sandbox uses RE2 regular expressions)")

// toRE2 translates a POSIX regular expression (basic when ere is false, with the GNU
// extensions \+ \? \| \< \> \` \') into RE2 syntax. POSIX bracket expressions keep backslash
// literal, so it is escaped there.
func toRE2(p string, ere bool) (string, error) { return toRE2In(p, ere, false) }

// toRE2In is toRE2 for a locale: in a UTF-8 one, [:alpha:] [:upper:] [:lower:] [:alnum:] and
// \w \W take in the non-ASCII letters (and, for alpha, the non-ASCII digits) as glibc's
// classes do; in the C locale they are ASCII.
func toRE2In(p string, ere, utf8 bool) (string, error) {
	var b strings.Builder
	atStart := true // where a BRE '*' is literal
	for i := 0; i < len(p); i++ {
		c := p[i]
		start := atStart
		atStart = false
		switch {
		case c == '[':
			j := bracketEnd(p, i)
			if j < 0 {
				return "", errors.New("unmatched [, [^, [:, [., or [=")
			}
			b.WriteString(bracketToRE2In(p[i:j+1], utf8))
			i = j
		case c == '\\' && i+1 < len(p):
			i++
			n := p[i]
			switch {
			case n >= '1' && n <= '9':
				return "", errBackref
			case n == '<' || n == '>':
				b.WriteString(`\b`)
			case n == '`':
				b.WriteString(`\A`)
			case n == '\'':
				b.WriteString(`\z`)
			case !ere && strings.IndexByte("(){}|+?", n) >= 0:
				b.WriteByte(n)
				atStart = n == '(' || n == '|'
			case n == 'n':
				b.WriteString(`\n`)
			case n == 't':
				b.WriteString(`\t`)
			case utf8 && (n == 'w' || n == 'W'):
				b.WriteString(map[byte]string{'w': "[", 'W': "[^"}[n] + utf8Class("alnum") + "_]")
			case strings.IndexByte("wWsSbB", n) >= 0:
				b.WriteByte('\\')
				b.WriteByte(n)
			case isRegexMeta(n) || n == '/' || n == '-':
				b.WriteString(regexp.QuoteMeta(string(n)))
			default:
				// GNU treats other escaped characters as themselves.
				b.WriteString(regexp.QuoteMeta(string(n)))
			}
		case !ere && strings.IndexByte("(){}|+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '*' && (start || (ere && b.Len() == 0)):
			b.WriteString(`\*`)
		case ere && c == '{' && !validInterval(p[i:]):
			b.WriteString(`\{`)
		case c == '^' && !ere && !start:
			// A BRE anchors with ^ only at its start (or after \( or \|): elsewhere it is itself.
			b.WriteString(`\^`)
		case c == '^':
			b.WriteByte(c)
			atStart = true
		case c == '$' && !ere && i+1 < len(p) && !strings.HasPrefix(p[i+1:], `\)`) && !strings.HasPrefix(p[i+1:], `\|`):
			// ... and with $ only at its end (or before \) or \|).
			b.WriteString(`\$`)
		case ere && (c == '(' || c == '|'):
			b.WriteByte(c)
			atStart = c == '(' || c == '|'
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isRegexMeta(c byte) bool { return strings.IndexByte(`\.+*?()|[]{}^$`, c) >= 0 }

// validInterval reports whether s starts with an ERE interval {m}, {m,}, {,n} or {m,n}.
func validInterval(s string) bool {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return false
	}
	body := s[1:end]
	if body == "" {
		return false
	}
	for _, r := range body {
		if (r < '0' || r > '9') && r != ',' {
			return false
		}
	}
	return strings.Count(body, ",") <= 1
}

// bracketEnd finds the ']' closing the bracket expression opening at p[i].
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		switch {
		case p[j] == '[' && j+1 < len(p) && strings.IndexByte(":.=", p[j+1]) >= 0:
			close := strings.Index(p[j+2:], string(p[j+1])+"]")
			if close < 0 {
				return -1
			}
			j += 2 + close + 1
		case p[j] == ']':
			return j
		}
	}
	return -1
}

// bracketToRE2In rewrites a POSIX bracket expression for RE2: backslashes are literal in POSIX,
// and a leading ']' is a literal.
func bracketToRE2In(s string, utf8 bool) string {
	var b strings.Builder
	b.WriteByte('[')
	i := 1
	if i < len(s)-1 && s[i] == '^' {
		b.WriteByte('^')
		i++
	}
	if i < len(s)-1 && s[i] == ']' {
		b.WriteString(`\]`)
		i++
	}
	for ; i < len(s)-1; i++ {
		c := s[i]
		switch {
		case c == '[' && i+1 < len(s) && s[i+1] == ':':
			end := strings.Index(s[i:], ":]")
			if u := utf8Class(s[i+2 : i+end]); utf8 && u != "" {
				b.WriteString(u)
			} else {
				b.WriteString(s[i : i+end+2])
			}
			i += end + 1
		case c == '[' && i+1 < len(s) && (s[i+1] == '.' || s[i+1] == '='):
			// [.c.] and [=c=] name one character.
			end := strings.Index(s[i+2:], string(s[i+1])+"]")
			b.WriteString(regexp.QuoteMeta(s[i+2 : i+2+end]))
			i += 2 + end + 1
		case c == '\\' || c == '[':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(']')
	return b.String()
}

// perlToRE2 adapts a grep -P pattern to RE2, whose Perl syntax it shares but for \s: PCRE2's
// matches a vertical tab too. Constructs RE2 lacks fail to compile (the caller refuses them).
func perlToRE2(p string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			i++
			switch {
			case n == 's' && inClass:
				b.WriteString(`\t\n\v\f\r `)
			case n == 's':
				b.WriteString(`[\t\n\v\f\r ]`)
			case n == 'S' && inClass:
				return "", errors.New("\\S inside a bracket expression is not available in the sandbox's grep -P (write [^...] with the characters)")
			case n == 'S':
				b.WriteString(`[^\t\n\v\f\r ]`)
			case n == 'Q':
				// \Q...\E: copied through untouched (RE2 has it).
				end := strings.Index(p[i+1:], `\E`)
				if end < 0 {
					b.WriteString(p[i-1:])
					return b.String(), nil
				}
				b.WriteString(p[i-1 : i+1+end+2])
				i += end + 2
			default:
				b.WriteByte(c)
				b.WriteByte(n)
			}
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' first in the class (after an optional '^') is literal.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == '[' && inClass && i+1 < len(p) && p[i+1] == ':':
			end := strings.Index(p[i:], ":]")
			if end < 0 {
				b.WriteString(p[i:])
				return b.String(), nil
			}
			b.WriteString(p[i : i+end+2])
			i += end + 1
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// utf8Class is the body of a bracket expression for a POSIX class in a UTF-8 locale ("" for
// the classes left ASCII): letters of every script, and for alpha the digits of scripts
// other than ASCII, as glibc's C.UTF-8 has them.
func utf8Class(name string) string {
	switch name {
	case "alpha":
		return `\p{L}\p{Nl}` + otherDigits()
	case "alnum":
		return `0-9\p{L}\p{Nl}` + otherDigits()
	case "upper":
		return `\p{Lu}\p{Lt}`
	case "lower":
		return `\p{Ll}`
	}
	return ""
}

// otherDigits lists the decimal digits outside ASCII as class ranges.
var otherDigits = sync.OnceValue(func() string {
	var b strings.Builder
	put := func(lo, hi, stride uint32) {
		for c := lo; c <= hi; c += stride {
			if stride == 1 {
				fmt.Fprintf(&b, `\x{%x}-\x{%x}`, lo, hi)
				return
			}
			fmt.Fprintf(&b, `\x{%x}`, c)
		}
	}
	for _, r := range unicode.Nd.R16 {
		if r.Hi >= 0x80 {
			put(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
		}
	}
	for _, r := range unicode.Nd.R32 {
		put(r.Lo, r.Hi, r.Stride)
	}
	return b.String()
})
