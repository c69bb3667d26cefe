package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

func runCLI(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCmd(t, dir, env, append([]string{harness.Binary(t)}, args...)...)
}

func runCmd(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}, env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func TestCLIBasics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name       string
		env, args  []string
		code       int
		out, err   string
		emptyStdio bool
	}{
		{name: "version", args: []string{"--version"}, out: "mcp-bash "},
		{name: "help", args: []string{"--help"}, out: "Usage:"},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, err: "Unknown command: frobnicate"},
		{name: "version verb", args: []string{"version"}, out: "mcp-bash "},
		{name: "missing project root env", env: []string{"MCPBASH_PROJECT_ROOT=/nonexistent/x"}, code: 1, err: "MCPBASH_PROJECT_ROOT /nonexistent/x does not exist"},
		{name: "missing project root flag", args: []string{"--project-root", "/nonexistent/y"}, code: 1, err: "project root /nonexistent/y does not exist"},
		{name: "project root not a directory", args: []string{"--project-root", "/etc/hostname"}, code: 1, err: "project root /etc/hostname is not a directory"},
		// A mistyped flag never starts a server on the wrong project.
		{name: "unknown flag", args: []string{"--projet-root", "x"}, code: 2, err: "unknown flag: --projet-root (did you mean --project-root?)"},
		{name: "unknown verb flag", args: []string{"run-tool", "hello", "--arg", "{}"}, code: 2, err: "unknown flag: --arg (did you mean --args?)"},
		{name: "unknown flag far from any", args: []string{"--zzzzzzzz"}, code: 2, err: "Error: unknown flag: --zzzzzzzz\nRun 'mcp-bash --help' for usage."},
		{name: "doctor on a missing project", args: []string{"doctor", "--project-root", "/nonexistent/z"}, code: 1, out: "project:            error: project root /nonexistent/z does not exist\nproblems:           1\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, e, code := runCLI(t, dir, tc.env, tc.args...)
			if code != tc.code || !strings.Contains(o, tc.out) || !strings.Contains(e, tc.err) {
				t.Errorf("code=%d stdout=%q stderr=%q", code, o, e)
			}
		})
	}
}

// --project-root and MCPBASH_PROJECT_ROOT select the project; otherwise it is found by walking
// up from the working directory to server.d/server.meta.json.
func TestProjectRootResolution(t *testing.T) {
	t.Parallel()
	proj := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"found-me"}`,
		"sub/deeper/keep":           "",
	})
	name := func(o harness.Options) string {
		c := harness.Start(t, o)
		var r struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		}
		c.Initialize("2025-11-25", nil).Decode(t, &r)
		c.CloseStdin()
		_ = c.Wait(5 * time.Second)
		return r.ServerInfo.Name
	}
	other := t.TempDir()
	if got := name(harness.Options{Dir: proj + "/sub/deeper"}); got != "found-me" {
		t.Errorf("walk up: %q", got)
	}
	if got := name(harness.Options{Dir: other, Args: []string{"--project-root", proj}}); got != "found-me" {
		t.Errorf("--project-root: %q", got)
	}
	if got := name(harness.Options{Dir: other, Env: []string{"MCPBASH_PROJECT_ROOT=" + proj}}); got != "found-me" {
		t.Errorf("MCPBASH_PROJECT_ROOT: %q", got)
	}
	if got := name(harness.Options{Dir: other}); got != "mcp-bash-getting-started" {
		t.Errorf("no project: %q", got)
	}
}

func runCmdOut(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}

// A malformed setting stops the server and every verb at start-up with one line naming it;
// config --show says which and redacts secrets.
func TestCLIConfigValidation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, e, code := runCLI(t, dir, nil, "new", "proj"); code != 0 {
		t.Fatalf("new: %d %s", code, e)
	}
	proj := filepath.Join(dir, "proj")
	bad := []string{"MCPBASH_MAX_HEAP_MB=2G", "MCPBASH_REMOTE_TOKEN=s3cret"}
	want := `MCPBASH_MAX_HEAP_MB="2G": want an integer from 0 to 1048576`
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"server", nil, 1},
		{"run-tool", []string{"run-tool", "hello"}, 2},
		{"validate", []string{"validate"}, 2},
		{"scaffold", []string{"scaffold", "tool", "x"}, 2},
		{"config show", []string{"config", "--show"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, e, code := runCLI(t, proj, bad, tc.args...)
			lines := strings.Split(strings.TrimSpace(e), "\n")
			if code != tc.code || len(lines) != 1 || !strings.Contains(lines[0], want) {
				t.Errorf("exit %d (want %d), stderr %q", code, tc.code, e)
			}
			if strings.Contains(out+e, "s3cret") {
				t.Errorf("the secret was printed:\n%s%s", out, e)
			}
		})
	}
	out, _, _ := runCLI(t, proj, bad, "config", "--show")
	if !strings.Contains(out, "MCPBASH_REMOTE_TOKEN") || !strings.Contains(out, "(set, redacted)") {
		t.Errorf("config --show:\n%s", out)
	}
}
