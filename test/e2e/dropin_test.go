package e2e

import (
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The original's settings that a migrated client configuration may carry.

// MCPBASH_FORCE_MINIMAL: only logging is advertised and served; the other areas answer -32601
// with the original's words.
func TestForceMinimal(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: toolsProject(t), Env: []string{"MCPBASH_FORCE_MINIMAL=true"}})
	m := c.Initialize("2025-03-26", nil)
	if !strings.Contains(string(m.Result), `"capabilities":{"logging":{}}`) {
		t.Errorf("initialize: %s", m.Raw)
	}
	for method, want := range map[string]string{
		"tools/list": "Tools capability unavailable in minimal mode", "tools/call": "Tools capability unavailable in minimal mode",
		"resources/list": "Resources capability unavailable in minimal mode", "prompts/list": "Prompts capability unavailable in minimal mode",
		"completion/complete": "Completion capability unavailable in minimal mode",
	} {
		if r := c.Call(method, map[string]any{}); r.Error == nil || r.Error.Code != -32601 || r.Error.Message != want {
			t.Errorf("%s: %s", method, r.Raw)
		}
	}
	if r := c.Call("logging/setLevel", map[string]any{"level": "DEBUG"}); r.Error != nil {
		t.Errorf("setLevel: %s", r.Raw)
	}
	if r := c.Call("logging/setLevel", map[string]any{"level": "VERBOSE"}); r.Error == nil || r.Error.Message != "Invalid log level" {
		t.Errorf("bad level: %s", r.Raw)
	}
}

// MCPBASH_DEBUG_ERRORS: a failing call names the tool, its exit code and whether a trace
// exists, in error.data (jsonrpc shape) or in the result's _meta (the default).
func TestDebugErrors(t *testing.T) {
	t.Parallel()
	dir := toolsProject(t)
	c := harness.Start(t, harness.Options{Dir: dir, Env: []string{"MCPBASH_DEBUG_ERRORS=true", "MCPBASH_TOOL_ERRORS=jsonrpc"}})
	c.Initialize("2025-11-25", nil)
	if m := call(c, "badout", nil, nil); m.Error == nil || m.Error.Code != -32603 ||
		!strings.Contains(string(m.Error.Data), `"tool":"badout"`) || !strings.Contains(string(m.Error.Data), `"exitCode":0`) ||
		!strings.Contains(string(m.Error.Data), `"traceAvailable":false`) {
		t.Errorf("jsonrpc: %s", m.Raw)
	}
	c = harness.Start(t, harness.Options{Dir: dir, Env: []string{"MCPBASH_DEBUG_ERRORS=true"}})
	c.Initialize("2025-11-25", nil)
	if m := call(c, "exit3", nil, nil); !strings.Contains(string(m.Result), `"mcpbash/debug":{"exitCode":3,"tool":"exit3","traceAvailable":false}`) {
		t.Errorf("result: %s", m.Raw)
	}
}
