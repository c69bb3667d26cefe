package sandbox

import (
	"context"
	"io"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// Go's matcher is linear in its subject but cannot be stopped: over a line of tens of megabytes
// one search runs for seconds (`sed ':a;s/.*/&&/;ba'` answered 20 s after a 2 s timeout,
// issue 27). Past longSubject bytes the first match is searched through a RuneReader that ends
// the subject when the call ends: the same match (a reader's search starts at the subject's
// start, as these do), found by the same machine, and the call's end comes within 64 KiB of
// reading.
const longSubject = 1 << 20

// MatchString is re.MatchString(s), or ctx's error once it ends.
func MatchString(ctx context.Context, re *regexp.Regexp, s string) (bool, error) {
	if len(s) < longSubject {
		return re.MatchString(s), nil
	}
	in := &ctxRunes{ctx: ctx, s: s}
	ok := re.MatchReader(in)
	return ok && in.err == nil, in.err
}

// Match is re.Match(b), or ctx's error once it ends.
func Match(ctx context.Context, re *regexp.Regexp, b []byte) (bool, error) {
	if len(b) < longSubject {
		return re.Match(b), nil
	}
	in := &ctxRunes{ctx: ctx, b: b, bytes: true}
	ok := re.MatchReader(in)
	return ok && in.err == nil, in.err
}

// FindStringSubmatchIndex is re.FindStringSubmatchIndex(s), or ctx's error once it ends.
func FindStringSubmatchIndex(ctx context.Context, re *regexp.Regexp, s string) ([]int, error) {
	if len(s) < longSubject {
		return re.FindStringSubmatchIndex(s), nil
	}
	in := &ctxRunes{ctx: ctx, s: s}
	m := re.FindReaderSubmatchIndex(in)
	if in.err != nil {
		return nil, in.err
	}
	return m, nil
}

// LongSubject reports whether matching s may take long enough to need the call's end checked.
func LongSubject(n int) bool { return n >= longSubject }

// ctxRunes reads s (or b) rune by rune as the matcher's string input decodes it, and ends it
// (io.EOF, with err set) once ctx ends.
type ctxRunes struct {
	ctx   context.Context
	s     string
	b     []byte
	bytes bool
	i, n  int
	err   error
}

func (r *ctxRunes) ReadRune() (rune, int, error) {
	if r.n&0xffff == 0 && r.err == nil {
		r.err = r.ctx.Err()
	}
	r.n++
	if r.err != nil {
		return 0, 0, io.EOF
	}
	var c byte
	if r.bytes {
		if r.i >= len(r.b) {
			return 0, 0, io.EOF
		}
		c = r.b[r.i]
	} else {
		if r.i >= len(r.s) {
			return 0, 0, io.EOF
		}
		c = r.s[r.i]
	}
	if c < utf8.RuneSelf {
		r.i++
		return rune(c), 1, nil
	}
	var ch rune
	var size int
	if r.bytes {
		ch, size = utf8.DecodeRune(r.b[r.i:])
	} else {
		ch, size = utf8.DecodeRuneInString(r.s[r.i:])
	}
	r.i += size
	return ch, size, nil
}

// FindAllStringSubmatchIndex is re.FindAllStringSubmatchIndex(s, n), or ctx's error once it
// ends; longest tells that re was made leftmost-longest (re.Longest, which re does not tell).
// Past longSubject bytes the matches are searched one at a time, each on the rest of s, with
// ctx checked between them and through each search (a loop over a long subject's matches ran
// on after its call had ended: a single search is linear in what it reads, but FindAll makes
// as many as there are matches, and each may read to the end). Searching the rest of s is
// searching s from that offset only for an expression that does not look at what precedes its
// match (^, \b, \B): such an expression is searched from the rune before the offset, behind
// an expression that reads that rune first (behind), so that it sees what precedes.
func FindAllStringSubmatchIndex(ctx context.Context, re *regexp.Regexp, s string, n int, longest bool) ([][]int, error) {
	if len(s) < longSubject || n == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return re.FindAllStringSubmatchIndex(s, n), nil
	}
	var behind *regexp.Regexp
	if looksBehind(re) {
		var err error
		if behind, err = regexp.Compile(`(?s:.)(?:` + re.String() + `)`); err != nil {
			return nil, err // re compiled: so does this; a test holds it
		}
		if longest {
			behind.Longest()
		}
	}
	var all [][]int
	err := eachMatch(ctx, s, func(pos int) ([]int, error) { return findFrom(ctx, re, behind, s, pos) }, func(m []int) (bool, error) {
		all = append(all, m)
		return n < 0 || len(all) < n, nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// eachMatch walks the matches of a FindAll over s as regexp's allMatches does: an empty match
// right after a match is skipped, and after an empty match the search goes on one character
// further. find is the first match at or after pos (nil: none), in s's offsets; yield takes
// each match and tells whether to go on. ctx is asked before each search.
func eachMatch(ctx context.Context, s string, find func(pos int) ([]int, error), yield func(m []int) (bool, error)) error {
	for pos, prevEnd := 0, -1; pos <= len(s); {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, err := find(pos)
		if err != nil || m == nil {
			return err
		}
		accept := true
		if m[1] == pos {
			if m[0] == prevEnd {
				accept = false
			}
			if pos < len(s) {
				_, w := utf8.DecodeRuneInString(s[pos:])
				pos += w
			} else {
				pos++
			}
		} else {
			pos = m[1]
		}
		prevEnd = m[1]
		if accept {
			if more, err := yield(m); err != nil || !more {
				return err
			}
		}
	}
	return nil
}

// findFrom is the first match of re in s at or after pos, as regexp's FindAll searches on
// from pos, in s's offsets. With behind (re behind one rune of anything), the search starts
// one rune before pos, which behind reads first: re's assertions about what precedes its
// match see s's runes, not a subject's start.
func findFrom(ctx context.Context, re, behind *regexp.Regexp, s string, pos int) ([]int, error) {
	start := pos
	if behind != nil && pos > 0 {
		_, w := utf8.DecodeLastRuneInString(s[:pos])
		start, re = pos-w, behind
	}
	m, err := FindStringSubmatchIndex(ctx, re, s[start:])
	if m == nil || err != nil {
		return nil, err
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += start
		}
	}
	if start != pos {
		_, w := utf8.DecodeRuneInString(s[m[0]:])
		m[0] += w // the rune behind read is not re's match
	}
	return m, nil
}

// looksBehind reports whether re has an assertion about what precedes a position (^, \A, \b,
// \B), whose answer at the start of a slice of the subject differs from the subject's.
func looksBehind(re *regexp.Regexp) bool {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return true
	}
	var walk func(*syntax.Regexp) bool
	walk = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			return true
		}
		for _, sub := range r.Sub {
			if walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(t)
}
