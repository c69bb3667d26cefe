package jqorder

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/itchyny/gojq"
)

// ownFilters call every builtin of ownSource and every format of ownFormats, in the ways gojq
// takes them (alone, _by forms over keys of every type, formats alone and in strings).
var ownFilters = []string{
	`sort`, `unique`, `min`, `max`, `sort_by(.)`, `sort_by(.a)`, `sort_by(type)`,
	`sort_by(-.)`, `group_by(.)`, `group_by(.a)`, `group_by(type)`, `unique_by(.)`, `unique_by(.a)`,
	`unique_by(length)`, `min_by(.)`, `max_by(.)`, `min_by(.a)`, `max_by(.a)`, `min_by(type)`, `max_by(length)`,
	`[.[]?, nan, nan] | sort`, `[.[]? | [nan, .]] | sort`, `[.[]? | {a: nan, b: .}] | sort_by(.a)`,
	`[.[]? | {a: nan, b: .}] | group_by(.a)`, `[.[]? | {a: nan, b: .}] | unique_by(.a)`,
	`[.[]? | [nan, .]] | min`, `[.[]? | [nan, .]] | max`, `[range(100) | {a: (. % 7), b: .}] | sort_by(.a)`,
	`[range(100) | {a: (. % 7 | if . == 3 then nan end), b: .}] | sort_by(.a)`,
	`[range(300) | (. * 7919 % 263)] | sort`, `[range(300) | [(. * 31 % 17), .]] | sort_by(.[0])`,
	`[range(300) | {k: (. % 5), v: .}] | group_by(.k) | map(length)`, `[range(50) | tostring] | unique`,
	`split(",")`, `split("")`, `. as $s | ("\u00e9\u65e5" * 30000) + (if type == "string" then $s else "" end) | split("") | length`,
	`. as $s | ("\u00e9\u65e5" * 30000) + (if type == "string" then $s else "" end) | split("") | .[65530:65540]`, `split("ab")`, `split(", ")`, `split(1)`, `split(null)`, `split(",", "a")`,
	`.[]? | split(",")?`, `try split("a") catch .`,
	`@html`, `@uri`, `@csv`, `@tsv`, `@sh`, `@base64`, `@base64d`, `@base64 | @base64d`,
	`@html "<\(.)>"`, `@uri "x=\(.)&y=\(.)"`, `@sh "echo \(.)"`, `@csv "\(.),\(.)"`, `@tsv "[\(.)]"`,
	`@base64 "a\(.)b"`, `@base64d "\(.)"`, `.[]? | @sh`, `.[]? | @csv`, `[.] | @csv`, `[.] | @tsv`,
	`[.[]?] | @sh`, `try @csv catch .`,
	`indices(1)`, `indices([1, 2])`, `indices([])`, `indices(",")`, `indices("")`, `indices("ab")`, `indices(null)`,
	`index(",")`, `rindex(",")`, `index(1)`, `rindex(1)`, `index([1])`, `rindex([])`, `index("")`, `rindex("a")`,
	`indices({})`, `index([[1]])`, `.[]? | indices(1)?`, `try indices("x") catch .`, `[range(40) | . % 3] | indices([0, 1])`,
	`"a,b, cd, efg, hijk" | indices(", "), index(", "), rindex(", ")`, `"日本語日本" | indices("日本"), rindex("本")`,
	`contains(1)`, `contains("a")`, `contains("")`, `contains([])`, `contains([1])`, `contains([[1]])`, `contains({})`,
	`contains({"a": 1})`, `contains({"a": [1]})`, `contains(null)`, `contains([null, true])`, `contains(1.0)`,
	`contains([1, "a", {"a": 2}])`, `contains([nan])`, `[nan] | contains([nan])`, `contains(.)`, `inside(.)`,
	`inside([1, 2, 3, "a,b,,c"])`, `inside({"a": 3, "b": 1, "c": 0})`, `inside("abab,a,b,,c")`, `inside(1)`,
	`inside(null)`, `.[]? | contains(1)?`, `try contains("x") catch .`, `try inside([]) catch .`,
	`[range(50) | . % 7] | contains([range(0; 7)]), contains([7])`, `{"a": {"b": "xyz"}} | contains({"a": {"b": "y"}})`,
	`[100000000000000000000000, 1] | contains([1e23]), contains([100000000000000000000000])`,
	`def sort: 1; sort`, `def split($x): $x; split(2)`,
	`flatten`, `flatten(0)`, `flatten(1)`, `flatten(0.5)`, `flatten(-1)`, `flatten(nan)`, `flatten("a")`, `flatten(null)`,
	`flatten(1e1000)`, `[., [., [.]]] | flatten, flatten(1), flatten(1.5)`, `{"b": [1, [2]], "a": .} | flatten`, `.[]? | flatten?`,
	`explode`, `implode`, `explode | implode`, `try implode catch .`, `[.[]? | numbers] | implode`,
	`[-1, 0, 55296, 57343, 1114111, 1114112, 65, 1.7, 1e3, 100000000000000000000000] | implode | explode`,
	`ascii_downcase`, `ascii_upcase`, `.[]? | ascii_downcase?`, `"aBcÉé日Zz\u0000" | ascii_upcase, ascii_downcase`,
	`("éA" * 40000) + (if type == "string" then . else "" end) | ascii_upcase, explode | length`,
	`transpose`, `[.] | transpose`, `[., [1, [2]], []] | transpose?`, `try transpose catch .`, `[[1], "a"] | try transpose catch .`,
}

