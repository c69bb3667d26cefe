package e2e

import (
	"os/exec"
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
		{name: "missing project root env", env: []string{"MCPBASH_PROJECT_ROOT=/nonexistent/x"}, code: 1, err: "is not a directory"},
		{name: "missing project root flag", args: []string{"--project-root", "/nonexistent/y"}, code: 1, err: "is not a directory"},
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
