package eval

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/shquote"
)

// declArg is one operand of declare and friends: a word (option, name or name=value text)
// or an assignment parsed in place.
type declArg struct {
	word   string
	assign *syntax.Assign
	// pre: the assignment's value was expanded before declare ran (all words of a
	// declaration are expanded first, as bash does).
	pre   bool
	val   string
	sub   string
	items []arrayItem
}

// declLastArg is $_ after a declaration whose last argument is it: the expanded word, or
// for an array assignment its name.
func (r *Runner) declLastArg(it declArg, text string) string {
	as := it.assign
	switch {
	case as == nil:
		return it.word
	case as.Array != nil:
		return as.Name.Value
	case !it.pre || as.Naked:
		return text
	}
	s := as.Name.Value
	if as.Index != nil {
		s += "[" + it.sub + "]"
	}
	if as.Append {
		s += "+"
	}
	return s + "=" + it.val
}

// builtinRedirect performs the redirections of a builtin the parser keeps as syntax (declare
// and friends, let) once its words are expanded, as bash does for every simple command: a
// command substitution in them writes to the shell's descriptors, not the redirected ones.
// ok is false when one failed (the status is set).
func (r *Runner) builtinRedirect(redirs []*syntax.Redirect) (restore func(), ok bool) {
	if len(redirs) == 0 {
		return func() {}, true
	}
	rs, err := r.redirect(redirs, false)
	if err != nil {
		r.status = r.raise(err)
		r.afterSimple()
		return nil, false
	}
	return rs.restore, true
}

// declClause runs declare, typeset, local, export, readonly written as keywords (the parser
// keeps their assignments as syntax) with the statement's redirections.
func (r *Runner) declClause(c *syntax.DeclClause, redirs []*syntax.Redirect) {
	r.lineno = r.line(c.End())
	r.countCommand()
	if r.flow != flowNone {
		return
	}
	defer r.creditExpansion()
	r.substSeen = false
	var items []declArg
	for _, as := range c.Args {
		switch {
		case as.Naked && as.Name == nil:
			fs, err := r.expandFields([]*syntax.Word{as.Value})
			if err != nil {
				r.status = r.raise(err)
				if r.flow == flowNone {
					r.afterSimple()
				}
				return
			}
			for _, f := range fs {
				items = append(items, declArg{word: f})
			}
		case as.Naked:
			w := as.Name.Value
			if as.Index != nil {
				w += "[" + r.cur.slice(as.Index.Pos(), as.Index.End()) + "]"
			}
			items = append(items, declArg{word: w})
		default:
			items = append(items, declArg{assign: as})
		}
	}
	// Expand the assignments' values before any of them is performed.
	assoc := false
	for _, it := range items {
		if it.assign == nil && strings.HasPrefix(it.word, "-") && strings.Contains(it.word, "A") {
			assoc = true
		}
	}
	for i := range items {
		it := &items[i]
		as := it.assign
		if as == nil || as.Naked {
			continue
		}
		if as.Index != nil && hasUnquotedBlank(r.cur.slice(as.Index.Pos(), as.Index.End())) {
			// The parser keeps `declare a[i + 1]=x` as one assignment; bash splits it into
			// words there (only at the start of a command is a subscript one word).
			r.status = r.raise(r.refuseErr(as.Pos(), "a blank inside a subscript of a "+c.Variant.Value+" argument"))
			return
		}
		v, _, _ := r.lookupVar(as.Name.Value)
		isAssoc := assoc || v.attrs&attrAssoc != 0
		var err error
		switch {
		case as.Array != nil:
			it.items, err = r.arrayItems(as.Name.Value, as.Array, isAssoc)
		case as.Index != nil:
			if it.sub, err = r.assignSubscript(as, isAssoc); err == nil {
				it.val, err = r.expandString(as.Value, ctxAssignValue)
			}
		default:
			it.val, err = r.expandString(as.Value, ctxAssignValue)
		}
		if err != nil {
			r.status = r.raise(err)
			if r.flow == flowNone {
				r.afterSimple()
			}
			return
		}
		it.pre = true
	}
	variant := c.Variant.Value
	if variant == "nameref" {
		variant = "declare"
		items = append([]declArg{{word: "-n"}}, items...)
	}
	if r.opts.has(optXtrace) {
		r.xtraceDecl(variant, items)
	}
	restore, ok := r.builtinRedirect(redirs)
	if !ok {
		return
	}
	defer restore()
	r.status = r.declare(variant, items)
	for _, it := range items {
		if as := it.assign; as != nil && !as.Naked && as.Index == nil && as.Array == nil {
			r.localeAssigned(as.Name.Value)
		}
	}
	if len(c.Args) > 0 {
		last := c.Args[len(c.Args)-1]
		r.lastArg = r.cur.slice(last.Pos(), last.End())
		if len(items) > 0 {
			r.lastArg = r.declLastArg(items[len(items)-1], r.lastArg)
		}
	} else {
		r.lastArg = variant
	}
	if r.flow == flowNone {
		// The status is the builtin's own: a command substitution in a value does not
		// show through (`local v=$(false)` is 0, also for set -e).
		r.afterSimple()
	}
}

