package interp

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/builtins"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
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

// AnalyzeOptions add what the script can run beyond the sandbox's own commands.
type AnalyzeOptions struct {
	// Allowed lists the tool's allowlisted externals.
	Allowed []string
	// Wasm lists the wasm commands the call can run (NAME for NAME.wasm in the tool's directory
	// or the project's bin/).
	Wasm []string
	// LibFuncs are functions defined in files the script may source (the project's lib/):
	// the script can call them once it has sourced them.
	LibFuncs []string
}

// AnalyzeFile parses and analyzes a script. allowed lists the tool's allowlisted externals.
func AnalyzeFile(path string, allowed []string) (*Plan, error) {
	return AnalyzeFileWith(path, AnalyzeOptions{Allowed: allowed})
}

// AnalyzeFileWith is AnalyzeFile with the wasm commands and library functions the script can
// also call.
func AnalyzeFileWith(path string, o AnalyzeOptions) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// Parsed as the engine parses (nesting bounded, a parser panic an error).
	prog, err := eval.Parse(path, data)
	if err != nil {
		p := &Plan{Commands: map[string]string{}}
		line := uint(1)
		if ne, ok := errors.AsType[*eval.NestingError](err); ok {
			line = uint(ne.Line)
		}
		p.Findings = append(p.Findings, Finding{File: path, Line: line, Col: 1, Severity: "error", Kind: "parse", Message: err.Error(),
			Suggestion: "split the construct (a function per level, shorter pipelines and && || lists), or run the tool with \"exec\": \"native\""})
		return p, nil
	}
	var pe *syntax.ParseError
	if errors.As(prog.Err(), &pe) {
		p := &Plan{Commands: map[string]string{}}
		p.Findings = append(p.Findings, Finding{File: path, Line: pe.Pos.Line(), Col: pe.Pos.Col(), Severity: "error", Kind: "parse", Message: prog.ErrText(),
			Suggestion: "fix the syntax (bash -n FILE reports it too); if bash runs it, rewrite the construct or run the tool with \"exec\": \"native\""})
		return p, nil
	}
	plan := analyze(prog.File(), o)
	for _, h := range prog.EOFHereDocs() {
		plan.Findings = append(plan.Findings, Finding{File: path, Line: uint(h.Line), Col: 1, Severity: "warning", Kind: "parse",
			Message:    fmt.Sprintf("here-document delimited by end-of-file (wanted `%s'): the rest of the file is its text, and bash warns when it runs", h.Delim),
			Suggestion: "end the here-document with a line of its delimiter, " + h.Delim})
	}
	return plan, nil
}

// FuncNamesOf lists the functions the Bash file at path defines (for AnalyzeOptions.LibFuncs);
// a file that cannot be read or parsed defines none.
func FuncNamesOf(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	prog, err := eval.Parse(path, data)
	if err != nil || prog.Err() != nil {
		return nil
	}
	return funcNames(prog.File())
}

// Analyze walks a parsed script and reports how it will run in the sandbox.
func Analyze(f *syntax.File, allowed []string) *Plan {
	return analyze(f, AnalyzeOptions{Allowed: allowed})
}

