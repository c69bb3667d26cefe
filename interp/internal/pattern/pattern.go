// Package pattern implements Bash 5.2's pattern matching ([[ == ]], case,
// ${x#p} ${x%p} ${x/p/r}, filename expansion) including brackets, classes and
// nested extglob, on UTF-8 characters (or bytes in the C locale).
//
// Patterns compile to a Thompson automaton simulated position by position,
// so matching is polynomial: there is no backtracking blow-up, and a step
// budget ends pathological cases (!(…) over long strings) with *LimitError.
//
// Known limits: Bash's recursive matcher has quirks where an extglob group
// that can match the empty string meets the end of the subject (after a * or
// inside !(…)); this package models the main one (a * does not hand over to a
// following group at the end) and differs on about 0.3% of random nested
// extglob cases. In ${x/p/r} Bash rejects a negated bracket starting with ']'
// ("[!]…]") and unclosed groups, which match here. Character classes ([:alpha:] …) of non-ASCII characters
// follow Go's unicode tables, which can differ from glibc's in rare scripts;
// equivalence classes [=c=] and collating symbols [.c.] match the character
// itself (exact in C.UTF-8); ranges compare code points (globasciiranges,
// Bash 5.2's default).
package pattern

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options change how a pattern matches.
type Options struct {
	ExtGlob bool // ?(…) *(…) +(…) @(…) !(…)
	NoCase  bool // nocasematch / nocaseglob
	Bytes   bool // C/POSIX locale: one byte is one character
	// Path makes *, ? and brackets not match '/' (whole-path matching).
	Path bool
	// Period requires a leading '.' (at the start, or after '/' with Path) to be
	// matched by a literal '.', as filename expansion without dotglob does.
	Period bool
	// MaxSteps bounds the work of one operation; 0 means DefaultMaxSteps.
	MaxSteps int
}

// DefaultMaxSteps is the default work budget of one matching operation.
const DefaultMaxSteps = 50_000_000

// maxNest bounds extglob nesting.
const maxNest = 200

// LimitError reports that a match needed more work than Options.MaxSteps, or a
// pattern nested extglob groups too deeply.
type LimitError struct{ What string }

func (e *LimitError) Error() string { return "pattern too complex: " + e.What }

type kind uint8

const (
	kChar kind = iota
	kAny
	kClass
	kSplit // epsilon to out and out1
	kJump  // epsilon to out
	kNeg   // !(…): sub-automaton, then out
	kAccept
)

type state struct {
	kind kind
	wild bool // *, ?, [..]: subject to the Path and Period rules
	r    rune
	cls  *bracket
	neg  *nfa
	out  int
	out1 int
	// endExit: a * may take the epsilon out1 at the end of the subject
	endExit bool
	star    bool // the split of a *
}

type nfa struct {
	states []state
	start  int
	id     int // index among the pattern's negations, for memoization
}

// Pattern is a compiled pattern.
type Pattern struct {
	fwd, rev *nfa
	opts     Options
	nneg     int
	literal  bool // no special character: plain comparison would do
	text     string
}

// Compile parses pat (quoted characters escaped with a backslash).
// Malformed constructs are literal text, as in Bash.
func Compile(pat string, opts Options) (*Pattern, error) {
	p := &Pattern{opts: opts, text: pat}
	items, err := parse(pat, opts, 0)
	if err != nil {
		return nil, err
	}
	p.literal = true
	for _, it := range items {
		if it.kind != iChar {
			p.literal = false
		}
	}
	p.fwd = p.build(items, false)
	p.rev = p.build(items, true)
	return p, nil
}

// item is the parsed form of a pattern element.
type item struct {
	kind iKind
	r    rune
	cls  *bracket
	op   byte // group operator: ? * + @ !
	alts [][]item
}

type iKind uint8

const (
	iChar iKind = iota
	iAny
	iStar
	iClass
	iGroup
)