// biDeclare is declare and friends called as ordinary commands (builtin declare, $cmd).
func biDeclare(r *Runner, args []string) int {
	items := make([]declArg, 0, len(args)-1)
	for _, a := range args[1:] {
		items = append(items, declArg{word: a})
	}
	return r.declare(args[0], items)
}

type declOpts struct {
	set, unset attr
	print      bool
	funcs      bool // -f
	funcNames  bool // -F
	global     bool
	unexport   bool // export -n
}

// declare implements declare/typeset/local/export/readonly.
func (r *Runner) declare(variant string, items []declArg) int {
	var o declOpts
	spec := "aAfFgiIlnprtux"
	switch variant {
	case "export":
		spec = "fnp"
		o.set |= attrExport
	case "readonly":
		spec = "aAfp"
		o.set |= attrReadonly
	case "local":
		spec = "aAfFgiIlnprtux"
	}
	i := 0
	for ; i < len(items); i++ {
		it := items[i]
		if it.assign != nil || len(it.word) < 2 || (it.word[0] != '-' && it.word[0] != '+') {
			break
		}
		if it.word == "--" {
			i++
			break
		}
		plus := it.word[0] == '+'
		for _, c := range []byte(it.word[1:]) {
			if strings.IndexByte(spec, c) < 0 {
				r.errorf("%s: %c%c: invalid option", variant, it.word[0], c)
				r.usage(variant)
				return 2
			}
			var a attr
			switch c {
			case 'a':
				a = attrArray
			case 'A':
				a = attrAssoc
			case 'i':
				a = attrInteger
			case 'l':
				a = attrLower
			case 'u':
				a = attrUpper
			case 'n':
				if variant == "export" {
					o.unexport = true
					continue
				}
				a = attrNameref
			case 'r':
				a = attrReadonly
			case 't':
				a = attrTrace
			case 'x':
				a = attrExport
			case 'p':
				o.print = true
				continue
			case 'f':
				o.funcs = true
				continue
			case 'F':
				o.funcNames = true
				continue
			case 'g':
				o.global = !plus
				continue
			case 'I':
				continue
			}
			if plus {
				o.unset |= a
				o.set &^= a
			} else {
				o.set |= a
			}
		}
	}
	items = items[i:]
	local := (variant == "local" || variant == "declare" || variant == "typeset") && !o.global && r.funcDepth > 0
	if variant == "local" && r.funcDepth == 0 {
		r.errorf("local: can only be used in a function")
		return 1
	}
	if o.funcs || o.funcNames {
		return r.declareFuncs(variant, o, items)
	}
	if len(items) == 0 || (o.print && variant != "local") && len(items) == 0 {
		return r.declareList(variant, o)
	}
	if o.print && (variant == "readonly" || variant == "export") {
		// readonly -p NAME / export -p NAME mark the names and print nothing.
		o.print = false
	}
	if o.print {
		st := 0
		for _, it := range items {
			if variant == "local" {
				name := it.word
				if !r.isLocal(name) {
					r.errorf("local: %s: not found", name)
					st = 1
					continue
				}
			}
			name := it.word
			if it.assign != nil {
				name = it.assign.Name.Value
			}
			if !r.printDecl(name) {
				r.errorf("%s: %s: not found", variant, name)
				st = 1
			}
		}
		return st
	}
	st := 0
	for _, it := range items {
		if variant == "local" && local && it.assign == nil && it.word == "-" {
			// local -: the set options come back when the function returns.
			if sc := r.writable(r.fnScope()); sc.savedOpts == nil {
				saved := r.opts
				sc.savedOpts = &saved
			}
			continue
		}
		if err := r.declareItem(variant, o, it, local); err != nil {
			s := r.raise(err)
			if r.flow != flowNone {
				return s
			}
			st = s
		}
	}
	return st
}

