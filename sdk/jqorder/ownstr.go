package jqorder

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/itchyny/gojq"
)

// flatten, explode, implode, ascii_downcase and ascii_upcase are gojq's in one Go call each
// that nothing stops and that asks nothing before allocating: flatten of a value that holds
// one array many times (26 levels of [., .], a few kilobytes) made 2^26 elements, gigabytes,
// for half a minute past its call's end, and explode makes 24 bytes of every character of a
// string (issue 27). Ours count what they make first (with the call's steps), ask it of the
// run's memory, then make it, a step an element or a chunk of bytes.

// flatten is gojq's funcFlatten: the arrays in v (an array, or an object's values in key
// order) spliced in, to a depth (a number; none: all the way down).
func (r *ownRun) flatten(s *stepper, op string, v, x any) any {
	var vs []any
	switch v := v.(type) {
	case []any:
		vs = v
	case map[string]any:
		ks := sortedKeys(v)
		vs = make([]any, len(ks))
		for i, k := range ks {
			vs[i] = v[k]
		}
	default:
		return gojqOwn(op, v, x)
	}
	depth := -1.0
	if op == "flatten1" {
		d, ok := gojq.ToFloat64(x)
		if !ok || d < 0 || math.IsNaN(d) {
			return gojqOwn(op, v, x) // gojq's words for a depth it refuses (nan is below 0)
		}
		depth = d
	}
	n := flatCount(s, vs, depth)
	if err := r.ask(anyBytes * n); err != nil {
		return err
	}
	return flatAppend(s, make([]any, 0, n), vs, depth)
}

// flatCount is how many elements flatten makes of vs.
func flatCount(s *stepper, vs []any, depth float64) int64 {
	var n int64
	for _, v := range vs {
		s.step(1)
		if a, ok := v.([]any); ok && depth != 0 {
			n += flatCount(s, a, depth-1)
		} else {
			n++
		}
	}
	return n
}

func flatAppend(s *stepper, xs, vs []any, depth float64) []any {
	for _, v := range vs {
		s.step(1)
		if a, ok := v.([]any); ok && depth != 0 {
			xs = flatAppend(s, xs, a, depth-1)
		} else {
			xs = append(xs, v)
		}
	}
	return xs
}

// explodeBytes is what explode makes of a character: an element, and the int it holds (Go
// keeps the small ones without allocating).
const explodeBytes = anyBytes + 8

// explode is gojq's: the code points of a string (U+FFFD for a byte that is not UTF-8).
func (r *ownRun) explode(s *stepper, v any) any {
	str, ok := v.(string)
	if !ok {
		return gojqOwn("explode", v, nil)
	}
	var n int64
	for rest := str; rest != ""; {
		chunk := runeChunk(s, rest)
		n += int64(utf8.RuneCountInString(chunk))
		rest = rest[len(chunk):]
	}
	if err := r.ask(explodeBytes * n); err != nil {
		return err
	}
	out := make([]any, 0, n)
	for rest := str; rest != ""; {
		chunk := runeChunk(s, rest)
		for _, c := range chunk {
			out = append(out, int(c))
		}
		rest = rest[len(chunk):]
	}
	return out
}

// runeChunk is the first chunkBytes of str or so, cut where no UTF-8 sequence spans the cut
// (before a byte that may start one, or after three that cannot), a step of the call.
func runeChunk(s *stepper, str string) string {
	s.step(stopEvery)
	end := min(len(str), chunkBytes)
	for k := 0; k < 3 && end < len(str) && !utf8.RuneStart(str[end]); k++ {
		end++
	}
	return str[:end]
}

// implode is gojq's funcImplode: the string of an array's code points (U+FFFD for one out of
// range); its errors are gojq's own.
func (r *ownRun) implode(s *stepper, v any) any {
	vs, ok := v.([]any)
	if !ok {
		return gojqOwn("implode", v, nil)
	}
	size := int64(0)
	for _, x := range vs {
		s.step(1)
		c, ok := gojq.ToInt(x)
		if !ok {
			return gojqOwn("implode", v, nil)
		}
		if c < 0 || c > utf8.MaxRune {
			c = utf8.RuneError
		}
		if w := utf8.RuneLen(rune(c)); w > 0 {
			size += int64(w)
		} else {
			size += 3 // a surrogate: written as U+FFFD
		}
	}
	if err := r.ask(size); err != nil {
		return err
	}
	var b strings.Builder
	b.Grow(int(size))
	for _, x := range vs {
		s.step(1)
		c, _ := gojq.ToInt(x)
		if c < 0 || c > utf8.MaxRune {
			c = utf8.RuneError
		}
		b.WriteRune(rune(c))
	}
	return b.String()
}

// asciiCase is gojq's ascii_downcase or ascii_upcase: strings.Map of the ASCII letters, which
// writes U+FFFD for a byte that is not UTF-8 (three bytes for one).
func (r *ownRun) asciiCase(s *stepper, op string, v any) any {
	str, ok := v.(string)
	if !ok {
		return gojqOwn(op, v, nil)
	}
	size := int64(len(str))
	for rest := str; rest != ""; {
		chunk := runeChunk(s, rest)
		if !utf8.ValidString(chunk) {
			for i := 0; i < len(chunk); {
				c, w := utf8.DecodeRuneInString(chunk[i:])
				if c == utf8.RuneError && w == 1 {
					size += 2
				}
				i += w
			}
		}
		rest = rest[len(chunk):]
	}
	if err := r.ask(size); err != nil {
		return err
	}
	lo, hi, shift := 'A', 'Z', rune('a'-'A')
	if op == "ascii_upcase" {
		lo, hi, shift = 'a', 'z', -shift
	}
	mapping := func(c rune) rune {
		if lo <= c && c <= hi {
			return c + shift
		}
		return c
	}
	var b strings.Builder
	b.Grow(int(size))
	for rest := str; rest != ""; {
		chunk := runeChunk(s, rest)
		b.WriteString(strings.Map(mapping, chunk))
		rest = rest[len(chunk):]
	}
	return b.String()
}

// transpose is gojq's funcTranspose: an array of arrays as columns, each as long as the input
// has rows (null where a row is short), as many as its longest row: the rows' lengths times
// their count (a thousand empty rows and one of 100000 elements make 10^8 elements), asked of
// the run's memory first.
func (r *ownRun) transpose(s *stepper, v any) any {
	vss, ok := v.([]any)
	if !ok {
		return gojqOwn("transpose", v, nil)
	}
	if len(vss) == 0 {
		return []any{}
	}
	l := 0
	for _, row := range vss {
		s.step(1)
		vs, ok := row.([]any)
		if !ok {
			return gojqOwn("transpose", v, nil)
		}
		l = max(l, len(vs))
	}
	k := len(vss)
	if err := r.ask(int64(l) * (anyBytes*int64(k) + 2*anyBytes + 8)); err != nil {
		return err
	}
	xs := make([]any, l)
	for i := range xs {
		s.step(k)
		xs[i] = make([]any, k)
	}
	for i, row := range vss {
		for j, e := range row.([]any) {
			s.step(1)
			xs[j].([]any)[i] = e
		}
	}
	return xs
}
