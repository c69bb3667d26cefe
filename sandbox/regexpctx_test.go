package sandbox

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFindAllStringSubmatchIndex: the stoppable FindAll finds what regexp's FindAll finds on
// long subjects (empty matches, matches after them, multi-byte and invalid UTF-8, limits), and
// ends with the call: a loop of searches that each read to the end (`(a.*z)*a` over a's) is
// quadratic, and ran on after its call had ended (issue 27).
func TestFindAllStringSubmatchIndex(t *testing.T) {
	some := strings.Repeat("ab cé\xff x\n", 50)
	long := some + strings.Repeat("-", longSubject) + some
	for _, c := range []struct {
		expr    string
		longest bool
	}{
		{`a`, false}, {`-*x*`, false}, {`(é)|(\xff)`, false}, {`[a-c]+`, false}, {`$`, false}, {`(a)(b)?`, false},
		{`é?\xff`, false},
		// Expressions that look behind their match (^, \b, \B), searched behind the rune before.
		{`^a`, false}, {`\bx`, false}, {`(?m)^a`, false}, {`(?m)^(a|ab)\b`, true}, {`\B(é|\xff)`, true},
		{`x\b|\B-+`, true}, {`^|x`, true},
	} {
		re := regexp.MustCompile(c.expr)
		if c.longest {
			re.Longest()
		}
		for _, n := range []int{-1, 7} {
			got, err := FindAllStringSubmatchIndex(context.Background(), re, long, n, c.longest)
			want := re.FindAllStringSubmatchIndex(long, n)
			if err != nil || len(got) != len(want) || !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Errorf("%s, n=%d: %d matches (err %v), want %d", c.expr, n, len(got), err, len(want))
			}
		}
	}
	// The call ends while the loop runs (the trigger, not an assertion on time: unstopped,
	// the loop runs for hours).
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	a := strings.Repeat("a", 2*longSubject)
	// An expression that looks behind its match (^, \b, \B) too.
	for _, expr := range []string{`(a.*z)*a`, `\B(a.*z)*a`, `(?m)(^|a)(a.*z)*`} {
		if _, err := FindAllStringSubmatchIndex(ctx, regexp.MustCompile(expr), a, -1, true); err == nil {
			t.Errorf("%s: a quadratic FindAll ran to its end; want it stopped with its call", expr)
		}
	}
}
