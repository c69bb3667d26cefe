package interp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// mcpBashBinary is the binary that serves `__confine`: MCPBASH_TEST_BINARY, else ./cmd/mcp-bash
// built into a temporary directory.
func mcpBashBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPBASH_TEST_BINARY"); p != "" {
		return p
	}
	bin := filepath.Join(t.TempDir(), "mcp-bash")
	build := exec.Command("go", "build", "-o", bin, "./cmd/mcp-bash")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/mcp-bash: %v\n%s", err, out)
	}
	return bin
}

// Allowlisted external commands run under Landlock: the host refuses them what the sandbox's
// own filesystem would (`cat` and `fold` are Go utilities, so `fmt` and `bash -c 'cat ...'` are the host
// programs here).
func TestExternalCommandsAreConfined(t *testing.T) {
	if _, err := sandbox.LandlockStatus(); err != nil {
		t.Skipf("Landlock unavailable: %v", err)
	}
	conf := &sandbox.Confiner{Self: mcpBashBinary(t), Required: true}
	project, _ := filepath.EvalSymlinks(t.TempDir())
	readOnly, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	for dir, text := range map[string]string{project: "inside-root", readOnly: "read-only-root", outside: "outside"} {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runJob := func(t *testing.T, script string, c *sandbox.Confiner) (*engine.Outcome, []sandbox.Access) {
		t.Helper()
		p := filepath.Join(project, "tool.sh")
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		e, err := NewEngine(0)
		if err != nil {
			t.Fatal(err)
		}
		out := e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t"}, Script: p, Dir: project, ScratchBase: scratchFor(t, e),
			Confiner: c, Policy: sandbox.Policy{
				Roots:   []sandbox.Root{{Path: project, Mode: sandbox.ReadWrite}, {Path: readOnly, Mode: sandbox.ReadOnly}},
				ToolDir: project, Allow: []string{"fmt", "bash"}}})
		var rec struct{ Entries []sandbox.Access }
		if len(out.Access) > 0 {
			if err := json.Unmarshal(out.Access, &rec); err != nil {
				t.Fatalf("access record %s: %v", out.Access, err)
			}
		}
		return out, rec.Entries
	}
	for _, tc := range []struct {
		name, script string
		ok           bool
		out          string
	}{
		{"fmt /etc/passwd", `fmt /etc/passwd`, false, ""},
		{"bash -c cat /etc/passwd", `bash -c 'cat /etc/passwd'`, false, ""},
		{"fmt of a file outside the roots", `fmt ` + outside + `/f.txt`, false, ""},
		{"fmt of a file in the root", `fmt f.txt`, true, "inside-root"},
		{"cat in the read-only root", `bash -c 'cat "$1/f.txt"' _ ` + readOnly, true, "read-only-root"},
		{"write in the read-only root", `bash -c 'echo x > "$1/new"' _ ` + readOnly, false, ""},
		{"write in the root and the scratch dir", `bash -c 'echo a > new.txt && echo b > "$TMPDIR/s" && cat new.txt "$TMPDIR/s"'`, true, "a\nb\n"},
		// T-EXEC-4: HOME and the configuration dirs are empty and read-only.
		{"write a config file in HOME", `bash -c 'echo x > "$HOME/.gitconfig"'`, false, ""},
		{"write in XDG_CONFIG_HOME", `bash -c 'mkdir -p "$XDG_CONFIG_HOME/git"'`, false, ""},
		{"TCP connect", `bash -c 'echo x >/dev/tcp/127.0.0.1/9'`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, rec := runJob(t, tc.script, conf)
			if (out.ExitCode == 0) != tc.ok || !strings.Contains(string(out.Stdout), tc.out) {
				t.Fatalf("exit %d (want success %v)\nstdout: %s\nstderr: %s", out.ExitCode, tc.ok, out.Stdout, out.Stderr)
			}
			if !tc.ok && !strings.Contains(string(out.Stderr), "Permission denied") {
				t.Fatalf("refused, but not by Landlock?\nstderr: %s", out.Stderr)
			}
			if !hasEntry(rec, "confined by Landlock") {
				t.Fatalf("access record does not say the command was confined: %+v", rec)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(readOnly, "new")); err == nil {
		t.Error("the read-only root was written")
	}

	// Without a Confiner the same command reaches the host (this is what Landlock closes).
	t.Run("unconfined without a Confiner", func(t *testing.T) {
		out, rec := runJob(t, `fmt `+outside+`/f.txt`, nil)
		if out.ExitCode != 0 || hasEntry(rec, "confined") {
			t.Fatalf("exit %d stderr %s record %+v", out.ExitCode, out.Stderr, rec)
		}
	})

	// A Confiner that cannot wrap refuses the command: status 126, a message, a refusal.
	t.Run("wrap failure refuses the command", func(t *testing.T) {
		out, rec := runJob(t, `fmt f.txt; echo "status $?"`, &sandbox.Confiner{Required: true})
		if string(out.Stdout) != "status 126\n" || !strings.Contains(string(out.Stderr), "mcp-bash: fmt: confine: no mcp-bash binary") {
			t.Fatalf("stdout %q stderr %q", out.Stdout, out.Stderr)
		}
		refused := false
		for _, a := range rec {
			refused = refused || (a.Op == "exec" && !a.Allowed && strings.HasPrefix(a.Reason, "cannot be confined"))
		}
		if !refused {
			t.Fatalf("no refusal in the access record: %+v", rec)
		}
	})
}

func hasEntry(rec []sandbox.Access, reason string) bool {
	for _, a := range rec {
		if a.Op == "exec" && a.Allowed && strings.Contains(a.Reason, reason) {
			return true
		}
	}
	return false
}
