package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

const remoteToken = "e2e-remote-token-0123456789abcdef-xyz"

// tokenLine is a JSON-RPC line whose params carry the token under key (no token when key is "").
func tokenLine(id any, method, key string, params map[string]any) string {
	if params == nil {
		params = map[string]any{}
	}
	if key != "" {
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[key] = remoteToken
		params["_meta"] = meta
	}
	line := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id != nil {
		line["id"] = id
	}
	b, _ := json.Marshal(line)
	return string(b)
}

// The original's remote token (MCPBASH_REMOTE_TOKEN): every message carries it in
// params._meta (mcpbash/remoteToken, or the fallback remoteToken) or is refused with -32602
// "Remote token missing or invalid", before anything else looks at it; a session that got it
// right is served; the token never reaches a tool, neither in its environment (even when the
// allowlist names it) nor in MCP_TOOL_META_JSON.
func TestRemoteToken(t *testing.T) {
	t.Parallel()
	dir := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"remote"}`,
		"tools/probe/tool.sh": "#!/usr/bin/env bash\n" +
			`printf 'env=[%s|%s|%s] meta=%s' "${MCPBASH_REMOTE_TOKEN-unset}" "${MCPBASH_REMOTE_TOKEN_KEY-unset}" "${OTHER-unset}" "$MCP_TOOL_META_JSON"` + "\n",
		"tools/probe/tool.meta.json": `{"name":"probe","description":"what reaches a tool"}`,
	})
	for _, engine := range []string{"sandbox", "native"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			env := []string{"MCPBASH_REMOTE_TOKEN=" + remoteToken, "MCPBASH_REMOTE_TOKEN_KEY=custom/tok", "OTHER=other",
				"MCPBASH_TOOL_ENV_MODE=allowlist", "MCPBASH_TOOL_ENV_ALLOWLIST=MCPBASH_REMOTE_TOKEN,MCPBASH_REMOTE_TOKEN_KEY,OTHER"}
			var args []string
			if engine == "native" {
				args = []string{"--exec=native"}
			}
			c := harness.Start(t, harness.Options{Dir: dir, Env: env, Args: args})
			init := map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}}
			c.Send(tokenLine("none", "initialize", "", init), tokenLine("bad", "initialize", "", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "_meta": map[string]any{"custom/tok": "wrong"}}))
			for _, id := range []string{`"none"`, `"bad"`} {
				if m := c.Response(id); m.Error == nil || m.Error.Code != -32602 || m.Error.Message != "Remote token missing or invalid" {
					t.Errorf("%s: %s", id, m.Raw)
				}
			}
			// The fallback key is accepted too.
			c.Send(tokenLine("ok", "initialize", "remoteToken", init), tokenLine(nil, "notifications/initialized", "custom/tok", nil))
			if m := c.Response(`"ok"`); m.Error != nil {
				t.Fatalf("initialize with the token: %s", m.Raw)
			}
			c.Send(tokenLine("unauth", "tools/list", "", nil))
			if m := c.Response(`"unauth"`); m.Error == nil || m.Error.Code != -32602 {
				t.Errorf("tools/list without the token: %s", m.Raw)
			}
			c.Send(tokenLine("call", "tools/call", "custom/tok", map[string]any{"name": "probe", "arguments": map[string]any{},
				"_meta": map[string]any{"remoteToken": remoteToken, "keep": "yes"}}))
			got := text(c.Response(`"call"`))
			if want := `env=[unset|unset|other] meta={"keep":"yes"}`; got != want {
				t.Errorf("tool saw %q, want %q", got, want)
			}
			if strings.Contains(c.Stderr(), remoteToken) {
				t.Errorf("the token reached stderr:\n%s", c.Stderr())
			}
		})
	}
}

// Wrong tokens past MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN are answered as throttled, and
// the right token is still accepted (a flood of guesses cannot lock the operator out).
func TestRemoteTokenThrottle(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: writeProject(t, map[string]string{"server.d/server.meta.json": `{"name":"remote"}`}),
		Env: []string{"MCPBASH_REMOTE_TOKEN=" + remoteToken, "MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN=3"}})
	for i := range 5 {
		c.Send(tokenLine(i, "ping", "", nil))
		m := c.Response(fmt.Sprint(i))
		want := "Remote token missing or invalid"
		if i >= 3 {
			want += " (throttled)"
		}
		if m.Error == nil || m.Error.Code != -32602 || m.Error.Message != want {
			t.Errorf("guess %d: %s, want %q", i, m.Raw, want)
		}
	}
	c.Send(tokenLine("ok", "initialize", "mcpbash/remoteToken", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}}))
	if m := c.Response(`"ok"`); m.Error != nil {
		t.Errorf("the right token while throttled: %s", m.Raw)
	}
}

// A token shorter than 32 characters refuses to start, naming the variable.
func TestRemoteTokenTooShort(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: writeProject(t, map[string]string{"server.d/server.meta.json": `{"name":"remote"}`}),
		Env: []string{"MCPBASH_REMOTE_TOKEN=short"}})
	err := c.Wait(10 * time.Second)
	if err == nil || !strings.Contains(c.Stderr(), "MCPBASH_REMOTE_TOKEN must be at least 32 characters") || strings.Contains(c.Stderr(), "short") {
		t.Errorf("exit %v, stderr:\n%s", err, c.Stderr())
	}
}
