package jqorder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"
)

// guardSeeds are filters Guard touches (comparisons, printing, paths, updates), on top of the
// rewrite's seeds.
var guardSeeds = []string{
	`. == .`, `[.[] | select(. == 1)]`, `.[] != 2`, `. < [2]`, `sort`, `unique`, `min`, `max`, `sort_by(.a)`,
	`group_by(.a)`, `unique_by(.)`, `min_by(.a)`, `max_by(.)`, `contains([1])`, `inside([1,2,3])`, `indices(1)`,
	`index(2)`, `rindex(2)`, `.[[2]]`, `flatten`, `flatten(1)`, `tojson`, `tostring`, `@json`, `@text`,
	`@json "x\(.)"`, `"a\(.)b\(. | length)"`, `@base64`, `@html`, `@uri`, `@sh`, `@csv`, `@tsv`, `. - [1]`,
	`. * {"a": 1}`, `error`, `error(.)`, `try error(.) catch .`, `IN(1, 2)`, `IN(.[]; 1)`, `INDEX(.a)`,
	`del(.a)`, `del(.[0])`, `del(..|select(. == 1))`, `pick(.a)`, `pick(.[1])`, `setpath(["a"]; 1)`,
	`setpath([0]; 1)`, `delpaths([["a"]])`, `delpaths([[0], [1]])`, `[tostream]`, `fromstream(tostream)`,
	`.a -= 1`, `.[] -= 1`, `.a *= {"b": 1}`, `.[] *= 2`, `(.a, .b) -= (1, 2)`, `.a |= . + 1`, `..|= .`,
	`(.. | numbers) |= . + 1`, `getpath(["a", "b"]) |= 5`, `path(getpath(["a", "b"]))`, `first(.[]) |= 7`,
	`path(.[] | select(. == 1))`, `[paths(. == 1)]`, `to_entries`, `with_entries(.value |= tostring)`,
	`.[.a]`, `.[0:1]`, `bsearch(2)`, `[limit(3; .[])] == .`, `def f(x): x == 1; f(.)`, `map(tojson)`,
	`{a: .} | .a == .a`, `.a[0] = 1`, `.a.b.c = 1`, `transpose`, `implode?`, `ascii_downcase?`,
	`[splits(",")?]`, `tostream | tojson`, `input_filename`, `$__loc__`, `builtins | length > 10`,
	`A=B`, `.[A] += B`, `.[error("l")] = error("r")`, `.[error("l")] //= error("r")`, `.[error("l")] |= error("r")`,
	`.[.[]?] = (1, 2)`, `.[0, 1] += (10, 20)`, `(.,0)%=(0)`, `(.. , 0) |= 1`, `del(.[0], error("x"))`,
	`label $out | (.[], break $out) |= 1`, `def f: .a; f |= 1`, `def f: .a; f -= 1`, `def f: .[0]; f = 1`, `def g: .b; del(g)`, `def first(f): .b; first(.a) |= 1`, `(.a | debug) |= 1`,
	`try ((.[] , error("e")) += 1) catch .`, `pick(.a, 0)`, `"ab" * 3`, `3 * "ab"`, `[(1,2) * (10,20)]`, `error("l") * error("r")`, `.a *= 2`, `. * .`, `path(1 * 2)`, `(.A*.A)=(0)`, `path(.a * .a)`, `path(error("x") * .a)`, `path(.a * error("y"))`, `(if .a then .b else .c end) = 1`,
	`. + .`, `.a + .b`, `[.[] | tostring] | add`, `add`, `.a += .a`, `.[] += 1`, `(.a, .b) += (1, 2)`, `path(. + 1)`, `try (. + error("r")) catch .`, `[(1, 2) + (10, 20)]`, `{} + .`, `null + .`, `join(",")`, `[.[] | tostring] | join(.[0] // "-")`, `path(join(","))`,
	`[.[]? | strings | test("a")]`, `tostring | [match("(?<x>.)(y)?"; "g")]`, `tostring | gsub("(?<c>[0-9])"; "<\(.c)>")`,
	`tostring | [scan("\\w+")]`, `tostring | sub("^"; ">"; "g")`, `tostring | split(",|:"; null)`, `tostring | capture("(?<a>.)")`,
	`[tostring | splits("")]`, `try test(1) catch .`, `tostring | _match("."; "g"; false)`, `join(", ", "-")`,
	// Indices by a value (indexDef), comparisons and subtraction (binopFunc).
	`.[[1, 2]]`, `.[[1]]?`, `.[[]]`, `[.[] | .[[3]]?]`, `path(.[[2]])`, `path(.[[1, 2]][0])`, `[paths]`,
	`.[[2]] |= 5`, `try (.[[2]] = 1) catch .`, `.a[.b]?`, `.[.a]?`, `.[.[0]]`, `.[.[0]]?`, `.[(0, 1)]`,
	`[.[(0, 1)][(0, 1)]?]`, `[(.[0], .[1])[(0, 1)]]`, `.[.a][.b]`, `.a[.b][.c]?`, `.[] as $x | .[$x]?`,
	`. as $d | [.[]?] | .[$d]?`, `.[.[]?]?`, `.[error("x")]?`, `.[[.[0]]]`, `path(..) as $p | .[$p]?`,
	`del(.[[1]])?`, `try del(.[[1]]) catch .`, `.[1:][[3]]?`, `.[[2]][0]`, `.[[2]][]?`, `.[[2]]?.a?`,
	`.[. - [1]]?`, `[. < ., . <= 1, . > "a", . >= [], . != {}, . == null]`, `. - .`, `. - 1`, `1 - .`,
	`[.[]? - 1]`, `9223372036854775807 - -1`, `-9223372036854775807 - 2`, `1.5 - .`, `[(1, 2) - (10, 20)]`,
	`[(1, 2) < (2, 1)]`, `nan < nan`, `[nan] == [nan]`, `[nan] - [nan]`, `[1, nan] - [1]`, `{} - {}`, `"a" - "b"`,
	`100000000000000000000000 - 1`, `1 - 100000000000000000000000`, `(.a, .b) == (1, 2)`, `error("l") == error("r")`,
	`error("l") - error("r")`, `getpath([[2]])`, `getpath([0, [1]])`, `try getpath([[1], 0]) catch .`, `path(getpath([[2]]))`,
	`getpath(["a", [1]])?`, `[getpath(([0], [[2]]), [1])]`, `getpath([[2]]) |= 1`, `delpaths([[[1]], [[2]]])?`,
	`try delpaths([[0], [[1, 2]]]) catch .`, `delpaths([[{"start": 0, "end": 1}], [0]])?`,
}

