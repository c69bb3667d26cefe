package sandbox

import (
	"context"
	"math"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// Searcher finds the matches of one expression in subjects of any length one search at a
// time, with the call's end checked between matches and, past longSubject bytes, every 64 KiB
// of each search. FindAllStringSubmatchIndex leaves a subject shorter than longSubject to
// regexp's FindAll, which cannot be stopped: a single search over such a subject is short, but
// FindAll makes one per match, and each may read to the subject's end
// (`gsub(/(a.*z)*a/, "b", s)` over 500 KiB of a's runs for hours). A Searcher is made once per
// expression and reused: the expression behind one rune, which a search from inside the subject
// needs when the expression looks behind its match (^, \b, \B), is compiled at its first use.
type Searcher struct {
	re      *regexp.Regexp
	looks   bool
	behind  *regexp.Regexp
	longest bool
	insts   int // the size of re's program
}

// quickSteps bounds the work (subject length squared times program size, the worst case of
// a FindAll) that FindAllIndex leaves to one regexp FindAll: a few milliseconds at most, and the
// common case (a short line, a small expression) keeps regexp's speed.
const quickSteps = 1 << 20

// NewSearcher returns the Searcher of re; longest tells that re was made leftmost-longest.
func NewSearcher(re *regexp.Regexp, longest bool) *Searcher {
	insts := 1 << 30
	if t, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		if prog, err := syntax.Compile(t.Simplify()); err == nil {
			insts = max(len(prog.Inst), 1)
		}
	}
	return &Searcher{re: re, looks: looksBehind(re), longest: longest, insts: insts}
}

// shortSteps bounds the work that may run with no check of the call's end at all, many times
// in a row (GoAWK checks its context every 1,000 instructions): a fraction of a millisecond.
const shortSteps = 1 << 16

// ShortLength returns the subject length up to which a FindAll of the expression does at most
// shortSteps of work: a caller may leave such a subject to a matcher that is never stopped.
func (s *Searcher) ShortLength() int {
	return int(math.Sqrt(float64(shortSteps / s.insts)))
}

// QuickLength returns the subject length up to which FindAllIndex is one regexp FindAll of at
// most a few milliseconds, which needs no check of the call's end.
func (s *Searcher) QuickLength() int {
	return int(math.Sqrt(float64(quickSteps / s.insts)))
}

// Regexp returns the expression searched.
func (s *Searcher) Regexp() *regexp.Regexp { return s.re }

// FindIndex is the first match of the expression in subject (re.FindStringIndex), or ctx's
// error once it ends.
func (s *Searcher) FindIndex(ctx context.Context, subject string) ([]int, error) {
	return s.findFrom(ctx, subject, 0)
}

// FindAllIndex is re.FindAllStringIndex(subject, n), or ctx's error once it ends.
func (s *Searcher) FindAllIndex(ctx context.Context, subject string, n int) ([][]int, error) {
	if l := len(subject); l <= s.QuickLength() {
		return s.re.FindAllStringIndex(subject, n), nil
	}
	if n == 0 {
		return nil, nil
	}
	var all [][]int
	err := eachMatch(ctx, subject, func(pos int) ([]int, error) { return s.findFrom(ctx, subject, pos) }, func(m []int) (bool, error) {
		all = append(all, m)
		return n < 0 || len(all) < n, nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// findFrom is the first match at or after pos, as regexp's FindAll searches on from pos, in
// subject's offsets (see findFrom in regexpctx.go for the rune behind).
func (s *Searcher) findFrom(ctx context.Context, subject string, pos int) ([]int, error) {
	re, start := s.re, pos
	if s.looks && pos > 0 {
		if s.behind == nil {
			b, err := regexp.Compile(`(?s:.)(?:` + s.re.String() + `)`)
			if err != nil {
				return nil, err // re compiled: so does this
			}
			if s.longest {
				b.Longest()
			}
			s.behind = b
		}
		_, w := utf8.DecodeLastRuneInString(subject[:pos])
		start, re = pos-w, s.behind
	}
	rest := subject[start:]
	var m []int
	if len(rest) < longSubject {
		m = re.FindStringIndex(rest)
	} else {
		in := &ctxRunes{ctx: ctx, s: rest}
		m = re.FindReaderIndex(in)
		if in.err != nil {
			return nil, in.err
		}
	}
	if m == nil {
		return nil, nil
	}
	m[0] += start
	m[1] += start
	if start != pos {
		_, w := utf8.DecodeRuneInString(subject[m[0]:])
		m[0] += w // the rune behind read is not re's match
	}
	return m, nil
}