func analyze(f *syntax.File, o AnalyzeOptions) *Plan {
	allowed := o.Allowed
	p := &Plan{Commands: map[string]string{}}
	funcs := map[string]bool{}
	for _, n := range funcNames(f) {
		funcs[n] = true
	}
	libFuncs := map[string]bool{}
	if sourcesFiles(f) {
		for _, n := range o.LibFuncs {
			libFuncs[n] = true
		}
	}
	probed := probedCommands(f)
	aliases, pathSet := aliasesAndPath(f)
	add := func(pos syntax.Pos, sev, kind, msg, fix string) {
		p.Findings = append(p.Findings, Finding{File: f.Name, Line: pos.Line(), Col: pos.Col(), Severity: sev, Kind: kind, Message: msg, Suggestion: fix})
	}
	// What the evaluator refuses: the call would be refused before it runs.
	for _, r := range eval.Check(f) {
		p.Findings = append(p.Findings, Finding{File: f.Name, Line: uint(r.Line), Col: uint(r.Col), Severity: "error", Kind: "unsupported",
			Message: r.Construct + " is not supported in the sandbox", Suggestion: r.Fix})
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
			switch {
			case how != "":
			case aliases[name]:
				how = "alias"
			case libFuncs[name]:
				how = "function (from a sourced library)"
			case slices.Contains(o.Wasm, name):
				how = "wasm command"
			}
			if fact := hostFact(name, x.Args[1:]); fact != "" && how != "host command (allowlisted)" {
				// Only native mode sees the host: the sandbox's own hostname and uname answer
				// even when allowlisted, and allowlisted commands are confined to the roots.
				add(x.Pos(), "error", "host-fact", fact, hostFactFix)
			}
			if _, seen := p.Commands[name]; !seen {
				p.Commands[name] = how
			}
			if how == "host command (allowlisted)" && NetworkClient(name) {
				add(x.Pos(), "warning", "network", name+" is allowlisted but runs without the network: allowlisted commands never get one (sandbox.network applies to native tools only)",
					"download over https with mcp_download_safe (hosts in MCPBASH_HTTPS_ALLOW_HOSTS), or set \"exec\": \"native\" with \"sandbox\": {\"network\": true}")
			}
			if how == "" && pathSet {
				// Command search walks PATH directories inside the roots: the script sets
				// PATH, so the name may be a script it put there.
				p.Commands[name] = "found through PATH, if at all"
				add(x.Pos(), "warning", "command", name+": not a sandbox command: it runs only if PATH names a directory inside the roots that holds it (else exit 127)",
					notOnPathFix(name))
			} else if how == "" && probed[name] {
				// The script checks for it (command -v NAME, ...) and has a fallback.
				p.Commands[name] = "not available (the script checks for it)"
				add(x.Pos(), "warning", "command", name+": not available in the sandbox; the script checks for it (command -v "+name+") and takes its other branch there",
					"if the tool needs "+name+"'s answer, "+notAvailableFix(name))
			} else if how == "" {
				p.Commands[name] = "not available"
				add(x.Pos(), "error", "command", name+": not available in the sandbox (exit 127 when run)",
					notAvailableFix(name))
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
			}
		case *syntax.Redirect:
			if x.Word != nil {
				if l := x.Word.Lit(); l != "" && x.Op != syntax.DplOut && x.Op != syntax.DplIn && x.Op != syntax.Hdoc && x.Op != syntax.DashHdoc && x.Op != syntax.WordHdoc {
					if !slices.Contains(p.Redirects, l) {
						p.Redirects = append(p.Redirects, l)
					}
				}
			}
		}
		return true
	})
	slices.SortStableFunc(p.Findings, func(a, b Finding) int { return int(a.Line) - int(b.Line) })
	return p
}

// sourcesFiles reports whether the script sources a file other than the SDK.
func sourcesFiles(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 1 {
			if w := c.Args[0].Lit(); (w == "source" || w == ".") && !strings.Contains(wordText(c.Args[1]), "MCP_SDK") {
				found = true
			}
		}
		return !found
	})
	return found
}

// probedCommands are the commands the script looks for before it runs them: command -v NAME,
// type NAME, hash NAME, which NAME.
func probedCommands(f *syntax.File) map[string]bool {
	out := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) < 2 {
			return true
		}
		switch c.Args[0].Lit() {
		case "command", "type", "hash", "which":
			for _, a := range c.Args[1:] {
				if l := a.Lit(); l != "" && !strings.HasPrefix(l, "-") {
					out[l] = true
				}
			}
		}
		return true
	})
	return out
}

// hostFact says why a command would report the sandbox instead of the host ("" when it does
// not): the sandbox answers hostname and uname's node name with its virtual identity, and hides
// the host's /proc, /sys and identity files.
func hostFact(name string, args []*syntax.Word) string {
	short := hostFactShort(name, args)
	switch {
	case short == "":
		return ""
	case name == "hostname":
		return "hostname answers the sandbox's virtual name (mcp-sandbox), not the host's: the tool would report made-up data"
	case name == "uname":
		return "uname " + short[strings.LastIndex(short, " ")+1:] + " answers the sandbox's virtual machine (mcp-sandbox, kernel 6.0.0-mcp), not the host's: the tool would report made-up data"
	}
	return name + " reads " + short[len("the sandbox hides "):] + ", which the sandbox hides (no such file there): the tool cannot report the host"
}