// TestGuardKeepsResults: a guarded filter gives gojq's results, errors and generator order,
// rewritten or not.
func TestGuardKeepsResults(t *testing.T) {
	for _, filter := range append(guardSeeds, rewriteSeeds...) {
		for _, input := range rewriteInputs {
			for _, rewritten := range []bool{false, true} {
				plain, ok1 := runFilterWithin(filter, input, rewritten, false, time.Minute)
				guarded, ok2 := runFilterWithin(filter, input, rewritten, true, time.Minute)
				if ok1 && ok2 && !undefinedInGojq(plain) && strings.Join(plain, "\n") != strings.Join(guarded, "\n") {
					t.Errorf("%s on %s (rewritten %v):\n plain   %q\n guarded %q", filter, input, rewritten, plain, guarded)
				}
			}
		}
	}
}

// FuzzGuardKeepsResults is TestGuardKeepsResults over any filter.
func FuzzGuardKeepsResults(f *testing.F) {
	for i, s := range guardSeeds {
		f.Add(s, rewriteInputs[i%len(rewriteInputs)])
	}
	f.Fuzz(func(t *testing.T, filter, input string) {
		if !json.Valid([]byte(input)) || len(filter) > 200 {
			return
		}
		for _, w := range []string{"input", "env", "$ENV", "now", "debug", "stderr", "halt", "range", "repeat", "recurse", "until", "while", "limit", "combinations"} {
			if strings.Contains(filter, w) {
				return // nondeterministic or slow: not compared
			}
		}
		if buildsLarge(filter, input) {
			return // gojq alone would allocate it in the fuzzing process
		}
		plain, ok1 := runFilterModes(filter, input, false, false)
		guarded, ok2 := runFilterModes(filter, input, false, true)
		// Two undefined names (functions, variables or labels): gojq compiles an update's sides in an order
		// the guard's checks change; either name is a true report (jq itself lists both, left first).
		bothUndefined := undefinedName(plain) && undefinedName(guarded)
		if ok1 && ok2 && !bothUndefined && strings.Join(plain, "\n") != strings.Join(guarded, "\n") {
			t.Errorf("%s on %s:\n plain   %q\n guarded %q", filter, input, plain, guarded)
		}
	})
}

