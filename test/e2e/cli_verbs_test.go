package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestReadmeFlow is the README's first minute: new, config, run-tool --sandbox, smoke test.
func TestReadmeFlow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	binDir := filepath.Dir(harness.Binary(t))
	path := []string{"PATH=" + binDir + ":/usr/bin:/bin"}
	if _, err := os.Stat(filepath.Join(binDir, "mcp-bash")); err != nil {
		t.Skip("binary is not named mcp-bash")
	}
	out, errOut, code := runCLI(t, dir, path, "new", "demo")
	if code != 0 || !strings.Contains(out, "created demo/tools/hello/tool.sh") {
		t.Fatalf("new: %d %s %s", code, out, errOut)
	}
	proj := filepath.Join(dir, "demo")
	out, _, code = runCLI(t, proj, path, "config", "--client", "claude-desktop")
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &cfg) != nil || cfg.MCPServers["demo"].Command == "" {
		t.Fatalf("config: %d %s", code, out)
	}
	out, errOut, code = runCLI(t, proj, path, "run-tool", "hello", "--sandbox")
	if code != 0 || !strings.Contains(out, "Hello, World!") || !strings.Contains(out, "access record:") {
		t.Fatalf("run-tool --sandbox: %d %s %s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, proj, path, "validate")
	if code != 0 || !strings.Contains(out, "0 error(s)") {
		t.Fatalf("validate: %d %s %s", code, out, errOut)
	}
	// The scaffolded smoke test works as generated.
	cmd := []string{"bash", filepath.Join(proj, "tools", "hello", "smoke.sh")}
	if o, e, c := runCmd(t, proj, path, cmd...); c != 0 || !strings.Contains(o, "ok: hello") {
		t.Fatalf("smoke.sh: %d %s %s", c, o, e)
	}
	// ... and without mcp-bash on PATH, with the binary that generated it.
	if o, e, c := runCmd(t, proj, nil, cmd...); c != 0 || !strings.Contains(o, "ok: hello") {
		t.Fatalf("smoke.sh without mcp-bash on PATH: %d %s %s", c, o, e)
	}
}

func TestCLIVerbs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runCLI(t, dir, nil, "new", "proj")
	proj := filepath.Join(dir, "proj")
	os.WriteFile(filepath.Join(proj, "tools", "hello", "args.json"), []byte(`{"name":"File"}`), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"new over an existing dir", []string{"new", "tools"}, 1, ""},
		{"new bad name", []string{"new", "bad.name"}, 1, ""},
		{"init in a project", []string{"init"}, 1, ""},
		{"scaffold tool", []string{"scaffold", "tool", "second"}, 0, "created"},
		{"scaffold tool twice", []string{"scaffold", "tool", "second"}, 1, ""},
		{"scaffold prompt", []string{"scaffold", "prompt", "summary"}, 0, "prompts/summary.txt"},
		{"scaffold resource", []string{"scaffold", "resource", "notes"}, 0, "resources/notes.txt"},
		{"scaffold completion", []string{"scaffold", "completion", "summary"}, 0, "server.d/register.json"},
		{"run-tool args file", []string{"run-tool", "hello", "--args", "@tools/hello/args.json"}, 0, "Hello, File!"},
		{"run-tool bad args", []string{"run-tool", "hello", "--args", "[1]"}, 2, ""},
		{"run-tool invalid arguments", []string{"run-tool", "hello", "--args", `{"name":5}`}, 1, "Invalid arguments for tool 'hello'"},
		{"run-tool unknown", []string{"run-tool", "nope"}, 1, "not found"},
		{"run-tool dry-run", []string{"run-tool", "hello", "--dry-run"}, 0, "mcp_args_get"},
		{"run-tool print-env", []string{"run-tool", "hello", "--print-env"}, 0, "MCP_TOOL_NAME=hello"},
		{"run-tool native", []string{"run-tool", "hello", "--exec", "native"}, 0, `Hello, World!`},
		{"run-tool unknown engine", []string{"run-tool", "hello", "--exec", "bogus"}, 2, ""},
		{"registry refresh", []string{"registry", "refresh"}, 0, `"status": "ok"`},
		{"registry status", []string{"registry", "status"}, 0, `"kind": "tools"`},
		{"health", []string{"health"}, 0, `"status": "ok"`},
		{"validate json", []string{"validate", "--json"}, 0, `"ok": true`},
		{"doctor json", []string{"doctor", "--json"}, 0, `"landlockABI"`},
		{"config wrapper", []string{"config", "--wrapper"}, 0, "exec "},
		{"config unknown client", []string{"config", "--client", "emacs"}, 2, ""},
		{"completion bash", []string{"completion", "bash"}, 0, "bash completion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, proj, nil, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
		})
	}
	// A scaffolded prompt and resource are served.
	c := harness.Start(t, harness.Options{Dir: proj})
	c.Initialize("2025-11-25", nil)
	if m := c.Call("prompts/get", map[string]any{"name": "summary", "arguments": map[string]any{"notes": "n"}}); m.Error != nil {
		t.Errorf("scaffolded prompt: %s", m.Raw)
	}
	if m := c.Call("resources/read", map[string]any{"name": "notes"}); m.Error != nil {
		t.Errorf("scaffolded resource: %s", m.Raw)
	}
	if m := c.Call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "summary"}, "argument": map[string]any{"name": "audience", "value": "al"}}); !strings.Contains(string(m.Raw), `"alpha"`) {
		t.Errorf("scaffolded completion: %s", m.Raw)
	}
}

