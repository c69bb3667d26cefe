package interp

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	shinterp "mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/builtins"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// Finding is one result of the static analysis of a script.
type Finding struct {
	File       string `json:"file"`
	Line       uint   `json:"line"`
	Col        uint   `json:"col"`
	Severity   string `json:"severity"` // error (will not run), warning (may differ), info
	Kind       string `json:"kind"`     // command, dynamic, unsupported, redirect, parse
	Message    string `json:"message"`
	Suggestion string `json:"suggestion,omitempty"`
}

// Plan is what a script will do in the sandbox, as far as can be told without running it.
type Plan struct {
	Commands  map[string]string `json:"commands"`  // name → how it resolves
	Redirects []string          `json:"redirects"` // literal files written or read by redirection
	Findings  []Finding         `json:"findings"`
}

// AnalyzeFile parses and analyzes a script. allowed lists the tool's allowlisted externals.
func AnalyzeFile(path string, allowed []string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), path)
	if err != nil {
		var pe syntax.ParseError
		p := &Plan{Commands: map[string]string{}}
		if e, ok := err.(syntax.ParseError); ok {
			pe = e
			p.Findings = append(p.Findings, Finding{File: path, Line: pe.Pos.Line(), Col: pe.Pos.Col(), Severity: "error", Kind: "parse", Message: pe.Text})
			return p, nil
		}
		return nil, err
	}
	return Analyze(f, allowed), nil
}

// unsupportedVars are Bash variables the interpreter does not provide.
var unsupportedVars = map[string]string{
	"PIPESTATUS":    "use `set -o pipefail` or check each command's status",
	"FUNCNAME":      "pass the name explicitly",
	"BASH_VERSION":  "the sandbox is not GNU Bash; test features, not versions",
	"BASH_VERSINFO": "the sandbox is not GNU Bash; test features, not versions",
	"BASH_SOURCE":   "use $0 or pass the path explicitly",
	"BASH_LINENO":   "not available in the sandbox",
}