// undefinedName reports a compile error naming an undefined function, variable or label.
func undefinedName(out []string) bool {
	return len(out) == 1 && (strings.HasPrefix(out[0], "compile: function not defined") ||
		strings.HasPrefix(out[0], "compile: variable not defined") || strings.HasPrefix(out[0], "compile: label not defined"))
}

// TestGuardRefusesDeepWalks (issue 27): every builtin and operator that recurses over a value
// or follows a path refuses one past MaxDepth with an error, where gojq alone would recurse
// (past the Go stack's limit for deeper values: a fatal error that ends the process).
func TestGuardRefusesDeepWalks(t *testing.T) {
	deep := `reduce range(10001) as $i (0; [.])`
	long := `[range(10001) | 0]`
	for _, filter := range []string{
		deep + ` | . == .`, deep + ` | . != 1 and . == .`, deep + ` | [.] | sort`, deep + ` | [., .] | unique`,
		deep + ` | @base64`, deep + ` | @html "x\(.)"`,
		deep + ` | [.] | min`, deep + ` | [.] | group_by(.)`, deep + ` | [.] | sort_by(.)`, deep + ` | contains(.)`,
		deep + ` | [.] | indices([.[0]])`, deep + ` | flatten`, deep + ` | . - .`, deep + ` | error`,
		deep + ` | error(.)`, deep + ` | IN(.)`, deep + ` | [.] | .[[.[0]]]`, deep + ` | tostream`,
		`reduce range(10001) as $i ({}; {a: .}) | . * .`, `reduce range(10001) as $i ({}; {a: .}) | .a -= 1`,
		`null | setpath(` + long + `; 1)`, `null | delpaths([` + long + `])`, `null | getpath(` + long + `) |= 1`,
		`null | getpath(` + long + `) = 1`, `null | getpath(` + long + `) += 1`, `null | getpath(` + long + `) -= 1`,
		`null | del(getpath(` + long + `))`, `null | pick(getpath(` + long + `))`,
		`fromstream([` + long + `, 1], [` + long + `])`,
	} {
		out, ok := runFilterWithin(filter, "null", true, true, time.Minute)
		if !ok {
			t.Errorf("%.60s...: did not finish", filter)
			continue
		}
		got := strings.Join(out, "\n")
		if !strings.Contains(got, "deeper than 10000") && !strings.Contains(got, "longer than 10000") {
			t.Errorf("%.60s...: %.200q, want the depth refusal", filter, got)
		}
	}
}

// TestGuardLeavesPrintingToThePrinter: tojson, tostring, @json, @text and interpolation are
// OrderedDefs' printer, which strips past jq's depth as jq 1.6 does instead of refusing.
func TestGuardLeavesPrintingToThePrinter(t *testing.T) {
	for _, f := range []string{`tojson`, `tostring`, `@json`, `@text`, `"\(.)"`, `@json "x\(.)"`} {
		out, ok := runFilterWithin(`reduce range(300) as $i (0; [.]) | `+f, "null", true, true, time.Minute)
		if got := strings.Join(out, "\n"); !ok || !strings.Contains(got, Stripped) {
			t.Errorf("%s: %.100q...; want jq's stripped marker", f, got)
		}
	}
}

