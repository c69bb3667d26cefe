package eval

import (
	"errors"
	"sync"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/interp/internal/pattern"
)

// Pattern matching glue over package pattern. Patterns are bash globs where a backslash
// quotes the next character; compiled patterns are cached per run.

type patKey struct {
	pat  string
	opts pattern.Options
}

type patCache struct {
	mu sync.Mutex
	m  map[patKey]*pattern.Pattern
}

// patOptions are the options of matching subject against pat. A subject or pattern that is
// not valid UTF-8 is matched a byte at a time, every byte a
// character, as bash's matchers fall back to when they cannot read the text as characters
// (strmatch's and match_pattern's conversion failing).
func (r *Runner) patOptions(nocase bool, pat, subject string) pattern.Options {
	bytes := !r.utf8Mode() || !utf8.ValidString(pat) || !utf8.ValidString(subject)
	return pattern.Options{ExtGlob: r.shopts.has(shExtglob), NoCase: nocase, Bytes: bytes}
}

// compile compiles (and caches) a pattern; a pattern too complex to match ends the run with
// a refusal, never a hang.
func (r *Runner) compile(pat string, opts pattern.Options) (*pattern.Pattern, error) {
	k := patKey{pat, opts}
	c := &r.c.pats
	c.mu.Lock()
	p, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := pattern.Compile(pat, opts)
	if err != nil {
		return nil, r.patErr(pat, err)
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) > 4096 {
		c.m = map[patKey]*pattern.Pattern{}
	}
	c.m[k] = p
	c.mu.Unlock()
	return p, nil
}

func (r *Runner) patErr(pat string, err error) error {
	if errors.Is(err, pattern.ErrStopped) {
		// The call ended while the match ran: the run ends as a cancelled one, not refused.
		if cerr := r.checkCtx(); cerr != nil {
			return cerr
		}
		return &shError{flow: flowAbort, status: 1}
	}
	return r.fatal(&RefusalError{Refusal: Refusal{File: r.cur.name, Line: r.lineno,
		Construct: "the pattern " + pat + " (" + err.Error() + ")", Fix: DefaultFix}})
}

// stopping is p's matches over s, stopped when the call ends; a long subject's decoding is
// charged first (it is given back at once: the match holds it only while it runs).
func (r *Runner) stopping(p *pattern.Pattern, s string) (pattern.Stopping, error) {
	if len(s) >= 1<<16 {
		n := pattern.SubjectBytes(len(s))
		if err := r.charge(n); err != nil {
			return pattern.Stopping{}, err
		}
		_ = r.charge(-n)
	}
	if r.stopMatch == nil {
		r.stopMatch = func() bool { return r.ctx.Err() != nil }
	}
	return p.Stopping(r.stopMatch), nil
}

// matchPattern reports whether the whole of s matches pat.
func (r *Runner) matchPattern(pat, s string, nocase bool) bool {
	ok, _ := r.matchPatternErr(pat, s, nocase)
	return ok
}

func (r *Runner) matchPatternErr(pat, s string, nocase bool) (bool, error) {
	p, err := r.compile(pat, r.patOptions(nocase, pat, s))
	if err != nil {
		return false, err
	}
	sp, err := r.stopping(p, s)
	if err != nil {
		return false, err
	}
	ok, err := sp.Match(s)
	if err != nil {
		return false, r.patErr(pat, err)
	}
	return ok, nil
}

// prefixMatch returns the end of the shortest (or longest) prefix of s matching pat, or 0
// when none does.
func (r *Runner) prefixMatch(pat, s string, longest, nocase bool) int {
	p, err := r.compile(pat, r.patOptions(nocase, pat, s))
	if err != nil {
		return 0
	}
	sp, err := r.stopping(p, s)
	if err != nil {
		return 0
	}
	end, ok, err := sp.Prefix(s, longest)
	if err != nil {
		r.patErr(pat, err)
		return 0
	}
	if !ok {
		return 0
	}
	return end
}

// suffixMatch returns the start of the shortest (or longest) suffix of s matching pat, or
// len(s) when none does.
func (r *Runner) suffixMatch(pat, s string, longest, nocase bool) int {
	p, err := r.compile(pat, r.patOptions(nocase, pat, s))
	if err != nil {
		return len(s)
	}
	sp, err := r.stopping(p, s)
	if err != nil {
		return len(s)
	}
	start, ok, err := sp.Suffix(s, longest)
	if err != nil {
		r.patErr(pat, err)
		return len(s)
	}
	if !ok {
		return len(s)
	}
	return start
}
