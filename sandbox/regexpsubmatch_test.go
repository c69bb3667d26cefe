package sandbox

import (
	"context"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestSubmatchSearcherMatchesFindAll: one match at a time, the matches and groups are
// regexp's FindAll's, with the quick path (one FindAll) and without it, for expressions that
// look behind their match and empty matches.
func TestSubmatchSearcherMatchesFindAll(t *testing.T) {
	subjects := []string{"", "a", "aaa", "abab", "foo bar foo", "héllo wörld", "日本語", "a\nb\nc", "x1y22z333",
		strings.Repeat("ab ", 100), "\xff\xfea\xff"}
	for _, expr := range []string{"", "a", "a*", "b*", "(a)|(b)", "^", "$", "^a", "\\b", "\\B", "\\bfoo\\b", "(?m)^b",
		"(?<x>\\w)(\\w)?", "[0-9]+", ".", "x*", "(?s).", "\\pL+", "(a*)(b)?"} {
		for _, longest := range []bool{false, true} {
			re := regexp.MustCompile(expr)
			if longest {
				re.Longest()
			}
			s, err := NewSubmatchSearcher(re, longest)
			if err != nil {
				t.Fatal(err)
			}
			for _, quick := range []bool{true, false} {
				if !quick {
					s.quick = 0
				}
				for _, subj := range subjects {
					var got [][]int
					if err := s.Each(context.Background(), subj, func(m []int) error { got = append(got, m); return nil }); err != nil {
						t.Fatal(err)
					}
					if want := re.FindAllStringSubmatchIndex(subj, -1); !reflect.DeepEqual(got, want) {
						t.Errorf("%q (longest %v, quick %v) in %q: got %v, want %v", expr, longest, quick, subj, got, want)
					}
				}
			}
		}
	}
}

// TestSubmatchSearcherEnds: a loop of searches over a subject below the long-subject length,
// each reading to its end, stops at the call's end and at the caller's error.
func TestSubmatchSearcherEnds(t *testing.T) {
	re := regexp.MustCompile(`(a.*z)*a`)
	s, err := NewSubmatchSearcher(re, false)
	if err != nil {
		t.Fatal(err)
	}
	subj := strings.Repeat("a", 200_000)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	err = s.Each(ctx, subj, func([]int) error {
		if n++; n == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("after %d matches: %v, want the call's end after 3", n, err)
	}
	stop := errors.New("stop")
	if err := s.Each(context.Background(), subj, func([]int) error { return stop }); err != stop {
		t.Errorf("got %v, want the caller's error", err)
	}
}
