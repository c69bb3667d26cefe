package interp

import (
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
