package eval

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/pattern"
	"github.com/mcp-bash/mcp-bash/interp/internal/shquote"
)

// pval is a parameter's value before its operator applies.
type pval struct {
	set    bool
	isList bool // $@, $*, ${a[@]}, ${a[*]}
	star   bool // the * form
	str    string
	list   []string
	// name is how messages name the parameter ("x", "a[1]", "$1", "@").
	name string
	// varName is the variable a ${x:=...} assigns (empty: not assignable).
	varName string
	sub     string
	hasSub  bool
	attrs   attr
	assoc   bool
	// keysOf is set for ${!a[@]}.
	// elemRef: the name is a nameref to an array element (a[1], a[@]); bash gives such a
	// reference length 0 and, braced, joins a[@] into one word.
	elemRef bool
}

// joined is the value as one string (what :- tests for null).
func (p *pval) joined(r *Runner) string {
	if !p.isList {
		return p.str
	}
	sep := " "
	if p.star {
		sep = r.ifsJoin()
	}
	return strings.Join(p.list, sep)
}

// subscriptOf is the expanded text of a parameter's subscript (an assoc key, or arithmetic
// text for an indexed array), and whether it is @ or *.
func (r *Runner) subscriptOf(pe *syntax.ParamExp, assoc bool) (string, error) {
	if w, ok := pe.Index.(*syntax.Word); ok {
		if l := w.Lit(); l == "@" || l == "*" {
			return l, nil
		}
		if assoc {
			return r.expandString(w, ctxPlain)
		}
	}
	from := int(pe.Param.End().Offset()) + 1
	to := int(pe.Index.End().Offset())
	for to < len(r.cur.text) && r.cur.text[to] != ']' {
		to++
	}
	return r.spliceText(r.splicePlan(pe.Index, from, to))
}

// isAtStar reports whether a subscript node is @ or *.
func isAtStar(x syntax.ArithmExpr) (string, bool) {
	if w, ok := x.(*syntax.Word); ok {
		if l := w.Lit(); l == "@" || l == "*" {
			return l, true
		}
	}
	return "", false
}

// paramValue looks up a parameter by name (and subscript), as ${name[sub]} would.
func (r *Runner) paramValue(name string, sub string, hasSub bool) (pval, error) {
	pv := pval{name: name}
	switch name {
	case "@", "*":
		pv.isList, pv.star, pv.list, pv.set = true, name == "*", r.params, len(r.params) > 0
		return pv, nil
	case "#":
		pv.str, pv.set = strconv.Itoa(len(r.params)), true
		return pv, nil
	case "?":
		pv.str, pv.set = strconv.Itoa(r.status), true
		return pv, nil
	case "-":
		pv.str, pv.set = r.dashValue(), true
		return pv, nil
	case "$":
		pv.str, pv.set = strconv.Itoa(r.shellPID), true
		return pv, nil
	case "!":
		if r.lastBg != 0 {
			pv.str, pv.set = strconv.Itoa(r.lastBg), true
		}
		return pv, nil
	case "0":
		pv.str, pv.set = r.arg0, true
		return pv, nil
	}
	if c := name[0]; c >= '0' && c <= '9' {
		n, err := strconv.Atoi(name)
		pv.name = "$" + name
		if err == nil && n >= 1 && n <= len(r.params) {
			pv.str, pv.set = r.params[n-1], true
		}
		return pv, nil
	}
	v, rf, ok := r.lookupVar(name)
	pv.varName = rf.name
	pv.attrs = v.attrs
	pv.assoc = v.attrs&attrAssoc != 0
	if rf.hasSub && hasSub {
		// ${ref[...]} where ref names an array element: nothing (no word for [@]).
		return pval{name: name, isList: sub == "@" || sub == "*", star: sub == "*", elemRef: true}, nil
	}
	if rf.hasSub && (rf.sub == "@" || rf.sub == "*") {
		// A nameref to a[@] expands like "${a[@]}".
		ev, err := r.paramValue(rf.name, rf.sub, true)
		ev.elemRef = true
		return ev, err
	}
	if rf.hasSub && !hasSub {
		// A nameref to an array element.
		pv.name = name
		pv.varName = name
		k, err := r.refKey(v, rf.sub)
		if err != nil {
			return pv, err
		}
		s, set := r.element(v, rf.name, k)
		pv.str, pv.set, pv.elemRef = s, set, true
		return pv, nil
	}
	if !ok {
		if hasSub {
			pv.name = name + "[" + sub + "]"
			if sub == "@" || sub == "*" {
				pv.isList, pv.star = true, sub == "*"
				pv.name = name
				return pv, nil
			}
			// bash evaluates an unset name's subscript all the same (${c[i++]} counts i)
			// and refuses a negative one.
			n, err := r.arithSubscript(sub)
			if err != nil {
				return pv, err
			}
			if n < 0 {
				return pv, r.badSubscript(name)
			}
		}
		return pv, nil
	}
	if !hasSub {
		pv.str, pv.set = varScalar(&v)
		return pv, nil
	}
	pv.sub, pv.hasSub = sub, true
	pv.name = name + "[" + sub + "]"
	if sub == "@" || sub == "*" {
		pv.isList, pv.star = true, sub == "*"
		pv.name = name
		switch {
		case v.as != nil:
			for _, k := range v.as.keys() {
				s, _ := v.as.get(k)
				pv.list = append(pv.list, s)
			}
		case v.arr != nil:
			pv.list = v.arr.vals
		case v.set && !v.isArray():
			pv.list = []string{v.str}
		}
		pv.set = len(pv.list) > 0
		return pv, nil
	}
	if v.attrs&attrAssoc != 0 {
		if sub == "" {
			// bash names an empty key and expands it as unset.
			return pv, r.badSubscript(name)
		}
		if v.as != nil {
			pv.str, pv.set = v.as.get(sub)
		}
		return pv, nil
	}
	n, err := r.arithSubscript(sub)
	if err != nil {
		return pv, err
	}
	if n < 0 && (v.arr == nil || n+v.arr.max()+1 < 0) {
		return pv, r.badSubscript(name)
	}
	pv.str, pv.set = r.indexGet(v, name, n)
	return pv, nil
}