// ownInputs are inputs of every type, with the bytes the formats escape.
var ownInputs = []string{
	`null`, `true`, `1`, `-2.5`, `1e1000`, `100000000000000000000000`, `""`, `"a,b,,c"`, `"abab"`, `"日本,語"`,
	`"<a href='x'>&\"</a>"`, `"a b+c/d?e=f&g~h.i_j-k%"`, `"tab\there\nnl\rcr\\bs\u0000nul"`, `"it's"`,
	`"YWJj"`, `"YWJjZA=="`, `"YWJjZA"`, `"YW=Jj"`, `"!!!!"`, `"YW\nJj"`, `"aGVsbG8gd29ybGQ="`,
	`[]`, `[1]`, `[3, 1, 2]`, `[1, "a", null, true, false, [], {}, 1.5, -1, "b"]`, `["x", "y,z", "q\"r", "s't"]`,
	`[1, 1.0, 1e0, "1", [1], {"a": 1}]`, `[{"a": 2, "b": 1}, {"a": 1, "b": 2}, {"a": 2, "b": 0}, {"b": 1}, {"a": null}]`,
	`[[1, 2], [1], [1, 2, 3], [0, 9], []]`, `[{"b": 1, "a": 2}, {"a": 2, "b": 1}, {"a": 1, "c": 0}, {"c": 1}]`,
	`[null, false, 1.5, true, "s"]`, `[[1], [2]]`, `[{"a": 1}]`, `{"a": 3, "b": 1}`, `{"a": [1, 2]}`,
	`[0.1, 0.2, 1e100, -0, 3]`, `["\u0000", "\t"]`, `"\u00ff\u0100"`, `"\ud800x"`,
}

// TestOwnMatchesGojq holds OwnDefs to gojq's own builtins: the same results and errors for
// every filter of ownFilters over every input of ownInputs.
func TestOwnMatchesGojq(t *testing.T) {
	n := 0
	for _, f := range ownFilters {
		plain := compileWith(t, context.Background(), f, false, nil)
		ours := compileWith(t, context.Background(), f, true, nil)
		for _, in := range ownInputs {
			v := decodeInput(t, in)
			want, got := plain(v), ours(v)
			if !sameResults(got, want) {
				t.Errorf("%s on %s:\n got %#v\nwant %#v", f, in, got, want)
			}
			n++
		}
	}
	t.Logf("%d filters × %d inputs = %d runs", len(ownFilters), len(ownInputs), n)
}

func decodeInput(t testing.TB, in string) any {
	t.Helper()
	var v any
	d := json.NewDecoder(strings.NewReader(in))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	return normalizeForGojq(v)
}

// normalizeForGojq makes json.Numbers gojq's numbers (int, float64, *big.Int).
func normalizeForGojq(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		if b, ok := new(big.Int).SetString(x.String(), 10); ok {
			return b
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalizeForGojq(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeForGojq(x[k])
		}
	}
	return v
}

// sameResults compares results as gojq prints them (nan prints as null, as it never equals
// itself).
func sameResults(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, errX := gojq.Marshal(a[i])
		y, errY := gojq.Marshal(b[i])
		if errX != nil || errY != nil {
			if !reflect.DeepEqual(a[i], b[i]) {
				return false
			}
			continue
		}
		if string(x) != string(y) {
			return false
		}
	}
	return true
}

// cancelAfter is a context whose Err turns to context.Canceled after a number of looks, and
// whose Done never closes: a run that ends with that error was stopped by ownFunc's looks,
// not by gojq's own check between operations.
type cancelAfter struct {
	context.Context
	looks int
	ended chan struct{}
}

func (c *cancelAfter) Err() error {
	if c.looks--; c.looks < 0 {
		select {
		case <-c.ended:
		default:
			close(c.ended)
		}
		return context.Canceled
	}
	return nil
}

