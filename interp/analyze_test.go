package interp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestAnalyze(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   string // substring of a finding, or "" for none
	}{
		{"echo hi; jq . f; mcp_args_get .x", ""},
		{"curl https://x", "curl: not available in the sandbox"},
		{"$cmd arg", "command name is computed at run time"},
		{"eval \"$x\"", "eval of a computed string"},
		{"source \"$f\"", "source of a computed path"},
		{"source \"${MCP_SDK}/tool-sdk.sh\"", ""},
		{"echo ${x@P}", "${var@P} (prompt expansion) is not supported in the sandbox"},
		// The evaluator runs these as bash does: nothing to report.
		{"read -t 5 x", ""},
		{"(( a[1] += 2 ))", ""},
		{"exec 3>f; echo x >&3", ""},
		{"echo ${PIPESTATUS[0]} ${FUNCNAME[0]}", ""},
		{"declare -A m; [[ -v m[a] ]]", ""},
		{"f(){ trap 'x' RETURN; }", ""},
		{"while IFS= read -r -d '' f; do :; done", ""},
		{"f(){ :; }; f; ./helper.sh", ""},
		{"shopt -s expand_aliases\nalias ll='ls -l'\nll", ""},
		{"PATH=$PWD/bin:$PATH; tool", "tool: not a sandbox command: it runs only if PATH names a directory inside the roots"},
		{"export PATH=bin:$PATH\ntool", "tool: not a sandbox command"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tc.script), "s.sh")
		if err != nil {
			t.Fatal(err)
		}
		p := Analyze(f, nil)
		var all []string
		for _, x := range p.Findings {
			all = append(all, x.Message)
		}
		joined := strings.Join(all, "\n")
		if tc.want == "" && len(all) != 0 || tc.want != "" && !strings.Contains(joined, tc.want) {
			t.Errorf("%q: findings %q, want %q", tc.script, joined, tc.want)
		}
		for _, x := range p.Findings {
			if strings.Contains(x.Message, "not a sandbox command") && x.Severity != "warning" {
				t.Errorf("%q: %q is %s, want a warning (PATH may find it)", tc.script, x.Message, x.Severity)
			}
		}
	}
}

// What validate accepts beyond the sandbox's own commands (functions of a sourced library, wasm
// commands, commands the script probes for) and the host facts it flags.
func TestAnalyzeOptions(t *testing.T) {
	for _, tc := range []struct {
		script  string
		o       AnalyzeOptions
		sev     string // severity of the finding containing want ("" for no finding at all)
		want    string
		resolve string // how the first command resolves, when set
	}{
		{script: "source lib/x.sh; mcp_detect_cli uname", o: AnalyzeOptions{LibFuncs: []string{"mcp_detect_cli"}}, resolve: "function (from a sourced library)"},
		{script: "mcp_detect_cli uname", o: AnalyzeOptions{LibFuncs: []string{"mcp_detect_cli"}}, sev: "error", want: "mcp_detect_cli: not available"},
		{script: "tally < f", o: AnalyzeOptions{Wasm: []string{"tally"}}, resolve: "wasm command"},
		{script: "if command -v sw_vers >/dev/null; then sw_vers; fi", sev: "warning", want: "the script checks for it (command -v sw_vers)"},
		{script: "sw_vers", sev: "error", want: "sw_vers: not available in the sandbox"},
		{script: "h=$(hostname)", sev: "error", want: "hostname answers the sandbox's virtual name"},
		{script: "uname -a", sev: "error", want: "uname -a answers the sandbox's virtual machine"},
		{script: "uname -s", sev: ""},
		{script: "cat /proc/meminfo", sev: "error", want: "cat reads /proc/meminfo, which the sandbox hides"},
		{script: "hostname", o: AnalyzeOptions{Allowed: []string{"hostname"}}, sev: "error", want: "hostname answers"}, // the sandbox's own answers anyway
		{script: "uptime", o: AnalyzeOptions{Allowed: []string{"uptime"}}, sev: ""},
		// Network clients: allowlisting one gives no network, and validate says what does.
		{script: "curl -s https://example.com", sev: "error", want: "curl: not available in the sandbox"},
		{script: "curl -s https://example.com", o: AnalyzeOptions{Allowed: []string{"curl"}}, sev: "warning", want: "curl is allowlisted but runs without the network"},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader(tc.script), "s.sh")
		if err != nil {
			t.Fatal(err)
		}
		p := analyze(f, tc.o)
		switch {
		case tc.sev == "" && len(p.Findings) > 0:
			t.Errorf("%q: unexpected findings %+v", tc.script, p.Findings)
		case tc.sev != "":
			found := false
			for _, x := range p.Findings {
				if strings.Contains(x.Message, tc.want) {
					found = true
					if x.Severity != tc.sev {
						t.Errorf("%q: %q is %s, want %s", tc.script, x.Message, x.Severity, tc.sev)
					}
				}
			}
			if !found {
				t.Errorf("%q: no finding %q in %+v", tc.script, tc.want, p.Findings)
			}
		}
		if tc.resolve != "" {
			name := strings.Fields(strings.TrimPrefix(tc.script, "source lib/x.sh; "))[0]
			if got := p.Commands[name]; got != tc.resolve {
				t.Errorf("%q: %s resolves as %q, want %q", tc.script, name, got, tc.resolve)
			}
		}
	}
}

// A script that ends inside a here-document runs, as in bash (the rest of the file is the
// document, with bash's warning): validate warns, it does not refuse.
func TestAnalyzeFileEOFHereDoc(t *testing.T) {
	for _, tc := range []struct {
		script string
		want   []string // the findings' severity: message prefix
	}{
		{"echo a\ncat <<E\nabc\n", []string{"warning: here-document delimited by end-of-file (wanted `E')"}},
		{"cat <<'E' <<-F\nabc", []string{"warning: here-document delimited by end-of-file (wanted `E')", "warning: here-document delimited by end-of-file (wanted `F')"}},
		{"cat <<E\nabc\nE\n", nil},
		// Ended inside an unfinished construct: bash's syntax error too.
		{"f() {\ncat <<E\nabc\n", []string{"error: syntax error"}},
	} {
		path := filepath.Join(t.TempDir(), "tool.sh")
		if err := os.WriteFile(path, []byte(tc.script), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := AnalyzeFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range p.Findings {
			got = append(got, f.Severity+": "+f.Message)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: findings %q, want %q", tc.script, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tc.want[i]) {
				t.Errorf("%q: finding %q, want %q...", tc.script, got[i], tc.want[i])
			}
		}
	}
}
