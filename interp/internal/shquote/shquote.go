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

// Limits bound the quoting of long values (a tool's variable may hold a hundred
// megabytes, quoted up to four times as long): Room is asked for the exact size of
// the result before it is made, and Stop after every stopEvery bytes of input read,
// while measuring and while writing; an error of either ends the quoting with it.
// The zero Limits bound nothing (short texts: traps, aliases, xtrace).
type Limits struct {
	Room func(bytes int64) error
	Stop func() error
}

// stopEvery is how much input is read between two questions to Limits.Stop.
const stopEvery = 64 << 10

// bounded reports whether the quoting must measure and ask first.
func (l Limits) bounded() bool { return l.Room != nil || l.Stop != nil }

// quote runs f twice when l bounds something: once counting the result's bytes, which
// Room is asked for, then writing it into a buffer of exactly that size.
func (l Limits) quote(f func(w *writer)) (string, error) {
	if !l.bounded() {
		w := &writer{}
		f(w)
		return w.b.String(), nil
	}
	c := &writer{l: l, counting: true}
	f(c)
	if c.err != nil {
		return "", c.err
	}
	if l.Room != nil {
		if err := l.Room(int64(c.n)); err != nil {
			return "", err
		}
	}
	w := &writer{l: l}
	w.b.Grow(c.n)
	f(w)
	if w.err != nil {
		return "", w.err
	}
	return w.b.String(), nil
}

// writer counts or writes a quoting's output. After an error (err) it writes nothing
// more and the loops that feed it stop.
type writer struct {
	l        Limits
	counting bool
	n        int // bytes counted
	b        strings.Builder
	read     int // input bytes read since the last Stop
	err      error
}

func (w *writer) str(s string) {
	if w.counting {
		w.n += len(s)
	} else if w.err == nil {
		w.b.WriteString(s)
	}
}

func (w *writer) byte(c byte) {
	if w.counting {
		w.n++
	} else if w.err == nil {
		w.b.WriteByte(c)
	}
}

// step records n bytes of input read and asks Stop every stopEvery; false once the
// quoting must end.
func (w *writer) step(n int) bool {
	if w.err != nil {
		return false
	}
	if w.read += n; w.read >= stopEvery {
		w.read = 0
		if w.l.Stop != nil {
			w.err = w.l.Stop()
		}
	}
	return w.err == nil
}

// needsANSI reports whether s has a byte or character that must be written
// in $'...' form (Bash's ansic_shouldquote).
func (w *writer) needsANSI(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
		} else {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 || !printable(r) {
				return true
			}
			i += n
		}
		if i&(stopEvery-1) == 0 && !w.step(stopEvery) {
			return false
		}
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
func ANSI(s string) string { return must(Limits{}.ANSI(s)) }

// ANSI is the package's ANSI within l.
func (l Limits) ANSI(s string) (string, error) { return l.quote(func(w *writer) { w.ansi(s) }) }

// must is the result of a quoting that bounds nothing (it cannot fail).
func must(s string, _ error) string { return s }

// ansiPlain are the bytes $'...' keeps as they are: printable ASCII but \ and '.
var ansiPlain = func() (set [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		set[c] = c != '\\' && c != '\''
	}
	return set
}()

func (w *writer) ansi(s string) {
	w.str("$'")
	for i := 0; i < len(s); {
		c := s[i]
		n := 1
		if ansiPlain[c] {
			// A run of plain bytes is written at once (to the next stop at most).
			for n < len(s)-i && ansiPlain[s[i+n]] && (i+n)&(stopEvery-1) != 0 {
				n++
			}
			w.str(s[i : i+n])
		} else {
			n = w.ansiChar(s, i)
		}
		if (i+n)&^(stopEvery-1) != i&^(stopEvery-1) && !w.step(stopEvery) {
			return
		}
		i += n
	}
	w.byte('\'')
}

