package eval

import (
	"strings"
	"testing"
)

// TestCondReaderDepthBounded: a [[ ]] nested past the reader's depth through ( or ! is left to
// the general refusal, not recursed into (a line of 100,000 `!` would grow the stack by as many
// frames).
func TestCondReaderDepthBounded(t *testing.T) {
	for _, src := range []string{
		"[[ " + strings.Repeat("! ", 100000) + "-z ]]\n",
		"[[ " + strings.Repeat("( ", 100000) + "-z ]]\n",
	} {
		if lines, _, ok := firstBashCondError(src, 0, len(src)); ok {
			t.Errorf("%.20q...: read as %q, want left to the general refusal", src, lines)
		}
	}
}
