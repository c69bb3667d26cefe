package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

// helloServer serves a copy of examples/00-hello-tool (script, if set, as its tool.sh) with
// the settings env gives, and calls its hello tool.
func helloServer(t *testing.T, script string, env map[string]string) (dir string, call func() (string, error)) {
	t.Helper()
	dir = helloProject(t, script)
	cfg := Config{Dirs: registry.ResolveDirs(dir, config.Dirs{}), Meta: registry.ServerMeta{Name: "test", Version: "1"}}
	if err := cfg.ConfigFromEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dir, func() (string, error) {
		res, _, err := srv.CallTool(context.Background(), ToolCall{Name: "hello", Arguments: json.RawMessage(`{"name":"Ada"}`)})
		if err != nil {
			return "", err
		}
		b, _ := res.MarshalJSON()
		return string(b), nil
	}
}

// age makes p look unchanged for an hour (past policySettle).
func age(t *testing.T, p string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

// TestPolicyFilesAreSeen: remembering that server.d has no policy files never hides one that
// appears, whichever it is, and whether server.d changed long ago or just now.
func TestPolicyFilesAreSeen(t *testing.T) {
	dir, call := helloServer(t, "", nil)
	server := filepath.Join(dir, "server.d")
	allowed := func(when string) {
		t.Helper()
		if out, err := call(); err != nil || !strings.Contains(out, "Hello, Ada!") {
			t.Fatalf("%s: %v %s", when, err, out)
		}
	}
	denied := func(when, why string) {
		t.Helper()
		if out, err := call(); err == nil || !strings.Contains(err.Error(), why) {
			t.Fatalf("%s: %v %s, want %q", when, err, out, why)
		}
	}
	age(t, server)
	allowed("no policy files")
	allowed("no policy files, remembered")
	for _, tc := range []struct{ file, body, why string }{
		{"policy.json", `{"deny":["hello"]}`, "denied in server.d/policy.json"},
		{"policy.json", `{"allow":["other"]}`, "not allowed in server.d/policy.json"},
		{"policy.sh", "mcp_tools_policy_check() { return 1; }\n", "blocked by policy"},
	} {
		p := filepath.Join(server, tc.file)
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		denied(tc.file+" just created", tc.why)
		age(t, server) // the directory's change is old news now: the file is still seen
		denied(tc.file+" in a settled server.d", tc.why)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		allowed(tc.file + " removed")
		age(t, server)
		allowed(tc.file + " removed, settled")
		allowed(tc.file + " removed, remembered")
	}
	// Replaced by another directory with the same times: another identity.
	other := filepath.Join(dir, "server.d.new")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "policy.json"), []byte(`{"deny":["*"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(server, "server.meta.json"), filepath.Join(other, "server.meta.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(server); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, server); err != nil {
		t.Fatal(err)
	}
	age(t, server)
	denied("server.d replaced", "denied in server.d/policy.json")
}

// TestCallPlanFollowsTheTool: a call runs what the tool is now; its plan (schemas, commands,
// parsed script, fixed variables) is made anew when the registry sees the tool change.
func TestCallPlanFollowsTheTool(t *testing.T) {
	dir, call := helloServer(t, "", map[string]string{"MCP_TOOLS_TTL": "0"})
	if out, err := call(); err != nil || !strings.Contains(out, "Hello, Ada!") {
		t.Fatalf("%v %s", err, out)
	}
	tool := filepath.Join(dir, "tools", "hello")
	// A new script (its mtime moved on, so the registry's fingerprint changes).
	if err := os.WriteFile(filepath.Join(tool, "tool.sh"), []byte("#!/usr/bin/env bash\nprintf '%s' '{\"message\":\"Bye\"}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Minute)
	_ = os.Chtimes(filepath.Join(tool, "tool.sh"), future, future)
	if out, err := call(); err != nil || !strings.Contains(out, `"Bye"`) {
		t.Fatalf("after the script changed: %v %s", err, out)
	}
	// A new outputSchema that the output no longer satisfies.
	meta, _ := os.ReadFile(filepath.Join(tool, "tool.meta.json"))
	meta = []byte(strings.Replace(string(meta), `"required": ["message"]`, `"required": ["message", "extra"]`, 1))
	if err := os.WriteFile(filepath.Join(tool, "tool.meta.json"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(filepath.Join(tool, "tool.meta.json"), future.Add(time.Minute), future.Add(time.Minute))
	if out, err := call(); err != nil || !strings.Contains(out, "does not satisfy outputSchema") {
		t.Fatalf("after the outputSchema changed: %v %s", err, out)
	}
}
