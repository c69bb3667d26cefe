package pattern

import (
	"strings"
	"unicode"
)

// bracket is a parsed [...] expression.
type bracket struct {
	negate  bool
	chars   []rune
	ranges  [][2]rune
	classes []string
	never   bool // an invalid class name: matches nothing
}

// parseBracket parses a bracket expression at s[0] == '['. It returns 0 when
// the bracket is not closed (the '[' is then a literal character).
func parseBracket(s string, opts Options) (*bracket, int) {
	b := &bracket{}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.negate = true
		i++
	}
	first := true
	for i < len(s) {
		c := s[i]
		if c == ']' && !first {
			return b, i + 1
		}
		first = false
		if c == '[' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == '=' || s[i+1] == '.') {
			delim := s[i+1]
			end := strings.Index(s[i+2:], string(delim)+"]")
			if end >= 0 {
				name := s[i+2 : i+2+end]
				i += end + 4
				switch delim {
				case ':':
					if classFunc(name) == nil {
						b.never = true
					} else {
						b.classes = append(b.classes, name)
					}
				default:
					if name != "" {
						r, _ := decode(name, 0, opts.Bytes)
						b.chars = append(b.chars, r)
					}
				}
				continue
			}
		}
		if c == '\\' && i+1 < len(s) {
			i++
		}
		lo, n := decode(s, i, opts.Bytes)
		i += n
		// a range lo-hi, unless '-' is last
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			j := i + 1
			if s[j] == '\\' && j+1 < len(s) {
				j++
			}
			hi, m := decode(s, j, opts.Bytes)
			b.ranges = append(b.ranges, [2]rune{lo, hi})
			i = j + m
			continue
		}
		b.chars = append(b.chars, lo)
	}
	return nil, 0
}

func (b *bracket) matches(r rune, nocase bool) bool {
	return b.in(r, nocase) != b.negate
}

func (b *bracket) in(r rune, nocase bool) bool {
	if b.never {
		return false
	}
	for _, c := range b.chars {
		if c == r || nocase && foldEq(c, r) {
			return true
		}
	}
	for _, rg := range b.ranges {
		if inRange(r, rg) || nocase && r >= 0 && (inRange(unicode.ToLower(r), rg) || inRange(unicode.ToUpper(r), rg)) {
			return true
		}
	}
	if r < 0 {
		return false
	}
	for _, name := range b.classes {
		if classFunc(name)(r) {
			return true
		}
	}
	return false
}

func inRange(r rune, rg [2]rune) bool { return rg[0] >= 0 && rg[1] >= 0 && r >= rg[0] && r <= rg[1] }

func isASCIIPunct(r rune) bool {
	return r < 0x80 && r > 0x20 && r < 0x7f && !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
}

// classFunc returns the predicate of a POSIX class (nil for an unknown name).
func classFunc(name string) func(rune) bool {
	alpha := func(r rune) bool {
		if r < 0x80 {
			return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		}
		return unicode.IsLetter(r)
	}
	digit := func(r rune) bool { return r >= '0' && r <= '9' }
	space := func(r rune) bool {
		if r < 0x80 {
			return r == ' ' || r >= '\t' && r <= '\r'
		}
		return unicode.IsSpace(r) && r != 0x85 && r != 0xa0 && r != 0x2007 && r != 0x202f
	}
	print := func(r rune) bool {
		if r < 0x80 {
			return r >= 0x20 && r < 0x7f
		}
		return unicode.IsPrint(r) || unicode.Is(unicode.Zs, r)
	}
	switch name {
	case "alpha":
		return alpha
	case "digit":
		return digit
	case "alnum":
		return func(r rune) bool { return alpha(r) || digit(r) }
	case "word":
		return func(r rune) bool { return alpha(r) || digit(r) || r == '_' }
	case "upper":
		return func(r rune) bool {
			if r < 0x80 {
				return r >= 'A' && r <= 'Z'
			}
			return unicode.IsUpper(r)
		}
	case "lower":
		return func(r rune) bool {
			if r < 0x80 {
				return r >= 'a' && r <= 'z'
			}
			return unicode.IsLower(r)
		}
	case "space":
		return space
	case "blank":
		return func(r rune) bool {
			return r == ' ' || r == '\t' || r >= 0x80 && unicode.Is(unicode.Zs, r) && r != 0xa0 && r != 0x2007 && r != 0x202f
		}
	case "punct":
		return func(r rune) bool {
			if r < 0x80 {
				return isASCIIPunct(r)
			}
			return print(r) && !alpha(r) && !unicode.IsDigit(r) && !space(r)
		}
	case "print":
		return print
	case "graph":
		return func(r rune) bool { return print(r) && !space(r) }
	case "cntrl":
		return func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 }
	case "xdigit":
		return func(r rune) bool { return digit(r) || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' }
	}
	return nil
}