// declareItem declares one name (with attributes and an optional value).
func (r *Runner) declareItem(variant string, o declOpts, it declArg, local bool) error {
	var name, sub string
	var hasSub, hasVal, appendVal bool
	var val string
	var arr *syntax.ArrayExpr
	var valWord *syntax.Word
	if it.assign != nil {
		as := it.assign
		name = as.Name.Value
		appendVal = as.Append
		switch {
		case as.Array != nil:
			arr, hasVal = as.Array, true
		case as.Index != nil:
			hasSub = true
		}
		if !as.Naked && as.Array == nil {
			hasVal, valWord = true, as.Value
		}
	} else {
		w := it.word
		eq := strings.IndexByte(w, '=')
		lhs := w
		if eq >= 0 {
			lhs, val, hasVal = w[:eq], w[eq+1:], true
			if strings.HasSuffix(lhs, "+") {
				lhs, appendVal = lhs[:len(lhs)-1], true
			}
		}
		name = lhs
		if k := strings.IndexByte(lhs, '['); k > 0 && strings.HasSuffix(lhs, "]") {
			name, sub, hasSub = lhs[:k], lhs[k+1:len(lhs)-1], true
		}
		if hasVal && !hasSub && strings.HasPrefix(val, "(") && strings.HasSuffix(val, ")") && o.set&(attrArray|attrAssoc) != 0 {
			// declare -a 'a=(1 2)': a compound assignment given as text.
			if err := r.checkText(len(name) + 1 + len(val)); err != nil {
				return err
			}
			src, stmts, err := parseString(r.ctx, r.cur.name, name+"="+val, r.lineno-1, false)
			if err == nil && len(stmts) == 1 {
				if ce, ok := stmts[0].Cmd.(*syntax.CallExpr); ok && len(ce.Assigns) == 1 && ce.Assigns[0].Array != nil {
					arr = ce.Assigns[0].Array
					// Its words and subscripts are positions in the text, not in the script.
					saved := r.cur
					r.cur = src
					defer func() { r.cur = saved }()
				}
			}
		}
	}
	if hasSub && (variant == "export" || variant == "readonly") {
		// export and readonly take names, not elements (set_or_show_attributes checks the
		// word before its '=' with legal_identifier): `a[7]' is not a valid identifier.
		lhs := it.word
		if as := it.assign; as != nil {
			lhs = r.cur.slice(as.Pos(), as.End())
		}
		if k := strings.IndexByte(lhs, '='); k >= 0 {
			lhs = strings.TrimSuffix(lhs[:k], "+")
		}
		r.errorf("%s: `%s': not a valid identifier", variant, lhs)
		return errStatus1
	}
	if !validName(name) {
		if it.assign == nil {
			r.errorf("%s: `%s': not a valid identifier", variant, it.word)
		} else {
			r.errorf("%s: `%s': not a valid identifier", variant, name)
		}
		return errStatus1
	}
	if it.pre {
		val, sub = it.val, it.sub
	} else if hasVal && valWord != nil && it.assign != nil && it.assign.Index == nil {
		var err error
		if val, err = r.expandString(valWord, ctxAssignValue); err != nil {
			return err
		}
	}
	if it.assign != nil && it.assign.Index != nil && !it.pre {
		v, _, _ := r.lookupVar(name)
		var err error
		if sub, err = r.assignSubscript(it.assign, v.attrs&attrAssoc != 0 || o.set&attrAssoc != 0); err != nil {
			return err
		}
		if hasVal {
			if val, err = r.expandString(valWord, ctxAssignValue); err != nil {
				return err
			}
		}
	}

	// Where the variable lives.
	var i int
	switch {
	case local:
		i = r.fnScope()
		// Bash gives a builtin's prefix assignments (v=x eval '...', v=x . file) a variable
		// context of their own: a local of that name inside it lives and dies with it, and
		// unset then uncovers the layers one by one. Here the prefix scope would shadow the
		// local instead.
		for j := i + 1; j < len(r.scopes); j++ {
			if _, ok := r.scopes[j].vars[name]; ok && r.scopes[j].bltnEnv {
				return r.refuseHere(variant+" "+name+" inside a command run with a prefix assignment of "+name+" ("+name+"=value eval/source)",
					"assign "+name+" before the command instead of as its prefix, or run the tool with \"exec\": \"native\" in tool.meta.json")
			}
		}
		if _, ov := r.find(name); ov.attrs&attrReadonly != 0 {
			r.errorf("%s: %s: readonly variable", variant, name)
			return errStatus1
		}
		if cur, ok := r.scopes[i].get(name); ok && cur.attrs&attrTempenv != 0 {
			if cur.attrs&attrPropagate != 0 {
				// Bash keeps handing it to the caller, local or not: not reproduced.
				return r.refuseHere(variant+" "+name+" after export or readonly of the function's prefix assignment of "+name,
					"declare the local before exporting it, or run the tool with \"exec\": \"native\" in tool.meta.json")
			}
			// The function's own prefix assignment becomes its local; as an array it starts
			// empty (still exported), as bash's does.
			if o.set&attrNameref != 0 {
				return r.refuseHere(variant+" -n "+name+" of the function's prefix assignment of "+name, DefaultFix)
			}
			switch {
			case o.set&attrAssoc != 0:
				cur = variable{attrs: cur.attrs&attrExport | attrAssoc, set: true, as: newAssoc()}
			case o.set&attrArray != 0:
				cur = variable{attrs: cur.attrs&attrExport | attrArray, set: true, arr: &indexed{}}
			}
			cur.attrs &^= attrTempenv
			if err := r.setVar(i, name, cur); err != nil {
				return err
			}
		} else if !ok {
			nv := variable{}
			_, ov := r.find(name)
			if r.shopts.has(shLocalvarInherit) && ov.set {
				nv = ov
				nv.attrs &^= attrReadonly | attrTempenv
			}
			if ov.attrs&attrTempenv != 0 && !hasVal && i > 0 {
				// A local of a name a prefix assignment binds (v=x f, f calling g that
				// declares it) starts with that value, exported.
				if ov.isArray() || o.set&(attrArray|attrAssoc|attrNameref) != 0 {
					return r.refuseHere(variant+" of an array or nameref whose name a prefix assignment binds ("+name+"=value before the call)",
						"drop the prefix assignment, or run the tool with \"exec\": \"native\" in tool.meta.json")
				}
				nv.str, nv.set = ov.str, true
				nv.attrs |= attrExport
			}
			// A local shadowing an exported variable is exported too (bash copies the
			// attribute), so commands see the local value.
			nv.attrs |= ov.attrs & attrExport
			if err := r.setVar(i, name, nv); err != nil {
				return err
			}
		}
		// w=5 local w: bash's local takes the value of the command's own prefix assignment,
		// with its export attribute.
		if top := len(r.scopes) - 1; top > i && r.scopes[top].temp && !r.scopes[top].bltnEnv && !hasVal {
			if tv, ok := r.scopes[top].vars[name]; ok {
				cur, _ := r.scopes[i].get(name)
				if cur.isArray() || o.set&(attrArray|attrAssoc|attrNameref) != 0 {
					return r.refuseHere(variant+" of an array or nameref named by the command's own prefix assignment ("+name+"=value "+variant+" "+name+")",
						"drop the prefix assignment, or run the tool with \"exec\": \"native\" in tool.meta.json")
				}
				cur.str, cur.set = tv.str, true
				cur.attrs |= attrExport
				if err := r.setVar(i, name, cur); err != nil {
					return err
				}
			}
		}
	case o.global:
		i = 0
		if _, ok := r.scopes[0].get(name); !ok {
			if err := r.setVar(0, name, variable{}); err != nil {
				return err
			}
		}
	default:
		rname := name
		if (o.set|o.unset)&attrNameref == 0 {
			if rf, ok := r.resolve(name); ok && !rf.hasSub {
				rname = rf.name
			}
		}
		name = rname
		i = r.targetScope(name)
		if !hasVal && o.set&(attrExport|attrReadonly) != 0 {
			var err error
			if i, err = r.propagateTemp(i, name); err != nil {
				return err
			}
		}
		if _, ok := r.scopes[i].get(name); !ok {
			if err := r.setVar(i, name, variable{}); err != nil {
				return err
			}
		}
	}
	v, _ := r.writable(i).get(name)
	if v.attrs&attrReadonly != 0 {
		if o.unset&attrReadonly != 0 || hasVal || o.set&(attrArray|attrAssoc|attrInteger|attrLower|attrUpper|attrNameref) != 0 {
			r.errorf("%s: %s: readonly variable", variant, name)
			return errStatus1
		}
	}
	if o.unset&attrReadonly != 0 {
		r.errorf("%s: %s: readonly variable", variant, name)
		return errStatus1
	}
	// Attribute changes (readonly last, after the value).
	if o.set&attrAssoc != 0 && v.attrs&attrArray != 0 && v.arr != nil && v.arr.len() > 0 {
		r.errorf("%s: %s: cannot convert indexed to associative array", variant, name)
		return errStatus1
	}
	if o.set&attrArray != 0 && v.attrs&attrAssoc != 0 {
		r.errorf("%s: %s: cannot convert associative to indexed array", variant, name)
		return errStatus1
	}
	if o.set&attrNameref != 0 && hasVal && arr == nil {
		if err := r.checkNamerefTarget(name, val); err != nil {
			return err
		}
	}
	set := o.set
	if (variant == "readonly" || variant == "export") && !hasVal {
		// readonly -a NAME without a value does not make an array.
		set &^= attrArray | attrAssoc
	}
	na := v.attrs
	na |= set &^ attrReadonly
	na &^= o.unset
	if o.set&attrLower != 0 {
		na &^= attrUpper
	}
	if o.set&attrUpper != 0 {
		na &^= attrLower
	}
	if o.unexport {
		na &^= attrExport
	}
	if na&attrAssoc != 0 && v.attrs&attrAssoc == 0 {
		// A scalar becomes key "0" of the new associative array.
		as := newAssoc()
		if v.set && !v.isArray() {
			as.set("0", v.str)
		}
		v.as, v.str = as, ""
		v.set = v.set || len(as.m) > 0
	}
	if na&attrArray != 0 && v.arr == nil && v.attrs&attrAssoc == 0 {
		arrv := &indexed{}
		if v.set && !v.isArray() {
			arrv.vals = []string{v.str}
		}
		v.arr, v.str = arrv, ""
	}
	if o.set&attrNameref != 0 && v.attrs&attrNameref == 0 && v.set && !hasVal {
		// x=foo; declare -n x: x refers to foo.
		if err := r.checkNamerefTarget(name, v.str); err != nil {
			return err
		}
	}
	v.attrs = na
	if err := r.setVar(i, name, v); err != nil {
		return err
	}
	var fl assignFlags
	if appendVal {
		fl |= asAppend
	}
	if local {
		fl |= asLocal
	}
	if o.global {
		fl |= asGlobal
	}
	if hasVal {
		var err error
		switch {
		case arr != nil:
			items := it.items
			if !it.pre {
				items, err = r.arrayItems(name, arr, na&attrAssoc != 0)
			}
			if err == nil {
				err = r.assignArrayAt(i, name, items, fl, na&attrAssoc != 0)
			}
		case hasSub:
			err = r.assignElemAt(i, name, sub, val, fl, na&attrAssoc == 0)
		case na&attrNameref != 0:
			v, _ := r.writable(i).get(name)
			v.str, v.set = val, true
			err = r.setVar(i, name, v)
		default:
			err = r.assignAt(i, name, val, fl)
		}
		if err != nil {
			return err
		}
	}
	if o.set&attrReadonly != 0 {
		v, _ := r.writable(i).get(name)
		v.attrs |= attrReadonly
		s := r.writable(i)
		s.vars[name] = v
	}
	return nil
}

