package eval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/interp/internal/shquote"
)

// needsANSI reports whether bash would quote s as $'...': it holds control characters or
// bytes that are not valid UTF-8.
func needsANSI(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < 0x80 {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !(unicode.IsPrint(r) || unicode.Is(unicode.Zs, r)) {
			return true
		}
		i += n
	}
	return false
}

// quoteSingle is ${x@Q}: '...' (or $'...').
func quoteSingle(s string) string { return shquote.Single(s) }

// quoteTrace quotes a word for xtrace output, only when it needs quoting.
func quoteTrace(s string) string {
	switch {
	case s == "":
		return "''"
	case s == "'":
		return `\'`
	case shquote.HasMetas(s):
		// Bash 5.2 checks for shell metacharacters first: a word with one is single-quoted
		// even when it holds a newline, a tab or another control character.
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	case needsANSI(s):
		return shquote.ANSI(s)
	}
	return s
}
