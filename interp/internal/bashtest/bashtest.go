// Package bashtest runs snippets under the real Bash 5.2 (/bin/bash) for the
// differential tests of the evaluator's packages. It is used by tests only.
//
// Known limits: cases run in subshells of one bash process, so they must not
// depend on the process (pids, $BASHPID, traps inherited by subshells).
package bashtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// Path is the Bash used as the oracle.
const Path = "/bin/bash"

// Require skips the test when Bash 5.2 is not at Path, except under CI, where
// it fails: the differential tests are the point.
func Require(t testing.TB) {
	t.Helper()
	harness.CleanChildren(t)
	out, err := exec.Command(Path, "-c", `echo "${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}"`).Output()
	if err == nil && strings.TrimSpace(string(out)) == "5.2" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("bash 5.2 needed at %s: %v %q", Path, err, out)
	}
	t.Skipf("bash 5.2 not at %s", Path)
}

var linePrefix = regexp.MustCompile(`(?m)^(/bin/bash|bash|environment): line [0-9]+: `)

// Batch runs each snippet in its own subshell of one Bash process (with
// LC_ALL=C.UTF-8) and returns, per snippet, its stdout and stderr merged,
// followed by "rc=N". The "bash: line N: " prefix of messages is removed.
func Batch(t testing.TB, prelude string, snippets []string) []string {
	t.Helper()
	const mark = "@@case@@"
	var sb strings.Builder
	sb.WriteString(prelude)
	sb.WriteString("\n")
	for i, s := range snippets {
		fmt.Fprintf(&sb, "printf '%%s %d\\n' %q\n( %s\n) 2>&1\necho \"rc=$?\"\n", i, mark, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, Path, "--norc", "--noprofile")
	cmd.Stdin = strings.NewReader(sb.String())
	cmd.Env = []string{"LC_ALL=C.UTF-8", "LANG=C.UTF-8", "PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("bash: %v\n%s", err, tail(out.String()))
	}
	parts := strings.Split(out.String(), mark+" ")
	res := make([]string, len(snippets))
	if len(parts) != len(snippets)+1 {
		t.Fatalf("bash batch: %d outputs for %d snippets\n%s", len(parts)-1, len(snippets), tail(out.String()))
	}
	for i, p := range parts[1:] {
		nl := strings.IndexByte(p, '\n')
		if nl < 0 || p[:nl] != fmt.Sprint(i) {
			t.Fatalf("bash batch: output %d out of order: %q", i, p)
		}
		res[i] = linePrefix.ReplaceAllString(p[nl+1:], "")
	}
	return res
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