// decode returns the character at s[i] and its size; invalid UTF-8 bytes
// (and every byte in Bytes mode) are characters of their own, as negative runes.
func decode(s string, i int, bytes bool) (rune, int) {
	if bytes || s[i] < utf8.RuneSelf {
		if s[i] >= utf8.RuneSelf {
			return -1 - rune(s[i]), 1
		}
		return rune(s[i]), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return -1 - rune(s[i]), 1
	}
	return r, n
}

func parse(pat string, opts Options, depth int) ([]item, error) {
	if depth > maxNest {
		return nil, &LimitError{What: fmt.Sprintf("extglob nested more than %d deep", maxNest)}
	}
	var items []item
	for i := 0; i < len(pat); {
		c := pat[i]
		if opts.ExtGlob && strings.IndexByte("?*+@!", c) >= 0 && i+1 < len(pat) && pat[i+1] == '(' {
			if end, alts := splitGroup(pat, i+2); end >= 0 {
				g := item{kind: iGroup, op: c}
				for _, a := range alts {
					sub, err := parse(a, opts, depth+1)
					if err != nil {
						return nil, err
					}
					g.alts = append(g.alts, sub)
				}
				items = append(items, g)
				i = end + 1
				continue
			}
		}
		switch c {
		case '*':
			if len(items) == 0 || items[len(items)-1].kind != iStar {
				items = append(items, item{kind: iStar})
			}
			i++
			continue
		case '?':
			items = append(items, item{kind: iAny})
			i++
			continue
		case '[':
			if b, n := parseBracket(pat[i:], opts); n > 0 {
				items = append(items, item{kind: iClass, cls: b})
				i += n
				continue
			}
		case '\\':
			if i+1 < len(pat) {
				i++
			}
		}
		r, n := decode(pat, i, opts.Bytes)
		items = append(items, item{kind: iChar, r: r})
		i += n
	}
	return items, nil
}

// splitGroup finds the ')' closing a group whose body starts at pat[i] and
// splits the body at top-level '|'. It returns -1 when the group is unclosed.
func splitGroup(pat string, i int) (int, []string) {
	depth := 0
	start := i
	var alts []string
	for ; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '[':
			if _, n := parseBracket(pat[i:], Options{}); n > 0 {
				i += n - 1
			}
		case '(':
			depth++
		case ')':
			if depth == 0 {
				return i, append(alts, pat[start:i])
			}
			depth--
		case '|':
			if depth == 0 {
				alts = append(alts, pat[start:i])
				start = i + 1
			}
		}
	}
	return -1, nil
}

func (p *Pattern) build(items []item, rev bool) *nfa {
	a := &nfa{}
	acc := a.add(state{kind: kAccept})
	a.start = p.seq(a, items, acc, rev)
	return a
}

func (a *nfa) add(s state) int {
	a.states = append(a.states, s)
	return len(a.states) - 1
}

// seq compiles items so that they lead to next; it returns the entry state.
func (p *Pattern) seq(a *nfa, items []item, next int, rev bool) int {
	if rev {
		for _, it := range items {
			next = p.one(a, it, next, rev, endOpen)
		}
		return next
	}
	for k := len(items) - 1; k >= 0; k-- {
		exit := endOpen
		if items[k].kind == iStar && k+1 < len(items) {
			exit = starExit(items[k+1])
		}
		next = p.one(a, items[k], next, rev, exit)
	}
	return next
}

// Bash's * hands over to the rest of the pattern only before the end of the
// subject (sm_loop tries n < end), except for the extglob groups its loop
// handles itself. endOpen: always; endEntry: only when the * starts at the
// end (a following !(…)); endClosed: never.
const (
	endOpen = iota
	endEntry
	endClosed
)

func starExit(next item) int {
	switch {
	case next.kind == iStar:
		return endOpen
	case next.kind == iGroup && (next.op == '?' || next.op == '*'):
		return endOpen
	case next.kind == iGroup && next.op == '!':
		return endEntry
	}
	return endClosed
}

