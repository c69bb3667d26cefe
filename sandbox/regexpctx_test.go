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
	for _, expr := range []string{`a`, `-*x*`, `(é)|(\xff)`, `[a-c]+`, `$`, `(a)(b)?`, `^a`, `\bx`, `(?m)^a`, `é?\xff`} {
		re := regexp.MustCompile(expr)
		for _, n := range []int{-1, 7} {
			got, err := FindAllStringSubmatchIndex(context.Background(), re, long, n)
			want := re.FindAllStringSubmatchIndex(long, n)
			if err != nil || len(got) != len(want) || !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Errorf("%s, n=%d: %d matches (err %v), want %d", expr, n, len(got), err, len(want))
			}
		}
	}
	// The call ends while the loop runs (the trigger, not an assertion on time: unstopped,
	// the loop runs for hours).
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	re := regexp.MustCompile(`(a.*z)*a`)
	a := strings.Repeat("a", 2*longSubject)
	if _, err := FindAllStringSubmatchIndex(ctx, re, a, -1); err == nil {
		t.Errorf("a quadratic FindAll ran to its end; want it stopped with its call")
	}
}
