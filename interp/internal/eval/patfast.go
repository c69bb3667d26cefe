package eval

import (
	"strings"
	"unicode/utf8"
)

// literalReplace is ${s/pat/rep} and ${s//pat/rep} for a pattern without any pattern
// character: the leftmost match and the next one after it are where strings.Index finds them,
// so the substitution needs no matcher (whose search from each position makes a global
// replacement quadratic: `${s// /(}` over a long string took minutes). ok is false when the
// pattern or the subject needs the matcher.
func literalReplace(s, pat string, with replacementText, all, nocase, amp bool) (string, bool) {
	if pat == "" || nocase || strings.ContainsAny(pat, "*?[]\\()|@!+") || !utf8.ValidString(s) || !utf8.ValidString(pat) {
		return "", false
	}
	rep := with.render(pat, amp)
	if all {
		return strings.ReplaceAll(s, pat, rep), true
	}
	return strings.Replace(s, pat, rep, 1), true
}
