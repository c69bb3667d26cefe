package eval

import (
	"strings"
	"unicode/utf8"
)

// literalPattern reports whether pat has no pattern character, so that ${s/pat/rep} and
// ${s//pat/rep} need no matcher: the leftmost match and the next one after it are where
// strings.Index finds them (the matcher's search from each position makes a global
// replacement quadratic: `${s// /(}` over a long string took minutes).
func literalPattern(pat string, nocase bool) bool {
	return pat != "" && !nocase && !strings.ContainsAny(pat, "*?[]\\()|@!+") && utf8.ValidString(pat)
}
