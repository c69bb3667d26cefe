package jqorder

import (
	"context"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"
)

// Printing and joining build one string whose size their input does not show: a value may
// hold one large value many times (`"x" * 1e6 | [., ., ., .] | tojson` prints it four times,
// and 40 levels of `[., .]` over one string hold 2^40 copies in a few kilobytes), and join
// puts its separator between every two elements (`[range(1e6)] | join("y" * 1e6)` makes a
// terabyte). The heap watch sees such a string only once it is being built; these sizes are
// asked of the call's memory before it is (issue 27).

// jsonRoomFunc is the Go function tojson and tostring (OrderedDefs) call first: its input,
// once what Printer.Marshal makes of it fits the call's memory.
const jsonRoomFunc = "_mcpbash_json_room"

// joinFunc checks join's result: `join(S)` is guarded as
// `S as $sep | if _mcpbash_join_ok($sep) then join($sep) else empty end` (S runs once, before
// join, as in gojq).
const (
	joinFunc = "_mcpbash_join_ok"
	sepVar   = "$__mcpbash_sep"
)

// jsonRoom asks room for the bytes Printer.Marshal makes of v, counting them by a walk that
// stops once past what room was last asked for: the walk reads no more of v than the call
// could print (each element prints at least a byte), however many times v holds a value.
func jsonRoom(ctx context.Context, v any, room func(int64) error) error {
	return JSONRoom(ctx, v, room, -1)
}

// JSONRoom is jsonRoom for a value printed with indent spaces a level (a newline and the
// indentation before every element and closing bracket, as json.Indent writes them), or
// compact when indent is negative: the room a program asks before printing v.
func JSONRoom(ctx context.Context, v any, room func(int64) error, indent int) error {
	if room == nil {
		return nil
	}
	for limit := int64(roomMin); ; limit *= 2 {
		w := sizeWalk{ctx: ctx, limit: limit, indent: int64(indent)}
		w.value(v, 0)
		if w.err != nil {
			return w.err
		}
		if w.n <= limit {
			if w.n >= roomMin {
				return room(w.n)
			}
			return nil
		}
		if err := room(w.n); err != nil {
			return err
		}
		if limit > math.MaxInt64/4 {
			return nil
		}
	}
}

// JSONSizeOver reports whether v's compact JSON may be longer than limit bytes (an estimate
// that only over-counts numbers, each by at most 24 bytes), walking no further than the limit
// and ending with ctx: a value that holds one array many times is not walked whole.
func JSONSizeOver(ctx context.Context, v any, limit int64) (bool, error) {
	w := sizeWalk{ctx: ctx, limit: limit, indent: -1}
	w.value(v, 0)
	return w.n > limit, w.err
}

// sizeWalk counts the bytes of a value's compact JSON (as Printer.Marshal prints it:
// stripped past MaxPrintDepth), stopping once past limit or when ctx ends.
type sizeWalk struct {
	ctx   context.Context
	limit int64
	n     int64
	steps int
	err   error
	// indent is the spaces a level of a pretty print (negative: compact).
	indent int64
}

// broken is what a pretty print adds to a non-empty array or object of n elements at depth:
// a newline and indentation before each element and before the closing bracket.
func (w *sizeWalk) broken(n, depth int) int64 {
	if w.indent < 0 || n == 0 {
		return 0
	}
	return int64(n)*(1+w.indent*int64(depth+1)) + 1 + w.indent*int64(depth)
}

func (w *sizeWalk) done() bool {
	if w.steps++; w.steps&0xffff == 0 && w.err == nil {
		w.err = w.ctx.Err()
	}
	return w.n > w.limit || w.err != nil
}

func (w *sizeWalk) value(v any, depth int) {
	if w.done() {
		return
	}
	if depth > MaxPrintDepth {
		w.n += int64(len(Stripped))
		return
	}
	switch x := v.(type) {
	case nil:
		w.n += 4
	case bool:
		w.n += 5
		if x {
			w.n-- // true
		}
	case int:
		w.n += int64(len(strconv.Itoa(x)))
	case float64:
		w.n += 24 // the longest a float64 prints
	case *big.Int:
		w.n += int64(x.BitLen()/3 + 2) // an over-estimate of its digits
	case string:
		w.n += jsonStringBytes(x)
	case []any:
		w.n += 2 + int64(max(len(x)-1, 0)) + w.broken(len(x), depth)
		for _, e := range x {
			if w.value(e, depth+1); w.n > w.limit || w.err != nil {
				return
			}
		}
	case map[string]any:
		w.n += 2 + int64(max(len(x)-1, 0)) + w.broken(len(x), depth)
		if w.indent >= 0 {
			w.n += int64(len(x)) // the space after each colon
		}
		for k, e := range x {
			w.n += jsonStringBytes(k) + 1
			if w.value(e, depth+1); w.n > w.limit || w.err != nil {
				return
			}
		}
	default:
		w.n += 24
	}
}

// jsonStringBytes is the length of s as a JSON string (gojq's escapes: \", \\, the short
// control escapes, \u00XX for other controls and for <, >, & it leaves alone; six bytes for a
// byte that is not UTF-8, which prints as \ufffd).
func jsonStringBytes(s string) int64 {
	n := int64(len(s)) + 2
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n++
		case c < 0x20 || c == 0x7f:
			n += 5
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				n += 5
			}
			i += size - 1
		}
	}
	return n
}

// joinBytes is about the size of the string join(sep) makes of v: its strings and printed
// scalars, and the separator between every two (0 when v is not an array, or sep is not a
// string: join reports those itself).
func joinBytes(v, sep any) int64 {
	xs, ok := v.([]any)
	s, ok2 := sep.(string)
	if !ok || !ok2 || len(xs) == 0 {
		return 0
	}
	n := int64(len(s)) * int64(len(xs)-1)
	for _, x := range xs {
		switch y := x.(type) {
		case string:
			n += int64(len(y))
		case nil:
		default:
			n += 24
		}
	}
	return n
}
