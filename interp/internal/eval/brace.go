package eval

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// batom is one unit of a word for brace expansion: a literal byte (or an escaped pair) of an
// unquoted literal, or an opaque part (quotes, expansions).
type batom struct {
	s    string
	esc  bool
	part syntax.WordPart
}

func (a batom) is(c byte) bool { return a.part == nil && !a.esc && len(a.s) == 1 && a.s[0] == c }

// braceExpand applies brace expansion to a word.
func (r *Runner) braceExpand(w *syntax.Word) []*syntax.Word {
	if !r.opts.has(optBraceexpand) {
		return []*syntax.Word{w}
	}
	has := false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			has = true
			break
		}
	}
	if !has {
		return []*syntax.Word{w}
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
	budget := int(r.c.limits.MaxMemory / 16)
	lists := braceAtoms(atoms, &budget)
	if budget < 0 {
		r.status = r.raise(r.fatal(&LimitError{Kind: LimitMemory, Max: r.c.limits.MaxMemory}))
		return nil
	}
	out := make([]*syntax.Word, 0, len(lists))
	for _, l := range lists {
		if nw := r.rejoin(l); nw != nil {
			out = append(out, nw)
			continue
		}
		out = append(out, atomsWord(l, w))
	}
	return out
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

// braceAtoms expands the first brace expression of atoms (recursively). budget bounds the
// number of words produced; it goes negative when exceeded.
func braceAtoms(atoms []batom, budget *int) [][]batom {
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
				alts = append(alts, braceAtoms(atoms[start:c], budget)...)
				start = c + 1
				if *budget < 0 {
					return nil
				}
			}
		} else if seq, ok := braceSequence(amble, budget); ok {
			alts = seq
		} else {
			// Not an expansion: look for a later brace.
			continue
		}
		if *budget < 0 {
			return nil
		}
		posts := braceAtoms(post, budget)
		if *budget < 0 {
			return nil
		}
		*budget -= len(alts) * len(posts)
		if *budget < 0 {
			return nil
		}
		out := make([][]batom, 0, len(alts)*len(posts))
		for _, a := range alts {
			for _, p := range posts {
				w := make([]batom, 0, len(pre)+len(a)+len(p))
				w = append(w, pre...)
				w = append(w, a...)
				w = append(w, p...)
				out = append(out, w)
			}
		}
		return out
	}
	return [][]batom{atoms}
}

// braceSequence expands {x..y[..incr]}.
func braceSequence(amble []batom, budget *int) ([][]batom, bool) {
	var b strings.Builder
	for _, a := range amble {
		if a.part != nil || a.esc {
			return nil, false
		}
		b.WriteString(a.s)
	}
	parts := strings.Split(b.String(), "..")
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
	lit := func(s string) []batom {
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
		if count > uint64(*budget) || count > 1<<31 {
			*budget = -1
			return nil, true
		}
		*budget -= int(count)
		out := make([][]batom, 0, count)
		step := incr
		if yi < xi {
			step = -incr
		}
		for k, v := uint64(0), xi; k < count; k, v = k+1, v+step {
			s := strconv.FormatInt(v, 10)
			if width > 0 {
				s = padNum(v, width)
			}
			out = append(out, lit(s))
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
			if v == '\\' {
				// Bash's quote removal then drops the lone backslash: an empty word ({X..c}).
				out = append(out, []batom{{part: &syntax.SglQuoted{}}})
				continue
			}
			out = append(out, lit(string(rune(v))))
		}
		*budget -= len(out)
		return out, true
	}
	return nil, false
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
	for len(s) < w {
		s = "0" + s
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