// TestOwnStopsWithItsCall: a sort of a large array whose elements share one long array (each
// comparison walks it: hours of work for gojq's own sort), a group_by, a min_by, a split and
// the formats over large values end with the run's context, with its error, at one of
// ownFunc's looks.
func TestOwnStopsWithItsCall(t *testing.T) {
	for _, f := range []string{
		`[range(100000)] as $a | [range(20000) | [$a, -.]] | sort | length`,
		`[range(100000)] as $a | [range(20000) | [$a, -.]] | sort_by(.) | length`,
		`[range(100000)] as $a | [range(20000) | {a: $a, b: -.}] | group_by(.) | length`,
		`[range(100000)] as $a | [range(20000) | [$a, -.]] | unique_by(.) | length`,
		`[range(100000)] as $a | [range(20000) | [$a, -.]] | min_by(.) | length`,
		`"ab" * 5000000 | split("a") | length`,
		`"ab" * 5000000 | split("") | length`,
		`"<'" * 5000000 | @html, @uri, @sh, @base64 | length`,
		`"YWJj" * 5000000 | @base64d | length`,
		`["a\"" * 1000000, "b"] | @csv, @tsv, @sh | length`,
		`[range(100000) | 0] | indices([range(50000) | 0]) | length`,
		`"a" * 100000 | rindex("a" * 50000 + "b")`,
		`[range(100000)] | contains([range(100000) | -.])`,
		`[range(100000) | [.]] | inside([range(100000) | [-.]])`,
		`reduce range(26) as $i ([0]; [., .]) | flatten | length`, `reduce range(26) as $i ([0]; [., .]) | flatten(30) | length`,
		`"aé" * 5000000 | explode | length`, `[range(3000000) | 97] | implode | length`,
		`"aB" * 5000000 | ascii_downcase, ascii_upcase | length`,
		`[[range(100000)]] + [range(1000) | []] | transpose | length`,
	} {
		ctx := &cancelAfter{Context: context.Background(), looks: 3, ended: make(chan struct{})}
		// The filter's own building (range, *) does not look at Err: only ownFunc does.
		out := runWith(t, ctx, f, nil, true, nil)
		select {
		case <-ctx.ended:
		default:
			t.Fatalf("%s: never looked at its context past its third look: %v", f, out)
		}
		if len(out) != 1 || out[0] != "error: "+context.Canceled.Error() {
			t.Errorf("%s: %v, want the context's error", f, out)
		}
	}
}