// TestGuardKnowsEveryBuiltin: every builtin gojq has is classified, so a gojq upgrade that adds
// one makes this test fail until someone decides whether it walks values deeply (until then
// Guard checks its input and arguments, the safe default).
func TestGuardKnowsEveryBuiltin(t *testing.T) {
	v, _ := plainCode(t, `builtins`).Run(nil).Next()
	var unknown []string
	for _, b := range v.([]any) {
		name, _, _ := strings.Cut(b.(string), "/")
		if _, ok := guardKinds[name]; !ok && !safeBuiltins[name] && !strings.HasPrefix(name, "_") {
			unknown = append(unknown, b.(string))
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("builtins Guard does not classify: %v", unknown)
	}
}

func TestCheckText(t *testing.T) {
	for _, c := range []struct {
		src string
		ok  bool
	}{
		{`.a | map(select(.b == "x")) | {n: length}`, true},
		{strings.Repeat("[", MaxFilterTokens/2) + strings.Repeat("]", MaxFilterTokens/2), true},
		{strings.Repeat("[", MaxFilterTokens) + strings.Repeat("]", MaxFilterTokens), false},
		{strings.Repeat("def f: .a | .b; ", 3000) + ".", false},
		{`"` + strings.Repeat("x", 1<<20) + `"`, true},
		{`"` + strings.Repeat(`\(1)`, MaxFilterTokens) + `"`, false},
		{"# " + strings.Repeat("x ", 1<<16) + "\n.", true},
		// Number literals: gojq reads a long integer into a *big.Int in quadratic time.
		{strings.Repeat("9", MaxIntegerDigits) + " * 2", true},
		{strings.Repeat("9", MaxIntegerDigits+1) + " * 2", false},
		{"1." + strings.Repeat("0", MaxIntegerDigits), false},
		{"$x" + strings.Repeat("9", MaxIntegerDigits+1), true}, // a name, read in linear time
		{`"` + strings.Repeat("9", MaxIntegerDigits+1) + `"`, true},
	} {
		if err := CheckText(c.src); (err == nil) != c.ok {
			t.Errorf("%.40q: %v, want ok %v", c.src, err, c.ok)
		}
	}
}

// TestGuardAsksRoomBeforeRepeating: a string times a number asks the call's memory for the
// product's size before gojq allocates it (one allocation the heap watch sees only once made),
// for every spelling of the repetition; other products ask nothing.
func TestGuardAsksRoomBeforeRepeating(t *testing.T) {
	for _, c := range []struct {
		filter string
		asked  int64 // the size asked for, 0 for none
		ok     bool
	}{
		{`"ab" * 3000`, 6000, false},
		{`3000 * "ab"`, 6000, false},
		{`"ab" * 30`, 60, true},
		{`{a: "ab"} | .a *= 3000`, 6000, false},
		{`[1, 2] | map("x" * (. * 1000))`, 2000, false},
		{`2 * 3000`, 0, true},
		{`{} * {a: 1}`, 0, true},
		{`"ab" * 0`, 0, true},
		{`"x" * 1e10`, 0, false}, // past gojq's own bound: its error, no question
	} {
		var asked int64
		room := func(n int64) error {
			asked = max(asked, n)
			if n > 1000 {
				return errors.New("no room")
			}
			return nil
		}
		ok := runGuarded(t, c.filter, false, room)
		if asked != c.asked || ok != c.ok {
			t.Errorf("%s: asked %d, ok %v; want %d, %v", c.filter, asked, ok, c.asked, c.ok)
		}
	}
}

// runGuarded runs filter on null as the jq utility does, guarded with room (and rewritten), up
// to its first error (as the jq utility and the SDK stop), and reports whether it gave none.
func runGuarded(t *testing.T, filter string, rewritten bool, room func(int64) error) bool {
	t.Helper()
	q, err := gojq.Parse(filter)
	if err != nil {
		t.Fatal(err)
	}
	Guard(q)
	q.FuncDefs = append(GuardDefs(), q.FuncDefs...)
	opts := GuardFunctions(room)
	if rewritten {
		Rewrite(q)
		q.FuncDefs = slices.Concat(GuardDefs(), OrderedDefs(), q.FuncDefs[len(GuardDefs()):])
		opts = append(opts, (&Printer{}).Functions()...)
	}
	code, err := gojq.Compile(q, opts...)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	for iter := code.Run(nil); ; {
		v, more := iter.Next()
		if !more {
			return true
		}
		if _, isErr := v.(error); isErr {
			return false
		}
	}
}

// TestGuardAsksRoomBeforeJoining: a + of two strings or arrays, += and add ask the call's
// memory for the sum's size (past roomMin) before gojq builds it, guarded alone or rewritten
// too (the ordered + is the checked one): a value doubled 40 times asks, and is refused, at
// the first sum past what room allows, not after building it.
func TestGuardAsksRoomBeforeJoining(t *testing.T) {
	const allowed = 2 << 20
	for _, c := range []struct {
		filter   string
		min, max int64 // the largest size asked lies in [min, max]; 0, 0 for none
		ok       bool
	}{
		{`"x" | until(length > 1e9; . + .)`, allowed, 2 * allowed, false},
		{`reduce range(40) as $i ("x"; . + .)`, allowed, 2 * allowed, false},
		{`reduce range(40) as $i ([1]; . + .) | length`, allowed, 2 * allowed, false},
		{`{s: "x"} | until(.s | length > 1e9; .s += .s)`, allowed, 2 * allowed, false},
		{`reduce range(40) as $i ({a: ["x"]}; .a += .a) | .a | length`, allowed, 2 * allowed, false},
		{`("x" * 1000000) as $s | [range(10) | $s] | add | length`, 10000000, 10000000, false},
		{`[range(10) | [range(20000)]] | add | length`, anyBytes * 200000, anyBytes * 200000, false},
		{`("x" * 1000000) as $s | [range(10) | $s] | join(",") | length`, 10000009, 10000009, false},
		{`[range(1000000)] | join("y" * 1000000) | length`, 1e12, 1e12 + 24e6, false},
		{`[range(3)] | join("y" * 1000000, "z") | length`, 2000000 + 72, 2000000 + 72, true},
		{`try ([1] | join({})) catch "caught"`, 0, 0, true},
		{`[range(10) | tostring] | join(",")`, 0, 0, true},
		{`("x" * 1000000) as $s | $s + $s | length`, 2000000, 2000000, true},
		{`reduce range(10) as $i ("x"; . + .) | length`, 0, 0, true},
		{`[1, 2] | .[0] + .[1], . + [3], {a: 1} + {b: 2}, null + 1, 1.5 + 1`, 0, 0, true},
		{`try (1 + "a") catch .`, 0, 0, true},
	} {
		for _, rewritten := range []bool{false, true} {
			room, asked := largestAsk(allowed)
			ok := runGuarded(t, c.filter, rewritten, room)
			if *asked < c.min || *asked > c.max || ok != c.ok {
				t.Errorf("%s (rewritten %v): asked %d, ok %v; want [%d, %d], %v", c.filter, rewritten, *asked, ok, c.min, c.max, c.ok)
			}
		}
	}
}

// BenchmarkGuardedSum: what Guard's checked + costs over gojq's own on sums of numbers,
// strings and arrays (go test -bench GuardedSum ./sdk/jqorder).
func BenchmarkGuardedSum(b *testing.B) {
	for _, filter := range []string{
		`reduce range(20000) as $i (0; . + $i)`,
		`reduce range(2000) as $i (""; . + ($i | tostring)) | length`,
		`reduce range(500) as $i ([]; . + [$i]) | length`,
		`[range(20000) | {a: ., b: .} | .a + .b] | length`,
	} {
		for _, guarded := range []bool{false, true} {
			q, err := gojq.Parse(filter)
			if err != nil {
				b.Fatal(err)
			}
			var opts []gojq.CompilerOption
			if guarded {
				Guard(q)
				q.FuncDefs = append(GuardDefs(), q.FuncDefs...)
				opts = GuardFunctions(func(int64) error { return nil })
			}
			code, err := gojq.Compile(q, opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%.30s/guarded=%v", filter, guarded), func(b *testing.B) {
				for b.Loop() {
					if v, _ := code.Run(nil).Next(); v == nil {
						b.Fatal("no result")
					}
				}
			})
		}
	}
}

