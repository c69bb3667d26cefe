package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunScript: `mcp-bash run-script` runs a script in the sandbox engine with the working
// directory as its root: its output and status as the script's, arguments as its own (flags
// included), a write outside the root refused, a refusal named in --json, --env's variables.
func TestRunScript(t *testing.T) {
	t.Parallel()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	work := filepath.Join(base, "w")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(base, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain.sh", "echo \"out $*\"; echo err >&2; echo x > inside.txt; echo y > ../outside.txt || echo refused; exit 3\n")
	out, errOut, code := runCLI(t, work, nil, "run-script", plain, "-a", "--b")
	if code != 3 || out != "out -a --b\nrefused\n" || !strings.Contains(errOut, "err\n") || !strings.Contains(errOut, "(sandbox: ") {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(work, "inside.txt")); err != nil {
		t.Errorf("the write inside the root did not happen: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "outside.txt")); err == nil {
		t.Errorf("the write outside the root happened")
	}

	refused := write("refused.sh", "echo before\necho ~root\n")
	out, _, code = runCLI(t, work, nil, "run-script", "--json", refused)
	var r struct {
		Stdout, Stderr string
		ExitCode       int
		Refused        *struct {
			File      string
			Line      int
			Construct string
			Fix       string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json: %v: %s", err, out)
	}
	if code == 0 || r.ExitCode != code || r.Refused == nil || r.Refused.File != refused || r.Refused.Line != 2 ||
		!strings.Contains(r.Refused.Construct, "~root") || r.Refused.Fix == "" || r.Stdout != "before\n" {
		t.Fatalf("exit %d, report %s", code, out)
	}

	// --env adds to the script's environment (the sandbox's own has no host variable), and a
	// child shell sees it exported; a name that is no variable name is a usage error.
	envScript := write("env.sh", "echo \"[$SH] [$HOME_X]\"; bash -c 'echo \"child [$SH]\"'\n")
	out, _, code = runCLI(t, work, []string{"SH=host-value"}, "run-script", "--env", "SH=bash", "--env", "HOME_X=a=b", envScript)
	if code != 0 || out != "[bash] [a=b]\nchild [bash]\n" {
		t.Fatalf("--env: exit %d, stdout %q", code, out)
	}
	if _, errOut, code = runCLI(t, work, nil, "run-script", "--env", "1X=y", envScript); code != 2 || !strings.Contains(errOut, "--env") {
		t.Fatalf("--env 1X=y: exit %d, stderr %q", code, errOut)
	}

	_, errOut, code = runCLI(t, work, nil, "run-script", filepath.Join(base, "missing.sh"))
	if code != 1 || !strings.Contains(errOut, "missing.sh") {
		t.Fatalf("missing script: exit %d, stderr %q", code, errOut)
	}
}

// TestRunScriptLeavesNoScratch: the call's scratch tree (under MCPBASH_TMP_ROOT, /dev/shm by
// default: memory) is gone when run-script exits. The engine removes it after answering, and
// the process used to end first in about half the runs, leaving the tree and what the script
// wrote there.
func TestRunScriptLeavesNoScratch(t *testing.T) {
	t.Parallel()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	tmpRoot := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmpRoot, 0o700); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(base, "writes.sh")
	if err := os.WriteFile(script, []byte("echo data > \"$TMPDIR/f\"; echo data > \"$HOME/g\"; echo ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		out, errOut, code := runCLI(t, base, []string{"MCPBASH_TMP_ROOT=" + tmpRoot}, "run-script", script)
		if code != 0 || out != "ok\n" {
			t.Fatalf("run %d: exit %d, stdout %q, stderr %q", i, code, out, errOut)
		}
		if left, _ := os.ReadDir(tmpRoot); len(left) != 0 {
			t.Fatalf("run %d left %d entries in the scratch base (first %s)", i, len(left), left[0].Name())
		}
	}
}
