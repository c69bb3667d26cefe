package eval

import (
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Aliases: alias, unalias, and their expansion as bash reads commands.

// biAlias defines or lists aliases.
func biAlias(r *Runner, args []string) int {
	_, rest, ok := r.parseOpts("alias", args[1:], "p", false)
	if !ok {
		return 2
	}
	if len(rest) == 0 {
		names := make([]string, 0, len(r.aliases))
		for n := range r.aliases {
			names = append(names, n)
		}
		slices.Sort(names)
		var b strings.Builder
		for _, n := range names {
			b.WriteString("alias " + n + "=" + quoteSingleAlways(r.aliases[n]) + "\n")
		}
		return r.out("alias", b.String())
	}
	st := 0
	for _, a := range rest {
		name, val, hasVal := strings.Cut(a, "=")
		if !hasVal {
			v, ok := r.aliases[name]
			if !ok {
				r.errorf("alias: %s: not found", name)
				st = 1
				continue
			}
			r.out("alias", "alias "+name+"="+quoteSingleAlways(v)+"\n")
			continue
		}
		if name == "" || strings.ContainsAny(name, "/$`=\\ \t\n'\"|&;()<>") {
			r.errorf("alias: `%s': invalid alias name", name)
			st = 1
			continue
		}
		m := make(map[string]string, len(r.aliases)+1)
		for k, v := range r.aliases {
			m[k] = v
		}
		m[name] = val
		r.aliases = m
		if r.aliasDefs == nil {
			r.aliasDefs = map[string]aliasDef{}
		}
		r.aliasDefs[name] = aliasDef{src: r.cur, line: r.lineno}
	}
	return st
}

type aliasDef struct {
	src  *source
	line int
}

// aliasesReadAt are the aliases bash expands in a command read at pos (a function definition):
// none without expand_aliases, and none defined on that line or later of the same text (bash
// reads the whole command before running any of it).
func (r *Runner) aliasesReadAt(pos syntax.Pos) map[string]string {
	if r.bound {
		return r.boundAliases // a definition inside a body was read with the body
	}
	if !r.shopts.has(shExpandAliases) || len(r.aliases) == 0 {
		return nil
	}
	line := r.line(pos)
	var out map[string]string
	for n, d := range r.aliasDefs {
		if _, ok := r.aliases[n]; ok && d.src == r.cur && d.line >= line {
			if out == nil {
				out = maps.Clone(r.aliases)
			}
			delete(out, n)
		}
	}
	if out == nil {
		return r.aliases // never written in place: alias and unalias replace the map
	}
	return out
}

// bindRead makes the commands of a line about to be read expand the aliases in effect now.
func (r *Runner) bindRead() {
	r.bound, r.boundAliases = true, nil
	if r.shopts.has(shExpandAliases) {
		r.boundAliases = r.aliases // never written in place: alias and unalias replace the map
	}
}

// newLine tells whether stmts[i] begins a line bash reads after running the ones before.
func newLine(stmts []*syntax.Stmt, i int) bool {
	return i == 0 || stmts[i].Pos().Line() > stmts[i-1].End().Line()
}

// readLine is what reading the line of stmts[i] does before it runs: the aliases then in
// effect bind, and reading the last line warns of the here-documents the text ends inside
// (bash warns as it reads their text, before the line runs).
func (r *Runner) readLine(stmts []*syntax.Stmt, i int) {
	r.bindRead()
	if r.cur.eofHdocs == nil {
		return
	}
	for j := i + 1; j < len(stmts); j++ {
		if newLine(stmts, j) {
			return
		}
	}
	r.warnEOFHdocs(stmts[i].Pos().Offset())
}

// warnEOFHdocs prints the warnings of the current text's here-documents that start at or
// after offset from, at the line the text ends (bash -c's and standard input's text too).
func (r *Runner) warnEOFHdocs(from uint) {
	saved := r.lineno
	for _, h := range r.cur.eofHdocs {
		if h.at >= from {
			r.lineno = h.lines + r.cur.lineBase
			r.errorf("warning: here-document at line %d delimited by end-of-file (wanted `%s')", h.line+r.cur.lineBase, h.stop)
		}
	}
	r.lineno = saved
}

// stmtsRead runs text parsed at run time (eval, source, traps) as bash reads it, a line at a
// time, with the aliases in effect when each line is read; the caller's binding (a function's)
// comes back after.
func (r *Runner) stmtsRead(stmts []*syntax.Stmt) {
	b, m := r.bound, r.boundAliases
	for i, s := range stmts {
		if newLine(stmts, i) {
			r.readLine(stmts, i)
		}
		if r.readsPoisonedCond(s) {
			break
		}
		r.stmt(s)
		if r.flow != flowNone {
			break
		}
	}
	r.bound, r.boundAliases = b, m
}

func quoteSingleAlways(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func biUnalias(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("unalias", args[1:], "a", false)
	if !ok {
		return 2
	}
	if len(opts) > 0 {
		r.aliases = nil
		return 0
	}
	if len(rest) == 0 {
		r.usage("unalias")
		return 2
	}
	st := 0
	for _, n := range rest {
		if _, ok := r.aliases[n]; !ok {
			r.errorf("unalias: %s: not found", n)
			st = 1
			continue
		}
		m := make(map[string]string, len(r.aliases))
		for k, v := range r.aliases {
			if k != n {
				m[k] = v
			}
		}
		r.aliases = m
	}
	return st
}

// aliasWord is the text of a word bash looks up as an alias: one unquoted literal. Unlike a
// plain name it may hold glob and tilde characters (alias e_.~x=...), which bash checks
// before any expansion.
func aliasWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(l.Value, "\\=") {
		return "", false
	}
	return l.Value, true
}

// aliasExpand replaces a command's first word by its alias in table and runs the result. Bash
// expands aliases while reading; an alias therefore applies only to commands read after its
// definition, which the position check (posCheck, for the current aliases) reproduces.
func (r *Runner) aliasExpand(ce *syntax.CallExpr, redirs []*syntax.Redirect, table map[string]string, posCheck bool) bool {
	first := ce.Args[0]
	name, ok := aliasWord(first)
	if !ok || r.aliasActive[name] {
		return false
	}
	val, ok := table[name]
	if !ok {
		return false
	}
	if d, ok := r.aliasDefs[name]; posCheck && ok && d.src == r.cur && r.line(first.Pos()) <= d.line {
		return false
	}
	last := ce.Args[len(ce.Args)-1]
	text := r.cur.slice(ce.Pos(), first.Pos()) + val
	prevEnd, cur := first.End(), val
	// An alias value ending in a blank makes the next word an alias candidate too.
	for i := 1; i < len(ce.Args) && (strings.HasSuffix(cur, " ") || strings.HasSuffix(cur, "\t")); i++ {
		n, ok := aliasWord(ce.Args[i])
		v, isAlias := table[n]
		if !ok || !isAlias {
			break
		}
		text += r.cur.slice(prevEnd, ce.Args[i].Pos()) + v
		prevEnd, cur = ce.Args[i].End(), v
	}
	text += r.cur.slice(prevEnd, last.End())
	if err := r.checkText(len(text)); err != nil {
		r.status = r.raise(err)
		return true
	}
	src, stmts, err := parseString(r.ctx, r.cur.name, text, r.lineno-1, false)
	if cerr := r.checkCtx(); err != nil && cerr != nil {
		r.status = r.raise(cerr)
		return true
	}
	if err != nil {
		r.status = r.raise(r.syntaxRefusal("alias expansion", err))
		return true
	}
	if holdsHeredoc(stmts) {
		// Bash reads the body from the script's lines after the alias's use, and runs the
		// alias's own lines after it as commands.
		r.status = r.raise(r.refuseErr(first.Pos(), "an alias whose value holds a here-document"))
		return true
	}
	if r.aliasActive == nil {
		r.aliasActive = map[string]bool{}
	}
	r.aliasActive[name] = true
	defer delete(r.aliasActive, name)
	if len(redirs) > 0 {
		rs, err := r.redirect(redirs, false)
		if err != nil {
			r.status = r.raise(err)
			return true
		}
		defer rs.restore()
	}
	saved := r.cur
	r.cur = src
	r.stmts(stmts)
	r.cur = saved
	return true
}

// holdsHeredoc reports whether stmts hold a here-document (<< or <<-).
func holdsHeredoc(stmts []*syntax.Stmt) bool {
	found := false
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if rd, ok := n.(*syntax.Redirect); ok && (rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc) {
				found = true
			}
			return !found
		})
	}
	return found
}
