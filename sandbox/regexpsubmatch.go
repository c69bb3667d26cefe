package sandbox

import (
	"context"
	"regexp"
	"regexp/syntax"
)

// SubmatchSearcher finds the matches, with their groups, of one expression one at a time, whatever the subject's length,
// with the call's end checked between them and (past longSubject bytes) through each search.
// FindAllStringSubmatchIndex does so only for long subjects; but a loop of searches that each
// read to the end of a shorter subject is quadratic too: `(a.*z)*a` over 200 KiB of a's makes
// 200,000 searches of up to 200 KiB each, minutes of work that Go's FindAll runs to its end
// (jq's match with "g", issue 27). A SubmatchSearcher keeps what it compiled for its
// expression, so that a filter's loop over many short subjects compiles it once; a subject
// short enough that one FindAll of it is a fraction of a millisecond (its length squared times
// the program's size, the worst case, within quickSubmatchSteps) is left to regexp's FindAll.
type SubmatchSearcher struct {
	re, behind *regexp.Regexp
	quick      int // the longest subject left to one FindAll
}

// quickSubmatchSteps bounds the work one FindAll may do with no check of the call's end.
const quickSubmatchSteps = 1 << 16

// NewSubmatchSearcher makes a SubmatchSearcher for re; longest tells that re was made
// leftmost-longest.
func NewSubmatchSearcher(re *regexp.Regexp, longest bool) (*SubmatchSearcher, error) {
	s := &SubmatchSearcher{re: re}
	if t, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		if prog, err := syntax.Compile(t.Simplify()); err == nil {
			for s.quick*s.quick*max(len(prog.Inst), 1) < quickSubmatchSteps {
				s.quick++
			}
		}
	}
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
func (sr *SubmatchSearcher) Each(ctx context.Context, s string, yield func(m []int) error) error {
	if len(s) < sr.quick {
		for _, m := range sr.re.FindAllStringSubmatchIndex(s, -1) {
			if err := yield(m); err != nil {
				return err
			}
		}
		return nil
	}
	return eachMatch(ctx, s, func(pos int) ([]int, error) { return findFrom(ctx, sr.re, sr.behind, s, pos) }, func(m []int) (bool, error) {
		return true, yield(m)
	})
}