// param expands one ${...} or $x into the expander.
func (e *expander) param(pe *syntax.ParamExp, inDQ bool) error {
	r := e.r
	if pe.Param == nil {
		return r.refuseErr(pe.Pos(), "this parameter expansion")
	}
	name := pe.Param.Value

	// ${!prefix*} and ${!prefix@}: variable names.
	if pe.Names != 0 {
		names := r.varNamesWithPrefix(name)
		if pe.Names == syntax.NamesPrefix && !inDQ && r.ifsValue() == "" && e.mode == modeFields {
			// Bash joins ${!prefix*} into one word when IFS is empty.
			return e.value(strings.Join(names, ""), false)
		}
		return e.list(names, inDQ, pe.Names == syntax.NamesPrefix)
	}
	// Fast path: $x and ${x} of a plain variable.
	if pe.Index == nil && !pe.Excl && !pe.Length && pe.Slice == nil && pe.Repl == nil && pe.Exp == nil && validName(name) {
		v, rf, found := r.lookupVar(name)
		if !rf.hasSub {
			s, ok := varScalar(&v)
			if !found {
				ok = false
			}
			if !ok && r.opts.has(optNounset) {
				return r.exitf("%s: unbound variable", name)
			}
			return e.value(s, inDQ)
		}
	}

	var pv pval
	var err error
	switch {
	case pe.Excl && pe.Index != nil && isAtStarIdx(pe) && pe.Exp == nil && pe.Slice == nil && pe.Repl == nil && !pe.Length:
		// ${!a[@]}: the keys of an array.
		pv, err = r.arrayKeys(name, pe)
		if err != nil {
			return err
		}
		if pv.star && !inDQ && r.ifsValue() == "" && e.mode == modeFields && pe.Exp == nil && pe.Slice == nil && pe.Repl == nil && !pe.Length {
			return e.value(strings.Join(pv.list, " "), true)
		}
	case pe.Excl:
		pv, err = r.indirect(pe, name)
		if err != nil {
			return err
		}
	default:
		sub, hasSub := "", pe.Index != nil
		if hasSub {
			v, _, _ := r.lookupVar(name)
			sub, err = r.subscriptOf(pe, v.attrs&attrAssoc != 0)
			if err != nil {
				return err
			}
		}
		pv, err = r.paramValue(name, sub, hasSub)
		if err != nil {
			return err
		}
		if pv.elemRef && !hasSub && pv.isList && !pe.Short {
			// Braced, a nameref to a[@] is one word: the elements joined as by "${a[*]}".
			pv.str, pv.isList, pv.list, pv.star = strings.Join(pv.list, r.ifsJoin()), false, nil, false
		}
	}

	if pe.Length {
		if pv.elemRef {
			return e.value("0", inDQ)
		}
		if !pv.set && !pv.isList && r.opts.has(optNounset) {
			return r.exitf("%s: unbound variable", pv.name)
		}
		n := 0
		if pv.isList {
			n = len(pv.list)
		} else {
			n = r.strLen(pv.str)
		}
		return e.value(strconv.Itoa(n), inDQ)
	}

	if pe.Exp != nil {
		handled, err := e.paramOp(pe, &pv, inDQ)
		if err != nil || handled {
			return err
		}
	} else if !pv.set && r.opts.has(optNounset) && !pv.isList {
		return r.exitf("%s: unbound variable", pv.name)
	}

	if pe.Slice != nil {
		if err := r.slice(pe, &pv); err != nil {
			return err
		}
	}
	if pe.Repl != nil {
		if err := r.replace(pe, &pv); err != nil {
			return err
		}
	}
	if pv.isList {
		return e.list(pv.list, inDQ, pv.star)
	}
	return e.value(pv.str, inDQ)
}

func isAtStarIdx(pe *syntax.ParamExp) bool {
	_, ok := isAtStar(pe.Index)
	return ok
}

