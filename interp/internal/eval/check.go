package eval

import (
	"bytes"
	"cmp"
	"runtime"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Check lists the constructs of a parsed script that the evaluator refuses, with their
// positions and the fix, so that a tool can be refused before it runs.
func Check(f *syntax.File) []Refusal {
	return checkNode(f.Name, f, 0, declaredFuncs(f))
}

// declaredFuncs names the functions n defines anywhere: a call of one of those names runs the
// function (bash looks functions up before builtins), so a refused builtin of that name is not
// what runs. A call reached before the definition still meets the builtin's refusal at run time.
func declaredFuncs(n syntax.Node) map[string]bool {
	var names map[string]bool
	syntax.Walk(n, func(node syntax.Node) bool {
		if fd, ok := node.(*syntax.FuncDecl); ok && fd.Name != nil {
			if names == nil {
				names = map[string]bool{}
			}
			names[fd.Name.Value] = true
		}
		return true
	})
	return names
}

func checkStmts(src *source, stmts []*syntax.Stmt) []Refusal {
	// Text parsed while running (eval, source, traps) is read as a script file is.
	if runtime.GOOS != "windows" && strings.IndexByte(src.text, '\r') >= 0 {
		if line, col, ok := UnquotedCR(&syntax.File{Name: src.name, Stmts: stmts}, []byte(src.text)); ok {
			return []Refusal{{File: src.name, Line: src.lineBase + line, Col: col, Construct: CRConstruct, Fix: CRFix}}
		}
	}
	var out []Refusal
	funcs := map[string]bool{}
	for _, s := range stmts {
		for name := range declaredFuncs(s) {
			funcs[name] = true
		}
	}
	for _, s := range stmts {
		out = append(out, checkNode(src.name, s, src.lineBase, funcs)...)
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// refusedBuiltins are builtins whose behaviour the sandbox does not reproduce.
var refusedBuiltins = map[string]bool{"enable": true, "complete": true, "compopt": true,
	"bind": true, "history": true, "fc": true, "suspend": true, "fg": true, "bg": true, "help": true}

func checkNode(file string, n syntax.Node, lineBase int, funcs map[string]bool) []Refusal {
	var out []Refusal
	add := func(p syntax.Pos, construct string) {
		out = append(out, Refusal{File: file, Line: int(p.Line()) + lineBase, Col: int(p.Col()), Construct: construct, Fix: DefaultFix})
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.TestDecl:
			add(x.Pos(), "@test")
		case *syntax.ParamExp:
			if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && x.Exp.Word.Lit() == "P" {
				add(x.Pos(), "${var@P} (prompt expansion)")
			}
			if x.Param == nil || x.NestedParam != nil || x.Width || x.IsSet || len(x.Modifiers) > 0 {
				add(x.Pos(), "this parameter expansion")
			}
		case *syntax.Word:
			if p := splitDollar(x.Parts); p != nil {
				add(p.Pos(), "a line continuation right after $")
			}
		case *syntax.DblQuoted:
			if p := splitDollar(x.Parts); p != nil {
				add(p.Pos(), "a line continuation right after $")
			}
		case *syntax.ProcSubst:
			if x.Op == syntax.CmdInTemp {
				add(x.Pos(), "=(...)")
			}
		case *syntax.Redirect:
			switch x.Op {
			case syntax.AppClob, syntax.RdrAllClob, syntax.AppAllClob:
				add(x.Pos(), "the redirection "+x.Op.String())
			}
			if x.Word != nil {
				if l := x.Word.Lit(); strings.HasPrefix(l, "/dev/tcp/") || strings.HasPrefix(l, "/dev/udp/") {
					add(x.Pos(), "network redirection "+l)
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				break
			}
			name := x.Args[0].Lit()
			if funcs[name] {
				break // the script's own function of that name runs
			}
			if refusedBuiltins[name] {
				add(x.Pos(), "the "+name+" builtin")
			}
			args := make([]string, 0, len(x.Args))
			for _, a := range x.Args[1:] {
				args = append(args, a.Lit())
			}
			if c := refusedCall(name, args); c != "" {
				add(x.Pos(), c)
			}
		}
		return true
	})
	return out
}

// splitDollar finds a literal ending in an unescaped $ followed by another literal: the
// parser's reading of `$\<newline>?` (bash joins the lines first and expands $?).
func splitDollar(parts []syntax.WordPart) syntax.Node {
	for i := 0; i+1 < len(parts); i++ {
		l, ok := parts[i].(*syntax.Lit)
		if !ok || !strings.HasSuffix(l.Value, "$") {
			continue
		}
		if _, ok := parts[i+1].(*syntax.Lit); !ok || int(l.End().Offset()-l.Pos().Offset()) == len(l.Value) {
			continue // no line continuation inside: "$'x'" in double quotes is a literal $ and quote
		}
		bs := 0
		for j := len(l.Value) - 2; j >= 0 && l.Value[j] == '\\'; j-- {
			bs++
		}
		if bs%2 == 0 {
			return l
		}
	}
	return nil
}

// refusedCall recognizes literal uses of builtin options the evaluator refuses.
func refusedCall(name string, args []string) string {
	switch name {
	case "trap":
		if len(args) >= 2 {
			for _, a := range args[1:] {
				if strings.EqualFold(a, "DEBUG") && args[0] != "-" && args[0] != "" {
					return "trap ... DEBUG"
				}
			}
		}
	case "set":
		for i := 0; i < len(args); i++ {
			a := args[i]
			if a == "--" || a == "-" || len(a) < 2 || (a[0] != '-' && a[0] != '+') {
				break // the rest are positional parameters
			}
			on := a[0] == '-'
			for _, c := range []byte(a[1:]) {
				if c == 'o' {
					if i+1 < len(args) {
						i++
						if o, ok := setOptByName(args[i]); ok && !o.supported && on {
							return "set -o " + o.name
						}
					}
					continue
				}
				if o, ok := setOptByLetter(c); ok && !o.supported && on {
					return "set -" + string(c)
				}
			}
		}
	case "shopt":
		if len(args) > 1 && args[0] == "-s" {
			for _, a := range args[1:] {
				if o, ok := shoptByName(a); ok && !o.supported {
					return "shopt -s " + a
				}
			}
		}
	case "mapfile", "readarray":
		for _, a := range args {
			if a == "-C" {
				return name + " -C"
			}
		}
	}
	return ""
}

// CRConstruct and CRFix word the refusal of a carriage return outside quotes.
const (
	CRConstruct = "a carriage return outside quotes (CRLF line endings?): bash reads it as part of the word, the sandbox's parser as a blank"
	CRFix       = "save the script with LF line endings (dos2unix), or write a carriage return as $'\\r'"
)

// UnquotedCR finds a carriage return of src outside quotes, here-documents and comments:
// mvdan's lexer drops one before a line feed and splits words at any other, where bash keeps
// it in the word (`echo hi` followed by CR LF prints "hi" and a CR; `echo<CR>TEST` is a command
// not found), so such a script would run differently without a word.
func UnquotedCR(f *syntax.File, src []byte) (line, col int, ok bool) {
	type span struct{ from, to uint }
	var kept []span
	// The engine's parse keeps no comments: the check parses the text again with them (only
	// a script with a CR pays for it).
	func() {
		defer func() { _ = recover() }() // third-party code: a panic only leaves comments out
		if cf, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), ""); err == nil {
			f = cf
		}
	}()
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			kept = append(kept, span{x.Pos().Offset(), x.End().Offset()})
		case *syntax.Comment:
			// The lexer ends a comment before a CR LF's CR; to bash the CR is in the comment.
			kept = append(kept, span{x.Pos().Offset(), x.End().Offset() + 1})
		case *syntax.Redirect:
			if x.Hdoc != nil {
				kept = append(kept, span{x.Hdoc.Pos().Offset(), x.Hdoc.End().Offset()})
			}
		}
		return true
	})
	// One sweep over the CRs in order with the spans sorted by start: a CR is kept when some
	// span started at or before it reaches past it (a script of quoted CRs is linear, not
	// CRs times spans).
	slices.SortFunc(kept, func(a, b span) int { return cmp.Compare(a.from, b.from) })
	next, reach := 0, uint(0)
	for off := bytes.IndexByte(src, '\r'); off >= 0; {
		for ; next < len(kept) && kept[next].from <= uint(off); next++ {
			reach = max(reach, kept[next].to)
		}
		if uint(off) >= reach {
			before := src[:off]
			return bytes.Count(before, []byte("\n")) + 1, off - bytes.LastIndexByte(before, '\n'), true
		}
		more := bytes.IndexByte(src[off+1:], '\r')
		if more < 0 {
			break
		}
		off += 1 + more
	}
	return 0, 0, false
}
