package sandbox

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCompileRegexp: an expression that would take Go's regexp more than a moment to compile
// is refused before it is compiled (each of these took seconds); ordinary ones compile.
func TestCompileRegexp(t *testing.T) {
	for _, c := range []struct {
		expr string
		ok   bool
	}{
		{`^[a-z]+(-[0-9]{1,3})?$`, true},
		{strings.Repeat("x", 60<<10), true},
		{strings.Repeat("x", 2<<20), false},
		{strings.Repeat(`\pL`, 20000), false},
		{strings.Repeat(`x{1,100}`, 8000), false},
		{strings.Repeat(`[\pL\pN]`, 1000), false},
		{`\pL+\p{Greek}*`, true},
		{`(`, false},
	} {
		_, err := CompileRegexp(c.expr)
		if (err == nil) != c.ok {
			t.Errorf("%.30q (%d bytes): %v, want ok %v", c.expr, len(c.expr), err, c.ok)
		}
		if err != nil && c.expr != `(` && !strings.Contains(err.Error(), "too large for the sandbox") {
			t.Errorf("%.30q: %v, want the sandbox's refusal", c.expr, err)
		}
	}
}

// TestMatchEndsWithTheCall (issue 27): over a long subject the matches are the string
// matcher's (ASCII, multibyte and invalid UTF-8, anchors, submatches), and a search the call's
// end interrupts stops with its error instead of reading the rest.
func TestMatchEndsWithTheCall(t *testing.T) {
	long := strings.Repeat("a", longSubject)
	subjects := []string{"b" + long + "é\xffbc\n", "x\n" + long + "\nyz"}
	for _, expr := range []string{`^b`, `c$`, `(?m)^y(z)$`, `é.(b)`, `\bb`} {
		re := regexp.MustCompile(expr)
		for i, s := range subjects {
			ok, err := MatchString(context.Background(), re, s)
			okb, errb := Match(context.Background(), re, []byte(s))
			m, errm := FindStringSubmatchIndex(context.Background(), re, s)
			if err != nil || errb != nil || errm != nil || ok != re.MatchString(s) || okb != ok || !slices.Equal(m, re.FindStringSubmatchIndex(s)) {
				t.Errorf("%s on subject %d: %v %v %v (%v %v %v), want %v %v", expr, i, ok, okb, m, err, errb, errm, re.MatchString(s), re.FindStringSubmatchIndex(s))
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	re := regexp.MustCompile(`(a|b)*c`)
	if ok, err := MatchString(ctx, re, long); ok || err == nil {
		t.Errorf("a cancelled search: %v, %v; want the context's error", ok, err)
	}
	if m, err := FindStringSubmatchIndex(ctx, regexp.MustCompile(`.*`), long); m != nil || err == nil {
		t.Errorf("a cancelled search: %v, %v; want the context's error", m, err)
	}
}
