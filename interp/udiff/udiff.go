// Package udiff finds the lines that differ between two texts (Myers' linear-space O(ND)
// algorithm) and writes them in unified format. The sandbox's diff utility and review mode's
// change sets (host/internal/changes) share it. It is a leaf: it imports only the standard
// library.
package udiff

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
)

// Change is a run of lines a[A0:A1] replaced by b[B0:B1].
type Change struct{ A0, A1, B0, B1 int }

// Meter charges the comparison's work arrays to a memory budget (nil: none).
type Meter interface {
	Grow(n int64) error
	Release(n int64)
}

// Lines compares two texts given as line ids (equal lines have equal ids) and returns the
// changes that turn a into b, in order. It checks ctx as it goes (a large distance costs
// seconds).
func Lines(ctx context.Context, a, b []int, mem Meter) ([]Change, error) {
	m := &myers{ctx: ctx, mem: mem, a: a, b: b, ca: make([]bool, len(a)), cb: make([]bool, len(b))}
	if err := m.discardUnmatched(); err != nil {
		return nil, err
	}
	if m.err != nil {
		return nil, m.err
	}
	var out []Change
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if i < len(a) && j < len(b) && !m.ca[i] && !m.cb[j] {
			i, j = i+1, j+1
			continue
		}
		c := Change{A0: i, B0: j}
		for i < len(a) && m.ca[i] {
			i++
		}
		for j < len(b) && m.cb[j] {
			j++
		}
		c.A1, c.B1 = i, j
		out = append(out, c)
	}
	return out, nil
}

// IDs numbers lines so that equal keys get equal ids across both texts; key maps a line (its
// index, and whether it is the last of a text without a final newline) to what is compared.
func IDs(a, b []string, key func(line string, noEOL bool) string, aNoEOL, bNoEOL bool) ([]int, []int) {
	ids := map[string]int{}
	toIDs := func(lines []string, noEOL bool) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			k := key(l, i == len(lines)-1 && noEOL)
			id, ok := ids[k]
			if !ok {
				id = len(ids)
				ids[k] = id
			}
			out[i] = id
		}
		return out
	}
	return toIDs(a, aNoEOL), toIDs(b, bNoEOL)
}

type myers struct {
	a, b   []int
	ca, cb []bool
	ctx    context.Context
	mem    Meter
	err    error
}

func (m *myers) grow(n int64) error {
	if m.mem == nil {
		return nil
	}
	return m.mem.Grow(n)
}

func (m *myers) release(n int64) {
	if m.mem != nil {
		m.mem.Release(n)
	}
}

// discardUnmatched marks every line that occurs nowhere in the other text as changed (no
// common subsequence can use it) and runs the comparison on the lines left: the result is the
// same minimal diff, and texts with nothing in common cost O(N) instead of O(N*D).
func (m *myers) discardUnmatched() error {
	inA, inB := map[int]bool{}, map[int]bool{}
	for _, x := range m.a {
		inA[x] = true
	}
	for _, x := range m.b {
		inB[x] = true
	}
	keep := func(xs []int, other map[int]bool, changed []bool) (kept, index []int) {
		for i, x := range xs {
			if other[x] {
				kept, index = append(kept, x), append(index, i)
			} else {
				changed[i] = true
			}
		}
		return kept, index
	}
	ka, ia := keep(m.a, inB, m.ca)
	kb, ib := keep(m.b, inA, m.cb)
	if err := m.grow(int64(len(ka)+len(kb)) * 16); err != nil {
		return err
	}
	sub := &myers{ctx: m.ctx, mem: m.mem, a: ka, b: kb, ca: make([]bool, len(ka)), cb: make([]bool, len(kb))}
	sub.compare(0, len(ka), 0, len(kb))
	if sub.err != nil {
		return sub.err
	}
	for i, c := range sub.ca {
		m.ca[ia[i]] = c
	}
	for j, c := range sub.cb {
		m.cb[ib[j]] = c
	}
	return nil
}

func (m *myers) compare(aLo, aHi, bLo, bHi int) {
	if m.err != nil {
		return
	}
	for aLo < aHi && bLo < bHi && m.a[aLo] == m.b[bLo] {
		aLo, bLo = aLo+1, bLo+1
	}
	for aLo < aHi && bLo < bHi && m.a[aHi-1] == m.b[bHi-1] {
		aHi, bHi = aHi-1, bHi-1
	}
	if aLo == aHi || bLo == bHi {
		m.changed(aLo, aHi, bLo, bHi)
		return
	}
	x, y, u, v := m.middleSnake(aLo, aHi, bLo, bHi)
	if m.err != nil {
		return
	}
	if (x == aLo && y == bLo && u == aLo) || (u == aHi && v == bHi && x == aHi) {
		// No progress possible (should not happen): mark the rest changed.
		m.changed(aLo, aHi, bLo, bHi)
		return
	}
	m.compare(aLo, x, bLo, y)
	m.compare(u, aHi, v, bHi)
}

