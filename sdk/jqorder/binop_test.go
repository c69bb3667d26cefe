package jqorder

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// runGuarded runs filter on null as the jq utility does: OwnDefs, Guard, GuardDefs and
// GuardFunctionsContext bound to ctx and room.
func runJQGuarded(t *testing.T, ctx context.Context, filter string, room func(int64) error) []any {
	t.Helper()
	q, err := gojq.Parse(filter)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	own := OwnDefs(q)
	Guard(q)
	q.FuncDefs = slices.Concat(GuardDefs(), own, q.FuncDefs)
	code, err := gojq.Compile(q, GuardFunctionsContext(ctx, room)...)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	return untilError(code.RunWithContext(ctx, nil))
}

// shared is a few kilobytes holding 2^40 elements: 40 levels of [., .].
const shared = `reduce range(40) as $i ([0]; [., .])`

// TestBinopStopsWithItsCall (issue 27): comparisons of values that hold one array many times,
// an array minus an array, an index of a long array by a long array, and the depth checks
// before them end with the run's context, at one of their own looks (gojq's own walk them
// whole: hours, or for ever).
func TestBinopStopsWithItsCall(t *testing.T) {
	for _, f := range []string{
		shared + ` | . == .`, shared + ` | . != .`, shared + ` | . < .`, shared + ` | [.] >= [.]`,
		`[range(100000)] - [range(100000) | -.]`, shared + ` | [.] - [.]`,
		`[range(200000) | 0] as $a | $a | .[$a[100000:]]`, `[range(200000) | 0] as $a | $a | .[$a[100000:]] | length`,
		shared + ` | [.] | .[[.[0]]]`, shared + ` | flatten | length`,
	} {
		ctx := &cancelAfter{Context: context.Background(), looks: 3, ended: make(chan struct{})}
		out := runJQGuarded(t, ctx, f, nil)
		select {
		case <-ctx.ended:
		default:
			t.Fatalf("%s: never looked at its context past its third look: %v", f, out)
		}
		if len(out) != 1 || out[0] != "error: "+context.Canceled.Error() {
			t.Errorf("%s: %.200v, want the context's error", f, out)
		}
	}
}

// TestIndexInPathsIsBounded: `.[$x]` of two arrays in a path expression is gojq's own (it
// records the path) while its comparisons are few, and refused in words past
// maxPathIndexSteps; as a value it is ours at any length.
func TestIndexInPathsIsBounded(t *testing.T) {
	for _, c := range []struct{ filter, want string }{
		{`[range(200) | . % 3] as $a | $a | path(.[[0, 1]]) | length`, "1"},
		{`[range(200) | . % 3] as $a | $a | [paths] | length`, "200"},
		{`[range(200) | . % 3] as $a | $a | .[[0, 1]] | length`, "67"},
		{`[range(20000) | 0] as $a | $a | path(.[$a[10000:]])`, "error: " + errPathIndex},
		{`[range(20000) | 0] as $a | $a | try (.[$a[10000:]] |= 1) catch .`, errPathIndex},
		{`[range(20000) | 0] as $a | $a | .[$a[10000:]] | length`, "10001"},
		{`[range(200) | . % 3] as $a | $a | getpath([[0, 1]]) | length`, "67"},
		{`[range(200) | . % 3] as $a | $a | path(getpath([[0, 1], 0]))`, `[[0,1],0]`},
		{`[range(20000) | 0] as $a | $a | getpath([$a[10000:]])`, "error: " + errGetpathIndex},
		{`[range(20000) | 0] as $a | $a | path(getpath([$a[10000:]]))`, "error: " + errGetpathIndex},
		{`[range(2000)] as $a | [range(3) | [$a]] | try delpaths(.) catch (. | test("expected a number"))`, "true"},
		{`[range(20000)] as $a | [range(20000) | [$a, .]] as $p | [] | try delpaths($p) catch .`, errSortPaths},
		// The value deleted from is walked whole by gojq after deleting (MaxDeleteWalk).
		{`[range(20000)] as $a | [range(20000) | [$a, .]] | try delpaths(.) catch (. | test("del and delpaths over a value"))`, "true"},
		{`reduce range(40) as $i ([0]; [., .]) | try del(.[0][0]) catch (. | test("del and delpaths over a value"))`, "true"},
		{`[range(1000) | [.]] | del(.[0], .[999]) | length`, "998"},
		{`{"a": [1, 2], "b": 3} | del(.a[0]) | .a`, "[2]"},
	} {
		out := runJQGuarded(t, context.Background(), c.filter, nil)
		var got []string
		for _, v := range out {
			if s, ok := v.(string); ok {
				got = append(got, s)
			} else {
				b, _ := gojq.Marshal(v)
				got = append(got, string(b))
			}
		}
		if strings.Join(got, "\n") != c.want {
			t.Errorf("%s: %q, want %q", c.filter, got, c.want)
		}
	}
}

