package jqorder

import (
	"runtime"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// runOrdered runs filter on in as the jq utility does: literal orders, Rewrite, OrderedDefs
// and Printer.Functions; it returns the results printed one per line.
func runOrdered(t *testing.T, in, filter string) string {
	t.Helper()
	q, err := gojq.Parse(filter)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	ko := KeyOrder{}
	p := &Printer{Input: ko, Args: KeyOrder{}, Built: BuiltOrders(q), Derived: &Derived{}, Normalize: num}
	Rewrite(q)
	q.FuncDefs = append(OrderedDefs(), q.FuncDefs...)
	code, err := gojq.Compile(q, append(p.Functions(), GuardFunctions(nil)...)...)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	var out []string
	iter := code.Run(ko.Decode([]byte(in), num))
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if e, ok := v.(error); ok {
			out = append(out, "error: "+e.Error())
			break
		}
		b, err := p.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return strings.Join(out, "\n")
}

// TestRewriteKeepsJqOrder: what a filter changes, adds, merges, deletes, iterates or prints
// as JSON follows jq's member order. Expected outputs are jq 1.6's.
func TestRewriteKeepsJqOrder(t *testing.T) {
	const in = `{"b":1,"a":2,"c":{"z":1,"y":[{"q":1,"p":2}]}}`
	for _, tc := range []struct{ filter, want string }{
		{`.x = 1`, `{"b":1,"a":2,"c":{"z":1,"y":[{"q":1,"p":2}]},"x":1}`},
		{`.c.y[0].r = 5 | .c.y`, `[{"q":1,"p":2,"r":5}]`},
		{`.b |= . + 1 | keys_unsorted`, `["b","a","c"]`},
		{`.c += {w: 1} | .c | keys_unsorted`, `["z","y","w"]`},
		{`del(.b), delpaths([["c", "z"]]) | keys_unsorted`, "[\"a\",\"c\"]\n[\"b\",\"a\",\"c\"]"},
		{`. + {d: 3} | keys_unsorted`, `["b","a","c","d"]`},
		{`. * {c: {x: 1}} | .c`, `{"z":1,"y":[{"q":1,"p":2}],"x":1}`},
		{`[.[] | numbers]`, `[1,2]`},
		{`[paths | map(tostring) | join(".")]`, `["b","a","c","c.z","c.y","c.y.0","c.y.0.q","c.y.0.p"]`},
		{`tojson`, `"{\"b\":1,\"a\":2,\"c\":{\"z\":1,\"y\":[{\"q\":1,\"p\":2}]}}"`},
		{`.c | "\(.)"`, `"{\"z\":1,\"y\":[{\"q\":1,\"p\":2}]}"`},
		{`.c | tojson | fromjson | .n = 0`, `{"z":1,"y":[{"q":1,"p":2}],"n":0}`},
		{`map_values(type) `, `{"b":"number","a":"number","c":"object"}`},
		{`setpath(["c", "n"]; 1) | .c | keys_unsorted`, `["z","y","n"]`},
		{`reduce ("k", "j") as $k (.; .[$k] = 1) | keys_unsorted`, `["b","a","c","k","j"]`},
		{`.c.y[] |= (.o = 1) | .c.y`, `[{"q":1,"p":2,"o":1}]`},
		{`.c | to_entries | map(.key)`, `["z","y"]`},
		{`{z: 1} + {a: 2}`, `{"z":1,"a":2}`},
		{`[{b: 1}, {a: 2}] | add`, `{"b":1,"a":2}`},
		{`.n + 1, "a" + "b", [1] + [2]`, "1\n\"ab\"\n[1,2]"},
		{`1 | .[]`, `error: cannot iterate over: number (1)`},
	} {
		if got := runOrdered(t, in, tc.filter); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.filter, got, tc.want)
		}
	}
}

// TestDerivedForgetsDeadObjects: the orders of changed objects do not keep them alive, and
// entries of collected objects are dropped, so a reduce that copies an object per step stays
// bounded; a live object keeps its order.
func TestDerivedForgetsDeadObjects(t *testing.T) {
	d := &Derived{}
	keep := map[string]any{"b": 1, "a": 2}
	d.put(keep, []string{"b", "a"})
	for i := range 5000 {
		d.put(map[string]any{"y": i, "x": i}, []string{"y", "x"})
		if i%1000 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	d.put(map[string]any{"y": 0, "x": 0}, []string{"y", "x"}) // may sweep
	if len(d.m) > 3000 {
		t.Errorf("%d entries kept for 5001 objects, most of them dead", len(d.m))
	}
	if keys, ok := d.get(keep); !ok || strings.Join(keys, ",") != "b,a" {
		t.Errorf("live object lost its order: %v %v", keys, ok)
	}
	runtime.KeepAlive(keep)
}
