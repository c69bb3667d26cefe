// Package shquote produces Bash 5.2's quoted forms of strings: printf %q,
// ${x@Q}, and the declare -p, export -p, readonly -p, set and ${x@A} listings,
// so that their output matches Bash byte for byte.
//
// Bash decides what is printable by its locale; this package assumes a UTF-8
// locale (the sandbox runs with LANG=C.UTF-8): valid printable UTF-8 characters are
// kept, invalid bytes and control characters are written as octal escapes.
//
// Known limits: declare -f (function bodies) is not here; characters whose
// printability differs between Go's unicode tables and glibc's may be quoted
// differently.
package shquote

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// needsANSI reports whether s has a byte or character that must be written
// in $'...' form (Bash's ansic_shouldquote).
func needsANSI(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !printable(r) {
			return true
		}
		i += n
	}
	return false
}

func printable(r rune) bool {
	if r < 0x80 {
		return r >= 0x20 && r < 0x7f
	}
	return unicode.IsPrint(r) || unicode.In(r, unicode.Zs, unicode.Cf)
}

// ANSI quotes s as $'...' (Bash's ansic_quote).
func ANSI(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		c := s[i]
		switch {
		case r == utf8.RuneError && n <= 1:
			writeOctal(&b, c)
			n = 1
		case c == '\a':
			b.WriteString(`\a`)
		case c == '\b':
			b.WriteString(`\b`)
		case c == '\f':
			b.WriteString(`\f`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\v':
			b.WriteString(`\v`)
		case c == 0x1b:
			b.WriteString(`\E`)
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case !printable(r):
			for k := 0; k < n; k++ {
				writeOctal(&b, s[i+k])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

func writeOctal(b *strings.Builder, c byte) {
	b.WriteByte('\\')
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}

// backslashSpecial are the characters Bash's printf %q escapes anywhere.
const backslashSpecial = " \t\n!\"$&'()*,;<>?[\\]^`{|}"

// Printf quotes s as printf %q does: ” for empty, $'...' when s has
// non-printable characters, otherwise backslashes before special characters
// (# first, ~ first or after : or =).
func Printf(s string) string {
	if s == "" {
		return "''"
	}
	if needsANSI(s) {
		return ANSI(s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			b.WriteByte(c)
			continue
		}
		if strings.IndexByte(backslashSpecial, c) >= 0 ||
			c == '#' && i == 0 ||
			c == '~' && (i == 0 || s[i-1] == ':' || s[i-1] == '=') {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Single quotes s as ${x@Q} does: $'...' when s has non-printable
// characters, otherwise '...' with ' written as '\”.
func Single(s string) string {
	if needsANSI(s) {
		return ANSI(s)
	}
	if s == "'" {
		return `\'`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