// arrayKeys is ${!a[@]} / ${!a[*]}.
func (r *Runner) arrayKeys(name string, pe *syntax.ParamExp) (pval, error) {
	sub, _ := isAtStar(pe.Index)
	pv := pval{name: name, isList: true, star: sub == "*"}
	v, _, ok := r.lookupVar(name)
	if !ok {
		return pv, nil
	}
	switch {
	case v.as != nil:
		pv.list = v.as.keys()
	case v.arr != nil:
		pv.list = make([]string, v.arr.len())
		for i := range pv.list {
			pv.list[i] = strconv.FormatInt(v.arr.key(i), 10)
		}
	case v.set && !v.isArray():
		pv.list = []string{"0"}
	}
	pv.set = len(pv.list) > 0
	return pv, nil
}

// indirect is ${!name...}: the value of name names the parameter to expand. A nameref
// yields the name it refers to instead.
func (r *Runner) indirect(pe *syntax.ParamExp, name string) (pval, error) {
	if pe.Index == nil && validName(name) {
		_, v := r.find(name)
		if v.attrs&attrNameref != 0 {
			return pval{name: name, str: v.str, set: v.set}, nil
		}
	}
	var target pval
	var err error
	if pe.Index != nil {
		v, _, _ := r.lookupVar(name)
		sub, err := r.subscriptOf(pe, v.attrs&attrAssoc != 0)
		if err != nil {
			return target, err
		}
		target, err = r.paramValue(name, sub, true)
		if err != nil {
			return target, err
		}
	} else {
		target, err = r.paramValue(name, "", false)
		if err != nil {
			return target, err
		}
	}
	ref := target.joined(r)
	label := name
	if pe.Index != nil {
		label = name + "[" + r.cur.slice(pe.Index.Pos(), pe.Index.End()) + "]"
	}
	if !target.set && (!target.isList || len(target.list) == 0) {
		if _, _, exists := r.lookupVar(name); exists && !target.isList {
			// The variable exists without a value (an array without element 0).
			return pval{name: name}, nil
		}
		return pval{}, r.discardf("%s: invalid indirect expansion", label)
	}
	rname, sub, hasSub, ok := parseParamRef(ref)
	if !ok {
		return pval{}, r.discardf("%s: invalid variable name", ref)
	}
	_ = label
	if hasSub && sub != "@" && sub != "*" {
		// The subscript of an indirect reference is expanded again.
		var err error
		if sub, err = r.expandSubscriptText(sub); err != nil {
			return pval{}, err
		}
	}
	return r.paramValue(rname, sub, hasSub)
}

// parseParamRef splits "name", "name[sub]" or a special parameter.
func parseParamRef(s string) (name, sub string, hasSub, ok bool) {
	if s == "" {
		return "", "", false, false
	}
	if len(s) == 1 && strings.IndexByte("@*#?-$!0123456789", s[0]) >= 0 {
		return s, "", false, true
	}
	if isDigits(s) {
		return s, "", false, true
	}
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		if !validName(s[:i]) {
			return "", "", false, false
		}
		return s[:i], s[i+1 : len(s)-1], true, true
	}
	return s, "", false, validName(s)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// paramOp applies ${x<op>word}. handled means the expander already has the result.
func (e *expander) paramOp(pe *syntax.ParamExp, pv *pval, inDQ bool) (bool, error) {
	r := e.r
	op := pe.Exp.Op
	word := pe.Exp.Word
	null := func() bool { return pv.joined(r) == "" }
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		if !pv.set || (op == syntax.DefaultUnsetOrNull && null()) {
			return true, e.operand(word, inDQ)
		}
		return false, nil
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if !pv.set || (op == syntax.AlternateUnsetOrNull && null()) {
			// Nothing; in double quotes an empty string.
			if inDQ {
				e.cur.exists = true
			}
			return true, nil
		}
		return true, e.operand(word, inDQ)
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if pv.set && !(op == syntax.AssignUnsetOrNull && null()) {
			return false, nil
		}
		val, err := r.operandString(word, inDQ)
		if err != nil {
			return true, err
		}
		if pv.varName == "" || !validName(pv.varName) {
			return true, r.discardf("$%s: cannot assign in this way", strings.TrimPrefix(pv.name, "$"))
		}
		if pv.hasSub && pv.sub != "@" && pv.sub != "*" {
			err = r.assignElem(pv.varName, pv.sub, val, 0, !pv.assoc)
		} else {
			err = r.assign(pv.varName, val, 0)
		}
		if err != nil {
			return true, err
		}
		np, err := r.paramValue(pv.varName, pv.sub, pv.hasSub)
		if err != nil {
			return true, err
		}
		*pv = np
		return false, nil
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		if pv.set && !(op == syntax.ErrorUnsetOrNull && null()) {
			return false, nil
		}
		msg := ""
		if word != nil {
			var err error
			msg, err = r.operandString(word, inDQ)
			if err != nil {
				return true, err
			}
		}
		if msg == "" {
			if op == syntax.ErrorUnsetOrNull {
				msg = "parameter null or not set"
			} else {
				msg = "parameter not set"
			}
		}
		return true, r.exitf("%s: %s", pv.name, msg)
	}
	// The remaining operators transform a value: unset is an error under set -u.
	if !pv.set && !pv.isList && r.opts.has(optNounset) {
		return true, r.exitf("%s: unbound variable", pv.name)
	}
	switch op {
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		pat, err := r.expandPattern(word)
		if err != nil {
			return true, err
		}
		nocase := false
		f := func(s string) string {
			switch op {
			case syntax.RemSmallPrefix:
				return s[r.prefixMatch(pat, s, false, nocase):]
			case syntax.RemLargePrefix:
				return s[r.prefixMatch(pat, s, true, nocase):]
			case syntax.RemSmallSuffix:
				return s[:r.suffixMatch(pat, s, false, nocase)]
			default:
				return s[:r.suffixMatch(pat, s, true, nocase)]
			}
		}
		pv.mapEach(f)
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll, opToggleFirst, opToggleAll:
		pat := ""
		if word != nil {
			var err error
			if pat, err = r.expandPattern(word); err != nil {
				return true, err
			}
		}
		all := op == syntax.UpperAll || op == syntax.LowerAll || op == opToggleAll
		conv := unicode.ToLower
		switch op {
		case syntax.UpperFirst, syntax.UpperAll:
			conv = unicode.ToUpper
		case opToggleFirst, opToggleAll:
			conv = toggleCase
		}
		toggle := op == opToggleFirst || op == opToggleAll
		return false, pv.mapEachErr(func(s string) (string, error) {
			if toggle && !utf8.ValidString(s) {
				// Bash toggles the bytes of a value that is not UTF-8 in ways of its own.
				return "", r.refuseErr(pe.Pos(), "${x~} or ${x~~} of a value that is not valid UTF-8")
			}
			return r.caseMod(s, pat, conv, all), nil
		})
	case syntax.OtherParamOps:
		return false, r.atOp(pe, pv, word.Lit())
	default:
		return true, r.refuseErr(pe.Pos(), "${x"+op.String()+"...}")
	}
	return false, nil
}

