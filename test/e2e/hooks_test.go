package e2e

import (
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

func hookProject(t *testing.T, registerSh, policySh string) string {
	files := map[string]string{
		"server.d/server.meta.json":  `{"name":"hooks"}`,
		"tools/plain/tool.sh":        "#!/usr/bin/env bash\necho plain ran\n",
		"tools/plain/tool.meta.json": `{"name":"plain","description":"plain"}`,
		"tools/hooked/run.sh":        "#!/usr/bin/env bash\necho \"hooked ran with $MCP_TOOL_ARGS_JSON\"\n",
	}
	if registerSh != "" {
		files["server.d/register.sh"] = "#!/usr/bin/env bash\nset -euo pipefail\n" + registerSh + "\n"
	}
	if policySh != "" {
		files["server.d/policy.sh"] = "#!/usr/bin/env bash\n" + policySh + "\n"
	}
	return writeProject(t, files)
}

func toolNames(t *testing.T, c *harness.Client) string {
	t.Helper()
	var r listResult
	c.Call("tools/list", nil).Decode(t, &r)
	var n []string
	for _, x := range r.Tools {
		n = append(n, x["name"].(string))
	}
	return strings.Join(n, ",")
}

// server.d/register.sh runs in bash with the original's API when MCPBASH_ALLOW_PROJECT_HOOKS is
// on: a tool it registers is listed and callable; without the opt-in, discovery applies; a
// failing hook makes the lists fail with -32603.
func TestHookRegisterSh(t *testing.T) {
	t.Parallel()
	register := `mcp_register_tool '{"name":"hooked","description":"registered by register.sh","path":"hooked/run.sh","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}'`
	t.Run("registers a tool", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: hookProject(t, register, ""), Env: []string{"MCPBASH_ALLOW_PROJECT_HOOKS=true"}})
		c.Initialize("2025-11-25", nil)
		if got := toolNames(t, c); got != "hooked" {
			t.Fatalf("tools/list = %q, want hooked", got)
		}
		m := call(c, "hooked", map[string]any{"n": 7}, nil)
		want := `{"result":{"name":"hooked","content":[{"type":"text","text":"hooked ran with {\"n\":7}"}],"isError":false,"_meta":{"exitCode":0}}}`
		if d := harness.CompareLines([]string{want}, [][]byte{responseMember(m)}); d != "" {
			t.Errorf("%s\n got %s\nwant %s", d, responseMember(m), want)
		}
	})
	t.Run("without the opt-in, in the sandbox", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: hookProject(t, register, "")})
		c.Initialize("2025-11-25", nil)
		if got := toolNames(t, c); got != "hooked" {
			t.Errorf("tools/list = %q, want hooked", got)
		}
		if !strings.Contains(c.Stderr(), "register.sh runs in the sandbox because project hooks are off") ||
			!strings.Contains(c.Stderr(), "set MCPBASH_ALLOW_PROJECT_HOOKS=true to run it in real bash") {
			t.Errorf("no note of the sandboxed hook in stderr:\n%s", c.Stderr())
		}
	})
	t.Run("without the opt-in, a host command fails with the way out", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: hookProject(t, "curl -s https://example.com/catalogue.json", "")})
		c.Initialize("2025-11-25", nil)
		m := c.Call("tools/list", nil)
		if m.Error == nil || m.Error.Code != -32603 || !strings.Contains(string(m.Error.Data), "curl") ||
			!strings.Contains(string(m.Error.Data), "set MCPBASH_ALLOW_PROJECT_HOOKS=true to run it in real bash") {
			t.Errorf("tools/list: %s", m.Raw)
		}
	})
	t.Run("a failing hook fails the lists", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: hookProject(t, "echo 'catalogue unreachable' >&2\nexit 2", ""), Env: []string{"MCPBASH_ALLOW_PROJECT_HOOKS=true"}})
		c.Initialize("2025-11-25", nil)
		for _, method := range []string{"tools/list", "prompts/list"} {
			m := c.Call(method, nil)
			if m.Error == nil || m.Error.Code != -32603 || !strings.HasPrefix(m.Error.Message, "Unable to load") ||
				!strings.Contains(string(m.Error.Data), "register.sh failed (exit status 2): catalogue unreachable") {
				t.Errorf("%s: %s", method, m.Raw)
			}
		}
	})
}

