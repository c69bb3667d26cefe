package jqorder

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"
)

// rewriteSeeds are filters the rewrite touches, in the shapes tool scripts write them and some
// they do not (generators, errors, paths through optional iterations).
var rewriteSeeds = []string{
	`.`, `0[][0[]?]`, `.+.A=0`, `path(. + .A)`, `(.a + .b) |= 1`, `del(. + .a)`, `[.[][.a]]`, `[.[][.b]?]`, `[.[][0][]]`, `[.[]?[.a]?]`, `path(.[][.a])`, `.[][.a] |= 1`, `.a = 1`, `.a.b = 1`, `.["k"][0] = 2`, `.a |= . + 1`, `.a += 1`, `.a -= 1`, `.a *= 2`, `.a /= 2`,
	`.a %= 2`, `.a //= 3`, `.[] = 0`, `.[] |= empty`, `.[]? |= 1`, `(.a, .b) = (1, 2)`, `.a = (.b, .c)`,
	`del(.a)`, `del(.[0, 2])`, `del(.. | numbers?)`, `delpaths([["a"], ["b", 0]])`, `setpath(["x", "y"]; 1)`,
	`to_entries`, `with_entries(.value += 1)`, `from_entries`, `keys_unsorted`, `map(. * 2)`, `map_values(tostring)`,
	`[.[]]`, `[.[]?]`, `.a[]`, `.a[]?.b`, `[.[] | .x?]`, `[..]`, `[paths]`, `[paths(numbers)]`, `[leaf_paths]`,
	`[tostream]`, `walk(if type == "number" then . + 1 else . end)`, `add`, `add(.[])`, `. + {z: 1}`,
	`{z: 1} + .`, `. * {a: {b: 1}}`, `.a + .b`, `(1, 2) + (10, 20)`, `[.[] + 1]`, `reduce .[] as $x (0; . + $x)`,
	`reduce to_entries[] as $e ({}; .[$e.key] = $e.value)`, `tojson`, `tostring`, `"x\(.)"`, `@json`, `@text`,
	`tojson | fromjson`, `fromjson`, `.[] += 1`, `to_entries | map(select(.value != null)) | from_entries`,
	`first(.[])`, `limit(2; .[])`, `[.[] | select(. > 1)]`, `any(.[]; . == 1)`, `path(.a[].b)`, `[path(..)]`,
	`try (.a = 1) catch .`, `label $out | .[] | if . == 2 then break $out else . end`, `.a[1:] = [9]`,
	`getpath(["a", "b"])`, `.[-1] = 0`, `.a.b |= 3`, `foreach .[] as $x (0; . + 1)`, `[.[] | objects | keys_unsorted]`,
	`def f: .a = 1; f`, `INDEX(.a)`, `{(.a|tostring): 1, z: 0}`, `{a: 1, ("a"): 2, b: 3}`, `{("k\(1,2)"): 1, a: 0}.a`, `{b: 1, "\("x")": 2}`, `[.[] | {k: .}] | INDEX(.k)`, `INDEX(.[]; tostring)`, `def g(x): x + 1; g(.a)`, `.x as $v | .y = $v`, `[.[] as [$a, $b] | $a + $b]`,
}

var rewriteInputs = []string{
	`{"b":1,"a":2,"c":{"z":1,"y":[{"q":1,"p":2}]}}`, `[1,2,3]`, `[{"b":1,"a":2},{"a":3}]`, `{"a":1,"b":2}`,
	`null`, `"s"`, `3`, `[[1,2],[3,4]]`, `{"a":{"b":1}}`, `"{\"b\":1,\"a\":2}"`, `{}`, `[]`,
}

// runPlain runs filter as gojq alone, and runRewritten through Rewrite and OrderedDefs with a
// printer that records no order (so every object is in gojq's sorted order again): the two
// must agree on every result and error. ok is false when a run did not finish in time.
func runFilterForTest(filter, input string, rewritten bool) (out []string, ok bool) {
	return runFilterModes(filter, input, rewritten, false)
}

// runFilterModes is runFilterForTest with, when guarded, Guard applied first (as the jq
// utility and the SDK apply it).
func runFilterModes(filter, input string, rewritten, guarded bool) (out []string, ok bool) {
	return runFilterWithin(filter, input, rewritten, guarded, 200*time.Millisecond)
}

// runFilterWithin is runFilterModes with its own bound: tests that must see a filter finish
// give it a minute (a loaded CI machine is slow; the bound only catches a hang), fuzzers a
// short one (a slow random filter is skipped, not compared).
func runFilterWithin(filter, input string, rewritten, guarded bool, within time.Duration) (out []string, ok bool) {
	return runFilterRoom(filter, input, rewritten, guarded, within, nil)
}

// buildsLarge reports a filter that builds a value past 16 MiB in one step (a repeated string,
// a doubling sum: what the guard asks room for) on input: the fuzzers leave it out, since gojq
// alone would allocate it (up to 2 GiB) in the fuzzing process.
func buildsLarge(filter, input string) bool {
	asked := false
	runFilterRoom(filter, input, false, true, 200*time.Millisecond, func(n int64) error {
		if n > 16<<20 {
			asked = true
			return errors.New("large")
		}
		return nil
	})
	return asked
}