// hostFactShort is hostFact's reason in a few words.
func hostFactShort(name string, args []*syntax.Word) string {
	switch name {
	case "hostname":
		return "the sandbox answers with its virtual name"
	case "uname":
		for _, a := range args {
			switch l := a.Lit(); l {
			case "-a", "-n", "--all", "--nodename":
				return "the sandbox answers with its virtual machine for " + l
			}
		}
	}
	for _, a := range args {
		l := a.Lit()
		for _, hidden := range []string{"/proc/", "/sys/", "/etc/os-release", "/etc/hostname", "/etc/machine-id"} {
			if strings.HasPrefix(l, hidden) {
				return "the sandbox hides " + l
			}
		}
	}
	return ""
}

// hostFactUse is a command of a script that asks the sandbox for a host fact it hides (hostFact).
type hostFactUse struct {
	cmd string
	r   eval.Refusal
}

// hostFactUses are the commands of f that would report the sandbox's virtual machine as the host:
// hostname, uname's node name, a read of the host's /proc, /sys or identity files. The engine
// refuses such a script before it runs (never made-up data), as validate reports it; tests
// ([ -f /proc/x ], test) are probes and stay, and functions f defines are its own.
func hostFactUses(f *syntax.File) []hostFactUse {
	funcs := map[string]bool{}
	for _, n := range funcNames(f) {
		funcs[n] = true
	}
	var out []hostFactUse
	syntax.Walk(f, func(n syntax.Node) bool {
		x, ok := n.(*syntax.CallExpr)
		if !ok || len(x.Args) == 0 {
			return true
		}
		name := x.Args[0].Lit()
		if name == "" || funcs[name] || name == "[" || name == "test" {
			return true
		}
		if why := hostFactShort(name, x.Args[1:]); why != "" {
			pos := x.Pos()
			out = append(out, hostFactUse{cmd: name, r: eval.Refusal{File: f.Name, Line: int(pos.Line()), Col: int(pos.Col()),
				Construct: name + " reporting the host (" + why + ")", Fix: hostFactFix}})
		}
		return true
	})
	return out
}

// hostFactFix is the fix of a host-fact finding and refusal.
const hostFactFix = `a tool that reports the host needs the host: set "exec": "native" in tool.meta.json (the server runs it when MCPBASH_TOOL_ALLOWLIST names it)`

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
	case eval.IsBuiltin(name), name == "type", name == "hash":
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

// FormatFinding renders a finding as "file:line:col: severity: message (fix)"; a finding about
// a whole file (line 0) as "file: severity: message", a line without a column as "file:line:".
func FormatFinding(f Finding) string {
	var s string
	switch {
	case f.Line <= 0:
		s = fmt.Sprintf("%s: %s: %s", f.File, f.Severity, f.Message)
	case f.Col <= 0:
		s = fmt.Sprintf("%s:%d: %s: %s", f.File, f.Line, f.Severity, f.Message)
	default:
		s = fmt.Sprintf("%s:%d:%d: %s: %s", f.File, f.Line, f.Col, f.Severity, f.Message)
	}
	if f.Suggestion != "" {
		s += "\n    fix: " + f.Suggestion
	}
	return s
}

// aliasesAndPath lists the aliases a file defines with literal names (alias NAME=...) and
// tells whether it assigns PATH.
func aliasesAndPath(f *syntax.File) (map[string]bool, bool) {
	aliases := map[string]bool{}
	pathSet := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Assign:
			if x.Name != nil && x.Name.Value == "PATH" {
				pathSet = true
			}
		case *syntax.CallExpr:
			if len(x.Args) > 1 && x.Args[0].Lit() == "alias" {
				for _, a := range x.Args[1:] {
					if name, _, ok := strings.Cut(wordText(a), "="); ok && name != "" {
						aliases[name] = true
					}
				}
			}
		}
		return true
	})
	return aliases, pathSet
}

// funcNames lists the functions a file declares.
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

func isKeyword(s string) bool {
	return syntax.IsKeyword(s) || s == "[[" || s == "]]" || s == "coproc"
}
