package eval

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/arith"
)

// Bash arithmetic is textual: `x='1+2'; $(( $x * 3 ))` is 7. So the evaluator expands the
// expression's source text (the $-expansions and double quotes in it, as if double-quoted)
// and hands the resulting string to package arith.

// splice is the per-node plan for expanding a piece of source text: the raw text and the
// expansions inside it (outermost only), by byte offset.
type splice struct {
	text  string
	base  int
	parts []splicePart
}

type splicePart struct {
	from, to int
	part     syntax.WordPart
}

// splicePlan computes (and caches) the plan of source text [from, to) containing node n.
func (r *Runner) splicePlan(n syntax.Node, from, to int) *splice {
	key := spliceKey{n, from}
	if v, ok := r.cur.cache.Load(key); ok {
		return v.(*splice)
	}
	sp := &splice{base: from}
	if from >= 0 && to <= len(r.cur.text) && from <= to {
		sp.text = r.cur.text[from:to]
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		switch p := node.(type) {
		case *syntax.ParamExp:
			if !p.Dollar.IsValid() {
				return true // a[i] inside arithmetic: look inside its subscript
			}
			sp.parts = append(sp.parts, splicePart{int(p.Pos().Offset()), int(p.End().Offset()), p})
			return false
		case *syntax.CmdSubst, *syntax.ArithmExp, *syntax.DblQuoted, *syntax.ProcSubst:
			wp := p.(syntax.WordPart)
			sp.parts = append(sp.parts, splicePart{int(wp.Pos().Offset()), int(wp.End().Offset()), wp})
			return false
		}
		return true
	})
	r.cur.cache.Store(key, sp)
	return sp
}

type spliceKey struct {
	n    syntax.Node
	from int
}

// spliceText expands a plan.
func (r *Runner) spliceText(sp *splice) (string, error) { return r.spliceTextLit(sp, false) }

// spliceTextLit expands a plan; with joinLines, backslash-newline pairs in the literal text
// (not in what the expansions produce) are removed, as bash's reader removes them from the
// source of an arithmetic expression before evaluating it.
func (r *Runner) spliceTextLit(sp *splice, joinLines bool) (string, error) {
	lit := func(s string) string {
		if joinLines {
			return strings.ReplaceAll(s, "\\\n", "")
		}
		return s
	}
	if len(sp.parts) == 0 {
		return lit(sp.text), nil
	}
	var b strings.Builder
	last := 0
	for _, p := range sp.parts {
		a, z := p.from-sp.base, p.to-sp.base
		if a < last || z > len(sp.text) {
			continue
		}
		b.WriteString(lit(sp.text[last:a]))
		e := &expander{r: r, mode: modeString}
		var err error
		if dq, ok := p.part.(*syntax.DblQuoted); ok {
			err = e.parts(dq.Parts, true, false, false)
		} else {
			err = e.parts([]syntax.WordPart{p.part}, true, false, false)
		}
		if err != nil {
			return "", err
		}
		e.emit(false)
		for i := range e.fields {
			b.WriteString(e.fields[i].text())
		}
		last = z
	}
	b.WriteString(lit(sp.text[last:]))
	return b.String(), nil
}

// arithText is the expanded text of an arithmetic expression node.
func (r *Runner) arithText(owner syntax.Node, x syntax.ArithmExpr) (string, error) {
	if x == nil {
		return "", nil
	}
	from, to := int(x.Pos().Offset()), int(x.End().Offset())
	switch o := owner.(type) {
	case *syntax.ArithmExp:
		// The whole text between $(( and )), blanks included (error messages show them).
		from = int(o.Left.Offset()) + 3
		if o.Bracket {
			from = int(o.Left.Offset()) + 2
		}
		to = int(o.Right.Offset())
	case *syntax.ArithmCmd:
		from, to = int(o.Left.Offset())+2, int(o.Right.Offset())
	}
	return r.spliceTextLit(r.splicePlan(x, from, to), true)
}

// arithNode evaluates the arithmetic expression x written inside owner.
func (r *Runner) arithNode(owner syntax.Node, x syntax.ArithmExpr) (int64, error) {
	text, err := r.arithText(owner, x)
	if err != nil {
		return 0, err
	}
	prefix := ""
	switch owner.(type) {
	case *syntax.ArithmCmd, *syntax.CStyleLoop:
		prefix = "((: "
	}
	return r.arithEval(text, prefix)
}

// arithString evaluates arithmetic from a string (declare -i values, let arguments,
// indirect subscripts).
func (r *Runner) arithString(s string) (int64, error) { return r.arithEval(s, "") }

