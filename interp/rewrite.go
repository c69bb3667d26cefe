package interp

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// virtualParams maps special parameters that would reveal the host process to variables the
// engine sets to virtual values.
var virtualParams = map[string]string{"$": "__mcpbash_pid", "BASHPID": "__mcpbash_pid", "PPID": "__mcpbash_ppid"}

// rewrite adjusts a parsed script before it runs: $$, $BASHPID and $PPID read virtual values
// (the interpreter would report the server's own pids), and every background job starts with
// the builtin that counts it against the call's job limit (the interpreter has no hook for
// `&`). It reports whether anything changed.
func rewrite(f *syntax.File) bool {
	changed := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok && st.Background && st.Cmd != nil && !isJobCounted(st.Cmd) {
			pos := st.Cmd.Pos()
			count := &syntax.Stmt{Position: pos, Cmd: &syntax.CallExpr{Args: []*syntax.Word{{Parts: []syntax.WordPart{
				&syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: jobBuiltin}}}}}}
			st.Cmd = &syntax.Block{Lbrace: pos, Rbrace: pos, Stmts: []*syntax.Stmt{count, {Position: pos, Cmd: st.Cmd}}}
			changed = true
		}
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil {
			if v, ok := virtualParams[pe.Param.Value]; ok {
				pe.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: v}
				pe.Short = false
				changed = true
			}
		}
		return true
	})
	return changed
}

// jobBuiltin counts a background job (handlers.go).
const jobBuiltin = "__mcpbash_job"

// isJobCounted reports whether a background command was already rewritten.
func isJobCounted(cmd syntax.Command) bool {
	b, ok := cmd.(*syntax.Block)
	if !ok || len(b.Stmts) != 2 {
		return false
	}
	ce, ok := b.Stmts[0].Cmd.(*syntax.CallExpr)
	return ok && len(ce.Args) == 1 && ce.Args[0].Lit() == jobBuiltin
}

// needsRewrite is a cheap pre-check for rewrite on text that is about to be parsed at run time.
func needsRewrite(src string) bool {
	return strings.Contains(src, "&") ||
		strings.Contains(src, "$") && (strings.Contains(src, "$$") || strings.Contains(src, "PID") || strings.Contains(src, "${$"))
}

// funcNames lists the functions a file declares (for `type` and `command -v`).
func funcNames(f *syntax.File) []string {
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			out = append(out, fd.Name.Value)
		}
		return true
	})
	return out
}

// unsupportedArith finds arithmetic that assigns to anything but a plain variable name
// (`(( a[1] += 10 ))`, `a[i]++`): the interpreter panics on those, and a panic in a background
// job or pipeline stage cannot be recovered, so such scripts are refused before they run.
func unsupportedArith(n syntax.Node) (syntax.Pos, bool) {
	var bad syntax.Pos
	found := false
	target := func(x syntax.ArithmExpr) bool {
		w, ok := x.(*syntax.Word)
		return ok && w.Lit() != "" && syntax.ValidName(w.Lit())
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		if found {
			return false
		}
		switch a := node.(type) {
		case *syntax.BinaryArithm:
			switch a.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				if !target(a.X) {
					bad, found = a.Pos(), true
				}
			}
		case *syntax.UnaryArithm:
			if (a.Op == syntax.Inc || a.Op == syntax.Dec) && !target(a.X) {
				bad, found = a.Pos(), true
			}
		}
		return !found
	})
	return bad, found
}

// arithMessage explains a refused arithmetic assignment.
func arithMessage(file string, pos syntax.Pos) string {
	return fmt.Sprintf("%s:%d: arithmetic assignment to an array element (e.g. (( a[i] += 1 ))) is not supported in the sandbox; write a[i]=$(( a[i] + 1 )) or run the tool with \"exec\": \"native\"", file, pos.Line())
}

// hasProcSubst reports whether a file uses process substitution.
func hasProcSubst(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(node syntax.Node) bool {
		if _, ok := node.(*syntax.ProcSubst); ok {
			found = true
		}
		return !found
	})
	return found
}
