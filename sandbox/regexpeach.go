package sandbox

import (
	"context"
	"regexp"
	"unicode/utf8"
)

// Searcher finds the matches of one expression one at a time, whatever the subject's length,
// with the call's end checked between them and (past longSubject bytes) through each search.
// FindAllStringSubmatchIndex does so only for long subjects; but a loop of searches that each
// read to the end of a shorter subject is quadratic too: `(a.*z)*a` over 200 KiB of a's makes
// 200,000 searches of up to 200 KiB each, minutes of work that Go's FindAll runs to its end
// (jq's match with "g", issue 27). A Searcher keeps what it compiled for its expression, so
// that a filter's loop over many short subjects compiles it once.
type Searcher struct {
	re, behind *regexp.Regexp
}

// NewSearcher makes a Searcher for re; longest tells that re was made leftmost-longest.
func NewSearcher(re *regexp.Regexp, longest bool) (*Searcher, error) {
	s := &Searcher{re: re}
	if looksBehind(re) {
		var err error
		if s.behind, err = regexp.Compile(`(?s:.)(?:` + re.String() + `)`); err != nil {
			return nil, err // re compiled: so does this; a test holds it
		}
		if longest {
			s.behind.Longest()
		}
	}
	return s, nil
}

// Each calls yield with the matches re.FindAllStringSubmatchIndex(s, -1) gives, in order, and
// stops at yield's first error or ctx's end (its error).
func (sr *Searcher) Each(ctx context.Context, s string, yield func(m []int) error) error {
	// The rules of regexp's allMatches: an empty match right after a match is skipped, and
	// after an empty match the search goes on one character further.
	for pos, prevEnd := 0, -1; pos <= len(s); {
		if err := ctx.Err(); err != nil {
			return err
		}
		m, err := findFrom(ctx, sr.re, sr.behind, s, pos)
		if err != nil {
			return err
		}
		if m == nil {
			return nil
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
			if err := yield(m); err != nil {
				return err
			}
		}
	}
	return nil
}
