package jqorder

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// compileWith compiles filter: with gojq's own builtins (plain), or with OwnDefs before
// the filter's definitions and GuardFunctionsContext (ours). Its run keeps errors as their
// text (gojq's catch gives the same), after the results before them.
func compileWith(t *testing.T, ctx context.Context, filter string, ours bool, room func(int64) error) func(any) []any {
	t.Helper()
	q, err := gojq.Parse(filter)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	var opts []gojq.CompilerOption
	if ours {
		defs := OwnDefs(q)
		if defs == nil && !callsOwn(q) {
			t.Fatalf("%s: OwnDefs found none of our builtins", filter)
		}
		q.FuncDefs = slices.Concat(defs, q.FuncDefs)
		opts = GuardFunctionsContext(ctx, room)
	}
	code, err := gojq.Compile(q, opts...)
	return func(input any) []any {
		if err != nil {
			return []any{"compile: " + err.Error()}
		}
		return untilError(code.RunWithContext(ctx, input))
	}
}

func runWith(t *testing.T, ctx context.Context, filter string, input any, ours bool, room func(int64) error) []any {
	t.Helper()
	return compileWith(t, ctx, filter, ours, room)(input)
}

// TestRegexMatchesGojq holds OwnDefs' regular expression builtins to gojq's own regular expression builtins: the same
// results and errors for every builtin over a table of expressions, flags and subjects.
func TestRegexMatchesGojq(t *testing.T) {
	subjects := []any{
		"", "a", "aaa", "test TEST Test", "foo bar foo", "héllo wörld ñ", "日本語のテキスト日本",
		"a\nb\nc", "  spaced  out  ", "ab12cd345", "😀a😀b😀", "abab",
	}
	regexes := []string{
		"", "a", "a*", "b*", "x*", "(a)", "(a)|(b)", "(?<x>a)(?<y>b)?", "(?<x>a)|(?<y>b)", "^", "$", "^a", "a$",
		"\\b", "\\bfoo\\b", "\\B", "[a-z]+", "[^a-z]*", "(?<d>\\d+)", "\\d*", "ñ|ö", "日本", ".", "(.)(.)?",
		"(?<first>\\w)(\\w*)", "o+", "(x)?a", "(?:a|b)+", "\\s+", "(?i)test", "t(e)(s)?t", ".*", "a|", "|a",
		"[", "(?<n>", "a{2,}", "(?<a>.)(?<b>.)", "\\p{L}+", "(a)(b)(c)?", "^$", "\\A", "\\z", "(?m)^b",
	}
	flags := []any{nil, "", "g", "gi", "m", "gm", "x", "gn", 1}
	var cases []string
	for _, re := range regexes {
		r := fmt.Sprintf("%q", re)
		for _, f := range flags {
			fl := "null"
			if f != nil {
				fl = fmt.Sprintf("%#v", f)
			}
			// One filter runs every builtin with these flags (an error ends it where gojq's does).
			cases = append(cases, fmt.Sprintf(`[test(%[1]s; %[2]s)], [match(%[1]s; %[2]s)], [capture(%[1]s; %[2]s)],
				[scan(%[1]s; %[2]s)], [splits(%[1]s; %[2]s)], split(%[1]s; %[2]s), [sub(%[1]s; "<\(.)>"; %[2]s)],
				[gsub(%[1]s; "[\(.)]"; %[2]s)], _match(%[1]s; %[2]s; false), _match(%[1]s; %[2]s; true)`, r, fl))
			// And each alone, with its errors caught (for a few flags: the test's time).
			if f != nil && f != "g" && f != "x" {
				continue
			}
			for _, f := range []string{"test", "match", "capture", "scan", "splits", "split"} {
				cases = append(cases, fmt.Sprintf(`[try %s(%s; %s) catch "caught: \(.)"]`, f, r, fl))
			}
		}
		cases = append(cases,
			fmt.Sprintf("[test(%s)]", r), fmt.Sprintf("[match(%s)]", r), fmt.Sprintf("[capture(%s)]", r),
			fmt.Sprintf("[scan(%s)]", r), fmt.Sprintf("[splits(%s)]", r),
			fmt.Sprintf("[test([%s, \"g\"])]", r), fmt.Sprintf("[match([%s, \"gi\"])]", r),
			fmt.Sprintf("[capture([%s])]", r), fmt.Sprintf("[sub(%s; \"X\")]", r), fmt.Sprintf("[gsub(%s; \"X\")]", r),
			fmt.Sprintf("[gsub(%s; \"\\(.x)-\\(.y)\", \"2\")]", r),
			fmt.Sprintf("[sub(%s; \"1\", \"2\"; \"g\")]", r),
			fmt.Sprintf("[gsub(%s; if .x then empty else \"E\" end)]", r),
			fmt.Sprintf("[gsub(%s; 1)]", r), fmt.Sprintf("[gsub(%s; null)]", r),
			fmt.Sprintf("[gsub(%s; empty)]", r),
			fmt.Sprintf("[gsub(%s; \"a\", \"b\", \"c\"; \"g\")]", r),
		)
	}
	// Wrong types and other shapes.
	cases = append(cases,
		`[test(1)]`, `[test("a"; 1)]`, `[test(null)]`, `[test([])]`, `[test(["a", 1])]`, `[match(["a", "g", "x"])]`,
		`[scan(["a"])]`, `[split("a"; 1)]`, `[splits("a"; "q")]`, `[sub("a"; "b"; 2)]`, `[gsub(1; "b")]`,
		`[test("a", "b")]`, `[match("a", "b"; "g", null)]`, `[sub("(?<x>a)", "b"; "\(.x)!", "?"; "g", "")]`,
		`[.[]? | test("a")]`, `[test("a"; "gimx")]`, `[splits("a"; null)]`, `first(match("."; "g"))`,
		`[match("(?<x>a)(?<x>b)")]`, `[capture("(?<a>.)(?<b>x)?")]`, `_match("a"; null; "x")`, `_match("a"; null; null)`,
		`[match("(?i)É"; "g")]`, `[ascii_downcase | test("test")]`, `[splits("")]`,
		`[sub("^"; ">")]`, `[gsub("$"; "<")]`, `[gsub("\\b"; "|")]`, `[gsub(""; "-")]`, `[gsub("x*"; "-")]`,
		`def test($x): "mine"; [test("a")]`, `[gsub("(?<l>[a-z])"; .l | ascii_upcase)]`,
		`[sub("(?<a>.)(?<b>.)"; "\(.b)\(.a)"; "g")]`, `[gsub("(?<d>\\d)"; "<\(.d)>", "{\(.d)}")]`,
	)
	inputs := append(slices.Clone(subjects), nil, 1, []any{"a"}, map[string]any{"a": 1})
	ctx := context.Background()
	for _, c := range cases {
		plain, ours := compileWith(t, ctx, c, false, nil), compileWith(t, ctx, c, true, nil)
		for _, in := range inputs {
			want, got := plain(in), ours(in)
			if !reflect.DeepEqual(normalize(got), normalize(want)) {
				t.Errorf("%#v | %s:\n got %#v\nwant %#v", in, c, got, want)
			}
		}
	}
}