// ansiChar writes the character of s at i, which is not plain, and returns its length.
func (w *writer) ansiChar(s string, i int) int {
	switch c := s[i]; {
	case c == '\a':
		w.str(`\a`)
	case c == '\b':
		w.str(`\b`)
	case c == '\f':
		w.str(`\f`)
	case c == '\n':
		w.str(`\n`)
	case c == '\r':
		w.str(`\r`)
	case c == '\t':
		w.str(`\t`)
	case c == '\v':
		w.str(`\v`)
	case c == 0x1b:
		w.str(`\E`)
	case c == '\\' || c == '\'':
		w.byte('\\')
		w.byte(c)
	case c < utf8.RuneSelf:
		w.octal(c) // a control character (printable ones are plain)
	default:
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			w.octal(c)
		case !printable(r):
			for j := 0; j < n; j++ {
				w.octal(s[i+j])
			}
			return n
		default:
			w.str(s[i : i+n])
			return n
		}
	}
	return 1
}

func (w *writer) octal(c byte) {
	w.byte('\\')
	w.byte('0' + c>>6)
	w.byte('0' + c>>3&7)
	w.byte('0' + c&7)
}

// backslashSpecial are the characters Bash's printf %q escapes anywhere.
const backslashSpecial = " \t\n!\"$&'()*,;<>?[\\]^`{|}"

// Printf quotes s as printf %q does: ” for empty, $'...' when s has
// non-printable characters, otherwise backslashes before special characters
// (# first, ~ first or after : or =).
func Printf(s string) string { return must(Limits{}.Printf(s)) }

// Printf is the package's Printf within l.
func (l Limits) Printf(s string) (string, error) { return l.quote(func(w *writer) { w.printf(s) }) }

func (w *writer) printf(s string) {
	if s == "" {
		w.str("''")
		return
	}
	if w.needsANSI(s) {
		w.ansi(s)
		return
	}
	from := 0 // the start of the text not yet written
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (strings.IndexByte(backslashSpecial, c) >= 0 ||
			c == '#' && i == 0 ||
			c == '~' && (i == 0 || s[i-1] == ':' || s[i-1] == '=')) {
			w.str(s[from:i])
			w.byte('\\')
			from = i
		}
		if i&(stopEvery-1) == stopEvery-1 && !w.step(stopEvery) {
			return
		}
	}
	w.str(s[from:])
}

// Single quotes s as ${x@Q} does: $'...' when s has non-printable
// characters, otherwise '...' with ' written as '\”.
func Single(s string) string { return must(Limits{}.Single(s)) }

// Single is the package's Single within l.
func (l Limits) Single(s string) (string, error) { return l.quote(func(w *writer) { w.single(s) }) }

func (w *writer) single(s string) {
	if w.needsANSI(s) {
		w.ansi(s)
		return
	}
	if s == "'" {
		w.str(`\'`)
		return
	}
	w.byte('\'')
	w.escaped(s, &singleSpecial, `'\''`, "")
	w.byte('\'')
}

// singleSpecial and doubleSpecial are the bytes a '...' and a "..." quoting escape.
var (
	singleSpecial = byteSet("'")
	doubleSpecial = byteSet("\"$`\\")
)

func byteSet(s string) (set [256]bool) {
	for i := 0; i < len(s); i++ {
		set[s[i]] = true
	}
	return set
}

// escaped writes s with every byte of set replaced by replace, or, when replace is
// empty, preceded by before.
func (w *writer) escaped(s string, set *[256]bool, replace, before string) {
	for len(s) > 0 {
		chunk := s[:min(len(s), stopEvery)]
		s = s[len(chunk):]
		if w.counting {
			k := 0
			for i := 0; i < len(chunk); i++ {
				if set[chunk[i]] {
					k++
				}
			}
			w.n += len(chunk) + k*max(len(replace)-1, len(before))
			if !w.step(len(chunk)) {
				return
			}
			continue
		}
		from := 0
		for i := 0; i < len(chunk); i++ {
			if !set[chunk[i]] {
				continue
			}
			w.str(chunk[from:i])
			if replace != "" {
				w.str(replace)
				from = i + 1
			} else {
				w.str(before)
				from = i
			}
		}
		w.str(chunk[from:])
		if !w.step(len(chunk)) {
			return
		}
	}
}
