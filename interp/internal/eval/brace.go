package eval

import (
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"mvdan.cc/sh/v3/syntax"
)

// batom is one unit of a word for brace expansion: a literal byte (or an escaped pair) of an
// unquoted literal, or an opaque part (quotes, expansions).
type batom struct {
	s    string
	esc  bool
	part syntax.WordPart
	// tick: the backquote a letter range makes ({a..Z}), which bash's later expansions read
	// as the start of a command substitution.
	tick bool
}

func (a batom) is(c byte) bool { return a.part == nil && !a.esc && len(a.s) == 1 && a.s[0] == c }

// braceExpand applies brace expansion to a word. Every word it makes is charged to the call's
// memory account in bytes before it is made (braceRun), and long expansions check the call's
// end: `: {1..2000000}` ends at the memory limit, not after growing the process by gigabytes.
func (r *Runner) braceExpand(w *syntax.Word) ([]*syntax.Word, error) {
	if !r.bracesIn(w) {
		return []*syntax.Word{w}, nil
	}
	var atoms []batom
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			atoms = append(atoms, batom{part: p})
			continue
		}
		v := l.Value
		for i := 0; i < len(v); i++ {
			if v[i] == '\\' && i+1 < len(v) {
				atoms = append(atoms, batom{s: v[i : i+2], esc: true})
				i++
				continue
			}
			atoms = append(atoms, batom{s: v[i : i+1]})
		}
	}
	b := &braceRun{r: r}
	lists := b.atoms(atoms)
	if !b.expanded && b.err == nil {
		return []*syntax.Word{w}, b.flush()
	}
	out := make([]*syntax.Word, 0, len(lists))
	if b.take(int64(len(lists)) * 8) {
		for _, l := range lists {
			if err := r.rangeTick(w, l); err != nil {
				b.flush()
				return nil, err
			}
			if nw := r.rejoin(l); nw != nil {
				out = append(out, nw)
				continue
			}
			if !b.take(wordCost(l)) {
				break
			}
			out = append(out, atomsWord(l, w))
		}
	}
	if err := b.flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// bracesIn reports whether brace expansion may change w: the option is on and a literal part
// holds a '{'. A word without is its own only expansion (expandFields expands it directly).
func (r *Runner) bracesIn(w *syntax.Word) bool {
	if !r.opts.has(optBraceexpand) {
		return false
	}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			return true
		}
	}
	return false
}

// braceCount is how many words w brace-expands to (1 when the expansion fails: the error
// comes again when the word is expanded).
func braceCount(r *Runner, w *syntax.Word) int {
	ws, err := r.braceExpand(w)
	if err != nil {
		return 1
	}
	return len(ws)
}

// braceRun is one brace expansion's account: the bytes of what it makes, charged to the call's
// memory in batches, and the call's end, checked every so many words.
type braceRun struct {
	r       *Runner
	pending int64 // bytes taken and not yet charged
	steps   int
	err     error // the limit or cancellation that stopped the expansion
	// expanded is set when a brace expression was found (else the word stays as it is).
	expanded bool
}

// braceBatch is how many bytes braceRun takes before it charges them: one charge per word
// would cost an atomic operation each.
const braceBatch = 64 << 10

// take accounts n more bytes; false once the expansion must stop (its error is then set).
func (b *braceRun) take(n int64) bool {
	if b.err != nil {
		return false
	}
	if b.steps++; b.steps&1023 == 0 {
		if err := b.r.checkCtx(); err != nil {
			b.err = err
			return false
		}
	}
	if b.pending += n; b.pending >= braceBatch {
		return b.flush() == nil
	}
	return true
}

// flush charges what was taken (released with the command's other expansions) and reports
// the error that stopped the expansion, if any.
func (b *braceRun) flush() error {
	if b.err == nil && b.pending > 0 {
		b.err = b.r.chargeExpansion(b.pending)
		b.pending = 0
	}
	return b.err
}

// The sizes a brace word costs: its atoms, the slice that holds them, and the syntax.Word it
// becomes (a Word, its parts and a literal's text), measured by TestBraceChargesRealBytes.
var (
	batomSize = int64(unsafe.Sizeof(batom{}))
	sliceSize = int64(unsafe.Sizeof([]batom{}))
	wordSize  = int64(unsafe.Sizeof(syntax.Word{}) + unsafe.Sizeof(syntax.Lit{}))
)

// atomsCost is what a list of n atoms costs.
func atomsCost(n int) int64 { return sliceSize + int64(n)*batomSize }