// runFilterRoom is runFilterWithin with the guard's room (when guarded).
func runFilterRoom(filter, input string, rewritten, guarded bool, within time.Duration, room func(int64) error) (out []string, ok bool) {
	q, err := gojq.Parse(filter)
	if err != nil {
		return []string{"parse: " + err.Error()}, true
	}
	// Put together as the jq utility does: guarded, rewritten, then the definitions.
	var opts []gojq.CompilerOption
	var defs []*gojq.FuncDef
	if guarded {
		ownDefs := OwnDefs(q)
		Guard(q)
		defs = slices.Concat(GuardDefs(), ownDefs)
		opts = GuardFunctions(room)
	}
	if rewritten {
		Rewrite(q)
		defs = append(defs, OrderedDefs()...)
		opts = append(opts, (&Printer{}).Functions()...)
		if !guarded {
			opts = append(opts, GuardFunctions(nil)...) // the ordered + is the checked one
		}
	}
	q.FuncDefs = slices.Concat(defs, q.FuncDefs)
	code, err := gojq.Compile(q, opts...)
	if err != nil {
		return []string{"compile: " + err.Error()}, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var none KeyOrder
	iter := code.RunWithContext(ctx, none.Decode([]byte(input), num))
	for len(out) < 200 {
		v, more := iter.Next()
		if !more {
			return out, true
		}
		if e, isErr := v.(error); isErr {
			if ctx.Err() != nil {
				return nil, false
			}
			return append(out, "error: "+e.Error()), true
		}
		b, err := gojq.Marshal(v)
		if err != nil {
			return append(out, "marshal: "+err.Error()), true
		}
		out = append(out, string(b))
	}
	return out, true
}

// gojqPathIterQuirk: gojq refuses an iteration inside path() that iterates a value off the
// path (path(.[]%.A) on {}: "invalid path on iterating against") even when it yields nothing;
// jq gives no output there, and so does the rewritten filter. The rewrite adds no difference
// then: it gives gojq's results up to that error.
func gojqPathIterQuirk(plain, rewritten []string) bool {
	n := len(plain)
	return n > 0 && strings.HasPrefix(plain[n-1], "error: invalid path on iterating against") &&
		len(rewritten) == n-1 && strings.Join(plain[:n-1], "\n") == strings.Join(rewritten, "\n")
}

// undefinedInGojq: builtins gojq lacks (keys_unsorted, leaf_paths) that OrderedDefs define.
func undefinedInGojq(out []string) bool {
	return len(out) == 1 && strings.HasPrefix(out[0], "compile: function not defined")
}

// FuzzRewriteKeepsResults: the rewrite changes only member order. With no order recorded,
// a rewritten filter gives exactly gojq's results, errors and generator order.
func FuzzRewriteKeepsResults(f *testing.F) {
	for i, s := range rewriteSeeds {
		f.Add(s, rewriteInputs[i%len(rewriteInputs)])
	}
	f.Fuzz(func(t *testing.T, filter, input string) {
		if !json.Valid([]byte(input)) || len(filter) > 200 {
			return
		}
		for _, w := range []string{"input", "env", "$ENV", "now", "debug", "stderr", "halt", "$__loc__", "getpath", "splits", "ltrimstr", "test", "match", "capture", "sub", "scan", "range", "repeat", "recurse", "until", "while", "limit", "combinations", "@"} {
			if strings.Contains(filter, w) && !strings.Contains(strings.Join(rewriteSeeds, "\n"), filter) {
				return // nondeterministic, slow or outside what the rewrite touches: not compared
			}
		}
		if buildsLarge(filter, input) {
			return
		}
		plain, ok1 := runFilterForTest(filter, input, false)
		rewritten, ok2 := runFilterForTest(filter, input, true)
		if !ok1 || !ok2 || undefinedInGojq(plain) {
			return
		}
		if gojqPathIterQuirk(plain, rewritten) {
			return
		}
		if strings.Join(plain, "\n") != strings.Join(rewritten, "\n") {
			t.Errorf("%s on %s:\n gojq      %q\n rewritten %q", filter, input, plain, rewritten)
		}
	})
}

// TestRewriteSeedsOnEveryInput runs every seed filter on every input (the fuzz target runs
// each seed on one).
func TestRewriteSeedsOnEveryInput(t *testing.T) {
	for _, filter := range rewriteSeeds {
		for _, input := range rewriteInputs {
			plain, ok1 := runFilterForTest(filter, input, false)
			rewritten, ok2 := runFilterForTest(filter, input, true)
			if ok1 && ok2 && !undefinedInGojq(plain) && strings.Join(plain, "\n") != strings.Join(rewritten, "\n") {
				t.Errorf("%s on %s:\n gojq      %q\n rewritten %q", filter, input, plain, rewritten)
			}
		}
	}
}