// TestGuardBoundsBigIntegers: tonumber of a long string and a product of integers past
// MaxIntegerDigits are refused with the bound's words; smaller ones keep gojq's exact results.
func TestGuardBoundsBigIntegers(t *testing.T) {
	for _, c := range []struct{ filter, want string }{
		{`"12345678901234567890123" | tonumber | . * 3`, "37037036703703703670369"},
		{`100000000000000000000 * 100000000000000000000`, "10000000000000000000000000000000000000000"},
		{`"7" | tonumber * 6`, "42"},
		{`[1.5, "2"] | map(tonumber? // .)`, "[1.5,2]"},
		{`("9" * 100000 | tonumber) as $x | $x * 1 | tostring | length`, "100000"},
		{`("9" * 100001) | tonumber`, "tonumber of a string of more than 100000 digits"},
		{`("9" * 60000 | tonumber) as $x | $x * $x`, "a product of integers of more than 100000 digits"},
		{`reduce range(40) as $i (3; . * .)`, "a product of integers of more than 100000 digits"},
		{`("9" * 60000 | tonumber) as $x | $x * 1.5 | type`, "number"},
	} {
		q, err := gojq.Parse(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		Guard(q)
		q.FuncDefs = append(GuardDefs(), q.FuncDefs...)
		code, err := gojq.Compile(q, GuardFunctionsContext(context.Background(), nil)...)
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		var got []string
		iter := code.Run(nil)
		for {
			v, ok := iter.Next()
			if !ok {
				break
			}
			if e, isErr := v.(error); isErr {
				got = append(got, e.Error())
				break
			}
			b, _ := gojq.Marshal(v)
			got = append(got, string(b))
		}
		if s := strings.Join(got, "\n"); !strings.Contains(s, c.want) {
			t.Errorf("%s: %.200q, want %q", c.filter, s, c.want)
		}
	}
}

// TestProductIsGojqs: the products made without a run of gojq's code are gojq's own.
func TestProductIsGojqs(t *testing.T) {
	big := `100000000000000000000`
	values := []string{`0`, `1`, `-1`, `3`, `-7`, `4611686018427387904`, `-9223372036854775808`, `9223372036854775807`,
		big, `1.5`, `-0.25`, `1e308`, `null`, `"ab"`, `[1]`, `{}`, `{"a":1}`, `{"a":{"b":1,"c":[1]},"d":2}`,
		`{"a":{"b":{"x":1}},"d":{"e":1}}`, `{"a":3}`}
	for _, ls := range values {
		for _, rs := range values {
			l, r := jsonValue(t, ls), jsonValue(t, rs)
			got, want := product(l, r), gojqBinop("*", l, r)
			gerr, _ := got.(error)
			werr, _ := want.(error)
			if gerr != nil || werr != nil {
				if gerr == nil || werr == nil || gerr.Error() != werr.Error() {
					t.Errorf("%s * %s: %v, gojq %v", ls, rs, got, want)
				}
				continue
			}
			if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
				t.Errorf("%s * %s = %#v, gojq %#v", ls, rs, got, want)
			}
		}
	}
}

// jsonValue is s as gojq holds it (ints where they fit, big ints past them).
func jsonValue(t *testing.T, s string) any {
	t.Helper()
	v, _ := plainCode(t, s).Run(nil).Next()
	return v
}

// plainCode is filter f compiled by gojq alone.
func plainCode(t *testing.T, f string) *gojq.Code {
	t.Helper()
	q, err := gojq.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gojq.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
