package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestKnownPanicShapes (T-DOS-5, issue 19): every statement known to have crashed the former
// interpreter (mvdan.cc/sh's), inside a pipeline stage, a subshell, a command substitution and
// a background job, in both isolation modes: every call is answered, the script goes on after
// the wrapped statement, and the server keeps serving.
func TestKnownPanicShapes(t *testing.T) {
	t.Parallel()
	stmts := []string{`declare -n r=''; echo "$r"`, `declare -A A=(1 2 3); echo "${A[1]}"`, `declare -A a; echo "${a[a+1]}"`}
	wraps := []string{"{ %s; } | cat", "( %s )", `x=$( %s ); echo "x=$x"`, "{ %s; } & wait"}
	for _, iso := range []string{"inproc", "process"} {
		t.Run(iso, func(t *testing.T) {
			t.Parallel()
			root := isolationProject(t)
			// The tool timeout is a backstop: each call ends on its own.
			env := []string{"MCPBASH_DEFAULT_TOOL_TIMEOUT=120"}
			if iso == "process" {
				env = append(env, "MCPBASH_ISOLATION=process")
			}
			c := harness.Start(t, harness.Options{Dir: root, Env: env})
			c.Initialize("2025-11-25", nil)
			for _, s := range stmts {
				for _, w := range wraps {
					script := fmt.Sprintf(w, s) + "; echo survived"
					m := shCall(t, c, script)
					if m.Error != nil || !strings.HasSuffix(strings.Split(text(m), "\n[stderr]")[0], "survived") {
						t.Errorf("%s: %s", script, m.Raw)
					}
				}
			}
			if out := text(shCall(t, c, "echo alive")); out != "alive" {
				t.Fatalf("server after the panic shapes: %q\nstderr:\n%s", out, c.Stderr())
			}
			for _, bad := range []string{"panic:", "goroutine ", "internal error"} {
				if strings.Contains(c.Stderr(), bad) {
					t.Errorf("server stderr has %q:\n%s", bad, c.Stderr())
				}
			}
		})
	}
}