// fnScope is the scope of the innermost function call.
func (r *Runner) fnScope() int {
	for i := len(r.scopes) - 1; i > 0; i-- {
		if r.scopes[i].fn {
			return i
		}
	}
	return 0
}

// assignAt assigns a scalar in scope i (no scope search).
func (r *Runner) assignAt(i int, name, val string, fl assignFlags) error {
	v, _ := r.writable(i).get(name)
	if v.isArray() {
		return r.assignElemAt(i, name, "0", val, fl, false)
	}
	nv, err := r.transform(v.attrs, val, v.str, fl&asAppend != 0 && v.set)
	if err != nil {
		return err
	}
	v, _ = r.scopes[i].get(name)
	v.str, v.set = nv, true
	if r.opts.has(optAllexport) {
		v.attrs |= attrExport
	}
	if r.isDynamic(name) {
		r.setDynamic(name, nv)
	}
	return r.setVar(i, name, v)
}

// assignElemAt and assignArrayAt are assignElem/assignArray in a known scope: they move the
// scope to the top temporarily so the generic code finds it first.
func (r *Runner) assignElemAt(i int, name, sub, val string, fl assignFlags, evalSub bool) error {
	err := r.inScope(i, func() error { return r.assignElem(name, sub, val, fl&^(asLocal|asGlobal), evalSub) })
	var se *shError
	if errors.As(err, &se) && se.flow == flowDiscard {
		// A bad subscript fails the declaration builtin; it does not abandon the line.
		return errStatus1
	}
	return err
}

