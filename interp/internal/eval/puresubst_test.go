package eval_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
)

// pureBuiltins are Go commands that only read the shell, as the SDK's do: pb prints its
// arguments, a variable it reads, its working directory and the line it runs on, then exits
// with the status $PB_STATUS asks for (through an ExitRequest when PB_EXIT is set); pbnul
// prints a NUL byte and a trailing newline; pbin copies its stdin.
func pureBuiltins(name string) eval.BuiltinFunc {
	switch name {
	case "pb":
		return func(_ context.Context, sh *eval.Shell, args []string) (int, error) {
			v, _ := sh.Get("PB_VAR")
			_, line := sh.Pos()
			pid, _ := sh.Get("BASHPID")
			level, _ := sh.Get("BASH_SUBSHELL")
			opts, _ := sh.Get("SHELLOPTS")
			fmt.Fprintf(sh.Stdout(), "args=%q var=%q line=%d pid=%s level=%s opts=%s\n\n", args[1:], v, line, pid, level, opts)
			fmt.Fprintln(sh.Stderr(), "pb says")
			st := 0
			if s, ok := sh.Get("PB_STATUS"); ok {
				fmt.Sscan(s, &st)
			}
			if _, ok := sh.Get("PB_EXIT"); ok && st != 0 {
				return st, eval.ExitRequest{Status: st}
			}
			return st, nil
		}
	case "pbnul":
		return func(_ context.Context, sh *eval.Shell, _ []string) (int, error) {
			_, _ = io.WriteString(sh.Stdout(), "a\x00b\n")
			return 0, nil
		}
	case "pbin":
		return func(_ context.Context, sh *eval.Shell, _ []string) (int, error) {
			_, _ = io.Copy(sh.Stdout(), sh.Stdin())
			return 0, nil
		}
	}
	return nil
}

// TestPureSubstMatchesSubshell: a command substitution of a Pure builtin run in place gives
// what the subshell gives: output, status, $?, errors, later BASHPID numbers, errexit and
// exits, unset variables under set -u, and everything it must not change.
func TestPureSubstMatchesSubshell(t *testing.T) {
	inPlaceRuns := 0
	pure := func(name string) bool {
		inPlaceRuns++ // asked only once every other condition of running in place holds
		return strings.HasPrefix(name, "pb")
	}
	scripts := []string{
		`W="x  y"; x="$(pb a 'b c' "$HOME" $W)"; echo "[$x] $?"`,
		`PB_VAR=v; x=$(pb "Hello, ${PB_VAR}!"); echo "$x"; echo $(pb)`,
		`set -- one "two words"; echo "$(pb "$1" $2 "$@" $# "$*")"`,
		`PB_STATUS=3; x=$(pb); echo "status $?"; PB_EXIT=1; y=$(pb); echo "exit $? [$y]"`,
		`set -e; PB_STATUS=4 ; x=$(PB_STATUS=0 pb) || true; echo ok; x=$(pb) ; echo not reached`,
		`set -e; PB_STATUS=4; PB_EXIT=1; echo "$(pb)"; echo after $?`,
		`set -e; shopt -s inherit_errexit; x=$(pb); echo "$x"; ( y=$(pb); echo "$y" )`,
		`set -u; x=$(pb "$UNSET_VAR"); echo "after $?"`,
		`x=$(pb "${UNSET_VAR-d}" $SECONDS); echo "${#x}"`,
		`x=$(pbnul); echo "${#x}"`,
		`echo in | { x=$(pbin); echo "[$x]"; }`,
		`a=$(pb); echo "$BASHPID $(echo $BASHPID) $(pb x)"; echo $(echo $BASHPID)`,
		`f() { echo fn; }; pb() { echo shell-function; }; echo "$(pb)"`,
		"x=$(\n pb multi\n)\necho \"$x\" $LINENO",
		`x=$(pb) && echo "$_"; echo "$_"`,
		`trap 'echo trapped' EXIT; x=$(pb t); echo "$x"`,
		`set -x; x=$(pb traced); set +x; echo "$x"`,
		`x=$(pb >&2); echo "[$x]"`,
		`x=$(pb; pb); echo "$x"`,
		`declare -n ref=PB_VAR; PB_VAR=r; x=$(pb "$ref"); echo "$x"`,
		`arr=(a b); x=$(pb $arr "${arr[1]}"); echo "$x"`,
	}
	for _, s := range scripts {
		inPlace, inErr, inSt, err1 := runScript(t, s, runOpts{builtin: pureBuiltins, pure: pure})
		sub, subErr, subSt, err2 := runScript(t, s, runOpts{builtin: pureBuiltins})
		if inPlace != sub || inErr != subErr || inSt != subSt || fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Errorf("%s\nin place: %q %q %d %v\nsubshell: %q %q %d %v", s, inPlace, inErr, inSt, err1, sub, subErr, subSt, err2)
		}
	}
	if inPlaceRuns < 10 { // the others fall back to a subshell on purpose
		t.Errorf("only %d substitutions ran in place", inPlaceRuns)
	}
}

// TestPureSubstLimits: in place, the substitution still counts against MaxCommands and
// charges its output against MaxMemory.
func TestPureSubstLimits(t *testing.T) {
	pure := func(name string) bool { return strings.HasPrefix(name, "pb") }
	for _, tc := range []struct {
		script string
		limits eval.Limits
		kind   eval.LimitKind
	}{
		{`while :; do x=$(pb); done`, eval.Limits{MaxCommands: 500}, eval.LimitCommands},
		{`x=a; while :; do x=$x$x; y=$(pb "$x"); done`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
	} {
		_, _, _, err := runScript(t, tc.script, runOpts{builtin: pureBuiltins, pure: pure, limits: tc.limits})
		var le *eval.LimitError
		if !errors.As(err, &le) || le.Kind != tc.kind {
			t.Errorf("%s: %v, want the %v", tc.script, err, tc.kind)
		}
	}
}
