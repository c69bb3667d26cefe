package eval_test

import (
	"strings"
	"testing"
)

// TestArgListTooLong: a program (not a builtin or function) is refused as execve refuses it
// on bash's system, E2BIG: one string of 128 KiB or more, or argument and environment strings
// and their pointers over 2 MiB.
func TestArgListTooLong(t *testing.T) {
	const mk = `big=$(printf '%131072s' ''); c=$(printf '%99999s' ''); `
	tests := []struct {
		name, script, want string
		e2big              bool
	}{
		{"one string under the limit", `s=${big% }; /bin/x "$s"; echo "st=$?"`, "st=127\n", false},
		{"one string at the limit", `/bin/x "$big"; echo "st=$?"`, "st=126\n", true},
		{"a builtin takes it", `true "$big" "$big"; echo "st=$?"`, "st=0\n", false},
		{"a function takes it", `f() { return 3; }; f "$big"; echo "st=$?"`, "st=3\n", false},
		{"twenty strings fit", `set --; for i in {1..20}; do set -- "$@" "$c"; done; /bin/x "$@"; echo "st=$?"`, "st=127\n", false},
		{"twenty-one do not", `set --; for i in {1..21}; do set -- "$@" "$c"; done; /bin/x "$@"; echo "st=$?"`, "st=126\n", true},
		{"the environment counts", `export BIG=$big; /bin/x; echo "st=$?"`, "st=126\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, _, err := runScript(t, mk+tt.script, runOpts{})
			if err != nil {
				t.Fatal(err)
			}
			if out != tt.want {
				t.Errorf("stdout = %q, want %q", out, tt.want)
			}
			if got := strings.Contains(errOut, "t.sh: line 1: /bin/x: Argument list too long"); got != tt.e2big {
				t.Errorf("stderr = %q, E2BIG message: %v, want %v", errOut, got, tt.e2big)
			}
		})
	}
}
