package eval

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// needsANSI reports whether bash would quote s as $'...': it holds control characters or
// bytes that are not valid UTF-8.
func needsANSI(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return true
		}
		if c < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return true
		}
		i += n
	}
	return false
}

// quoteANSI renders s as $'...'.
func quoteANSI(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case 0x1b:
			b.WriteString(`\E`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		default:
			if c < 0x20 || c == 0x7f {
				b.WriteString(octEsc(c))
				break
			}
			if c >= 0x80 {
				r, n := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && n <= 1 {
					b.WriteString(octEsc(c))
					i++
					continue
				}
				b.WriteString(s[i : i+n])
				i += n
				continue
			}
			b.WriteByte(c)
		}
		i++
	}
	b.WriteByte('\'')
	return b.String()
}

func octEsc(c byte) string {
	s := strconv.FormatInt(int64(c), 8)
	for len(s) < 3 {
		s = "0" + s
	}
	return `\` + s
}

// quoteSingle is ${x@Q}: '...' (or $'...').
func quoteSingle(s string) string {
	if needsANSI(s) {
		return quoteANSI(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteDouble is how declare -p shows a value: "..." (or $'...').
func quoteDouble(s string) string {
	if needsANSI(s) {
		return quoteANSI(s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '$', '`', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// quoteTrace quotes a word for xtrace output, only when it needs quoting.
func quoteTrace(s string) string {
	if s == "" {
		return "''"
	}
	if needsANSI(s) {
		return quoteANSI(s)
	}
	special := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\'', '"', '\\', '|', '&', ';', '(', ')', '<', '>', '!', '{', '}', '*', '[', '?', ']', '^', '$', '`':
			special = true
		case '~', '#':
			if i == 0 {
				special = true
			}
		}
	}
	if !special {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