func (r *Runner) assignArrayAt(i int, name string, items []arrayItem, fl assignFlags, assocDecl bool) error {
	return r.inScope(i, func() error { return r.assignArray(name, items, fl&^(asLocal|asGlobal), assocDecl) })
}

// inScope runs f with scopes above i hidden, so that lookups of a name declared in scope i
// land there.
func (r *Runner) inScope(i int, f func() error) error {
	if i == len(r.scopes)-1 {
		return f()
	}
	above := slices.Clone(r.scopes[i+1:])
	r.scopes = r.scopes[:i+1]
	err := f()
	r.scopes = append(r.scopes, above...)
	return err
}

// shVar describes a variable for package shquote's listings.
func shVar(name string, v variable) shquote.Var {
	sv := shquote.Var{Name: name, Set: v.set, Value: v.str, Attrs: shquote.Attrs{
		Indexed: v.attrs&attrArray != 0, Assoc: v.attrs&attrAssoc != 0, Integer: v.attrs&attrInteger != 0,
		Nameref: v.attrs&attrNameref != 0, Readonly: v.attrs&attrReadonly != 0, Trace: v.attrs&attrTrace != 0,
		Export: v.attrs&attrExport != 0, Lower: v.attrs&attrLower != 0, Upper: v.attrs&attrUpper != 0}}
	switch {
	case v.as != nil:
		for _, k := range v.as.keys() {
			val, _ := v.as.get(k)
			sv.Elems = append(sv.Elems, shquote.Elem{Key: k, Value: val})
		}
	case v.arr != nil:
		for i := 0; i < v.arr.len(); i++ {
			sv.Elems = append(sv.Elems, shquote.Elem{Key: strconv.FormatInt(v.arr.key(i), 10), Value: v.arr.vals[i]})
		}
	}
	if v.isArray() {
		sv.Value, sv.Set = "", v.set
	}
	return sv
}

