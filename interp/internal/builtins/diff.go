package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() { register("diff", diff) }

var diffSpec = optSpec{short: "uU:qsiwbBaN", long: []string{"unified=?", "brief:q", "report-identical-files:s",
	"ignore-case:i", "ignore-all-space:w", "ignore-space-change:b", "ignore-blank-lines:B", "text:a", "label=",
	"new-file:N", "color=?", "strip-trailing-cr"}, permute: true}

// diffFile is one side of a comparison.
type diffFile struct {
	label   string
	lines   []string
	noEOL   bool // the last line lacked its newline
	labeled bool // --label: no timestamp in unified headers
	mtime   time.Time
}

// diff compares two files (normal or unified output); exit 0 same, 1 different, 2 trouble.
func diff(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "diff", 2, diffSpec, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) != 2 {
		return errorf(env, 2, "diff", "missing operand after '%s'", strings.Join(argv[1:], " "))
	}
	context_ := -1
	for _, o := range fl.opts {
		switch o.name {
		case "u", "unified":
			context_ = 3
			if o.val != "" {
				context_, _ = strconv.Atoi(o.val)
			}
		case "U":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				return errorf(env, 2, "diff", "invalid context length '%s'", o.val)
			}
			context_ = n
		}
	}
	labels := fl.vals("label")
	var files [2]*diffFile
	for i, name := range fl.operands {
		other := fl.operands[1-i]
		f, err := readDiffFile(ctx, env, name, other, fl.has("N"))
		if err != nil {
			return errorf(env, 2, "diff", "%s: %s", name, describe(err))
		}
		if i < len(labels) {
			f.label, f.labeled = labels[i], true
		}
		if f.mtime.IsZero() {
			f.mtime = env.Now()
		}
		files[i] = f
	}
	if ctx.Err() != nil {
		return 130
	}
	if !fl.has("a") && (diffBinary(files[0]) || diffBinary(files[1])) {
		if diffKeys(files[0]) == diffKeys(files[1]) {
			return 0
		}
		fmt.Fprintf(env.Stdout, "Binary files %s and %s differ\n", files[0].label, files[1].label)
		return 1
	}
	hunks, err := diffChanges(ctx, files[0], files[1], fl)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, sandbox.ErrMemoryBudget) {
			return 130
		}
		return errorf(env, 2, "diff", "%v", err)
	}
	if len(hunks) == 0 {
		if fl.has("s") {
			fmt.Fprintf(env.Stdout, "Files %s and %s are identical\n", files[0].label, files[1].label)
		}
		return 0
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	switch {
	case fl.has("q"):
		fmt.Fprintf(w, "Files %s and %s differ\n", files[0].label, files[1].label)
	case context_ >= 0:
		writeUnified(w, files[0], files[1], hunks, context_, envLocation(env))
	default:
		writeNormal(w, files[0], files[1], hunks)
	}
	return 1
}