// mapEachErr is mapEach with a function that may fail (the call's limits); the first
// error ends it.
func (p *pval) mapEachErr(f func(string) (string, error)) error {
	if p.isList {
		out := make([]string, len(p.list))
		for i, s := range p.list {
			q, err := f(s)
			if err != nil {
				return err
			}
			out[i] = q
		}
		p.list = out
		return nil
	}
	if p.set {
		q, err := f(p.str)
		if err != nil {
			return err
		}
		p.str = q
	}
	return nil
}

func (p *pval) mapEach(f func(string) string) {
	if p.isList {
		out := make([]string, len(p.list))
		for i, s := range p.list {
			out[i] = f(s)
		}
		p.list = out
		return
	}
	if p.set {
		p.str = f(p.str)
	}
}

// operand expands the word of ${x:-word} / ${x:+word} into the surrounding word: unquoted,
// its results are split and globbed like the rest of the word.
func (e *expander) operand(w *syntax.Word, inDQ bool) error {
	if w == nil {
		if inDQ {
			e.cur.exists = true
		}
		return nil
	}
	if inDQ {
		e.cur.exists = true
		return e.dqOperand(w.Parts)
	}
	if e.mode != modeFields {
		return e.parts(w.Parts, false, true, false)
	}
	for i, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && !(i == 0 && strings.HasPrefix(l.Value, "~")) {
			e.splitLit(l.Value)
			continue
		}
		if err := e.parts([]syntax.WordPart{p}, false, i == 0, false); err != nil {
			return err
		}
	}
	return nil
}

