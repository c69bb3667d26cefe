package sandbox

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestSearcherLikeFindAll: a Searcher finds regexp's FindAll matches, on the quick path and one
// search at a time (subjects past QuickLength), with anchors and word boundaries.
func TestSearcherLikeFindAll(t *testing.T) {
	subjects := []string{"", "a", "aaa", "ab ab  abc", "héllo wörld", "x\ny\nz", "\xff\xfea b"}
	for _, s := range []string{"ab cd éa ", "a", " "} {
		subjects = append(subjects, strings.Repeat(s, 3000))
	}
	for _, expr := range []string{`a`, `a*`, ``, `^a|b$`, `\b`, `\B`, `^`, `$`, `\ba\w*`, `é|ö`, `(?m:^.)`, `[^ ]+`, `x*|a`, `(?s:.)`} {
		re := regexp.MustCompile(expr)
		sr := NewSearcher(re, false)
		for _, s := range subjects {
			for _, n := range []int{-1, 1, 2} {
				want := re.FindAllStringIndex(s, n)
				got, err := sr.FindAllIndex(context.Background(), s, n)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Errorf("%q over %.20q (n %d): got %v %v, want %v", expr, s, n, len(got), err, len(want))
				}
			}
			want := re.FindStringIndex(s)
			if got, err := sr.FindIndex(context.Background(), s); err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%q first over %.20q: got %v %v, want %v", expr, s, got, err, want)
			}
		}
	}
}

// TestSearcherStops: a quadratic FindAll ends with its context.
func TestSearcherStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sr := NewSearcher(regexp.MustCompile(`(a.*z)*a`), false)
	if _, err := sr.FindAllIndex(ctx, strings.Repeat("a", 100_000), -1); err == nil {
		t.Error("a FindAll over 100,000 a's went on after its context ended")
	}
	if n := sr.QuickLength(); n < 16 || n*n*sr.insts > quickSteps {
		t.Errorf("QuickLength %d for %d instructions", n, sr.insts)
	}
}
