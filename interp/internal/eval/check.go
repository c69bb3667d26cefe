package eval

import (
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