// emptyArray: an array that is set but has no elements lists as name=().
func emptyArray(v variable) bool {
	return v.isArray() && v.set && (v.arr == nil || v.arr.len() == 0) && (v.as == nil || v.as.len() == 0)
}

// attrFlags renders attributes as declare -p does ("--" for none).
func attrFlags(a attr) string {
	return "-" + shVar("", variable{attrs: a}).Attrs.Flags()
}

// declString renders a variable as declare -p prints it, within the call's limits.
func (r *Runner) declString(name string, v variable) (string, error) {
	s, err := r.quoteLimits().DeclareP(shVar(name, v))
	if emptyArray(v) {
		s += "=()"
	}
	return s, err
}

// setString renders a variable as `set` lists it, within the call's limits.
func (r *Runner) setString(name string, v variable) (string, error) {
	if emptyArray(v) {
		return name + "=()", nil
	}
	return r.quoteLimits().SetLine(shVar(name, v))
}

// quoteLimits bound the quoting of a value (declare -p, set, ${x@Q}, ${x@A}): the result is
// charged to the call's memory for the command's expansion before it is made, and the
// quoting stops with the call.
func (r *Runner) quoteLimits() shquote.Limits {
	return shquote.Limits{Room: r.chargeExpansion, Stop: r.checkCtx}
}

// printDecl prints declare -p for one name; false when it does not exist.
func (r *Runner) printDecl(name string) bool {
	v, ok := r.varForPrint(name)
	if !ok {
		return false
	}
	s, err := r.declString(name, v)
	if err != nil {
		r.raise(err)
		return true
	}
	r.out("declare", s+"\n")
	return true
}

// varForPrint finds a variable for listing without following namerefs.
func (r *Runner) varForPrint(name string) (variable, bool) {
	if dv, ok := r.dynamicVar(name); ok {
		return dv, true
	}
	i, v := r.find(name)
	return v, i >= 0
}

