package sandbox

import (
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