// readDiffFile reads a side; a directory compared with a file means the file of that name
// inside it, as diff does.
func readDiffFile(ctx context.Context, env *Env, name, other string, absentEmpty bool) (*diffFile, error) {
	f := &diffFile{label: name}
	if name != "-" {
		p := env.Abs(name)
		fi, err := env.FS.Stat(p)
		if err != nil && absentEmpty {
			return f, nil
		}
		if err != nil {
			return nil, err
		}
		if fi.IsDir() {
			if ofi, oerr := env.FS.Stat(env.Abs(other)); oerr == nil && ofi.IsDir() || other == "-" {
				return nil, fmt.Errorf("comparing directories is not supported in the sandbox")
			}
			name = joinPath(name, baseOf(other))
			f.label = name
			if fi, err = env.FS.Stat(env.Abs(name)); err != nil {
				return nil, err
			}
		}
		f.mtime = fi.ModTime()
	}
	r, err := openInput(env, name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	lr := newLineReader(ctxReader{ctx, r})
	mem := meterOf(ctx)
	for {
		line, nl, ok := lr.next()
		if !ok {
			return f, lr.err
		}
		if err := mem.grow(lineCost(len(line)) + 16); err != nil { // the line, and its id later
			return nil, err
		}
		f.lines = append(f.lines, string(line))
		f.noEOL = !nl
	}
}

func diffBinary(f *diffFile) bool {
	n := 0
	for _, l := range f.lines {
		if strings.IndexByte(l, 0) >= 0 {
			return true
		}
		if n += len(l); n > 4096 {
			break
		}
	}
	return false
}

func diffKeys(f *diffFile) string { return strings.Join(f.lines, "\n") + fmt.Sprint(f.noEOL) }

// normalizeLine applies -i, -w, -b for comparison only.
func normalizeLine(s string, fl *flagSet) string {
	if fl.has("strip-trailing-cr") {
		s = strings.TrimSuffix(s, "\r")
	}
	if fl.has("w") {
		s = strings.Join(strings.Fields(s), "")
	} else if fl.has("b") {
		s = strings.Join(strings.Fields(s), " ")
		if s != "" && strings.ContainsAny(s[len(s)-1:], " \t") {
			s = strings.TrimRight(s, " \t")
		}
	}
	if fl.has("i") {
		s = strings.ToLower(s)
	}
	return s
}

// change is a run of deleted lines a[a0:a1] replaced by b[b0:b1].
type change struct{ a0, a1, b0, b1 int }

func diffChanges(ctx context.Context, a, b *diffFile, fl *flagSet) ([]change, error) {
	ids := map[string]int{}
	toIDs := func(f *diffFile) []int {
		out := make([]int, len(f.lines))
		for i, l := range f.lines {
			k := normalizeLine(l, fl)
			if i == len(f.lines)-1 && f.noEOL {
				k += "\x00noeol" // "a" and "a\n" differ at the end of a file
			}
			id, ok := ids[k]
			if !ok {
				id = len(ids)
				ids[k] = id
			}
			out[i] = id
		}
		return out
	}
	m := &myers{ctx: ctx, mem: meterOf(ctx), a: toIDs(a), b: toIDs(b)}
	m.ca, m.cb = make([]bool, len(m.a)), make([]bool, len(m.b))
	if err := m.discardUnmatched(); err != nil {
		return nil, err
	}
	if err := m.err; err != nil {
		return nil, err
	}
	var out []change
	i, j := 0, 0
	for i < len(m.a) || j < len(m.b) {
		if i < len(m.a) && j < len(m.b) && !m.ca[i] && !m.cb[j] {
			i, j = i+1, j+1
			continue
		}
		c := change{a0: i, b0: j}
		for i < len(m.a) && m.ca[i] {
			i++
		}
		for j < len(m.b) && m.cb[j] {
			j++
		}
		c.a1, c.b1 = i, j
		if fl.has("B") && blankOnly(a.lines[c.a0:c.a1]) && blankOnly(b.lines[c.b0:c.b1]) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

func blankOnly(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// myers marks changed lines (ca, cb) with Myers' linear-space O(ND) algorithm. It checks
// cancellation as it goes (a large D costs seconds) and charges its work arrays.
type myers struct {
	a, b   []int
	ca, cb []bool
	ctx    context.Context
	mem    *meter
	err    error
}

// discardUnmatched marks every line that occurs nowhere in the other file as changed (no
// common subsequence can use it) and runs the comparison on the lines left: the result is the
// same minimal diff, and files with nothing in common (`diff <(seq 1 100000) <(seq 100001
// 200000)`) cost O(N) instead of O(N*D).
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
	if err := m.mem.grow(int64(len(ka)+len(kb)) * 16); err != nil {
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
		for i := aLo; i < aHi; i++ {
			m.ca[i] = true
		}
		for j := bLo; j < bHi; j++ {
			m.cb[j] = true
		}
		return
	}
	x, y, u, v := m.middleSnake(aLo, aHi, bLo, bHi)
	if m.err != nil {
		return
	}
	if (x == aLo && y == bLo && u == aLo) || (u == aHi && v == bHi && x == aHi) {
		// No progress possible (should not happen): mark the rest changed.
		for i := aLo; i < aHi; i++ {
			m.ca[i] = true
		}
		for j := bLo; j < bHi; j++ {
			m.cb[j] = true
		}
		return
	}
	m.compare(aLo, x, bLo, y)
	m.compare(u, aHi, v, bHi)
}

// middleSnake finds the middle snake of the shortest edit path, in absolute coordinates.
func (m *myers) middleSnake(aLo, aHi, bLo, bHi int) (int, int, int, int) {
	a, b := m.a[aLo:aHi], m.b[bLo:bHi]
	n, mm := len(a), len(b)
	maxD := (n + mm + 1) / 2
	off := maxD + 1
	cost := int64(2*(2*maxD+3)) * 8
	if m.err = m.mem.grow(cost); m.err != nil {
		return aLo, bLo, aLo, bLo
	}
	defer m.mem.release(cost)
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

func rangeNormal(lo, hi int) string {
	if hi-lo <= 1 {
		return strconv.Itoa(max(hi, lo))
	}
	return fmt.Sprintf("%d,%d", lo+1, hi)
}

func writeLines(w *bufio.Writer, prefix string, f *diffFile, lo, hi int) {
	for i := lo; i < hi; i++ {
		w.WriteString(prefix + f.lines[i] + "\n")
		if i == len(f.lines)-1 && f.noEOL {
			w.WriteString("\\ No newline at end of file\n")
		}
	}
}

func writeNormal(w *bufio.Writer, a, b *diffFile, hunks []change) {
	for _, c := range hunks {
		switch {
		case c.b0 == c.b1:
			fmt.Fprintf(w, "%sd%d\n", rangeNormal(c.a0, c.a1), c.b0)
			writeLines(w, "< ", a, c.a0, c.a1)
		case c.a0 == c.a1:
			fmt.Fprintf(w, "%da%s\n", c.a0, rangeNormal(c.b0, c.b1))
			writeLines(w, "> ", b, c.b0, c.b1)
		default:
			fmt.Fprintf(w, "%sc%s\n", rangeNormal(c.a0, c.a1), rangeNormal(c.b0, c.b1))
			writeLines(w, "< ", a, c.a0, c.a1)
			w.WriteString("---\n")
			writeLines(w, "> ", b, c.b0, c.b1)
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

func writeUnified(w *bufio.Writer, a, b *diffFile, hunks []change, ctxLines int, loc *time.Location) {
	stamp := func(f *diffFile) string {
		if f.labeled {
			return f.label
		}
		return f.label + "\t" + f.mtime.In(loc).Format("2006-01-02 15:04:05.000000000 -0700")
	}
	fmt.Fprintf(w, "--- %s\n+++ %s\n", stamp(a), stamp(b))
	for i := 0; i < len(hunks); {
		j := i
		for j+1 < len(hunks) && hunks[j+1].a0-hunks[j].a1 <= 2*ctxLines {
			j++
		}
		aStart, bStart := max(hunks[i].a0-ctxLines, 0), max(hunks[i].b0-ctxLines, 0)
		aEnd, bEnd := min(hunks[j].a1+ctxLines, len(a.lines)), min(hunks[j].b1+ctxLines, len(b.lines))
		fmt.Fprintf(w, "@@ -%s +%s @@\n", rangeUnified(aStart, aEnd), rangeUnified(bStart, bEnd))
		pos := aStart
		for k := i; k <= j; k++ {
			c := hunks[k]
			writeLines(w, " ", a, pos, c.a0)
			writeLines(w, "-", a, c.a0, c.a1)
			writeLines(w, "+", b, c.b0, c.b1)
			pos = c.a1
		}
		writeLines(w, " ", a, pos, aEnd)
		i = j + 1
	}
}
