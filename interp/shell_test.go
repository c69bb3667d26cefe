package interp

import (
	"os"
	"strings"
	"testing"
)

// TestShellNesting: a script that starts bash recursively hits the depth limit and fails the
// call with it, never a Go stack overflow or a hang.
func TestShellNesting(t *testing.T) {
	for _, script := range []string{
		"f() { bash -c f; }; export -f f; f",
		"printf 'bash r.sh\\n' > r.sh; bash r.sh",
		"export S='eval \"$S\"; bash -c \"$S\"'; bash -c \"$S\"",
	} {
		out := runScript(t, script, nil, nil)
		if out.ExitCode == 0 || out.LimitHit == "" {
			t.Errorf("%q: status %d limit %q, want a limit (stderr %s)", script, out.ExitCode, out.LimitHit, out.Stderr)
		}
	}
}

// TestShellRefusals: sh and the bash options the evaluator does not reproduce end the call
// with a refusal naming the fix; nothing after them runs.
func TestShellRefusals(t *testing.T) {
	for _, tc := range []struct{ script, construct string }{
		{"sh -c 'echo hi'; echo after", "sh"},
		{"/bin/sh x.sh; echo after", "/bin/sh"},
		{"bash -i -c 'echo hi'; echo after", "bash -i"},
		{"bash -l -c 'echo hi'; echo after", "bash -l"},
		{"bash --login -c 'echo hi'; echo after", "bash --login"},
		{"bash --rcfile x -c 'echo hi'; echo after", "bash --rcfile"},
		{"bash -r -c 'echo hi'; echo after", "bash -r"},
		{"bash --posix -c 'echo hi'; echo after", "bash --posix"},
		{"bash -o posix -c 'echo hi'; echo after", "bash -o posix"},
		{"bash -v -c 'echo hi'; echo after", "bash -v"},
		{"env sh -c 'echo hi'; echo after", "sh"},
	} {
		out := runScript(t, tc.script, nil, nil)
		if out.ExitCode == 0 || out.Refused == nil || !strings.HasPrefix(out.Refused.Construct, tc.construct) ||
			!strings.Contains(out.Refused.Fix, `"exec": "native"`) || strings.Contains(string(out.Stdout), "after") {
			t.Errorf("%q: status %d refused %+v stdout %q stderr %s", tc.script, out.ExitCode, out.Refused, out.Stdout, out.Stderr)
		}
	}
}

// TestShellConfined: the new shell has the parent's sandbox: no host environment, no file
// outside the roots, no host command.
func TestShellConfined(t *testing.T) {
	t.Setenv("MCPBASH_HOST_SECRET", "leak")
	secret, err := os.CreateTemp("", "secret")
	if err != nil {
		t.Fatal(err)
	}
	secret.WriteString("host-secret")
	secret.Close()
	defer os.Remove(secret.Name())
	script := `bash -c 'echo "[${MCPBASH_HOST_SECRET-unset}]"; env | grep -c MCPBASH_HOST_SECRET'
bash -c 'cat "$1"' x ` + secret.Name() + ` 2>/dev/null; echo cat=$?
bash ` + secret.Name() + ` 2>/dev/null; echo file=$?
bash -c 'cd /; cat etc/passwd' 2>/dev/null; echo passwd=$?
bash -c 'curl -s http://example.com' 2>/dev/null; echo curl=$?
bash -c 'exec 3<../../etc/passwd' 2>/dev/null; echo up=$?
`
	out := runScript(t, script, nil, nil)
	got := string(out.Stdout)
	want := "[unset]\n0\ncat=1\nfile=127\npasswd=1\ncurl=127\nup=1\n"
	if got != want || strings.Contains(got, "host-secret") || strings.Contains(got, "root:") {
		t.Errorf("stdout %q, want %q (stderr %s)", got, want, out.Stderr)
	}
}

// TestShellStdinScriptRead: a script read from stdin (bash -s, bash <<EOF) cannot read the rest
// of it as bash would (the evaluator reads the script whole): such a read ends the call with a
// refusal.
func TestShellStdinScriptRead(t *testing.T) {
	out := runScript(t, "bash <<'EOF'\nread x; echo \"st=$?\"\nnext line\nEOF\n", nil, nil)
	if out.ExitCode == 0 || out.Refused == nil || strings.Contains(string(out.Stdout), "st=") || strings.Contains(string(out.Stderr), "next: command not found") {
		t.Errorf("stdout %q stderr %q", out.Stdout, out.Stderr)
	}
}

// TestShebangOptions: an executable script's #! options apply as the kernel passes them to
// bash (`#!/bin/bash -e` stops at the first failure, as `bash -e script` does); what the
// evaluator cannot run that way (-c, -s, "-e -u" as one argument, -i) is refused, never
// dropped.
func TestShebangOptions(t *testing.T) {
	mk := func(name, shebang, body string) string {
		return "printf '%s\\n' '" + shebang + "' '" + body + "' > " + name + "; chmod +x " + name + "; "
	}
	for _, tc := range []struct {
		name, shebang, body string
		want                string // stdout; "" when refused
		construct           string
	}{
		{"e", "#!/bin/bash -e", "false; echo after", "", ""},
		{"eu-env", "#!/usr/bin/env -S bash -eu", "echo $- ; echo ${nope}; echo after", "ehuB\n", ""},
		{"pipefail-env", "#!/usr/bin/env -S bash -e -o pipefail", "false | true; echo after", "", ""},
		{"plain", "#!/bin/bash", "false; echo after $-", "after hB\n", ""},
		{"env", "#!/usr/bin/env bash", "false; echo after $-", "after hB\n", ""},
		{"x-then-plus", "#!/bin/bash -e", "set +e; false; echo after", "after\n", ""},
		{"two-words", "#!/bin/bash -e -u", "echo ran", "", "#! options -e -u"},
		{"c", "#!/bin/bash -c id", "echo ran", "", "#! options -c id"},
		{"s", "#!/bin/bash -s", "echo ran", "", "#! options -s"},
		{"i", "#!/bin/bash -i", "echo ran", "", "#! options -i"},
		{"sh", "#!/bin/sh", "echo ran", "", "#!/bin/sh (a POSIX shell"},
		{"env-sh", "#!/usr/bin/env sh", "echo ran", "", "#!/usr/bin/env sh (a POSIX shell"},
		{"env-assignment", "#!/usr/bin/env FOO=1 bash", "echo ran", "", "env gets the rest of the line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runScript(t, mk("s.sh", tc.shebang, tc.body)+"./s.sh; echo status=$?", nil, nil)
			if tc.construct != "" {
				if out.Refused == nil || !strings.Contains(out.Refused.Construct, tc.construct) || strings.Contains(string(out.Stdout), "ran") {
					t.Errorf("refused %+v stdout %q stderr %s; want a refusal of %q", out.Refused, out.Stdout, out.Stderr, tc.construct)
				}
				return
			}
			want := tc.want + "status="
			if got := string(out.Stdout); out.Refused != nil || !strings.HasPrefix(got, want) {
				t.Errorf("stdout %q refused %+v stderr %s; want %q...", got, out.Refused, out.Stderr, want)
			}
		})
	}
}
