package jqorder

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

func num(n json.Number) any {
	if i, err := n.Int64(); err == nil {
		return int(i)
	}
	f, _ := n.Float64()
	return f
}

// TestPrinter: objects decoded into a KeyOrder print in input order (a repeated key in its
// first place, with its last value), objects with a literal's key set in the literal's order,
// everything else sorted; a nil KeyOrder records nothing.
func TestPrinter(t *testing.T) {
	for _, tc := range []struct {
		in, filter, want string
	}{
		{`{"b":1,"a":{"d":1,"c":[{"f":1,"e":2}]}}`, `.`, `{"b":1,"a":{"d":1,"c":[{"f":1,"e":2}]}}`},
		{` { "b" : 1 , "a" : 2 , "b" : 3 } `, `.`, `{"b":3,"a":2}`},
		{`{"b":"\u00e9\n","a":"x\"y"}`, `.`, `{"b":"é\n","a":"x\"y"}`},
		{`[{"b":1,"a":2},{"b":3,"a":4}]`, `.[1], map(select(.a > 2))`, `{"b":3,"a":4}` + "\n" + `[{"b":3,"a":4}]`},
		{`{"b":1,"a":2}`, `.c = 3`, `{"a":2,"b":1,"c":3}`},
		{`{}`, `{z: 1, a: {y: 2, x: 3}}`, `{"z":1,"a":{"y":2,"x":3}}`},
		{`{}`, `{z: 1, a: 2}, {a: 3, z: 4}`, `{"a":2,"z":1}` + "\n" + `{"a":3,"z":4}`},
		{`{}`, `{("z"): 1, a: 2}`, `{"a":2,"z":1}`},
		{`{}`, `{"q": 1, $__prog_name, p: 2}`, `{"q":1,"__prog_name":"n","p":2}`},
		{`{}`, `{"q": 1, $__prog_name, p: 2} | del(.__prog_name)`, `{"p":2,"q":1}`}, // changed after building: sorted (jq: q, p)
	} {
		q, err := gojq.Parse(tc.filter)
		if err != nil {
			t.Fatalf("%s: %v", tc.filter, err)
		}
		code, err := gojq.Compile(q, gojq.WithVariables([]string{"$__prog_name"}))
		if err != nil {
			t.Fatalf("%s: %v", tc.filter, err)
		}
		in := KeyOrder{}
		p := &Printer{Input: in, Built: BuiltOrders(q)}
		v := in.Decode([]byte(tc.in), num)
		var got string
		iter := code.Run(v, "n")
		for {
			x, ok := iter.Next()
			if !ok {
				break
			}
			if e, ok := x.(error); ok {
				t.Fatalf("%s: %v", tc.filter, e)
			}
			b, err := p.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			if got != "" {
				got += "\n"
			}
			got += string(b)
		}
		if got != tc.want {
			t.Errorf("%s on %s: got\n%s\nwant\n%s", tc.filter, tc.in, got, tc.want)
		}
	}
	var none KeyOrder
	v := none.Decode([]byte(`{"b":1,"a":2}`), num)
	if b, _ := (&Printer{Input: none}).Marshal(v); string(b) != `{"a":2,"b":1}` {
		t.Errorf("nil KeyOrder: %s", b)
	}
}

// TestChangedMapPrintsSorted: a recorded map changed afterwards (a key swapped for another,
// same count) prints sorted, never with a stale order that names a missing key.
func TestChangedMapPrintsSorted(t *testing.T) {
	ko := KeyOrder{}
	m := ko.Decode([]byte(`{"b":1,"a":2}`), num).(map[string]any)
	delete(m, "b")
	m["c"] = 3
	if b, _ := (&Printer{Input: ko}).Marshal(m); string(b) != `{"a":2,"c":3}` {
		t.Errorf("got %s", b)
	}
	ko.Set(m, "d", 4) // Set on a stale record starts from the sorted keys
	if b, _ := (&Printer{Input: ko}).Marshal(m); string(b) != `{"a":2,"c":3,"d":4}` {
		t.Errorf("after Set: got %s", b)
	}
}

// TestBuiltOrdersFindsNestedLiterals: literals are found wherever a filter can hold them.
func TestBuiltOrdersFindsNestedLiterals(t *testing.T) {
	for _, filter := range []string{
		`{b: 1, a: 2}`, `[{b: 1, a: 2}]`, `map({b: 1, a: 2})`, `if . then {b: 1, a: 2} else 0 end`,
		`if . then 0 elif 1 then {b: 1, a: 2} else 0 end`, `try {b: 1, a: 2} catch 0`,
		`reduce .[] as $x (0; {b: 1, a: 2})`, `foreach .[] as $x (0; 1; {b: 1, a: 2})`,
		`label $l | {b: 1, a: 2}`, `def f: {b: 1, a: 2}; f`, `"\({b: 1, a: 2})"`, `.[{b: 1, a: 2} | .a]`,
		`-({b: 1, a: 2} | .a)`, `.x[{b: 1, a: 2}.a:]`, `{k: {b: 1, a: 2}}`, `(.x | {b: 1, a: 2})`,
	} {
		q, err := gojq.Parse(filter)
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		got := BuiltOrders(q)["a\x00b"]
		if len(got) != 2 || got[0] != "b" || got[1] != "a" {
			t.Errorf("%s: literal {b, a} not found: %v", filter, BuiltOrders(q))
		}
	}
}

// TestPrinterStripsAsJq: a value nested deeper than jq's printing depth prints jq 1.6's marker
// at that level (checked against jq 1.6: `jq -nc 'reduce range(257) as $i (0; [.])'`), with
// or without member orders, and however deep it goes.
func TestPrinterStripsAsJq(t *testing.T) {
	nest := func(n int, leaf any, obj bool) any {
		v := leaf
		for range n {
			if obj {
				v = map[string]any{"a": v}
			} else {
				v = []any{v}
			}
		}
		return v
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{nest(256, 0, false), strings.Repeat("[", 256) + "0" + strings.Repeat("]", 256)},
		{nest(257, 0, false), strings.Repeat("[", 257) + Stripped + strings.Repeat("]", 257)},
		{nest(257, 0, true), strings.Repeat(`{"a":`, 257) + Stripped + strings.Repeat("}", 257)},
		{[]any{1, nest(300, "x", false)}, "[1," + strings.Repeat("[", 256) + Stripped + strings.Repeat("]", 256) + "]"},
		{nest(3_000_000, 0, false), strings.Repeat("[", 257) + Stripped + strings.Repeat("]", 257)},
	} {
		for _, p := range []*Printer{nil, {}, {Built: map[string][]string{"a\x00b": {"b", "a"}}}} {
			b, err := p.Marshal(c.v)
			if err != nil || string(b) != c.want {
				t.Errorf("printer %v: %v %.80q...%.80q, want %.80q", p, err, b, b[max(0, len(b)-80):], c.want)
			}
		}
	}
}
