package sdk

import (
	"testing"

	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// TestPathFilterMatchesJq: `.key` and `.key // "text"` answered without jq print what jq
// prints, for every kind of value the key may hold or not hold; other filters are not
// recognised.
func TestPathFilterMatchesJq(t *testing.T) {
	inputs := []string{`{}`, `{"name":"Ada"}`, `{"name":""}`, `{"name":null}`, `{"name":false}`, `{"name":true}`,
		`{"name":0}`, `{"name":-12}`, `{"name":1.5}`, `{"name":1e300}`, `{"name":12345678901234567890}`, `{"name":[1,"a"]}`,
		`{"name":{"b":1,"a":2}}`, `{"name":"é\u0000\n"}`, `{"other":1}`, `[]`, `"s"`, `null`, `3`}
	filters := []string{`.name`, ` .name `, `.name // "World"`, `.name//"World"`, `.name // ""`, `.name // "a b é"`,
		`.other // "x"`, `._x1 // "y"`}
	for _, f := range filters {
		pf, ok := parsePathFilter(f)
		if !ok {
			t.Fatalf("%q not recognised", f)
		}
		for _, in := range inputs {
			v, err := decodeOrderedJSON([]byte(in), jqorder.KeyOrder{})
			if err != nil {
				t.Fatal(err)
			}
			fast, ok := pf.eval(v)
			if !ok {
				continue
			}
			cf, err := (*FilterCache)(nil).compile(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := &jqorder.Printer{}
			want, _ := cf.code.Run(v).Next()
			if rawOrderedOutput(p, fast) != rawOrderedOutput(p, want) {
				t.Errorf("%s over %s: %q, jq prints %q", f, in, rawOrderedOutput(p, fast), rawOrderedOutput(p, want))
			}
		}
	}
	for _, f := range []string{`.`, `.a.b`, `.a[]`, `.["a"]`, `."a"`, `.a // 1`, `.a // "x\(1)"`, `.a // "q\"r"`, `.a | .b`, `.and`,
		`.a // "x" // "y"`, `.1a`, `.a?`, `$__loc__`, `.a // "x"y"`} {
		if _, ok := parsePathFilter(f); ok {
			t.Errorf("%q recognised", f)
		}
	}
}