// TestOwnAsksRoomFirst: what the builtins build is asked of the run's memory before it is
// allocated: a room that refuses ends the run with its error, and ownFunc has allocated next
// to nothing by then (the refusal comes before the allocation, which would be megabytes).
func TestOwnAsksRoomFirst(t *testing.T) {
	refused := errors.New("no room")
	for _, f := range []string{
		`[range(60000)] | sort | length`, `[range(60000)] | sort_by(-.) | length`,
		`[range(60000)] | group_by(. % 10) | length`, `[range(60000)] | unique | length`,
		`"a," * 100000 | split(",") | length`, `"<" * 1000000 | @html | length`, `"<" * 1000000 | @uri | length`,
		`"'" * 1000000 | @sh | length`, `"x" * 3000000 | @base64 | length`, `"YWJj" * 1000000 | @base64d | length`,
		`["\"" * 1000000] | @csv | length`, `["\t" * 1000000] | @tsv | length`,
		`"a" * 1000000 | indices("b") | length`,
		`[range(100000) | [.]] | flatten | length`, `"a" * 100000 | explode | length`, `[range(1100000) | 97] | implode | length`,
		`"A" * 1100000 | ascii_downcase | length`, `"a" * 1100000 | ascii_upcase | length`,
		`[[range(1000)]] + [range(1000) | []] | transpose | length`,
	} {
		if out := runWith(t, context.Background(), f, nil, true, func(int64) error { return refused }); len(out) != 1 || out[0] != "error: no room" {
			t.Errorf("%s: %v, want the room's refusal", f, out)
		}
		// With room to spare, the same filter runs to its end.
		if out := runWith(t, context.Background(), f, nil, true, func(int64) error { return nil }); len(out) != 1 || !isNumber(out[0]) {
			t.Errorf("%s: %v, want a length", f, out)
		}
	}
	// ownFunc itself, over values built beforehand: what it allocated before refusing.
	big := make([]any, 1<<20)
	for i := range big {
		big[i] = len(big) - i
	}
	long := strings.Repeat("a,<'\"\t", 1<<20)
	for _, c := range []struct {
		op   string
		v, x any
	}{
		{"sort", big, nil}, {"unique", big, nil}, {"sort_by", big, big}, {"group_by", big, big}, {"unique_by", big, big},
		{"split", long, ","}, {"split", long, ""}, {"@html", long, nil}, {"@uri", long, nil}, {"@sh", long, nil},
		{"@base64", long, nil}, {"@base64d", strings.Repeat("YWJj", 1<<20), nil}, {"@csv", []any{long}, nil}, {"@tsv", []any{long}, nil},
		{"indices", long, "\t"}, {"rindex", long, ","}, {"flatten", []any{big, big}, nil}, {"explode", long, nil},
		{"implode", big, nil}, {"ascii_downcase", long, nil}, {"ascii_upcase", long, nil}, {"transpose", []any{big, []any{}}, nil},
	} {
		var asked int64
		r := &ownRun{ctx: context.Background(), room: func(n int64) error { asked = n; return refused }}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out := r.call(c.op, c.v, c.x)
		runtime.ReadMemStats(&after)
		if out != refused {
			t.Errorf("%s: %v, want the room's refusal", c.op, out)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 || asked < 1<<20 {
			t.Errorf("%s: allocated %d bytes before refusing %d", c.op, got, asked)
		}
	}
}

func isNumber(v any) bool {
	switch v.(type) {
	case int, float64:
		return true
	}
	return false
}

// FuzzOwnMatchesGojq: for any filter of ownFilters' builtins over any input, ours give
// gojq's results and errors.
func FuzzOwnMatchesGojq(f *testing.F) {
	for i, fl := range ownFilters {
		f.Add(fl, ownInputs[i%len(ownInputs)])
	}
	f.Fuzz(func(t *testing.T, filter, input string) {
		if len(filter) > 200 || len(input) > 2000 {
			return
		}
		q, err := gojq.Parse(filter)
		if err != nil || !callsOwnFiltered(q) {
			return
		}
		var v any
		d := json.NewDecoder(strings.NewReader(input))
		d.UseNumber()
		if d.Decode(&v) != nil {
			return
		}
		if buildsLarge(filter, input) {
			return // gojq's own would allocate it whole
		}
		v = normalizeForGojq(v)
		want, okW := runBounded(filter, v, false)
		got, okG := runBounded(filter, v, true)
		if !okW || !okG {
			return // too slow for one of them: nothing to compare
		}
		if !sameResults(got, want) {
			t.Errorf("%s on %s:\n got %#v\nwant %#v", filter, input, got, want)
		}
	})
}

// callsOwnFiltered reports a filter that OwnDefs change.
func callsOwnFiltered(q *gojq.Query) bool {
	c, _ := gojq.Parse(q.String())
	OwnDefs(c)
	return callsOwn(c)
}

// runBounded runs filter (plain gojq, or with OwnDefs) for at most 100 results and 200 ms.
func runBounded(filter string, v any, ours bool) ([]any, bool) {
	q, err := gojq.Parse(filter)
	if err != nil {
		return nil, false
	}
	var opts []gojq.CompilerOption
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if ours {
		q.FuncDefs = append(OwnDefs(q), q.FuncDefs...)
		opts = GuardFunctionsContext(ctx, func(n int64) error {
			if n > 64<<20 {
				return errors.New("large")
			}
			return nil
		})
	}
	code, err := gojq.Compile(q, opts...)
	if err != nil {
		return []any{"compile: " + err.Error()}, true
	}
	var out []any
	iter := code.RunWithContext(ctx, v)
	for len(out) < 100 {
		x, more := iter.Next()
		if !more {
			break
		}
		if e, isErr := x.(error); isErr {
			if ctx.Err() != nil || e.Error() == "large" {
				return nil, false
			}
			out = append(out, "error: "+e.Error())
			break
		}
		out = append(out, x)
	}
	return out, ctx.Err() == nil
}

// TestOwnSplitBytes: split("") over strings longer than a chunk, of valid, cut and stray UTF-8
// sequences around every chunk boundary, gives gojq's pieces.
func TestOwnSplitBytes(t *testing.T) {
	r := &ownRun{ctx: context.Background()}
	for _, unit := range []string{"a", "é", "日", "😀", "\xff", "\x80", "\xe6\x97", "\xf0\x9f\x98", "a\x80\x80\x80\x80", "日\x80"} {
		for pad := range 5 {
			s := strings.Repeat("b", pad) + strings.Repeat(unit, chunkBytes/len(unit)+3)
			got, want := r.call("split", s, ""), gojqOwn("split", s, "")
			if !slices.Equal(got.([]any), want.([]any)) {
				t.Errorf("%q×n after %d: %d pieces, want %d", unit, pad, len(got.([]any)), len(want.([]any)))
			}
		}
	}
}