// arithSubscript evaluates an indexed array subscript.
func (r *Runner) arithSubscript(s string) (int64, error) { return r.arithEval(s, "") }

// arithEval runs package arith and turns its errors into bash's behaviour: the message, and
// for $(( )) and subscripts an expansion error that abandons the command line.
func (r *Runner) arithEval(text, prefix string) (int64, error) {
	n, err := arith.Eval(text, arithEnv{r})
	if err == nil {
		return n, nil
	}
	var ae *arith.Error
	var ue *arith.UnboundError
	var le *arith.LimitError
	var un *arith.UnsupportedError
	switch {
	case errors.As(err, &ae):
		p := prefix
		if ae.NoCommandName {
			p = ""
		}
		r.errorf("%s%s", p, ae.Error())
		if prefix != "" {
			// (( )) and let fail with status 1 and go on.
			return 0, errStatus1
		}
		return 0, &shError{flow: flowDiscard, status: 1, arith: true}
	case errors.As(err, &ue):
		return 0, r.exitf("%s", ue.Error())
	case errors.As(err, &le):
		r.errorf("%s%s", prefix, le.Error())
		if prefix != "" {
			// As for an invalid expression: (( )) and let fail with status 1 and go on.
			return 0, errStatus1
		}
		return 0, &shError{flow: flowDiscard, status: 1, arith: true}
	case errors.As(err, &un):
		return 0, r.fatal(&RefusalError{Refusal: Refusal{File: r.cur.name, Line: r.lineno, Construct: "arithmetic " + un.Error(), Fix: DefaultFix}})
	}
	// An error from arithEnv.Set (readonly) or a flow error passes through.
	return 0, err
}

// arithEnv gives package arith the shell's variables.
type arithEnv struct{ r *Runner }

func (a arithEnv) Get(ref arith.Ref) (string, bool, error) {
	r := a.r
	v, rf, ok := r.lookupVar(ref.Name)
	if !ok {
		return "", false, nil
	}
	name := rf.name
	if rf.hasSub && !ref.HasSub {
		k, err := r.refKey(v, rf.sub)
		if err != nil {
			return "", false, err
		}
		s, set := r.element(v, name, k)
		return s, set, nil
	}
	if !ref.HasSub {
		s, set := varScalar(&v)
		return s, set, nil
	}
	if ref.Assoc || v.attrs&attrAssoc != 0 {
		if v.as == nil {
			return "", v.set, nil
		}
		key, err := r.expandSubscriptText(ref.Sub)
		if err != nil {
			return "", false, err
		}
		s, _ := v.as.get(key)
		return s, true, nil
	}
	if !ref.IndexValid() {
		return "", v.set, nil
	}
	s, _ := r.indexGet(v, name, ref.Index)
	return s, true, nil
}

func (a arithEnv) Set(ref arith.Ref, n int64) error {
	r := a.r
	s := strconv.FormatInt(n, 10)
	if !ref.HasSub {
		return r.assign(ref.Name, s, 0)
	}
	if ref.Assoc {
		key, err := r.expandSubscriptText(ref.Sub)
		if err != nil {
			return err
		}
		return r.assignElem(ref.Name, key, s, 0, false)
	}
	return r.assignIndex(ref.Name, ref.Index, s)
}

func (a arithEnv) IsAssoc(name string) bool {
	v, _, ok := a.r.lookupVar(name)
	return ok && v.attrs&attrAssoc != 0
}

func (a arithEnv) Nounset() bool { return a.r.opts.has(optNounset) }

// assignIndex sets name[n] of an indexed array (n already evaluated).
func (r *Runner) assignIndex(name string, n int64, val string) error {
	return r.assignElemNum(name, n, val)
}

// expandSubscriptText expands a subscript that arrives as text at run time (through a
// nameref or an indirect reference, an arithmetic associative key): bash expands it again
// (parameters, command substitution, arithmetic, quote removal).
func (r *Runner) expandSubscriptText(s string) (string, error) {
	if !strings.ContainsAny(s, "$`\"'\\") {
		return s, nil
	}
	words, err := parseWords(s)
	if err != nil {
		return s, nil
	}
	saved := r.cur
	r.cur = &source{name: saved.name, text: s, lineBase: saved.lineBase, cache: new(sync.Map)}
	defer func() { r.cur = saved }()
	var b strings.Builder
	for i, w := range words {
		v, err := r.expandString(w, ctxPlain)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v)
	}
	return b.String(), nil
}
