package jqorder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// TestJSONRoom (issue 27): tojson and tostring (and the interpolation and @json that use them)
// ask the call's memory for what they print before printing it, counting a value held many
// times as often as it prints, and stop counting once past what the memory allows (a value
// that holds 2^40 copies of one string is refused without reading them all).
func TestJSONRoom(t *testing.T) {
	const allowed = 8 << 20
	for _, c := range []struct {
		filter   string
		min, max int64 // the largest size asked lies in [min, max]; 0, 0 for none
		ok       bool
	}{
		{`"x" * 1000000 | [., ., ., ., ., ., ., ., ., .] | tojson | length`, allowed, 2*allowed + 1000002, false},
		{`"x" * 1000000 | [., ., ., ., ., ., ., ., ., .] | tostring | length`, allowed, 2*allowed + 1000002, false},
		{`"x" * 1000000 | [., ., ., ., ., ., ., ., ., .] | "\(.)" | length`, allowed, 2*allowed + 1000002, false},
		{`"x" * 1000000 | [., ., ., ., ., ., ., ., ., .] | @json | length`, allowed, 2*allowed + 1000002, false},
		{`"x" * 1000000 | {a: ., b: [., .], c: {d: .}} | [., ., .] | tojson | length`, allowed, 2*allowed + 64, false},
		{`reduce range(40) as $i ("x" * 1000; [., .]) | tojson | length`, allowed, 2*allowed + 2048, false},
		{`"x" * 1000000 | [., .] | tojson | length`, 2000007, 2000007, true},
		{`"\u0001" * 1000000 | tojson | length`, 6000002, 6000002, true},
		{`[range(1000)] | tojson | length`, 0, 0, true},
		{`"x" * 1000000 | tostring | length`, 1000000, 1000000, true}, // the product asks, not tostring
	} {
		room, asked := largestAsk(allowed)
		ok := runGuarded(t, c.filter, true, room)
		if *asked < c.min || *asked > c.max || ok != c.ok {
			t.Errorf("%s: asked %d, ok %v; want [%d, %d], %v", c.filter, *asked, ok, c.min, c.max, c.ok)
		}
	}
}

// TestJSONRoomEndsWithItsCall: the count of what a huge value prints ends with the call.
func TestJSONRoomEndsWithItsCall(t *testing.T) {
	q, err := gojq.Parse(`reduce range(60) as $i ("x"; [., .]) | tojson`)
	if err != nil {
		t.Fatal(err)
	}
	Guard(q)
	Rewrite(q)
	q.FuncDefs = append(append(GuardDefs(), OrderedDefs()...), q.FuncDefs...)
	ctx := &endingCtx{Context: context.Background(), looks: 2}
	code, err := gojq.Compile(q, append(GuardFunctionsContext(ctx, func(int64) error { return nil }), (&Printer{}).Functions()...)...)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := code.RunWithContext(ctx, nil).Next()
	if err, _ := v.(error); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the call's end", v)
	}
}

// largestAsk is a run's memory that refuses asks past allowed; *asked is the largest ask made.
func largestAsk(allowed int64) (room func(int64) error, asked *int64) {
	asked = new(int64)
	return func(n int64) error {
		*asked = max(*asked, n)
		if n > allowed {
			return errors.New("no room")
		}
		return nil
	}, asked
}

// TestJSONRoomCountsPrettyPrints: the size JSONRoom asks for a pretty print is what
// json.Indent makes of the compact print (exactly, for values without floats).
func TestJSONRoomCountsPrettyPrints(t *testing.T) {
	for _, src := range []string{
		`null`, `[]`, `{}`, `[1]`, `[[], {}, [[]]]`, `{"a": [1, 2, {"b": "x\ny"}], "c": {}}`, `[[1, [2, [3]]], "s", true]`,
		`{"k": {"k": {"k": [null, false]}}}`,
	} {
		v := decodeInput(t, src)
		b, err := gojq.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, indent := range []int{-1, 0, 1, 2, 7} {
			want := len(b)
			if indent >= 0 {
				var buf bytes.Buffer
				if err := json.Indent(&buf, b, "", strings.Repeat(" ", indent)); err != nil {
					t.Fatal(err)
				}
				want = buf.Len()
			}
			w := sizeWalk{ctx: context.Background(), limit: 1 << 40, indent: int64(indent)}
			w.value(v, 0)
			if w.n != int64(want) {
				t.Errorf("%s with indent %d: counted %d, printed %d", src, indent, w.n, want)
			}
		}
	}
}

// TestPrinterEndsWithItsContext: a print of a value that holds one array 2^40 times ends with
// the printer's context, with its error.
func TestPrinterEndsWithItsContext(t *testing.T) {
	v := any([]any{0})
	for range 40 {
		v = []any{v, v}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&Printer{Ctx: ctx}).Marshal(v); err != context.Canceled {
		t.Errorf("%v, want the context's error", err)
	}
	if b, err := (&Printer{Ctx: ctx}).Marshal([]any{1, "a"}); err != nil || string(b) != `[1,"a"]` {
		t.Errorf("a small value: %s, %v", b, err)
	}
}
