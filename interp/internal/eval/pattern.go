package eval

import (
	"regexp"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/pattern"
)

// Pattern matching glue. Patterns are bash globs where a backslash quotes the next
// character. This adapter compiles them to regular expressions; it is replaced by package
// interp/internal/pattern when that lands.

type patKey struct {
	pat      string
	nocase   bool
	extglob  bool
	anchored bool // ^...$ (whole string) or ^... (prefix, leftmost-longest)
}

type patCache struct {
	mu sync.Mutex
	m  map[patKey]*regexp.Regexp
}

func (r *Runner) compile(pat string, nocase, whole bool) *regexp.Regexp {
	k := patKey{pat, nocase, r.shopts.has(shExtglob), whole}
	c := &r.c.pats
	c.mu.Lock()
	re, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return re
	}
	mode := pattern.Mode(0)
	if k.extglob {
		mode |= pattern.ExtendedOperators
	}
	if nocase {
		mode |= pattern.NoGlobCase
	}
	src, err := pattern.Regexp(pat, mode)
	if err != nil {
		// An invalid pattern matches itself literally, as in bash.
		src = regexp.QuoteMeta(pat)
	}
	if whole {
		src = "^(?:" + src + ")$"
	} else {
		src = "^(?:" + src + ")"
	}
	re, err = regexp.Compile("(?s)" + src)
	if err != nil {
		re = regexp.MustCompile("^" + regexp.QuoteMeta(pat) + "$")
	}
	if !whole {
		re.Longest()
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) > 4096 {
		c.m = map[patKey]*regexp.Regexp{}
	}
	c.m[k] = re
	c.mu.Unlock()
	return re
}

// matchPattern reports whether the whole of s matches pat.
func (r *Runner) matchPattern(pat, s string, nocase bool) bool {
	return r.compile(pat, nocase, true).MatchString(s)
}

// prefixMatch returns the end of the shortest (or longest) prefix of s matching pat, or 0
// when none does.
func (r *Runner) prefixMatch(pat, s string, longest, nocase bool) int {
	re := r.compile(pat, nocase, true)
	u8 := r.utf8Mode()
	if longest {
		for i := len(s); i >= 0; i-- {
			if u8 && i < len(s) && !utf8.RuneStart(s[i]) {
				continue
			}
			if re.MatchString(s[:i]) {
				return i
			}
		}
		return 0
	}
	for i := 0; i <= len(s); i++ {
		if u8 && i < len(s) && !utf8.RuneStart(s[i]) {
			continue
		}
		if re.MatchString(s[:i]) {
			return i
		}
	}
	return 0
}

// suffixMatch returns the start of the shortest (or longest) suffix of s matching pat, or
// len(s) when none does.
func (r *Runner) suffixMatch(pat, s string, longest, nocase bool) int {
	re := r.compile(pat, nocase, true)
	u8 := r.utf8Mode()
	if longest {
		for i := 0; i <= len(s); i++ {
			if u8 && i < len(s) && !utf8.RuneStart(s[i]) {
				continue
			}
			if re.MatchString(s[i:]) {
				return i
			}
		}
		return len(s)
	}
	for i := len(s); i >= 0; i-- {
		if u8 && i < len(s) && !utf8.RuneStart(s[i]) {
			continue
		}
		if re.MatchString(s[i:]) {
			return i
		}
	}
	return len(s)
}

// longestAt returns the end of the longest match of pat starting at i, or -1.
func (r *Runner) longestAt(pat, s string, i int, nocase bool) int {
	re := r.compile(pat, nocase, false)
	loc := re.FindStringIndex(s[i:])
	if loc == nil {
		return -1
	}
	return i + loc[1]
}
