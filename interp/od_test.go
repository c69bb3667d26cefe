package interp

import (
	"os/exec"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// TestOdRunsInSandbox checks that scripts reach the od utility (not "command not found") and
// print what bash with GNU od prints.
func TestOdRunsInSandbox(t *testing.T) {
	script := `echo -e '\0377' | od -A n -t x1
printf 'a\tb\0\n' | od -c
printf '\1\2\3' | od -An -tx2
echo status $?
`
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
	want, err := cmd.Output()
	if err != nil {
		t.Skipf("no bash with od here: %v", err)
	}
	out, _ := run(t, script, sandbox.Limits{Timeout: 2 * time.Minute})
	if string(out.Stdout) != string(want) || out.ExitCode != 0 {
		t.Errorf("got (exit %d):\n%s\nwant:\n%s\nstderr: %s", out.ExitCode, out.Stdout, want, out.Stderr)
	}
}
