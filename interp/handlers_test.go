package interp

import (
	"strings"
	"testing"
)

// TestNotAvailableSaysWhy checks that a command the sandbox does not have fails as bash's
// does (127, bash's words) and says it is the sandbox, with validate's fix, while a missing
// script inside the roots keeps bash's message alone.
func TestNotAvailableSaysWhy(t *testing.T) {
	const fix = `(not available in the sandbox; fix: add "%s" to "sandbox": {"allowCommands": [...]} in tool.meta.json (it then runs on the host; MCPBASH_SANDBOX_ALLOW_COMMANDS, when set, must list it too), or set "exec": "native")`
	note := func(name string) string { return strings.Replace(fix, "%s", name, 1) }
	tests := []struct {
		name, script, stdout, stderr string
	}{
		{"search", `mkfifo x; echo "st=$?"`, "st=127\n", "tool.sh: line 1: mkfifo: command not found " + note("mkfifo") + "\n"},
		{"bin path", `/usr/bin/python3 -c 1; echo "st=$?"`, "st=127\n", "tool.sh: line 1: /usr/bin/python3: No such file or directory " + note("python3") + "\n"},
		{"sbin path", `/sbin/mkfs; echo "st=$?"`, "st=127\n", "tool.sh: line 1: /sbin/mkfs: No such file or directory " + note("mkfs") + "\n"},
		{"through env", `env python3 -V; echo "st=$?"`, "st=127\n", "tool.sh: line 1: python3: command not found " + note("python3") + "\n"},
		{"type", `type mkfifo; echo "st=$?"`, "st=1\n", "tool.sh: line 1: type: mkfifo: not found " + note("mkfifo") + "\n"},
		{"hash", `hash python3; echo "st=$?"`, "st=1\n", "tool.sh: line 1: hash: python3: not found " + note("python3") + "\n"},
		{"type of a path", `type ./nosuch; echo "st=$?"`, "st=1\n", "tool.sh: line 1: type: ./nosuch: not found\n"},
		{"command -v stays quiet", `command -v mkfifo; echo "st=$?"`, "st=1\n", ""},
		{"PATH into the roots", `mkdir -p bin; PATH=$PWD/bin:$PATH; mytool; echo "st=$?"`, "st=127\n",
			"tool.sh: line 1: mytool: command not found (not available in the sandbox, nor in a PATH directory inside the roots; fix: put the script in a PATH directory inside the roots, or " +
				strings.TrimSuffix(strings.TrimPrefix(note("mytool"), "(not available in the sandbox; fix: "), ")") + ")\n"},
		{"script in roots", `./nosuch; echo "st=$?"`, "st=127\n", "tool.sh: line 1: ./nosuch: No such file or directory\n"},
		{"tested by the script", `gcc --version 2>/dev/null || echo "no gcc: $?"`, "no gcc: 127\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := runScript(t, tc.script, nil, nil)
			if string(out.Stdout) != tc.stdout {
				t.Errorf("stdout %q, want %q", out.Stdout, tc.stdout)
			}
			// The prefix holds the script's path ($0): compare from its base name on.
			got := string(out.Stderr)
			if i := strings.Index(got, "tool.sh: "); i >= 0 {
				got = got[i:]
			}
			if got != tc.stderr {
				t.Errorf("stderr %q, want %q", got, tc.stderr)
			}
		})
	}
}
