package host

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// TestSessionContractEnvShared: calls with the same client capabilities and roots share one
// session map, a call's own variables are a new map every time, and a change of roots or of a
// capability is never answered from the shared map (the new values, a new map).
func TestSessionContractEnvShared(t *testing.T) {
	srv := testServer(t)
	tool := &registry.Tool{Name: "t", Kind: registry.ToolWasm, Abs: "/p/tools/t/t.wasm"}
	root := srv.cfg.Dirs.Root
	call := func(args string, roots []engine.Root, elicit bool) (own, session map[string]string) {
		return srv.callContractEnv(&engine.Call{Args: json.RawMessage(args), Meta: json.RawMessage("{}"), Roots: roots, ElicitSupported: elicit}, tool)
	}
	own1, s1 := call(`{"a":1}`, []engine.Root{{Path: root}}, false)
	own2, s2 := call(`{"a":2}`, []engine.Root{{Path: root}}, false)
	if own1["MCP_TOOL_ARGS_JSON"] != `{"a":1}` || own2["MCP_TOOL_ARGS_JSON"] != `{"a":2}` {
		t.Fatalf("own variables: %v, %v", own1, own2)
	}
	own1["X"] = "1"
	if _, ok := own2["X"]; ok {
		t.Fatal("two calls share their own variables")
	}
	if !same(s1, s2) || s1["MCP_ROOTS_COUNT"] != "1" || s1["MCP_ELICIT_SUPPORTED"] != "0" {
		t.Fatalf("equal sessions: %v, %v (shared %v)", s1, s2, same(s1, s2))
	}
	_, s3 := call(`{}`, []engine.Root{{Path: root}, {Path: t.TempDir()}}, false)
	if same(s1, s3) || s3["MCP_ROOTS_COUNT"] != "2" {
		t.Fatalf("new roots: %v", s3)
	}
	_, s4 := call(`{}`, []engine.Root{{Path: root}, {Path: t.TempDir()}}, true)
	if same(s3, s4) || s4["MCP_ELICIT_SUPPORTED"] != "1" || s4["MCP_ROOTS_COUNT"] != "2" {
		t.Fatalf("new capability: %v", s4)
	}
	_, s5 := call(`{}`, []engine.Root{{Path: root}}, false)
	if !maps.Equal(s5, s1) || s5["MCP_ROOTS_COUNT"] != "1" {
		t.Fatalf("back to the first session's values: %v, want %v", s5, s1)
	}
	// The tool's whole contract still names every variable once, the call's over the rest.
	env := srv.contractEnv(&engine.Call{Args: json.RawMessage(`{"b":1}`), Meta: json.RawMessage("{}"), Roots: []engine.Root{{Path: root}}}, tool)
	for _, k := range callContractNames {
		if _, ok := env[k]; !ok {
			t.Errorf("contract lacks %s", k)
		}
	}
	if env["MCP_TOOL_ARGS_JSON"] != `{"b":1}` {
		t.Errorf("contract args %q", env["MCP_TOOL_ARGS_JSON"])
	}
}

// same reports whether a and b are one map.
func same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	a["\x00probe"] = "x"
	_, shared := b["\x00probe"]
	delete(a, "\x00probe")
	return shared
}