func (p *Pattern) one(a *nfa, it item, next int, rev bool, exit int) int {
	switch it.kind {
	case iChar:
		return a.add(state{kind: kChar, r: it.r, out: next})
	case iAny:
		return a.add(state{kind: kAny, wild: true, out: next})
	case iClass:
		return a.add(state{kind: kClass, wild: true, cls: it.cls, out: next})
	case iStar:
		loop := a.add(state{kind: kSplit, out1: next, endExit: exit == endOpen, star: true})
		any := a.add(state{kind: kAny, wild: true, out: loop})
		a.states[loop].out = any
		if exit == endOpen {
			return loop
		}
		return a.add(state{kind: kSplit, out: any, out1: next, endExit: exit == endEntry, star: true})
	}
	// alts builds the alternatives in n, each continuing at to, and returns their entry.
	alts := func(n *nfa, to int) int {
		entry := -1
		for _, alt := range it.alts {
			s := p.seq(n, alt, to, rev)
			if entry < 0 {
				entry = s
			} else {
				entry = n.add(state{kind: kSplit, out: entry, out1: s})
			}
		}
		return entry
	}
	switch it.op {
	case '@':
		return alts(a, next)
	case '?':
		return a.add(state{kind: kSplit, out: alts(a, next), out1: next})
	case '*':
		loop := a.add(state{kind: kSplit, out1: next})
		a.states[loop].out = alts(a, loop)
		return loop
	case '+':
		loop := a.add(state{kind: kSplit, out1: next})
		body := alts(a, loop)
		a.states[loop].out = body
		return body
	}
	// '!': a sub-automaton for the alternatives, complemented at run time.
	sub := &nfa{id: p.nneg}
	p.nneg++
	sub.start = alts(sub, sub.add(state{kind: kAccept}))
	return a.add(state{kind: kNeg, neg: sub, out: next})
}

// subject is the string being matched, split into characters.
type subject struct {
	r    []rune
	off  []int // byte offset of each character, plus len(s)
	opts Options
	// budget
	steps, max int
	negMemo    map[[2]int][]bool
	// stop, when set, is asked every stopEvery steps whether the caller has ended (its call's
	// context): a match then ends with ErrStopped.
	stop func() bool
	tick int
}

// stopEvery is how many steps pass between two questions to subject.stop.
const stopEvery = 1 << 14

// ErrStopped is the error of a match whose caller ended while it ran (Finder.Stop).
var ErrStopped = errors.New("pattern: match stopped")

func newSubject(s string, opts Options, rev bool) *subject {
	sub := &subject{opts: opts, max: opts.MaxSteps}
	if sub.max <= 0 {
		sub.max = DefaultMaxSteps
	}
	// One allocation each (a subject has at most len(s) characters): appending to them grew a
	// long subject's arrays by copies several times their size.
	sub.r, sub.off = make([]rune, 0, len(s)), make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, n := decode(s, i, opts.Bytes)
		sub.r = append(sub.r, r)
		sub.off = append(sub.off, i)
		i += n
	}
	sub.off = append(sub.off, len(s))
	if rev {
		for i, j := 0, len(sub.r)-1; i < j; i, j = i+1, j-1 {
			sub.r[i], sub.r[j] = sub.r[j], sub.r[i]
		}
	}
	return sub
}

type abort struct{ err error }

func (sub *subject) step(n int) {
	sub.steps += n
	if sub.steps > sub.max {
		panic(abort{&LimitError{What: fmt.Sprintf("more than %d steps", sub.max)}})
	}
	if sub.stop != nil {
		if sub.tick += n; sub.tick >= stopEvery {
			sub.tick = 0
			if sub.stop() {
				panic(abort{ErrStopped})
			}
		}
	}
}

// run simulates a from character position start and returns, for each
// position j >= start, whether a matches r[start:j]. rev means r is reversed
// (the Period rule then looks at the following character).
func (sub *subject) run(a *nfa, start int, rev bool) []bool {
	ends := make([]bool, len(sub.r)+1)
	sub.walk(a, start, rev, func(j int) { ends[j] = true })
	return ends
}

