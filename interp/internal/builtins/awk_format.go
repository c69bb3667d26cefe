package builtins

import (
	"fmt"
	"strconv"
	"strings"
)

// GoAWK hands a printf/sprintf format to Go's fmt, which prints %!(BADWIDTH), %!(BADPREC) or
// %!(NOVERB) text instead of a width or precision it cannot take (past about a million), and
// pads to any width it can take without charging the budget. fmtPass (awk_rewrite.go) routes
// formats and the values of * widths through the checks here, so that such a format is refused
// with a message, never printed wrong, and the padding is charged before GoAWK allocates it.

// awkFormat is what a printf format asks for, scanned as GoAWK's parseFmtTypes reads it.
type awkFormat struct {
	stars []int  // the value arguments (from 0) a * takes as a width or precision
	pad   int64  // the bytes its literal widths and precisions can add
	big   string // the first literal width or precision over maxFormatWidth
	ok    bool   // false: GoAWK refuses the format itself (it then reports the error)
}

func scanAwkFormat(f string) awkFormat {
	var s awkFormat
	arg := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		if i++; i < len(f) && f[i] == '%' {
			continue
		}
		for i < len(f) && strings.IndexByte(" .-+*#0123456789", f[i]) >= 0 {
			switch c := f[i]; {
			case c == '*':
				s.stars = append(s.stars, arg)
				arg++
				i++
			case c >= '0' && c <= '9':
				j := i
				for j < len(f) && f[j] >= '0' && f[j] <= '9' {
					j++
				}
				n := strings.TrimLeft(f[i:j], "0")
				if len(n) > 7 || len(n) == 7 && n > "1000000" {
					if s.big == "" {
						s.big = f[i:j]
					}
				} else {
					v, _ := strconv.ParseInt("0"+n, 10, 64)
					s.pad += v
				}
				i = j
			default:
				i++
			}
		}
		if i >= len(f) || strings.IndexByte("sdoxXifeEgGaAuc", f[i]) < 0 {
			return awkFormat{}
		}
		arg++
	}
	s.ok = true
	return s
}

// awkFormatRefused unwinds GoAWK from a format check with the reason.
type awkFormatRefused struct{ msg string }

// fmtFrame is one printf/sprintf in progress whose format is not a literal: which of its
// value arguments are * widths, and how many are still to come.
type fmtFrame struct {
	stars []int
	left  int
}

// checkFormat refuses a format GoAWK would print wrong and charges its padding; with a format
// computed at run time (n value arguments follow), it records the * arguments for argument.
func (a *awkIO) checkFormat(f string, n int) string {
	s := scanAwkFormat(f)
	if s.big != "" {
		panic(awkFormatRefused{fmt.Sprintf("format %q asks for a width or precision of %s, over the %d the sandbox prints; use a smaller one",
			f, s.big, maxFormatWidth)})
	}
	a.chargePad(s.pad)
	if n > 0 {
		a.fmts = append(a.fmts, fmtFrame{s.stars, n})
	}
	return f
}

// argument passes on the k-th value argument (from 0) of the innermost printf/sprintf whose
// format was computed at run time, checking it when the format takes it as a * width; it
// returns 1 (the rewrite yields the value itself, unconverted).
func (a *awkIO) argument(k int, v float64) int {
	if len(a.fmts) == 0 {
		return 1
	}
	top := &a.fmts[len(a.fmts)-1]
	for _, s := range top.stars {
		if s == k {
			a.width(v)
		}
	}
	if top.left--; top.left <= 0 {
		a.fmts = a.fmts[:len(a.fmts)-1]
	}
	return 1
}

// width checks the value of a * width or precision, converted as GoAWK converts it.
func (a *awkIO) width(v float64) float64 {
	n := int64(v)
	if n > maxFormatWidth || n < -maxFormatWidth {
		panic(awkFormatRefused{fmt.Sprintf("a * width or precision of %d is over the %d the sandbox prints; use a smaller one", n, maxFormatWidth)})
	}
	a.chargePad(max(n, -n))
	return v
}

// chargePad makes sure n bytes of padding fit the budget before GoAWK pads (the bytes are
// given back at once: the heap watch follows what GoAWK then holds).
func (a *awkIO) chargePad(n int64) {
	if n <= 0 {
		return
	}
	m := meterOf(a.ctx)
	if m.grow(n) != nil {
		panic(awkStopped{})
	}
	m.release(n)
}
