package sdk

import (
	"testing"
)

// decodedCompact is what mcp_emit_json prints for s through decoding ("" when s is not JSON).
func decodedCompact(s string) string {
	o := newOrdered()
	v, err := o.decode([]byte(s))
	if err != nil {
		return ""
	}
	return o.encode(v)
}

// TestCompactAsIsMatchesDecoding: what compactAsIs lets mcp_emit_json print as written is what
// decoding and printing it gives; the shapes tools emit take the fast path.
func TestCompactAsIsMatchesDecoding(t *testing.T) {
	for _, tc := range []struct {
		in   string
		asIs bool
	}{
		{`{"message":"Hello, Ada!"}`, true},
		{`{"a":"x","b":["y",true,false,null,{}],"c":{"d":[]}}`, true},
		{`"plain <tag> & ~"`, true},
		{`[]`, true},
		{`null`, true},
		{`{"a":1}`, false},           // numbers: jq may rewrite them
		{`{"a":"x","a":"y"}`, false}, // a repeated key
		{`{"a" :"x"}`, false},        // whitespace
		{` {"a":"x"}`, false},        // whitespace
		{`{"a":"\u0041"}`, false},    // an escape
		{`{"a":"é"}`, false},         // not ASCII
		{`{"a":"x"`, false},          // not JSON
		{`{"a":"x"}{}`, false},       // two values
		{`{"a":"x",}`, false},        // not JSON
		{`[,]`, false},               // not JSON
		{`tru`, false},               // not JSON
		{`{"1":"","2":"","3":"","4":"","5":"","6":"","7":"","8":"","9":""}`, false},     // over 8 members
		{`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, false}, // deeper than 32
	} {
		got := compactAsIs(tc.in)
		if got != tc.asIs {
			t.Errorf("compactAsIs(%q) = %v, want %v", tc.in, got, tc.asIs)
		}
		if got && decodedCompact(tc.in) != tc.in {
			t.Errorf("compactAsIs(%q): decoding prints %q", tc.in, decodedCompact(tc.in))
		}
	}
}

// FuzzCompactAsIs: any input compactAsIs accepts prints the same through decoding.
func FuzzCompactAsIs(f *testing.F) {
	for _, s := range []string{`{"message":"Hello, Ada!"}`, `["a",{"b":null}]`, `{"a":"x","a":"y"}`, `"\u007f"`, `{"k":[true,false]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if compactAsIs(s) {
			if d := decodedCompact(s); d != s {
				t.Fatalf("compactAsIs(%q): decoding prints %q", s, d)
			}
		}
	})
}