// wordCost is what atomsWord makes of atoms: the Word with its parts and literal texts.
func wordCost(atoms []batom) int64 {
	n := wordSize
	for _, a := range atoms {
		n += int64(len(a.s)) + 16
	}
	return n
}

// rejoin handles brace results where a short $name now runs into literal name characters
// ({$x,y}z gives $xz): bash expands braces on text, so the name is longer. The word is
// re-read from its text when that happens (nil: nothing to do).
func (r *Runner) rejoin(atoms []batom) *syntax.Word {
	join := false
	for i, a := range atoms {
		pe, ok := a.part.(*syntax.ParamExp)
		if !ok || !pe.Short || pe.Index != nil || i+1 >= len(atoms) {
			continue
		}
		n := atoms[i+1]
		if n.part == nil && !n.esc && len(n.s) == 1 && (isAlpha(n.s[0]) || n.s[0] == '_' || n.s[0] >= '0' && n.s[0] <= '9') && validName(pe.Param.Value) {
			join = true
		}
	}
	if !join {
		return nil
	}
	var b strings.Builder
	for _, a := range atoms {
		if a.part != nil {
			b.WriteString(r.cur.slice(a.part.Pos(), a.part.End()))
		} else {
			b.WriteString(a.s)
		}
	}
	words, err := parseWords(b.String())
	if err != nil || len(words) != 1 {
		return nil
	}
	nw := words[0]
	simple := true
	syntax.Walk(nw, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if !x.Short || x.Index != nil {
				simple = false
			}
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst:
			simple = false
		}
		return simple
	})
	if !simple {
		return nil
	}
	return nw
}

// atomsWord rebuilds a word from atoms.
func atomsWord(atoms []batom, orig *syntax.Word) *syntax.Word {
	var parts []syntax.WordPart
	var lit strings.Builder
	pos := orig.Pos()
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, &syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: lit.String()})
			lit.Reset()
		}
	}
	for _, a := range atoms {
		if a.part != nil {
			flush()
			parts = append(parts, a.part)
			continue
		}
		lit.WriteString(a.s)
	}
	flush()
	if len(parts) == 0 {
		parts = []syntax.WordPart{&syntax.SglQuoted{Left: pos, Right: pos}}
		// An expansion that produced nothing from braces (e.g. "{,}") yields empty words
		// that are removed like unquoted empty words.
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos}}}
	}
	return &syntax.Word{Parts: parts}
}

// atoms expands the first brace expression of atoms (recursively), taking the bytes of every
// list it makes; it returns nil once b.err is set.
func (b *braceRun) atoms(atoms []batom) [][]batom {
	for i := 0; i < len(atoms); i++ {
		if !atoms[i].is('{') {
			continue
		}
		// Find the matching close brace and the top-level commas.
		depth := 0
		var commas []int
		j := i + 1
		for ; j < len(atoms); j++ {
			a := atoms[j]
			if a.is('{') {
				depth++
			} else if a.is('}') {
				if depth == 0 {
					break
				}
				depth--
			} else if a.is(',') && depth == 0 {
				commas = append(commas, j)
			}
		}
		if j >= len(atoms) {
			// No close brace for this one: a later brace may still form an expansion.
			continue
		}
		pre, amble, post := atoms[:i], atoms[i+1:j], atoms[j+1:]
		var alts [][]batom
		if len(commas) > 0 {
			start := i + 1
			for _, c := range append(commas, j) {
				alts = append(alts, b.atoms(atoms[start:c])...)
				start = c + 1
				if b.err != nil {
					return nil
				}
			}
		} else if seq, ok := b.sequence(amble); ok {
			alts = seq
		} else {
			// Not an expansion: look for a later brace.
			continue
		}
		if b.err != nil {
			return nil
		}
		b.expanded = true
		posts := b.atoms(post)
		if b.err != nil {
			return nil
		}
		n := len(alts) * len(posts)
		if len(posts) > 0 && n/len(posts) != len(alts) || !b.take(int64(n)*sliceSize) {
			if b.err == nil {
				b.err = b.r.fatal(&LimitError{Kind: LimitMemory, Max: b.r.c.limits.MaxMemory})
			}
			return nil
		}
		out := make([][]batom, 0, n)
		for _, a := range alts {
			for _, p := range posts {
				k := len(pre) + len(a) + len(p)
				if !b.take(atomsCost(k)) {
					return nil
				}
				w := make([]batom, 0, k)
				w = append(w, pre...)
				w = append(w, a...)
				w = append(w, p...)
				out = append(out, w)
			}
		}
		return out
	}
	if !b.take(sliceSize) {
		return nil
	}
	return [][]batom{atoms}
}