// walk is run calling accept(j), in increasing j, for each end j of a match (a Find over a
// long subject tries every start: an array of ends per start made it quadratic).
func (sub *subject) walk(a *nfa, start int, rev bool, accept func(int)) {
	n := len(sub.r)
	cur := newSet(len(a.states))
	nxt := newSet(len(a.states))
	pending := map[int][]int{}
	sub.closure(a, cur, a.start, start, pending, rev)
	for i := start; ; i++ {
		for _, s := range pending[i] {
			sub.closure(a, cur, s, i, pending, rev)
		}
		delete(pending, i)
		for _, s := range cur.list {
			if a.states[s].kind == kAccept {
				accept(i)
				break
			}
		}
		if i == n || len(cur.list) == 0 && len(pending) == 0 {
			break
		}
		nxt.clear()
		sub.step(len(cur.list) + 1)
		for _, s := range cur.list {
			st := &a.states[s]
			if sub.consumes(st, i, rev) {
				sub.closure(a, nxt, st.out, i+1, pending, rev)
			}
		}
		cur, nxt = nxt, cur
	}
}

// closure adds s and its epsilon successors at position i to set.
func (sub *subject) closure(a *nfa, set *sset, s, i int, pending map[int][]int, rev bool) {
	if set.has(s) {
		return
	}
	set.add(s)
	sub.step(1)
	st := &a.states[s]
	switch st.kind {
	case kSplit:
		sub.closure(a, set, st.out, i, pending, rev)
		if !st.star || st.endExit || i < len(sub.r) {
			sub.closure(a, set, st.out1, i, pending, rev)
		}
	case kJump:
		sub.closure(a, set, st.out, i, pending, rev)
	case kNeg:
		m := sub.negEnds(st.neg, i, rev)
		for j := i; j < len(m); j++ {
			if m[j] {
				continue
			}
			if j > i {
				if ok, more := sub.negSpan(i, j, rev); !ok {
					if !more {
						break
					}
					continue
				}
			}
			if j == i {
				sub.closure(a, set, st.out, i, pending, rev)
			} else {
				pending[j] = append(pending[j], st.out)
			}
		}
	}
}

// negSpan reports whether !(…) may match characters [i, j) (not across '/'
// with Path, not a leading '.' with Period), and whether longer spans may.
func (sub *subject) negSpan(i, j int, rev bool) (ok, more bool) {
	if sub.opts.Path && sub.r[j-1] == '/' {
		return false, false
	}
	first := i // the span's first character in the original orientation
	if rev {
		first = j - 1
	}
	if sub.opts.Period && sub.r[first] == '.' && sub.atSegmentStart(first, rev) {
		return false, rev
	}
	return true, true
}

func (sub *subject) negEnds(a *nfa, i int, rev bool) []bool {
	if sub.negMemo == nil {
		sub.negMemo = map[[2]int][]bool{}
	}
	k := [2]int{a.id, i}
	if m, ok := sub.negMemo[k]; ok {
		return m
	}
	m := sub.run(a, i, rev)
	sub.step(len(m))
	sub.negMemo[k] = m
	return m
}

// atSegmentStart reports whether character position i (in the subject's own
// orientation) starts the subject or a path segment.
func (sub *subject) atSegmentStart(i int, rev bool) bool {
	n := len(sub.r)
	if rev {
		// original index of r[i] is n-1-i; it starts a segment if it is
		// first or follows '/'
		o := n - 1 - i
		return o == 0 || sub.opts.Path && sub.r[i+1] == '/'
	}
	return i == 0 || sub.opts.Path && sub.r[i-1] == '/'
}

func (sub *subject) consumes(st *state, i int, rev bool) bool {
	r := sub.r[i]
	if st.wild {
		if sub.opts.Path && r == '/' {
			return false
		}
		if r == '.' && sub.opts.Period && sub.atSegmentStart(i, rev) {
			return false
		}
	}
	switch st.kind {
	case kChar:
		return r == st.r || sub.opts.NoCase && foldEq(r, st.r)
	case kAny:
		return true
	case kClass:
		return st.cls.matches(r, sub.opts.NoCase)
	}
	return false
}