// Analyze walks a parsed script and reports how it will run in the sandbox.
func Analyze(f *syntax.File, allowed []string) *Plan {
	p := &Plan{Commands: map[string]string{}}
	funcs := map[string]bool{}
	for _, n := range funcNames(f) {
		funcs[n] = true
	}
	add := func(pos syntax.Pos, sev, kind, msg, fix string) {
		p.Findings = append(p.Findings, Finding{File: f.Name, Line: pos.Line(), Col: pos.Col(), Severity: sev, Kind: kind, Message: msg, Suggestion: fix})
	}
	if pos, bad := unsupportedArith(f); bad {
		add(pos, "error", "unsupported", "arithmetic assignment to an array element is refused by the sandbox",
			"write a[i]=$(( a[i] + 1 )), or set \"exec\": \"native\" in tool.meta.json")
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			name := x.Args[0].Lit()
			if name == "" {
				add(x.Args[0].Pos(), "warning", "dynamic", "command name is computed at run time",
					"the sandbox resolves it when it runs; prefer a literal command or a case statement")
				return true
			}
			how := resolveStatic(name, funcs, allowed)
			if _, seen := p.Commands[name]; !seen {
				p.Commands[name] = how
			}
			if how == "" {
				p.Commands[name] = "not available"
				add(x.Pos(), "error", "command", name+": not available in the sandbox (exit 127 when run)",
					"add \""+name+"\" to \"sandbox\": {\"allowCommands\": [...]} in tool.meta.json (it then runs on the host), or set \"exec\": \"native\"")
			}
			args := x.Args[1:]
			switch name {
			case "eval":
				for _, a := range args {
					if a.Lit() == "" {
						add(a.Pos(), "warning", "dynamic", "eval of a computed string", "the sandbox checks it when it runs; avoid eval where a function would do")
						break
					}
				}
			case "source", ".":
				if len(args) > 0 && args[0].Lit() == "" && !strings.Contains(wordText(args[0]), "MCP_SDK") {
					add(args[0].Pos(), "warning", "dynamic", "source of a computed path", "the file must be inside the roots or the tool directory")
				}
			case "trap":
				for _, a := range args {
					if a.Lit() == "RETURN" {
						add(a.Pos(), "warning", "unsupported", "RETURN traps are not supported by the interpreter", "run the cleanup explicitly before return")
					}
				}
			case "read":
				for _, a := range args {
					if l := a.Lit(); strings.HasPrefix(l, "-") && strings.ContainsAny(l, "dnNt") && !strings.HasPrefix(l, "--") && !strings.HasPrefix(l, "-p") {
						add(a.Pos(), "warning", "unsupported", "read "+l+" is not supported by the interpreter", "read whole lines, or set \"exec\": \"native\"")
					}
				}
			}
		case *syntax.UnaryTest:
			if x.Op == syntax.TsVarSet {
				if w, ok := x.X.(*syntax.Word); ok && strings.Contains(wordText(w), "[") {
					add(x.Pos(), "warning", "unsupported", "[[ -v name[key] ]] is not supported by the interpreter", "test the value instead: [[ -n ${name[key]+set} ]]")
				}
			}
		case *syntax.CoprocClause:
			add(x.Pos(), "error", "unsupported", "coproc is not supported by the interpreter", "use a pipeline or set \"exec\": \"native\"")
		case *syntax.Redirect:
			if x.N != nil {
				if fd := x.N.Value; fd != "0" && fd != "1" && fd != "2" {
					add(x.Pos(), "warning", "unsupported", "file descriptor "+fd+" is not supported by the interpreter", "use stdout/stderr or a temporary file")
				}
			}
			if x.Word != nil && (x.Op == syntax.DplOut || x.Op == syntax.DplIn) {
				if l := x.Word.Lit(); l != "" && l != "0" && l != "1" && l != "2" && l != "-" && strings.Trim(l, "0123456789") == "" {
					add(x.Pos(), "warning", "unsupported", "file descriptor "+l+" is not supported by the interpreter", "use stdout/stderr or a temporary file")
				}
			}
			if x.Word != nil {
				if l := x.Word.Lit(); l != "" && x.Op != syntax.DplOut && x.Op != syntax.DplIn && x.Op != syntax.Hdoc && x.Op != syntax.DashHdoc && x.Op != syntax.WordHdoc {
					if !slices.Contains(p.Redirects, l) {
						p.Redirects = append(p.Redirects, l)
					}
				}
			}
		case *syntax.ParamExp:
			if x.Param != nil {
				if fix, ok := unsupportedVars[x.Param.Value]; ok {
					add(x.Pos(), "warning", "unsupported", "$"+x.Param.Value+" is not provided by the interpreter", fix)
				}
			}
		}
		return true
	})
	slices.SortStableFunc(p.Findings, func(a, b Finding) int { return int(a.Line) - int(b.Line) })
	return p
}

func wordText(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// resolveStatic says how a literal command name resolves in the sandbox ("" when it does not).
func resolveStatic(name string, funcs map[string]bool, allowed []string) string {
	switch {
	case funcs[name]:
		return "function"
	case isKeyword(name):
		return "keyword"
	case shinterp.IsBuiltin(name), name == "type", name == "hash":
		return "shell builtin"
	case sdk.Has(name) || name == "mcp_config_load" || name == "mcp_with_retry":
		return "SDK"
	}
	base := name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		base = name[i+1:]
		if dir := name[:i]; !slices.Contains(binDirs, dir) {
			return "script (" + name + ")"
		}
	}
	if _, ok := builtins.Lookup(base); ok {
		return "sandbox utility"
	}
	if slices.Contains(allowed, base) {
		return "host command (allowlisted)"
	}
	return ""
}

// FormatFinding renders a finding as "file:line:col: severity: message (fix)".
func FormatFinding(f Finding) string {
	s := fmt.Sprintf("%s:%d:%d: %s: %s", f.File, f.Line, f.Col, f.Severity, f.Message)
	if f.Suggestion != "" {
		s += "\n    fix: " + f.Suggestion
	}
	return s
}