// sequence expands {x..y[..incr]}.
func (b *braceRun) sequence(amble []batom) ([][]batom, bool) {
	var sb strings.Builder
	for _, a := range amble {
		if a.part != nil || a.esc {
			return nil, false
		}
		sb.WriteString(a.s)
	}
	parts := strings.Split(sb.String(), "..")
	if len(parts) != 2 && len(parts) != 3 {
		return nil, false
	}
	incr := int64(1)
	if len(parts) == 3 {
		n, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			return nil, false
		}
		if n < 0 {
			n = -n
		}
		if n != 0 {
			incr = n
		}
	}
	// lit makes the atoms of s, whose own bytes were taken when it was made.
	lit := func(s string) []batom {
		if !b.take(atomsCost(len(s))) {
			return nil
		}
		out := make([]batom, len(s))
		for i := range s {
			out[i] = batom{s: s[i : i+1], esc: true}
		}
		return out
	}
	x, y := parts[0], parts[1]
	if xi, err1 := strconv.ParseInt(x, 10, 64); err1 == nil {
		yi, err2 := strconv.ParseInt(y, 10, 64)
		if err2 != nil {
			return nil, false
		}
		width := 0
		if zeroPadded(x) || zeroPadded(y) {
			width = max(len(x), len(y))
		}
		count := (absDiff(xi, yi) / uint64(incr)) + 1
		// The list itself, before any word: its size alone may be past the limit.
		if count > 1<<40 || !b.take(int64(count)*sliceSize) {
			if b.err == nil {
				b.err = b.r.fatal(&LimitError{Kind: LimitMemory, Max: b.r.c.limits.MaxMemory})
			}
			return nil, true
		}
		out := make([][]batom, 0, count)
		step := incr
		if yi < xi {
			step = -incr
		}
		for k, v := uint64(0), xi; k < count; k, v = k+1, v+step {
			if !b.take(int64(max(width, 20))) {
				return nil, true
			}
			s := strconv.FormatInt(v, 10)
			if width > 0 {
				s = padNum(v, width)
			}
			l := lit(s)
			if l == nil {
				return nil, true
			}
			out = append(out, l)
		}
		return out, true
	}
	if len(x) == 1 && len(y) == 1 && isAlpha(x[0]) && isAlpha(y[0]) {
		a, z := int64(x[0]), int64(y[0])
		step := incr
		if z < a {
			step = -incr
		}
		var out [][]batom
		for v := a; (step > 0 && v <= z) || (step < 0 && v >= z); v += step {
			if v == '`' {
				if b.take(atomsCost(1)) {
					out = append(out, []batom{{s: "`", esc: true, tick: true}})
					continue
				}
				return nil, true
			}
			if v == '\\' {
				// Bash's quote removal then drops the lone backslash: an empty word ({X..c}).
				out = append(out, []batom{{part: &syntax.SglQuoted{}}})
				continue
			}
			if l := lit(string(rune(v))); l != nil && b.take(1) {
				out = append(out, l)
			} else {
				return nil, true
			}
		}
		return out, true
	}
	return nil, false
}

// rangeTick is what bash makes of a word in which a letter range put a backquote: at its
// end, a backquote; with literal text after it, a command substitution with no closing
// backquote (bad substitution, the command not run). Anything else after it is refused.
func (r *Runner) rangeTick(w *syntax.Word, l []batom) error {
	i := slices.IndexFunc(l, func(a batom) bool { return a.tick })
	if i < 0 || i == len(l)-1 {
		return nil
	}
	var rest strings.Builder
	rest.WriteByte('`')
	for _, a := range l[i+1:] {
		if a.part != nil || a.tick || strings.Contains(a.s, "`") {
			return r.refuseErr(w.Pos(), "a letter range ({a..Z}) that puts a backquote before more of its word")
		}
		rest.WriteString(a.s)
	}
	return r.discardf("bad substitution: no closing \"`\" in %s", rest.String())
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func zeroPadded(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

func padNum(v int64, width int) string {
	neg := v < 0
	if neg {
		v = -v
	}
	s := strconv.FormatInt(v, 10)
	w := width
	if neg {
		w--
	}
	if len(s) < w {
		s = strings.Repeat("0", w-len(s)) + s
	}
	if neg {
		s = "-" + s
	}
	return s
}

func absDiff(a, b int64) uint64 {
	if a > b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}