// normalize makes gojq's numbers comparable (an offset may be an int in one and the same int
// in another representation).
func normalize(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case float64:
		if x == float64(int(x)) {
			return int(x)
		}
	}
	return v
}

// TestOwnDefsOnlyWhenCalled: a filter that calls none of our builtins compiles without
// OwnDefs (they cost every run that has them).
func TestOwnDefsOnlyWhenCalled(t *testing.T) {
	for f, want := range map[string]bool{
		`.name // "World"`: false, `split(",")`: true, `sort_by(.a)`: true, `.[] | min`: true, `@csv`: true,
		`@base64 "x\(.)"`: true, `@json`: false, `@text "\(.)"`: false, `keys | length`: false, `split(","; null)`: true, `.a | test("x")`: true,
		`def f: gsub("a"; "b"); f`: true, `[.[] | select(.x | ltrimstr("x") | startswith("y"))]`: false, `.[] | contains("y")`: true, `inside([1])`: true,
		`_match("a"; null; false)`: true, `scan("a")`: true, `splits("a")`: true,
	} {
		q, err := gojq.Parse(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := OwnDefs(q) != nil || callsOwn(q); got != want {
			t.Errorf("%s: OwnDefs given %v, want %v", f, got, want)
		}
		if got := Guard(q); want && !got {
			t.Errorf("%s: Guard does not report a filter to compile per run", f)
		}
	}
}

// endingCtx is a context that ends (Err) after a number of looks, and whose Done never
// closes: only what checks Err, as the searches do, sees it end, so a run that returns its
// error was stopped by them, not by gojq's own check between operations.
type endingCtx struct {
	context.Context
	looks int
}

func (c *endingCtx) Err() error {
	if c.looks--; c.looks < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

// TestRegexSearchEndsWithItsCall: the quadratic shape (each of many searches reads to the end
// of the subject: minutes of work for gojq's own) and a search over a long subject end with
// their run's context, with its error.
func TestRegexSearchEndsWithItsCall(t *testing.T) {
	long := strings.Repeat("a", 200_000)
	huge := strings.Repeat("ab", 1<<20)
	for _, c := range []struct {
		filter string
		input  string
	}{
		{`[match("(a.*z)*a"; "g")] | length`, long},
		{`[scan("(a.*z)*a")] | length`, long},
		{`gsub("(a.*z)*a"; "b")`, long},
		{`[splits("(a.*z)*a")] | length`, long},
		{`_match("(a.*z)*a"; "g"; false) | length`, long},
		{`test("(a|b)*c")`, huge},
		{`[match("(a|b)*c")] | length`, huge},
		{`[match("(a|b)*c"; "g")] | length`, huge},
	} {
		ctx := &endingCtx{Context: context.Background(), looks: 4}
		got := runWith(t, ctx, c.filter, c.input, true, nil)
		if want := []any{"error: " + context.DeadlineExceeded.Error()}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v, want %v", c.filter, got, want)
		}
	}
}

// TestRegexResultsAskRoom: a search with many matches asks the run's memory before its results
// grow past what is left, and ends with the memory's error.
func TestRegexResultsAskRoom(t *testing.T) {
	full := errors.New("the call's memory is spent")
	var asked []int64
	room := func(n int64) error {
		asked = append(asked, n)
		if n > 8<<20 {
			return full
		}
		return nil
	}
	got := runWith(t, context.Background(), `[match("a"; "g")] | length`, strings.Repeat("a", 100_000), true, room)
	if len(got) != 1 || got[0] != "error: "+full.Error() {
		t.Errorf("got %v, want the memory's error", got)
	}
	if len(asked) == 0 {
		t.Error("the memory was never asked")
	}
}

// TestRegexTooLarge: an expression larger than the sandbox compiles is refused with its words.
func TestRegexTooLarge(t *testing.T) {
	got := runWith(t, context.Background(), `test("`+strings.Repeat("x{1,1000}", 120)+`")`, "x", true, nil)
	if len(got) != 1 || !strings.Contains(fmt.Sprint(got[0]), "regular expression too large for the sandbox") {
		t.Errorf("got %v", got)
	}
}

// untilError collects iter's values up to and including the first error (as "error: ...").
func untilError(iter gojq.Iter) []any {
	var out []any
	for {
		v, ok := iter.Next()
		if !ok {
			return out
		}
		if e, isErr := v.(error); isErr {
			return append(out, "error: "+e.Error())
		}
		out = append(out, v)
	}
}
