package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestOriginalSuitesRunner drives test/original-suites.sh (make original-suites) over a stand-in
// checkout of our own making, laid out as the original's: its suites must reach our binary
// through bin/mcp-bash without the checkout being modified, a failure the known list names is
// KNOWN, any other fails the run, a known suite that passes is pointed out, and a suite that
// hangs is stopped by the timeout.
func TestOriginalSuitesRunner(t *testing.T) {
	t.Parallel()
	script := filepath.Join(harness.RepoRoot(), "test", "original-suites.sh")
	orig := t.TempDir()
	launcher := "#!/bin/sh\necho 'the original launcher ran' >&2\nexit 3\n"
	writeTree(t, orig, map[string]string{
		"bin/mcp-bash": launcher,
		// Reaches our binary through the checkout's launcher, and has a working gojq or jq -e.
		"test/integration/test_ok.sh": `set -e
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
"$here/../../bin/mcp-bash" --version | grep -q '^mcp-bash '
j=jq; command -v gojq >/dev/null && j=gojq
printf '{"a":1}\n{"b":2}\n' | "$j" -e 'select(.a) | .a == 1' >/dev/null
`,
		"test/integration/test_known.sh": "echo 'expected failure' >&2; exit 1\n",
		"test/integration/test_bad.sh":   "echo 'the last line of the log' >&2; exit 1\n",
		"test/integration/test_fixed.sh": "exit 0\n",
		"test/integration/helper.sh":     "exit 1\n",
		"test/examples/test_examples.sh": "exit 0\n",
		"test/smoke.sh":                  "exit 0\n",
		"test/slow/test_hang.sh":         "sleep 600\n",
	})
	known := filepath.Join(t.TempDir(), "known")
	if err := os.WriteFile(known, []byte("# comment\ntest_known.sh  fails by decision\ntest_fixed.sh was fixed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"KNOWN=" + known, "TMPDIR=" + t.TempDir()}
	out, errOut, code := runCmd(t, t.TempDir(), env, "bash", script, harness.Binary(t), orig)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (test_bad.sh is not known)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"PASS  test/integration/test_ok.sh\n",
		"KNOWN test/integration/test_known.sh: fails by decision\n",
		"FAIL  test/integration/test_bad.sh: the last line of the log\n",
		"PASS  test/integration/test_fixed.sh (listed as known: remove it from known)\n",
		"PASS  test/examples/test_examples.sh\n",
		"PASS  test/smoke.sh\n",
		"total=6 passed=4 failed=1 known=1\n",
		"known failures that now pass: test_fixed.sh\n",
		"logs: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "helper.sh") || strings.Contains(out, "test_hang.sh") {
		t.Errorf("ran a file that is not a suite:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(orig, "bin", "mcp-bash")); err != nil || string(b) != launcher {
		t.Errorf("the checkout's launcher changed: %q %v", b, err)
	}
	// The kept logs are the runner's to leave; the test's TMPDIR removes them.

	// Only the named suites; all pass, so exit 0.
	out, errOut, code = runCmd(t, t.TempDir(), env, "bash", script, harness.Binary(t), orig, "test_ok.sh", "test_known.sh")
	if code != 0 || !strings.Contains(out, "total=2 passed=1 failed=0 known=1\n") {
		t.Errorf("named suites: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// A suite that does not end is stopped and fails.
	hang := t.TempDir()
	writeTree(t, hang, map[string]string{"test/integration/test_hang.sh": "sleep 600\n"})
	out, errOut, code = runCmd(t, t.TempDir(), append(env, "SUITE_TIMEOUT=1"), "bash", script, harness.Binary(t), hang)
	if code != 1 || !strings.Contains(out, "FAIL  test/integration/test_hang.sh (timed out after 1s)") {
		t.Errorf("hanging suite: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// Usage errors: exit 2 with a message.
	for _, args := range [][]string{{}, {harness.Binary(t), t.TempDir()}, {harness.Binary(t), orig, "test_nope.sh"}} {
		_, errOut, code := runCmd(t, t.TempDir(), env, append([]string{"bash", script}, args...)...)
		if code != 2 || !strings.Contains(errOut, "original-suites") && !strings.Contains(errOut, "usage") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

// TestOriginalSuitesKnownDocumented holds test/original-suites.known to docs/COMPATIBILITY.md:
// every suite allowed to fail has a reason in the list and is named (`suite`, without test_ and
// .sh) on that page, where the reason is told in full.
func TestOriginalSuitesKnownDocumented(t *testing.T) {
	t.Parallel()
	known, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "test", "original-suites.known"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "docs", "COMPATIBILITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(known), "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		n++
		name := fields[0]
		if !strings.HasPrefix(name, "test_") || !strings.HasSuffix(name, ".sh") || len(fields) < 3 {
			t.Errorf("%q: want a suite's file name (test_*.sh) and its reason", line)
			continue
		}
		short := strings.TrimSuffix(strings.TrimPrefix(name, "test_"), ".sh")
		if !strings.Contains(string(doc), "`"+short+"`") {
			t.Errorf("%s is a known failure that docs/COMPATIBILITY.md does not name (`%s`)", name, short)
		}
	}
	if n == 0 {
		t.Error("the known list is empty: nothing read")
	}
}