func foldEq(a, b rune) bool {
	return a >= 0 && b >= 0 && (unicode.ToLower(a) == unicode.ToLower(b) || unicode.ToUpper(a) == unicode.ToUpper(b))
}

// sset is a sparse set of state indexes in insertion order.
type sset struct {
	list []int
	pos  []int
}

func newSet(n int) *sset { return &sset{pos: make([]int, n)} }

func (s *sset) has(x int) bool {
	p := s.pos[x]
	return p < len(s.list) && s.list[p] == x
}

func (s *sset) add(x int) {
	s.pos[x] = len(s.list)
	s.list = append(s.list, x)
}

func (s *sset) clear() { s.list = s.list[:0] }

func catch(err *error) {
	if r := recover(); r != nil {
		a, ok := r.(abort)
		if !ok {
			panic(r)
		}
		*err = a.err
	}
}

// Match reports whether the whole of s matches.
func (p *Pattern) Match(s string) (ok bool, err error) { return p.match(s, nil) }

// SubjectBytes is what matching a subject of n bytes allocates at most (its characters, their
// offsets and the match's ends), for a caller that charges it first.
func SubjectBytes(n int) int64 { return int64(n) * 17 }

// Stopping returns p's matches that ask stop now and then whether their caller has ended
// (a match over a long subject, or with many steps, takes seconds); a match then ends with
// ErrStopped.
func (p *Pattern) Stopping(stop func() bool) Stopping { return Stopping{p, stop} }

// Stopping is a pattern whose matches can be stopped (Pattern.Stopping).
type Stopping struct {
	p    *Pattern
	stop func() bool
}

// Match is Pattern.Match, stoppable.
func (s Stopping) Match(subject string) (bool, error) { return s.p.match(subject, s.stop) }

// Prefix is Pattern.Prefix, stoppable.
func (s Stopping) Prefix(subject string, longest bool) (int, bool, error) {
	return s.p.prefix(subject, longest, s.stop)
}

// Suffix is Pattern.Suffix, stoppable.
func (s Stopping) Suffix(subject string, longest bool) (int, bool, error) {
	return s.p.suffix(subject, longest, s.stop)
}

// MatchAt is Pattern.MatchAt, stoppable.
func (s Stopping) MatchAt(subject string, from int) (int, bool, error) {
	return s.p.matchAt(subject, from, s.stop)
}

// MatchEnd is Pattern.MatchEnd, stoppable.
func (s Stopping) MatchEnd(subject string) (int, bool, error) { return s.p.matchEnd(subject, s.stop) }

func (p *Pattern) match(s string, stop func() bool) (ok bool, err error) {
	defer catch(&err)
	sub := newSubject(s, p.opts, false)
	sub.stop = stop
	ends := sub.run(p.fwd, 0, false)
	return ends[len(sub.r)], nil
}

// Prefix returns the end (byte offset) of the shortest or longest prefix of s
// that matches, for ${x#p} and ${x##p}.
func (p *Pattern) Prefix(s string, longest bool) (end int, ok bool, err error) {
	return p.prefix(s, longest, nil)
}

func (p *Pattern) prefix(s string, longest bool, stop func() bool) (end int, ok bool, err error) {
	defer catch(&err)
	sub := newSubject(s, p.opts, false)
	sub.stop = stop
	ends := sub.run(p.fwd, 0, false)
	j := pick(ends, 0, longest)
	if j < 0 {
		return 0, false, nil
	}
	return sub.off[j], true, nil
}

// Suffix returns the start (byte offset) of the shortest or longest suffix of
// s that matches, for ${x%p} and ${x%%p}.
func (p *Pattern) Suffix(s string, longest bool) (start int, ok bool, err error) {
	return p.suffix(s, longest, nil)
}