// TestSubAsksRoomFirst: an array minus an array asks the run's memory for its result first.
func TestSubAsksRoomFirst(t *testing.T) {
	refused := errors.New("no room")
	out := runJQGuarded(t, context.Background(), `[range(100000)] - [] | length`, func(int64) error { return refused })
	if len(out) != 1 || out[0] != "error: no room" {
		t.Errorf("%v, want the room's refusal", out)
	}
	out = runJQGuarded(t, context.Background(), `[range(100000)] - [1] | length`, func(int64) error { return nil })
	if len(out) != 1 || out[0] != 99999 {
		t.Errorf("%v, want 99999", out)
	}
}

// TestDeletesAreBounded: del, delpaths and an update whose function is empty (gojq deletes the
// path) refuse a value past MaxDeleteWalk, counted where it is held (gojq walks all of it after
// deleting, unstoppably: a shared value for ever); below it they give gojq's own results.
func TestDeletesAreBounded(t *testing.T) {
	for _, f := range []string{
		shared + ` | del(.[0][0])`, shared + ` | delpaths([[0, 0]])`, shared + ` | .[0] |= empty`,
		shared + ` | (.[1], .[0][0]) |= select(false)`, `[range(5000000)] | .[0] |= empty`,
	} {
		out := runJQGuarded(t, context.Background(), f, nil)
		if len(out) != 1 || !strings.Contains(fmt.Sprint(out[0]), "del and delpaths over a value") {
			t.Errorf("%s: %.200v", f, out)
		}
	}
	for _, f := range []string{
		`[1, 2, 3] | .[0] |= empty`, `[1, 2, 3] | .[] |= empty`, `[1, 2, 3] | .[] |= (., 10)`,
		`{"a": 1, "b": [1, 2]} | .b[] |= select(. > 1)`, `[1, 2, 3] | .[] |= (. * 2)`, `{"a": {"b": 1}} | .a.b |= . + 1`,
		`[[1, 2], [3]] | .[][] |= if . == 2 then empty else . end`, `{} | .a |= empty`, `null | .a.b |= 3`,
		`[1, 2] | try (.[] |= error("x")) catch .`, `[range(10)] | (.[] | select(. % 2 == 0)) |= empty`,
		`[1, 2, 3] | del(.[0, 2])`, `{"a": [1, 2]} | del(.a[])`, `[1, [2]] | delpaths([[1, 0], [0]])`,
		`{"a":1} | try path(.a |= 1) catch .`, `[1,2,3] | .[1:] |= empty`, `{"a":[1,2]} | .a |= (.[] |= empty)`,
		`def f: .a |= . + 1; {"a": 1} | f | f`, `[1] | .[5] |= 9`, `{"a": 1} | (.a, .b) |= (. // 0) + 1`,
		`{"a":1} | .a |= error("boom")`, `[1,2] | first(.[] |= . + 1, 5)`, `null | .[0] |= empty`,
		`reduce range(3) as $i ({}; .[$i|tostring] |= ($i, 10))`, `{"a":[{"b":1},{"b":2}]} | del(.a[] | select(.b == 1))`,
	} {
		want := untilError(plainCode(t, f).Run(nil))
		got := runJQGuarded(t, context.Background(), f, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, gojq gives %v", f, got, want)
		}
	}
}

// TestElementsOver: elements are counted where a walk meets them, object members four each.
func TestElementsOver(t *testing.T) {
	obj := map[string]any{"a": 1, "b": 2}
	arr := []any{obj, obj, []any{1, 2, 3}}
	// 3 elements, two objects of 2 members (4 each: 16) and an array of 3: 22.
	for limit, want := range map[int]bool{22: false, 21: true} {
		if over, err := elementsOver(context.Background(), arr, limit); over != want || err != nil {
			t.Errorf("limit %d: over %v, %v", limit, over, err)
		}
	}
}
