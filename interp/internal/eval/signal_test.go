package eval_test

import (
	"errors"
	"testing"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
)

// TestKillReachesJobShell holds kill to how bash's background shell takes a signal: its
// trap, its ignoring, its wait, its EXIT trap. Each job says "ready" through a file once its
// traps are set, so the signal never comes before them.
func TestKillReachesJobShell(t *testing.T) {
	const await = `until [ -s ready ]; do sleep; done; `
	tests := []struct {
		name, job, after string
		want             string
		refused          bool
	}{
		{"trap runs and the job goes on",
			`(trap 'echo got' USR1; echo r > ready; while [ ! -e go ]; do sleep; done; echo body) &`,
			`kill -USR1 $!; sleep; sleep; : > go; wait $!; echo "st=$?"`, "got\nbody\nst=0\n", false},
		{"trap exits with its status",
			`(trap 'echo got; exit 3' USR1; echo r > ready; while :; do sleep; done) &`,
			`kill -USR1 $!; wait $!; echo "st=$?"`, "got\nst=3\n", false},
		{"ignored signal",
			`(trap '' TERM; echo r > ready; while [ ! -e go ]; do sleep; done; echo survived) &`,
			`kill $!; : > go; wait $!; echo "st=$?"`, "survived\nst=0\n", false},
		{"wait ends at a trapped signal",
			`(trap 'echo w' USR2; sleep forever & echo r > ready; wait; echo "wait=$?"; kill %1) &`,
			`kill -USR2 $!; wait $!; echo "st=$?"`, "w\nwait=140\nst=0\n", false},
		{"exit trap of a killed job",
			`(trap 'echo "bye $?"' EXIT; false; echo r > ready; sleep forever) &`,
			`kill $!; wait $!; echo "st=$?"`, "bye 0\nst=143\n", false},
		{"default-ignored signal",
			`(echo r > ready; while [ ! -e go ]; do sleep; done; echo alive) &`,
			`kill -CHLD $!; kill -QUIT $!; : > go; wait $!; echo "st=$?"`, "alive\nst=0\n", false},
		{"a subshell signals its shell's trap",
			`trap 'echo main > got' USR1; (trap 'echo sub > got' USR1; echo r > ready; kill -USR1 $$) &`,
			// The signal may come while the shell polls or while it waits: either way its
			// own trap runs, once.
			`wait; wait; read -r x < got; echo "$x"`, "main\n", false},
		{"a subshell ending its shell is refused",
			`(echo r > ready; kill -TERM $$) &`,
			`wait`, "", true},
		{"stopping a job is refused",
			`(echo r > ready; sleep forever) &`,
			`kill -STOP $!`, "", true},
		{"a nested subshell is refused",
			`(echo r > ready; (sleep forever)) &`,
			`kill $!`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, _, err := runScript(t, tt.job+"\n"+await+tt.after, runOpts{})
			var re *eval.RefusalError
			if tt.refused {
				if !errors.As(err, &re) {
					t.Fatalf("err = %v, want a refusal", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out != tt.want {
				t.Errorf("stdout = %q, want %q", out, tt.want)
			}
		})
	}
}