func (p *Pattern) suffix(s string, longest bool, stop func() bool) (start int, ok bool, err error) {
	defer catch(&err)
	sub := newSubject(s, p.opts, true)
	sub.stop = stop
	ends := sub.run(p.rev, 0, true)
	j := pick(ends, 0, longest)
	if j < 0 {
		return 0, false, nil
	}
	return sub.off[len(sub.r)-j], true, nil
}

func pick(ends []bool, from int, longest bool) int {
	if longest {
		for j := len(ends) - 1; j >= from; j-- {
			if ends[j] {
				return j
			}
		}
		return -1
	}
	for j := from; j < len(ends); j++ {
		if ends[j] {
			return j
		}
	}
	return -1
}

// Find returns the leftmost match starting at or after byte offset from, the
// longest one at that position, for ${x/p/r} (with Bash's pre-test, see
// precheck). A replace-all loop continues at
// end; after an empty match Bash copies one character and continues after it,
// and it does not try an empty match at the end of the string.
func (p *Pattern) Find(s string, from int) (start, end int, ok bool, err error) {
	f, err := p.Finder(s)
	if err != nil {
		return 0, 0, false, err
	}
	return f.Find(from)
}

// MatchAt reports whether s[from:] starts with a match (the longest one), for
// ${x/#p/r}. As in Bash, an empty s[from:] matches only a pattern starting
// with '*'.
func (p *Pattern) MatchAt(s string, from int) (end int, ok bool, err error) {
	return p.matchAt(s, from, nil)
}

func (p *Pattern) matchAt(s string, from int, stop func() bool) (end int, ok bool, err error) {
	if from == len(s) && !strings.HasPrefix(p.text, "*") {
		return 0, false, nil
	}
	if ok, err := p.precheck(s[from:], false, true, stop); !ok || err != nil {
		return 0, false, err
	}
	e, ok, err := p.prefix(s[from:], true, stop)
	return from + e, ok, err
}

// precheck reproduces Bash's pattern-substitution pre-test: the pattern text
// is wrapped in '*' (before unless it starts with one, after unless it ends
// with an unescaped one) and must match the whole subject. This is where a
// trailing backslash escapes the added '*', and where Bash's * never hands over
// at the end of the subject to a group matching the empty string.
func (p *Pattern) precheck(s string, before, after bool, stop func() bool) (bool, error) {
	wp, err := Compile(p.wrapped(before, after), p.opts)
	if err != nil {
		return false, err
	}
	return wp.match(s, stop)
}

// wrapped is the pattern text of precheck's pre-test.
func (p *Pattern) wrapped(before, after bool) string {
	t := p.text
	w := t
	if before && (!strings.HasPrefix(t, "*") || p.opts.ExtGlob && strings.HasPrefix(t, "*(")) {
		w = "*" + w
	}
	if after {
		n := 0
		if strings.HasSuffix(t, "*") {
			for n < len(t)-1 && t[len(t)-2-n] == '\\' {
				n++
			}
		}
		if !strings.HasSuffix(t, "*") || n%2 == 1 {
			w += "*"
		}
	}
	return w
}

// MatchEnd returns the start of the longest matching suffix for ${x/%p/r}
// (Suffix plus Bash's substitution pre-test).
func (p *Pattern) MatchEnd(s string) (start int, ok bool, err error) { return p.matchEnd(s, nil) }

func (p *Pattern) matchEnd(s string, stop func() bool) (start int, ok bool, err error) {
	if ok, err := p.precheck(s, true, false, stop); !ok || err != nil {
		return 0, false, err
	}
	return p.suffix(s, true, stop)
}

// IsLiteral reports whether the pattern has no special characters (so the
// unescaped text can be compared directly).
func (p *Pattern) IsLiteral() bool { return p.literal }

// QuoteMeta escapes s so that it matches itself literally.
func QuoteMeta(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`\*?[]()|!+@^-`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Match compiles pat and matches s in one call.
func Match(pat, s string, opts Options) (bool, error) {
	p, err := Compile(pat, opts)
	if err != nil {
		return false, err
	}
	return p.Match(s)
}
