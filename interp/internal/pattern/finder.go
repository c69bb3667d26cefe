package pattern

import (
	"sort"
	"strings"
)

// Finder finds the successive matches of a pattern in one subject, for a ${x//p/r} loop, in
// time linear in the subject plus the work of the matches themselves. Calling Find once per
// match decoded the whole subject and ran Bash's pre-test over the rest of it each time: a
// quadratic loop (${t//[ ]/x} of 100 KB ran for minutes).
type Finder struct {
	p   *Pattern
	s   string
	sub *subject
	pre *Pattern // Bash's pre-test (see precheck)
	// The pre-test holds for the rest of the subject from every character index <= lo and
	// for none >= hi: it does not hold from a start unless it holds from every start before
	// (the pre-test's pattern begins with *, which takes any prefix).
	lo, hi, tried int
	preRuns       int // how many times the pre-test ran (for the tests)
	// Stop, when set, is asked now and then during a match whether its caller has ended;
	// the match then ends with ErrStopped.
	Stop func() bool
}

// Finder returns a finder of p's matches in s.
func (p *Pattern) Finder(s string) (*Finder, error) {
	pre, err := Compile(p.wrapped(true, true), p.opts)
	if err != nil {
		return nil, err
	}
	sub := newSubject(s, p.opts, false)
	return &Finder{p: p, s: s, sub: sub, pre: pre, lo: -1, hi: len(sub.r) + 1}, nil
}

// Find is Pattern.Find(s, from) for the finder's subject.
func (f *Finder) Find(from int) (start, end int, ok bool, err error) {
	defer catch(&err)
	sub := f.sub
	sub.steps, sub.stop = 0, f.Stop // each match has the work budget of one operation
	k := sort.SearchInts(sub.off, from)
	if !f.preHolds(k) {
		return 0, 0, false, nil
	}
	star := strings.HasPrefix(f.p.text, "*")
	for i := k; i <= len(sub.r); i++ {
		if i == len(sub.r) && !star {
			break // Bash's match_pattern_char: only a leading * matches at the end
		}
		j := -1
		sub.walk(f.p.fwd, i, false, func(e int) { j = e }) // the last is the longest
		if j >= 0 {
			return sub.off[i], sub.off[j], true, nil
		}
	}
	return 0, 0, false, nil
}

// preHolds tells whether Bash's pre-test holds for the subject from character k. After the
// first question the boundary is found by bisection, so that a loop over many matches runs
// the pre-test a logarithmic number of times, not once per match.
func (f *Finder) preHolds(k int) bool {
	switch {
	case k <= f.lo:
		return true
	case k >= f.hi:
		return false
	}
	if !f.pre1(k) {
		f.hi = k
		return false
	}
	f.lo = k
	if f.tried++; f.tried > 1 {
		for f.hi-f.lo > 1 {
			m := f.lo + (f.hi-f.lo)/2
			if f.pre1(m) {
				f.lo = m
			} else {
				f.hi = m
			}
		}
	}
	return true
}

func (f *Finder) pre1(k int) bool {
	f.preRuns++
	// The rest of the subject, as a view of its decoded characters (decoding it again for each
	// of the bisection's questions copied a long subject many times over).
	sub := &subject{r: f.sub.r[k:], off: f.sub.off[k:], opts: f.pre.opts, max: f.sub.max, stop: f.Stop}
	ends := sub.run(f.pre.fwd, 0, false)
	return ends[len(sub.r)]
}