// Health never writes the registry cache, and reports misconfiguration with exit 2.
func TestHealthIsReadOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runCLI(t, dir, nil, "new", "p", "--no-hello")
	proj := filepath.Join(dir, "p")
	if _, _, code := runCLI(t, proj, nil, "health"); code != 0 {
		t.Fatalf("health exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(proj, ".registry")); err == nil {
		t.Error("health wrote .registry")
	}
	os.WriteFile(filepath.Join(proj, "server.d", "register.json"), []byte(`{"version":9}`), 0o644)
	if out, _, code := runCLI(t, proj, nil, "health"); code != 2 || !strings.Contains(out, "misconfigured") {
		t.Errorf("broken register.json: %d %s", code, out)
	}
	if _, e, code := runCLI(t, t.TempDir(), nil, "health"); code != 2 || !strings.Contains(e, "") {
		t.Errorf("no project: %d", code)
	}
}

// The sandbox audit exits non-zero when the tool tried something it may not do.
func TestRunToolAuditRefusals(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	out, _, code := runCLI(t, p.root, nil, "run-tool", "sh", "--sandbox", "--json", "--args", `{"script":"cat /etc/passwd; perl -v; echo done"}`)
	var report struct {
		Refused int
		Access  []struct {
			Op, Path string
			Allowed  bool
		}
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if code != 3 || report.Refused < 2 {
		t.Errorf("exit %d, refused %d\n%s", code, report.Refused, out)
	}
	// A file missing inside the roots is no refusal (bash: No such file or directory): the
	// access is recorded as allowed, not found, and run-tool does not exit 3 for it.
	out, _, code = runCLI(t, p.root, nil, "run-tool", "sh", "--sandbox", "--json", "--args",
		`{"script":"cat missing || echo \"cat: $?\"; echo x > nodir/f; . ./nosuch.sh; echo done"}`)
	report.Refused, report.Access = -1, nil
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	missing := false
	for _, a := range report.Access {
		missing = missing || a.Op == "write" && strings.HasSuffix(a.Path, "/nodir/f") && a.Allowed
	}
	if code != 0 || report.Refused != 0 || !missing || !strings.Contains(out, "cat: 1") || !strings.Contains(out, "No such file or directory") {
		t.Errorf("a missing file: exit %d, refused %d, recorded as allowed %v; want 0, 0, true\n%s", code, report.Refused, missing, out)
	}
}

// TestRunToolRecordFlood (T-DOS-14, issue 27): after more harmless reads than the record lists,
// a write and a refused read are still in run-tool's access record, the reads left out are
// counted, repeats are counted, and the refusal makes run-tool exit 3 in JSON and in text.
func TestRunToolRecordFlood(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	script := `for i in $(seq 12000); do : > "$TMPDIR/f$i"; done; for i in $(seq 12000); do cat "$TMPDIR/f$i"; done; ` +
		`echo w > "$TMPDIR/written"; for i in 1 2 3; do cat /etc/passwd; done; echo done`
	args, _ := json.Marshal(map[string]string{"script": script})
	out, _, code := runCLI(t, p.root, nil, "run-tool", "sh", "--sandbox", "--json", "--timeout", "120", "--args", string(args))
	var report struct {
		Refused, Truncated int
		Access             []struct {
			Op, Path string
			Allowed  bool
			Count    int
		}
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("json: %v\n%.2000s", err, out)
	}
	wrote, refusedRead := false, 0
	for _, a := range report.Access {
		wrote = wrote || a.Op == "write" && strings.HasSuffix(a.Path, "/written") && a.Allowed
		if !a.Allowed && strings.HasSuffix(a.Path, "/etc/passwd") {
			refusedRead = a.Count
		}
	}
	if code != 3 || !wrote || refusedRead != 3 || report.Refused != 3 || report.Truncated == 0 {
		t.Errorf("exit %d, the write recorded %v, the refused read %d times, refused %d, truncated %d; want 3, true, 3, 3, > 0",
			code, wrote, refusedRead, report.Refused, report.Truncated)
	}
	text, _, code := runCLI(t, p.root, nil, "run-tool", "sh", "--sandbox", "--timeout", "120", "--args", string(args))
	if code != 3 || !strings.Contains(text, "more reads, not listed") || !strings.Contains(text, "×3") {
		t.Errorf("text: exit %d\n%.3000s", code, text[max(0, len(text)-3000):])
	}
}

// debug serves as usual and records every line in a payload log with secrets redacted.
func TestDebugPayloadLog(t *testing.T) {
	t.Parallel()
	logPath := filepath.Join(t.TempDir(), "payload.log")
	c := harness.Start(t, harness.Options{Dir: t.TempDir(), Args: []string{"debug", "--log", logPath}, Env: []string{"MCPBASH_REMOTE_TOKEN=" + remoteToken}})
	c.Send(tokenLine(1, "initialize", "mcpbash/remoteToken", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}}),
		tokenLine(nil, "notifications/initialized", "mcpbash/remoteToken", nil),
		tokenLine(2, "tools/call", "mcpbash/remoteToken", map[string]any{"name": "getting_started", "arguments": map[string]any{"password": "hunter2", "note": remoteToken}}))
	if m := c.Response("2"); m.Error != nil {
		t.Errorf("call: %s", m.Raw)
	}
	c.CloseStdin()
	c.Wait(5 * time.Second)
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.Contains(s, "C> ") || !strings.Contains(s, "S> ") || !strings.Contains(c.Stderr(), "payload log: "+logPath) {
		t.Errorf("log:\n%s\nstderr: %s", s, c.Stderr())
	}
	if strings.Contains(s, "hunter2") || strings.Contains(s, remoteToken) {
		t.Errorf("secret in payload log:\n%s", s)
	}
}