// allVarNames lists every variable name visible, sorted.
func (r *Runner) allVarNames() []string {
	seen := map[string]bool{}
	var names []string
	for i := len(r.scopes) - 1; i >= 0; i-- {
		r.scopes[i].each(func(n string, _ variable) {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		})
	}
	for _, n := range dynamicNames {
		if !seen[n] && !r.unsetSpecial[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

func (r *Runner) lookupVarNoRef(name string) (variable, ref, bool) {
	v, ok := r.varForPrint(name)
	return v, ref{name: name}, ok && (v.set || v.isArray())
}

// declareList prints the variables (declare -p with no names, export -p, readonly -p,
// declare -x ...).
func (r *Runner) declareList(variant string, o declOpts) int {
	filter := o.set
	var b strings.Builder
	for _, n := range r.allVarNames() {
		v, ok := r.varForPrint(n)
		if !ok {
			continue
		}
		if filter != 0 && v.attrs&filter != filter {
			continue
		}
		if filter == 0 && !o.print && (variant == "declare" || variant == "typeset") {
			// Plain `declare`: name=value like `set`.
			if !v.set && !v.isArray() {
				continue
			}
			s, err := r.setString(n, v)
			if err != nil {
				return r.raise(err)
			}
			b.WriteString(s)
			b.WriteByte('\n')
			continue
		}
		if variant == "local" && !r.isLocal(n) {
			continue
		}
		s, err := r.declString(n, v)
		if err != nil {
			return r.raise(err)
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	if filter == 0 && !o.print && (variant == "declare" || variant == "typeset") {
		b.WriteString(r.funcListing(false))
	}
	return r.out(variant, b.String())
}

func (r *Runner) isLocal(name string) bool {
	i := r.fnScope()
	v, ok := r.scopes[i].get(name)
	// A function's prefix assignments live in its scope but are not its locals.
	return ok && i > 0 && v.attrs&attrTempenv == 0
}

// propagateTemp is bash's export/readonly NAME (no value) of a prefix assignment's variable:
// the value outlives the prefix. Of a command's own prefix (v=1 export v) it is assigned
// where v=1 would go without the prefix, at once; of a function's (v=1 f, f exporting v) it
// is handed to the caller's scope when the function returns (propagateReturn). It returns
// the scope that now holds the variable.
func (r *Runner) propagateTemp(i int, name string) (int, error) {
	v, ok := r.scopes[i].get(name)
	if !ok || (!r.scopes[i].temp && v.attrs&attrTempenv == 0) {
		return i, nil
	}
	if v.isArray() {
		return i, r.refuseHere("export or readonly of an array a prefix assignment binds", DefaultFix)
	}
	if !r.scopes[i].temp {
		v.attrs |= attrPropagate
		return i, r.setVar(i, name, v)
	}
	r.writable(i).del(name)
	j := 0
	for k := len(r.scopes) - 1; k > 0; k-- {
		if _, ok := r.scopes[k].get(name); ok && !r.scopes[k].temp {
			j = k
			break
		}
	}
	cur, _ := r.scopes[j].get(name)
	if cur.attrs&attrReadonly != 0 {
		r.errorf("%s: readonly variable", name)
		return j, errStatus1
	}
	cur.str, cur.set, cur.arr, cur.as = v.str, true, nil, nil
	cur.attrs = (cur.attrs | v.attrs) &^ (attrArray | attrAssoc)
	if j == 0 {
		cur.attrs &^= attrTempenv | attrPropagate
	}
	return j, r.setVar(j, name, cur)
}

// propagateReturn hands a returning function's propagated prefix variables (fs, its popped
// scope) to the caller's scope: a caller function keeps them as its own prefix variables, the
// global scope as plain ones.
func (r *Runner) propagateReturn(fs *scope) error {
	for name, v := range fs.vars {
		if v.attrs&(attrTempenv|attrPropagate) != attrTempenv|attrPropagate {
			continue
		}
		j := r.fnScope()
		if j == 0 {
			v.attrs &^= attrTempenv | attrPropagate
		}
		if cur, ok := r.scopes[j].get(name); ok && cur.attrs&attrReadonly != 0 {
			continue
		}
		if err := r.setVar(j, name, v); err != nil {
			return err
		}
	}
	return nil
}

// biUnset is unset [-f] [-v] [-n] name...
func biUnset(r *Runner, args []string) int {
	opts, names, ok := r.parseOpts("unset", args[1:], "fvn", false)
	if !ok {
		return 2
	}
	mode := byte(0)
	for _, o := range opts {
		mode = o.c
	}
	st := 0
	for _, n := range names {
		base, sub, hasSub := n, "", false
		if k := strings.IndexByte(n, '['); k > 0 && strings.HasSuffix(n, "]") {
			base, sub, hasSub = n[:k], n[k+1:len(n)-1], true
		}
		if mode == 'f' {
			r.unsetFunc(n)
			continue
		}
		if !validName(base) {
			// Without -v an invalid variable name may still name a function.
			if mode == 'v' {
				r.errorf("unset: `%s': not a valid identifier", n)
				st = 1
			} else {
				r.unsetFunc(n)
			}
			continue
		}
		var err error
		switch {
		case hasSub:
			v, rf, _ := r.lookupVar(base)
			// unset 'a[$i]', 'a[${#a[@]}-1]', 'm[$k]', 'm["K"]' (operandSub).
			if sub, err = r.operandSub(v, sub); err == nil {
				err = r.unsetElem(rf.name, sub)
			}
		case mode == 'n':
			err = r.unsetVar(n, true)
		default:
			i, _ := r.find(n)
			if i < 0 && mode == 0 && !r.isDynamic(n) {
				if r.funcs.m[n] != nil {
					r.unsetFunc(n)
				}
				continue
			}
			err = r.unsetVar(n, false)
		}
		if err != nil {
			s := r.raise(err)
			if r.flow != flowNone {
				return s
			}
			st = s
		}
	}
	return st
}

func (r *Runner) unsetFunc(name string) {
	if r.funcs.m[name] == nil {
		return
	}
	if r.funcs.m[name].readonly {
		r.errorf("unset: %s: cannot unset: readonly function", name)
		return
	}
	m := make(map[string]*funcDef, len(r.funcs.m))
	for k, v := range r.funcs.m {
		if k != name {
			m[k] = v
		}
	}
	r.funcs = &funcTable{m: m, owner: r.id}
}

// letClause runs `let` written as a keyword: each argument is a word, expanded, then
// evaluated.
func (r *Runner) letClause(c *syntax.LetClause, redirs []*syntax.Redirect) {
	r.lineno = r.line(c.Pos())
	r.countCommand()
	if r.flow != flowNone {
		return
	}
	var args []string
	for _, x := range c.Exprs {
		if w, ok := x.(*syntax.Word); ok {
			s, err := r.expandString(w, ctxPlain)
			if err != nil {
				r.status = r.raise(err)
				return
			}
			args = append(args, s)
			continue
		}
		// An unquoted argument that parsed as arithmetic is still a word: expand its text.
		s, err := r.expandSubscriptText(r.cur.slice(x.Pos(), x.End()))
		if err != nil {
			r.status = r.raise(err)
			return
		}
		args = append(args, s)
	}
	if r.opts.has(optXtrace) {
		r.xtrace(nil, append([]string{"let"}, args...))
	}
	restore, ok := r.builtinRedirect(redirs)
	if !ok {
		return
	}
	defer restore()
	r.status = biLet(r, append([]string{"let"}, args...))
	if r.flow == flowNone {
		r.afterSimple()
	}
}

func biLet(r *Runner, args []string) int {
	if len(args) < 2 {
		r.errorf("let: expression expected")
		return 1
	}
	var n int64
	for _, a := range args[1:] {
		var err error
		n, err = r.arithEval(a, "let: ")
		if err != nil {
			return r.raise(err)
		}
	}
	return boolStatus(n != 0)
}

// hasUnquotedBlank tells whether source text has a space or tab outside quotes and $( ),
// ${ } (where bash would end a word).
func hasUnquotedBlank(text string) bool {
	depth := 0
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\\' && quote != '\'':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '$' && i+1 < len(text) && (text[i+1] == '(' || text[i+1] == '{'):
			depth++
			i++
		case c == '(' || c == '{':
			if depth > 0 {
				depth++
			}
		case c == ')' || c == '}':
			if depth > 0 {
				depth--
			}
		case (c == ' ' || c == '\t') && depth == 0:
			return true
		}
	}
	return false
}

// expandSubText expands the parameter, command and arithmetic expansions in a subscript given
// as text (an argument of unset), as bash does before using it.
func (r *Runner) expandSubText(text string) (string, error) {
	if !strings.ContainsAny(text, "$`") {
		return text, nil
	}
	w, err := parseDocument(text)
	if err != nil {
		r.errorf("%s: bad array subscript", text)
		return "", errStatus1
	}
	saved := r.cur
	// Arithmetic inside reads its text by offsets: give it this text as the source.
	r.cur = &source{name: saved.name, text: text, lineBase: saved.lineBase, cache: new(sync.Map)}
	defer func() { r.cur = saved }()
	e := &expander{r: r, mode: modeString}
	if err := e.parts(w.Parts, true, false, false); err != nil {
		return "", err
	}
	return e.joinedText(), nil
}