// server.d/policy.sh decides tools/call after the allowlist, with the hook's own error code,
// message and data; without the opt-in it is ignored.
func TestHookPolicySh(t *testing.T) {
	t.Parallel()
	policy := `mcp_tools_policy_check() {
	if [ "$1" = "plain" ]; then
		_MCP_TOOLS_ERROR_CODE=-32050
		_MCP_TOOLS_ERROR_MESSAGE="Tool '$1' is disabled by the project"
		_MCP_TOOLS_ERROR_DATA='{"reason":"maintenance"}'
		return 1
	fi
	return 0
}`
	t.Run("denies with the hook's error", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: hookProject(t, "", policy), Env: []string{"MCPBASH_ALLOW_PROJECT_HOOKS=true"}})
		c.Initialize("2025-11-25", nil)
		for _, tc := range []struct{ tool, want string }{
			{"plain", `{"error":{"code":-32050,"message":"Tool 'plain' is disabled by the project","data":{"reason":"maintenance"}}}`},
			{"run", `{"result":{"name":"run","content":[{"type":"text","text":"hooked ran with {}"}],"isError":false,"_meta":{"exitCode":0}}}`},
		} {
			m := call(c, tc.tool, nil, nil)
			if d := harness.CompareLines([]string{tc.want}, [][]byte{responseMember(m)}); d != "" {
				t.Errorf("%s: %s\n got %s\nwant %s", tc.tool, d, responseMember(m), tc.want)
			}
		}
	})
	t.Run("the allowlist is checked first", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: hookProject(t, "", policy), Env: []string{"MCPBASH_ALLOW_PROJECT_HOOKS=true", "MCPBASH_TOOL_ALLOWLIST=plain"}})
		c.Initialize("2025-11-25", nil)
		m := call(c, "run", nil, nil)
		if m.Error == nil || m.Error.Message != "Tool 'run' blocked by policy (not in MCPBASH_TOOL_ALLOWLIST)" {
			t.Errorf("run: %s", m.Raw)
		}
		if m := call(c, "plain", nil, nil); m.Error == nil || m.Error.Code != -32050 {
			t.Errorf("plain: %s", m.Raw)
		}
	})
	t.Run("without the opt-in, in the sandbox, with one note", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: hookProject(t, "", policy)})
		c.Initialize("2025-11-25", nil)
		for range 2 {
			if m := call(c, "plain", nil, nil); m.Error == nil || m.Error.Code != -32050 || string(m.Error.Data) != `{"reason":"maintenance"}` {
				t.Errorf("plain: %s", m.Raw)
			}
		}
		if m := call(c, "run", nil, nil); m.Error != nil {
			t.Errorf("run: %s", m.Raw)
		}
		if n := strings.Count(c.Stderr(), "policy.sh runs in the sandbox because project hooks are off"); n != 1 {
			t.Errorf("%d notes in stderr:\n%s", n, c.Stderr())
		}
	})
	t.Run("without the opt-in, a host command fails closed", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: hookProject(t, "", `mcp_tools_policy_check() { python3 -c 'import sys; sys.exit(0)'; }`)})
		c.Initialize("2025-11-25", nil)
		if m := call(c, "plain", nil, nil); m.Error == nil || m.Error.Message != "Tool 'plain' blocked by policy" {
			t.Errorf("plain: %s", m.Raw)
		}
	})
}

// The original's documented policy (its test_tools_policy): switches read from the operator's
// environment, mcp_tools_error with a code, a message and data, a limit read from the tool's
// metadata with jq; the same answers with and without project hooks.
func TestHookPolicyExamples(t *testing.T) {
	t.Parallel()
	policy := harness.PolicyExample("plain")
	for _, hooks := range []string{"false", "true"} {
		for _, tc := range []struct {
			env, tool, want string
		}{
			{"", "plain", `{"result":{"name":"plain","content":[{"type":"text","text":"plain ran"}],"isError":false,"_meta":{"exitCode":0}}}`},
			{"POLICY_READ_ONLY=1", "plain", `{"error":{"code":-32602,"message":"Tool 'plain' disabled by policy"}}`},
			{"POLICY_REQUIRE_AUTH=1", "plain", `{"error":{"code":-32600,"message":"Capability required","data":{"reason":"auth"}}}`},
			{"POLICY_MAX_TIMEOUT=10", "slow", `{"error":{"code":-32602,"message":"Tool 'slow' exceeds policy timeout","data":{"timeout":20}}}`},
		} {
			t.Run("hooks="+hooks+"/"+tc.env, func(t *testing.T) {
				t.Parallel()
				dir := hookProject(t, "", policy)
				harness.WriteFiles(t, dir, map[string]string{
					"tools/slow/tool.sh":        "#!/usr/bin/env bash\necho slow\n",
					"tools/slow/tool.meta.json": `{"name":"slow","description":"slow","timeoutSecs":20}`,
				})
				env := []string{"MCPBASH_ALLOW_PROJECT_HOOKS=" + hooks}
				if tc.env != "" {
					env = append(env, tc.env)
				}
				c := harness.Start(t, harness.Options{Dir: dir, Env: env})
				c.Initialize("2025-11-25", nil)
				m := call(c, tc.tool, nil, nil)
				if d := harness.CompareLines([]string{tc.want}, [][]byte{responseMember(m)}); d != "" {
					t.Errorf("%s\n got %s\nwant %s", d, responseMember(m), tc.want)
				}
			})
		}
	}
}
