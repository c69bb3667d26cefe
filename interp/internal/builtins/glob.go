package builtins

import (
	"strings"
	"unicode/utf8"
)

// globMatch is fnmatch(3) without flags: * and ? match any character including '/', [...]
// classes accept ! or ^ for negation and [:class:], and \ escapes. find -path needs '*' to
// cross '/', which path.Match does not do.
func globMatch(pattern, s string, icase bool) bool {
	if icase {
		pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	}
	return globAt(pattern, s)
}

func globAt(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if globAt(p, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			_, n := utf8.DecodeRuneInString(s)
			p, s = p[1:], s[n:]
		case '[':
			if s == "" {
				return false
			}
			r, n := utf8.DecodeRuneInString(s)
			ok, rest, valid := globClass(p, r)
			if !valid {
				if s[0] != '[' {
					return false
				}
				p, s = p[1:], s[1:]
				continue
			}
			if !ok {
				return false
			}
			p, s = rest, s[n:]
		case '\\':
			if len(p) > 1 {
				p = p[1:]
			}
			fallthrough
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}

// globClass matches r against the bracket expression at the start of p; valid is false when
// p has no closing bracket (then '[' is literal).
func globClass(p string, r rune) (matched bool, rest string, valid bool) {
	i := 1
	negate := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negate {
		i++
	}
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return matched != negate, p[i+1:], true
		}
		first = false
		if p[i] == '[' && i+1 < len(p) && p[i+1] == ':' {
			if end := strings.Index(p[i:], ":]"); end > 0 {
				if f, ok := trClasses[p[i+2:i+end]]; ok && r < 256 && f(byte(r)) {
					matched = true
				}
				i += end + 2
				continue
			}
		}
		lo, n := utf8.DecodeRuneInString(p[i:])
		if p[i] == '\\' && i+1 < len(p) {
			lo, n = utf8.DecodeRuneInString(p[i+1:])
			n++
		}
		i += n
		hi := lo
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			h, m := utf8.DecodeRuneInString(p[i+1:])
			hi = h
			i += 1 + m
		}
		if r >= lo && r <= hi {
			matched = true
		}
	}
	return false, "", false
}