func (m *myers) changed(aLo, aHi, bLo, bHi int) {
	for i := aLo; i < aHi; i++ {
		m.ca[i] = true
	}
	for j := bLo; j < bHi; j++ {
		m.cb[j] = true
	}
}

// middleSnake finds the middle snake of the shortest edit path, in absolute coordinates.
func (m *myers) middleSnake(aLo, aHi, bLo, bHi int) (int, int, int, int) {
	a, b := m.a[aLo:aHi], m.b[bLo:bHi]
	n, mm := len(a), len(b)
	maxD := (n + mm + 1) / 2
	off := maxD + 1
	cost := int64(2*(2*maxD+3)) * 8
	if m.err = m.grow(cost); m.err != nil {
		return aLo, bLo, aLo, bLo
	}
	defer m.release(cost)
	vf, vb := make([]int, 2*maxD+3), make([]int, 2*maxD+3)
	delta := n - mm
	odd := delta%2 != 0
	for d := 0; d <= maxD; d++ {
		if d&63 == 63 && m.ctx.Err() != nil {
			m.err = m.ctx.Err()
			return aLo, bLo, aLo, bLo
		}
		for k := -d; k <= d; k += 2 {
			x := vf[off+k-1] + 1
			if k == -d || (k != d && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1]
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < mm && a[x] == b[y] {
				x, y = x+1, y+1
			}
			vf[off+k] = x
			if kb := delta - k; odd && kb >= -(d-1) && kb <= d-1 && vf[off+k]+vb[off+kb] >= n {
				return aLo + sx, bLo + sy, aLo + x, bLo + y
			}
		}
		for k := -d; k <= d; k += 2 {
			x := vb[off+k-1] + 1
			if k == -d || (k != d && vb[off+k-1] < vb[off+k+1]) {
				x = vb[off+k+1]
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < mm && a[n-x-1] == b[mm-y-1] {
				x, y = x+1, y+1
			}
			vb[off+k] = x
			if kf := delta - k; !odd && kf >= -d && kf <= d && vf[off+kf]+vb[off+k] >= n {
				return aLo + n - x, bLo + mm - y, aLo + n - sx, bLo + mm - sy
			}
		}
	}
	return aLo, bLo, aLo, bLo
}

// Text is one side of a comparison: its lines without their newlines, whether the last one
// lacked its newline, and the header a unified diff names it by.
type Text struct {
	Header string
	Lines  []string
	NoEOL  bool
}

// WriteLines writes t's lines lo..hi, each after prefix, noting a missing final newline. It
// stops at the writer's first error (a failed writer keeps it), so a long output to a reader
// that went away, or of a call that ended, is not formatted to its end.
func WriteLines(w *bufio.Writer, prefix string, t *Text, lo, hi int) {
	for i := lo; i < hi; i++ {
		w.WriteString(prefix)
		w.WriteString(t.Lines[i])
		if err := w.WriteByte('\n'); err != nil {
			return
		}
		if i == len(t.Lines)-1 && t.NoEOL {
			w.WriteString("\\ No newline at end of file\n")
		}
	}
}

func rangeUnified(lo, hi int) string {
	switch n := hi - lo; {
	case n == 0:
		return fmt.Sprintf("%d,0", lo)
	case n == 1:
		return strconv.Itoa(lo + 1)
	default:
		return fmt.Sprintf("%d,%d", lo+1, n)
	}
}

// WriteUnified writes the changes in unified format with ctxLines lines of context.
func WriteUnified(w *bufio.Writer, a, b *Text, hunks []Change, ctxLines int) {
	fmt.Fprintf(w, "--- %s\n+++ %s\n", a.Header, b.Header)
	for i := 0; i < len(hunks); {
		j := i
		for j+1 < len(hunks) && hunks[j+1].A0-hunks[j].A1 <= 2*ctxLines {
			j++
		}
		aStart, bStart := max(hunks[i].A0-ctxLines, 0), max(hunks[i].B0-ctxLines, 0)
		aEnd, bEnd := min(hunks[j].A1+ctxLines, len(a.Lines)), min(hunks[j].B1+ctxLines, len(b.Lines))
		fmt.Fprintf(w, "@@ -%s +%s @@\n", rangeUnified(aStart, aEnd), rangeUnified(bStart, bEnd))
		pos := aStart
		for k := i; k <= j; k++ {
			c := hunks[k]
			WriteLines(w, " ", a, pos, c.A0)
			WriteLines(w, "-", a, c.A0, c.A1)
			WriteLines(w, "+", b, c.B0, c.B1)
			pos = c.A1
		}
		WriteLines(w, " ", a, pos, aEnd)
		i = j + 1
	}
}