// dqOperand expands an operand word inside double quotes: single quotes are literal there.
func (e *expander) dqOperand(parts []syntax.WordPart) error {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			// Inside "${x:-...}" a backslash also quotes the closing brace.
			e.lit(strings.ReplaceAll(unescapeDQ(strings.ReplaceAll(p.Value, `\}`, "\x00")), "\x00", "}"), true)
		case *syntax.SglQuoted:
			if p.Dollar && e.r.shopts.has(shExtquote) {
				e.lit(ansiC(p.Value), true)
			} else if p.Dollar {
				e.lit("$'"+p.Value+"'", true)
			} else if strings.ContainsAny(p.Value, "$`\\\"") {
				if err := e.dqSingleQuoted(p); err != nil {
					return err
				}
			} else {
				e.lit("'"+p.Value+"'", true)
			}
		default:
			if err := e.parts([]syntax.WordPart{p}, true, false, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// dqSingleQuoted expands 'text' inside "${x:-...}": the quotes stay, and bash expands what is
// between them as double-quoted text ($-expansions, backquotes, backslash escapes). Text that
// does not read as one double-quoted string (a bare double quote in it) is refused.
func (e *expander) dqSingleQuoted(p *syntax.SglQuoted) error {
	r := e.r
	text := `"` + p.Value + `"`
	words, err := parseWords(text)
	var dq *syntax.DblQuoted
	if err == nil && len(words) == 1 && len(words[0].Parts) == 1 {
		dq, _ = words[0].Parts[0].(*syntax.DblQuoted)
	}
	if dq == nil {
		return r.refuseErr(p.Pos(), `a single-quoted string inside "${x:-...}" that does not read as double-quoted text`)
	}
	saved := r.cur
	// Arithmetic inside reads its text by offsets: give it this text as the source.
	r.cur = &source{name: saved.name, text: text, lineBase: saved.lineBase, cache: new(sync.Map)}
	defer func() { r.cur = saved }()
	e.lit("'", true)
	if err := e.parts(dq.Parts, true, false, false); err != nil {
		return err
	}
	e.lit("'", true)
	return nil
}

// operandString expands an operand word to one string (${x:=word}, ${x:?word}).
func (r *Runner) operandString(w *syntax.Word, inDQ bool) (string, error) {
	if w == nil {
		return "", nil
	}
	e := &expander{r: r, mode: modeString}
	var err error
	if inDQ {
		err = e.dqOperand(w.Parts)
	} else {
		err = e.parts(w.Parts, false, true, false)
	}
	if err != nil {
		return "", err
	}
	return e.joinedText(), nil
}

// utf8Mode reports whether the locale counts characters as UTF-8 sequences.
func (r *Runner) utf8Mode() bool {
	for _, n := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v, ok := r.scalar(n); ok && v != "" {
			l := strings.ToLower(v)
			return strings.Contains(l, "utf-8") || strings.Contains(l, "utf8")
		}
	}
	return false
}

func (r *Runner) strLen(s string) int {
	if r.utf8Mode() {
		return utf8.RuneCountInString(s)
	}
	return len(s)
}

// runeOffset is the byte offset in s of the character k characters after byte offset from.
func runeOffset(s string, from int, k int64) int {
	i := from
	for ; k > 0 && i < len(s); k-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return i
}

// isASCII reports whether s has only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// slice applies ${x:offset:length}.
func (r *Runner) slice(pe *syntax.ParamExp, pv *pval) error {
	off, err := r.arithNode(pe, pe.Slice.Offset)
	if err != nil {
		return err
	}
	hasLen := pe.Slice.Length != nil
	var length int64
	if hasLen {
		if length, err = r.arithNode(pe, pe.Slice.Length); err != nil {
			return err
		}
	}
	if pv.isList {
		list := pv.list
		if pv.name == "@" || pv.name == "*" {
			// Positional parameters count $0 as offset 0.
			list = append([]string{r.arg0}, r.params...)
			if off < 0 {
				list = list[1:]
				off += int64(len(list)) + 1
				list = append([]string{r.arg0}, r.params...)
			}
		} else if pv.hasSub && !pv.assoc {
			// Sparse arrays: the offset is an index, not a position.
			v, _, _ := r.lookupVar(pv.varName)
			if v.arr != nil {
				if off < 0 {
					off += v.arr.max() + 1
					if off < 0 {
						// Before index 0: bash expands to nothing.
						pv.list = nil
						return nil
					}
				}
				start := 0
				for start < v.arr.len() && v.arr.key(start) < off {
					start++
				}
				list = v.arr.vals[start:]
				off = 0
			}
		} else if off < 0 {
			off += int64(len(list))
		} else if pv.assoc && off > 0 {
			// Bash counts associative array positions from 1.
			off--
		}
		if off < 0 || off > int64(len(list)) {
			pv.list = nil
			return nil
		}
		list = list[off:]
		if hasLen {
			if length < 0 {
				return r.discardf("%s: substring expression < 0", strconv.FormatInt(length, 10))
			}
			if length < int64(len(list)) {
				list = list[:length]
			}
		}
		pv.list = list
		return nil
	}
	if !pv.set {
		return nil
	}
	s := pv.str
	n := int64(len(s))
	u := r.utf8Mode() && !isASCII(s)
	if u {
		n = int64(utf8.RuneCountInString(s))
	}
	if off < 0 {
		off += n
		if off < 0 {
			pv.str = ""
			return nil
		}
	}
	if off > n {
		pv.str = ""
		return nil
	}
	end := n
	if hasLen {
		if length < 0 {
			end = n + length
			if end < off {
				return r.discardf("%s: substring expression < 0", strconv.FormatInt(length, 10))
			}
		} else if off+length < n {
			end = off + length
		}
	}
	if u {
		// Offsets count characters; the bytes are the value's own (an invalid byte is one
		// character and stays as it is), taken without a copy.
		from := runeOffset(s, 0, off)
		pv.str = s[from:runeOffset(s, from, end-off)]
	} else {
		pv.str = s[off:end]
	}
	return nil
}

// replace applies ${x/pattern/string} and its variants.
func (r *Runner) replace(pe *syntax.ParamExp, pv *pval) error {
	if !pv.set && !pv.isList {
		return nil
	}
	orig := pe.Repl.Orig
	anchor := byte(0)
	// After // the rest is the pattern: bash reads # and % as anchors only after one /.
	if orig != nil && len(orig.Parts) > 0 && !pe.Repl.All {
		if l, ok := orig.Parts[0].(*syntax.Lit); ok && len(l.Value) > 0 && (l.Value[0] == '#' || l.Value[0] == '%') {
			anchor = l.Value[0]
			parts := append([]syntax.WordPart{&syntax.Lit{ValuePos: l.ValuePos, ValueEnd: l.ValueEnd, Value: l.Value[1:]}}, orig.Parts[1:]...)
			orig = &syntax.Word{Parts: parts}
		}
	}
	pat, err := r.expandPattern(orig)
	if err != nil {
		return err
	}
	if negatedCloseFirst(pat) {
		// Bash 5.2 reads such a bracket differently in ${x/p/r} than in every other pattern
		// (it then matches nothing, unless a * follows it): no one rule reproduces it.
		return r.refuseHere("${var/pattern/...} with a bracket expression whose first member is ] after ^ or ! ([^]...])",
			`escape the bracket's ] ([^\]...]) or put it later ([^a]]), which bash reads as every other pattern reads it`)
	}
	with, err := r.replacement(pe.Repl.With)
	if err != nil {
		return err
	}
	nocase := r.shopts.has(shNocasematch) // nocasematch applies to ${x/p/r}, not to # and %
	var failed error
	pv.mapEach(func(s string) string {
		if failed != nil {
			return s
		}
		out, err := r.patReplace(s, pat, with, anchor, pe.Repl.All, nocase)
		failed = err
		return out
	})
	return failed
}

// negatedCloseFirst reports whether a pattern holds an unescaped bracket expression opening
// with [^] or [!] (a ] as its first member).
func negatedCloseFirst(pat string) bool {
	for i := 0; i+2 < len(pat); i++ {
		switch {
		case pat[i] == '\\':
			i++
		case pat[i] == '[' && (pat[i+1] == '^' || pat[i+1] == '!') && pat[i+2] == ']':
			return true
		}
	}
	return false
}

// replacementText is a ${x/p/r} replacement: literal pieces and & (the match).
type replacementText []seg

// replacement expands the replacement string; with patsub_replacement an unquoted & stands
// for the matched text.
func (r *Runner) replacement(w *syntax.Word) (replacementText, error) {
	if w == nil {
		return nil, nil
	}
	e := &expander{r: r, mode: modeString}
	if err := e.parts(w.Parts, false, true, false); err != nil {
		return nil, err
	}
	e.emit(false)
	var out replacementText
	for _, f := range e.fields {
		out = append(out, f.segs...)
	}
	return out, nil
}

// size is how long render(match) is: known before it is built, so that it can be charged.
func (rt replacementText) size(match string, amp bool) int64 {
	n := int64(0)
	for _, s := range rt {
		n += int64(len(s.s))
		if !s.quoted && amp {
			// Each & adds the match in place of itself (an escaped one is \& made &: one less).
			n += int64(strings.Count(s.s, "&")) * int64(len(match))
		}
	}
	return n
}

func (rt replacementText) render(match string, amp bool) string {
	var b strings.Builder
	for _, s := range rt {
		if s.quoted || !amp || strings.IndexByte(s.s, '&') < 0 {
			b.WriteString(s.s)
			continue
		}
		for i := 0; i < len(s.s); i++ {
			c := s.s[i]
			if c == '\\' && i+1 < len(s.s) && s.s[i+1] == '&' {
				b.WriteByte('&')
				i++
				continue
			}
			if c == '&' {
				b.WriteString(match)
				continue
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// validSuffix is where the longest valid UTF-8 suffix of s starts (just past its last byte
// that is no part of a character).
func validSuffix(s string) int {
	v := 0
	for i := 0; i < len(s); {
		c, n := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && n <= 1 {
			v = i + 1
		}
		i += n
	}
	return v
}

// patReplace replaces matches of pat in s (${x/p/r} and its variants). What the result adds
// past s is charged to the call's memory before it is built: ${s// /$s} of a 100,000-byte s
// makes 10 GB, a fatal out-of-memory error if it were built first (issue 27).
func (r *Runner) patReplace(s, pat string, with replacementText, anchor byte, all, nocase bool) (string, error) {
	amp := r.shopts.has(shPatsubReplacement)
	render := func(match string) (string, error) {
		if n := with.size(match, amp); n > int64(len(match)) {
			if err := r.chargeExpansion(n - int64(len(match))); err != nil {
				return "", err
			}
		}
		return with.render(match, amp), nil
	}
	if pat == "" && anchor != 0 {
		// An empty anchored pattern matches the empty string at the start or the end.
		w, err := render("")
		if err != nil {
			return "", err
		}
		if anchor == '#' {
			return w + s, nil
		}
		return s + w, nil
	}
	p, err := r.compile(pat, r.patOptions(nocase, pat, s))
	if err != nil {
		return s, nil
	}
	sp, err := r.stopping(p, s)
	if err != nil {
		return "", err
	}
	switch anchor {
	case '#':
		end, ok, err := sp.MatchAt(s, 0)
		if err != nil {
			r.patErr(pat, err)
		}
		if !ok || err != nil {
			return s, nil
		}
		w, err := render(s[:end])
		if err != nil {
			return "", err
		}
		return w + s[end:], nil
	case '%':
		start, ok, err := sp.MatchEnd(s)
		if err != nil {
			r.patErr(pat, err)
		}
		if !ok || err != nil {
			return s, nil
		}
		w, err := render(s[start:])
		if err != nil {
			return "", err
		}
		return s[:start] + w, nil
	}
	if pat == "" {
		return s, nil
	}
	if literalPattern(pat, nocase) && utf8.ValidString(s) {
		n := 1
		if all {
			n = strings.Count(s, pat)
		}
		rep, err := render(pat) // charges the first match's growth
		if err != nil {
			return "", err
		}
		if grow := int64(n-1) * (int64(len(rep)) - int64(len(pat))); grow > 0 {
			if err := r.chargeExpansion(grow); err != nil {
				return "", err
			}
		}
		if all {
			return strings.ReplaceAll(s, pat, rep), nil
		}
		return strings.Replace(s, pat, rep, 1), nil
	}
	var b strings.Builder
	from, last := 0, 0
	finder, err := p.Finder(s)
	if err != nil {
		r.patErr(pat, err)
		return s, nil
	}
	finder.Stop = func() bool { return r.ctx.Err() != nil }
	// Bash's ${x//p/r} matches the rest of the value, from where the last match ended, each
	// time: a character at a time when that rest is valid UTF-8, else a byte at a time. So
	// in a value that is not UTF-8 the bytes up to its last invalid one are matched as bytes
	// (finder, compiled so above), and the rest, once valid, as characters (chars).
	var chars *pattern.Finder
	validFrom := len(s) + 1 // where the valid rest starts: past it, a character boundary is one
	if all && r.utf8Mode() && !utf8.ValidString(s) && utf8.ValidString(pat) {
		validFrom = validSuffix(s)
		opts := r.patOptions(nocase, pat, "")
		cp, err := r.compile(pat, opts)
		if err != nil {
			return s, nil
		}
		if chars, err = cp.Finder(s); err != nil {
			r.patErr(pat, err)
			return s, nil
		}
		chars.Stop = finder.Stop
	}
	// Bash does not try a match at the end of a non-empty string.
	for from < len(s) || len(s) == 0 && from == 0 {
		if chars != nil && from >= validFrom && utf8.RuneStart(s[from]) {
			finder, chars = chars, nil
		}
		if r.ctx.Err() != nil {
			// A long subject with many matches takes time, which a cancelled run must not
			// spend (the caller's next check ends the run).
			break
		}
		start, end, ok, err := finder.Find(from)
		if errors.Is(err, pattern.ErrStopped) {
			break
		}
		if err != nil {
			r.patErr(pat, err)
			return s, nil
		}
		if !ok {
			break
		}
		b.WriteString(s[last:start])
		w, err := render(s[start:end])
		if err != nil {
			return "", err
		}
		b.WriteString(w)
		last = end
		if end == start {
			// After an empty match bash copies one character and goes on after it.
			if end >= len(s) {
				break
			}
			_, size := utf8.DecodeRuneInString(s[end:])
			if !r.utf8Mode() {
				size = 1
			}
			b.WriteString(s[end : end+size])
			last = end + size
			from = last
		} else {
			from = end
		}
		if !all || len(s) == 0 {
			break
		}
	}
	b.WriteString(s[last:])
	return b.String(), nil
}

// caseMod applies ${x^pat} and friends: characters matching pat (any character when pat is
// empty) change case, the first one only unless all.
func (r *Runner) caseMod(s, pat string, conv func(rune) rune, all bool) string {
	if t := incompleteTail(s); t < len(s)-1 {
		// Bash writes a value's last character cut short (b1 b2 ... bk, k >= 2) as b1, then
		// all of it, then all but b1: e2 82 becomes e2 e2 82 82.
		tail := s[t:]
		return r.caseModChars(s[:t], pat, conv, all) + tail[:1] + tail + tail[1:]
	}
	return r.caseModChars(s, pat, conv, all)
}

// caseModChars is caseMod but for the last character cut short.
func (r *Runner) caseModChars(s, pat string, conv func(rune) rune, all bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && n <= 1:
			b.WriteByte(s[i]) // a byte that is no character: bash keeps it
		case c < utf8.RuneSelf && pat == "" && conv(c) == c:
			b.WriteByte(s[i])
		case pat == "" || r.matchPattern(pat, s[i:i+n], false):
			b.WriteRune(conv(c))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
		if !all {
			b.WriteString(s[i:])
			break
		}
	}
	return b.String()
}

// dropCTLESC is bash's reading of the bytes 0x01 and 0x7f in ${x@E} (its internal quoting
// characters, CTLESC and CTLNUL): a 0x01 before either is dropped, the byte after it kept.
func dropCTLESC(s string) string {
	i := strings.IndexByte(s, 0x01)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if s[i] == 0x01 && i+1 < len(s) && (s[i+1] == 0x01 || s[i+1] == 0x7f) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// incompleteTail is where s ends with the start of a character cut short (a lead byte and
// the continuation bytes it may have, too few of them), or len(s) when it does not.
func incompleteTail(s string) int {
	for k := 1; k <= 3 && k <= len(s); k++ {
		c := s[len(s)-k]
		if c < 0x80 {
			return len(s)
		}
		if c < 0xc0 {
			continue // a continuation byte
		}
		need := 2
		if c >= 0xe0 {
			need = 3
		}
		if c >= 0xf0 {
			need = 4
		}
		// Completed with continuation bytes, is it a character? Then it was one cut short.
		if k < need && utf8.ValidString(s[len(s)-k:]+"\x80\x80\x80"[:need-k]) {
			return len(s) - k
		}
		return len(s)
	}
	return len(s)
}

// toggleCase is the case toggle of ${x~}: upper to lower, lower to upper.
func toggleCase(c rune) rune {
	if unicode.IsUpper(c) {
		return unicode.ToLower(c)
	}
	return unicode.ToUpper(c)
}

// varNamesWithPrefix lists the set variables whose names start with prefix, sorted.
func (r *Runner) varNamesWithPrefix(prefix string) []string {
	var out []string
	for _, n := range r.allVarNames() {
		if strings.HasPrefix(n, prefix) {
			// An array declared but never assigned (`declare -a q`), or FUNCNAME outside a
			// function, is not listed, as in bash.
			if v, _, ok := r.lookupVarNoRef(n); ok && (v.set || !v.isArray() || arrayLen(v) > 0) {
				out = append(out, n)
			}
		}
	}
	return out
}

// arrayLen counts an array variable's elements.
func arrayLen(v variable) int {
	n := 0
	if v.arr != nil {
		n += v.arr.len()
	}
	if v.as != nil {
		n += v.as.len()
	}
	return n
}

// atOp applies ${x@op}.
func (r *Runner) atOp(pe *syntax.ParamExp, pv *pval, op string) error {
	switch op {
	case "Q":
		return pv.mapEachErr(r.quoteLimits().Single)
	case "E":
		pv.mapEach(func(s string) string { return ansiC(dropCTLESC(s)) })
	case "U":
		pv.mapEach(func(s string) string { return r.caseMod(s, "", unicode.ToUpper, true) })
	case "L":
		pv.mapEach(func(s string) string { return r.caseMod(s, "", unicode.ToLower, true) })
	case "u":
		pv.mapEach(func(s string) string { return r.caseMod(s, "", unicode.ToUpper, false) })
	case "a":
		v, ok := r.varForPrint(pv.varName)
		flags := ""
		if ok && pv.varName != "" {
			flags = strings.TrimPrefix(attrFlags(v.attrs), "-")
			if flags == "-" {
				flags = ""
			}
		}
		if pv.isList {
			for i := range pv.list {
				pv.list[i] = flags
			}
		} else if pv.set || ok {
			pv.str, pv.set = flags, true
		}
	case "A":
		return r.atAssign(pv)
	case "K", "k":
		return r.atKeys(pe, pv, op == "k")
	case "P":
		return r.refuseErr(pe.Pos(), "${var@P} (prompt expansion)")
	default:
		return r.discardf("%s: bad substitution", r.cur.slice(pe.Pos(), pe.End()))
	}
	return nil
}

// atAssign is ${x@A}: a command that recreates the variable.
func (r *Runner) atAssign(pv *pval) error {
	name := pv.varName
	v, ok := r.varForPrint(name)
	if name == "" || !ok {
		pv.str, pv.set, pv.isList = "", false, false
		return nil
	}
	sv := shVar(name, v)
	if pv.isList {
		if v.isArray() {
			s, err := r.declString(name, v)
			if err != nil {
				return err
			}
			pv.list = strings.SplitN(s, " ", 3)
			return nil
		}
		s, err := r.quoteLimits().AtA(sv, false)
		pv.list = []string{s}
		return err
	}
	// ${a@A} and ${a[i]@A} show the one value as a scalar with the variable's attributes.
	sv.Value, sv.Set, sv.Elems = pv.str, pv.set, nil
	s, err := r.quoteLimits().AtA(sv, false)
	if err != nil {
		return err
	}
	pv.str = s
	pv.set = pv.str != ""
	return nil
}

// atKeys is ${a[@]@K} (one word of key/value pairs) and @k (separate words).
func (r *Runner) atKeys(pe *syntax.ParamExp, pv *pval, separate bool) error {
	if !pv.isList || !pv.hasSub {
		return pv.mapEachErr(r.quoteLimits().Single)
	}
	v, _ := r.varForPrint(pv.varName)
	var words []string
	q := r.quoteLimits()
	switch {
	case v.as != nil:
		for _, k := range v.as.keys() {
			val, _ := v.as.get(k)
			if separate {
				words = append(words, k, val)
			} else {
				key := k
				if shquote.HasMetas(k) || needsANSI(k) {
					var err error
					if key, err = q.Double(k); err != nil {
						return err
					}
				}
				qv, err := q.Double(val)
				if err != nil {
					return err
				}
				words = append(words, key+" "+qv+" ")
			}
		}
		if !separate {
			words = []string{strings.Join(words, "")}
		}
	case v.arr != nil:
		for i := 0; i < v.arr.len(); i++ {
			k := strconv.FormatInt(v.arr.key(i), 10)
			if separate {
				words = append(words, k, v.arr.vals[i])
			} else {
				qv, err := q.Double(v.arr.vals[i])
				if err != nil {
					return err
				}
				words = append(words, k+" "+qv)
			}
		}
		if !separate {
			words = []string{strings.Join(words, " ")}
		}
	}
	pv.list = words
	return nil
}

// badSubscript reports a subscript out of an array's range (or negative for a scalar or an
// unset name) where its element is read: the element expands as unset and the command goes
// on, but with errexit on (outside a command substitution that does not inherit it) bash 5.2
// exits with status 1 there, even in an if condition or an && || list.
func (r *Runner) badSubscript(name string) error {
	r.errorf("%s: bad array subscript", name)
	if r.opts.has(optErrexit) && !r.errexitOff {
		return &shError{flow: flowExit, status: 1}
	}
	return nil
}
