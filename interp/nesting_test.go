package interp

import (
	"strings"
	"testing"
)

func TestNestingDepth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0}, {"echo hi", 0}, {"$(( (1+2) ))", 3}, {"a[${b[0]}]", 3}, {")))(((", 3}, {"f(){ g(){ :; }; }", 2},
	} {
		if got := nestingDepth(tc.s); got != tc.want {
			t.Errorf("nestingDepth(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
	deep := strings.Repeat("(", maxNesting+1)
	if nestingError("eval", deep) == nil || nestingError("eval", strings.Repeat("(", maxNesting)) != nil {
		t.Error("the limit is not exactly maxNesting")
	}
	if msg := deepArgs([]string{"builtin", "command", "eval", deep}); !strings.Contains(msg, "exceed") {
		t.Errorf("wrapped eval not refused: %q", msg)
	}
	if msg := deepArgs([]string{"echo", deep}); msg != "" {
		t.Errorf("echo refused: %q", msg)
	}
}
