package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

func toolsProject(t *testing.T) string {
	return writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"tools"}`,
		"tools/hello/tool.sh":       "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nname=\"$(mcp_args_get '.name // \"World\"')\"\nmcp_result_success \"$(mcp_json_obj message \"Hello, ${name}!\")\"\n",
		"tools/hello/tool.meta.json": `{"name":"hello","description":"greets","inputSchema":{"type":"object","properties":{"name":{"type":"string","minLength":2}},"additionalProperties":false},
			"outputSchema":{"type":"object","required":["success","result"],"properties":{"success":{"type":"boolean"},"result":{"type":"object","required":["message"]}}}}`,
		"tools/plain/tool.sh":              "#!/usr/bin/env bash\necho \"plain text output, args=$MCP_TOOL_ARGS_JSON\"\n",
		"tools/plain/tool.meta.json":       `{"name":"plain","description":"plain"}`,
		"tools/exit3/tool.sh":              "#!/usr/bin/env bash\necho 'something went wrong on stderr' >&2\nexit 3\n",
		"tools/exit3/tool.meta.json":       `{"name":"exit3","description":"fails"}`,
		"tools/jsonerr/tool.sh":            "#!/usr/bin/env bash\necho '{\"code\":-32010,\"message\":\"from stdout\",\"data\":{\"k\":1}}'\nexit 1\n",
		"tools/jsonerr/tool.meta.json":     `{"name":"jsonerr","description":"fails with a JSON error"}`,
		"tools/badout/tool.sh":             "#!/usr/bin/env bash\necho '{\"count\":\"three\"}'\n",
		"tools/badout/tool.meta.json":      `{"name":"badout","description":"bad output","outputSchema":{"type":"object","required":["count"],"properties":{"count":{"type":"integer"}}}}`,
		"tools/notjson/tool.sh":            "#!/usr/bin/env bash\necho 'not json'\n",
		"tools/notjson/tool.meta.json":     `{"name":"notjson","description":"x","outputSchema":{"type":"object"}}`,
		"tools/slow/tool.sh":               "#!/usr/bin/env bash\nsleep \"$(echo \"$MCP_TOOL_ARGS_JSON\" | jq -r '.secs // 1')\"\necho slept\n",
		"tools/slow/tool.meta.json":        `{"name":"slow","description":"sleeps","timeoutSecs":1,"timeoutHint":"Pass a smaller secs"}`,
		"tools/errfile/tool.sh":            "#!/usr/bin/env bash\necho '{\"code\":-32099,\"message\":\"via error file\"}' > \"$MCP_TOOL_ERROR_FILE\"\necho ok\n",
		"tools/errfile/tool.meta.json":     `{"name":"errfile","description":"x"}`,
		"tools/builtresult/tool.sh":        "#!/usr/bin/env bash\necho '{\"content\":[{\"type\":\"text\",\"text\":\"custom\"}],\"isError\":false,\"_meta\":{\"mine\":1}}'\n",
		"tools/builtresult/tool.meta.json": `{"name":"builtresult","description":"x"}`,
		"tools/secret/tool.sh":             "#!/usr/bin/env bash\necho secret\n",
		"tools/secret/tool.meta.json":      `{"name":"secret","description":"x"}`,
		"server.d/policy.json":             `{"deny":["secret"]}`,
		"data/file.txt":                    "x",
	})
}

func call(c *harness.Client, name string, args any, extra map[string]any) harness.Msg {
	p := map[string]any{"name": name}
	if args != nil {
		p["arguments"] = args
	}
	for k, v := range extra {
		p[k] = v
	}
	return c.Call("tools/call", p)
}

// TestToolErrorsFollowTheClient: by default (MCPBASH_TOOL_ERRORS=auto) a client that names no
// clientInfo in initialize (the original's suites, shell clients) gets the original's JSON-RPC
// error for a failing tool, and a client that names one gets an isError result; "result" gives
// every client the result.
func TestToolErrorsFollowTheClient(t *testing.T) {
	t.Parallel()
	dir := toolsProject(t)
	for _, tc := range []struct {
		name, env string
		info      bool
		want      string
	}{
		{"anonymous", "", false, `{"error":{"code":-32603,"message":"something went wrong on stderr","data":"<any>"}}`},
		{"identified", "", true, `{"result":{"content":"<any>","isError":true,"name":"exit3","_meta":"<any>"}}`},
		{"anonymous, result forced", "MCPBASH_TOOL_ERRORS=result", false, `{"result":{"content":"<any>","isError":true,"name":"exit3","_meta":"<any>"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var env []string
			if tc.env != "" {
				env = []string{tc.env}
			}
			c := harness.Start(t, harness.Options{Dir: dir, Env: env})
			p := map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}}
			if tc.info {
				p["clientInfo"] = map[string]any{"name": "x", "version": "1"}
			}
			c.Call("initialize", p)
			c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			m := call(c, "exit3", nil, nil)
			if d := harness.CompareLines([]string{tc.want}, [][]byte{responseMember(m)}); d != "" {
				t.Errorf("%s\n got %s\nwant %s", d, responseMember(m), tc.want)
			}
		})
	}
}

// TestToolsCallSemantics: the answers of tools/call in both error shapes. With
// MCPBASH_TOOL_ERRORS=jsonrpc a failing tool is the original's JSON-RPC error (want); by
// default it is an isError result with text content only (result, when it differs).
func TestToolsCallSemantics(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"jsonrpc", "result"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			toolsCallSemantics(t, mode)
		})
	}
}

func toolsCallSemantics(t *testing.T, mode string) {
	c := harness.Start(t, harness.Options{Dir: toolsProject(t), Env: []string{"MCPBASH_TOOL_ERRORS=" + mode}})
	c.Initialize("2025-11-25", nil)
	for _, tc := range []struct {
		name   string
		tool   string
		args   any
		x      map[string]any
		want   string
		result string // the answer by default, when it differs from want
	}{
		{"success with outputSchema", "hello", map[string]any{"name": "Ada"}, nil,
			`{"result":{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"message\":\"Hello, Ada!\"}}"}],"structuredContent":{"success":true,"result":{"message":"Hello, Ada!"}},"isError":false,"name":"hello","_meta":{"exitCode":0}}}`, ""},
		{"default arguments", "hello", nil, nil,
			`{"result":{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"message\":\"Hello, World!\"}}"}],"structuredContent":"<any>","isError":false,"name":"hello","_meta":{"exitCode":0}}}`, ""},
		{"every input violation listed", "hello", map[string]any{"name": "A", "extra": 1}, nil,
			`{"result":{"content":[{"type":"text","text":"<any>"}],"structuredContent":{"success":false,"error":{"type":"invalid_arguments","message":"<any>","violations":["/: additional properties 'extra' not allowed","/name: minLength: got 1, want 2"]}},"isError":true,"name":"hello"}}`,
			`{"result":{"content":[{"type":"text","text":"Invalid arguments for tool 'hello':\n/: additional properties 'extra' not allowed\n/name: minLength: got 1, want 2"}],"isError":true,"name":"hello"}}`},
		{"plain text", "plain", map[string]any{"x": 1}, nil,
			`{"result":{"name":"plain","content":[{"type":"text","text":"plain text output, args={\"x\":1}"}],"isError":false,"_meta":{"exitCode":0}}}`, ""},
		{"non-zero exit", "exit3", nil, nil,
			`{"error":{"code":-32603,"message":"something went wrong on stderr","data":{"exitCode":3,"_meta":{"exitCode":3,"stderr":"something went wrong on stderr"},"stderrTail":"something went wrong on stderr"}}}`,
			`{"result":{"content":[{"type":"text","text":"something went wrong on stderr"}],"isError":true,"name":"exit3","_meta":{"exitCode":3,"mcpbash/errorCode":-32603,"stderr":"something went wrong on stderr"}}}`},
		{"JSON error on stdout", "jsonerr", nil, nil, `{"error":{"code":-32010,"message":"from stdout","data":{"k":1}}}`,
			`{"result":{"content":[{"type":"text","text":"from stdout\n{\"k\":1}"}],"isError":true,"name":"jsonerr","_meta":{"exitCode":"<any>","mcpbash/errorCode":-32010,"mcpbash/errorData":{"k":1}}}}`},
		{"output violating outputSchema", "badout", nil, nil,
			`{"error":{"code":-32603,"message":"Tool output does not satisfy outputSchema","data":{"violations":["/count: got string, want integer"]}}}`,
			`{"result":{"content":[{"type":"text","text":"Tool output does not satisfy outputSchema:\n/count: got string, want integer"}],"isError":true,"name":"badout","_meta":{"exitCode":0}}}`},
		{"output not JSON", "notjson", nil, nil, `{"error":{"code":-32603,"message":"Tool output is not valid JSON for declared outputSchema"}}`,
			`{"result":{"content":[{"type":"text","text":"Tool output is not valid JSON for declared outputSchema"}],"isError":true,"name":"notjson","_meta":{"exitCode":0,"mcpbash/errorCode":-32603}}}`},
		{"timeout from meta names the limit", "slow", map[string]any{"secs": 5}, nil,
			`{"result":{"content":[{"type":"text","text":"Tool timed out after 1s\n\nSuggestion: Pass a smaller secs"}],"isError":true,"name":"slow","structuredContent":{"success":false,"error":{"type":"timeout","message":"Tool timed out after 1s\n\nSuggestion: Pass a smaller secs","timeoutSecs":1,"reason":"fixed","exitCode":143,"hint":"Pass a smaller secs"}},"_meta":{"exitCode":143}}}`,
			`{"result":{"content":[{"type":"text","text":"Tool timed out after 1s\n\nSuggestion: Pass a smaller secs"}],"isError":true,"name":"slow","_meta":{"exitCode":143}}}`},
		{"timeoutSecs param wins", "slow", map[string]any{"secs": 1.5}, map[string]any{"timeoutSecs": 60},
			`{"result":{"name":"slow","content":[{"type":"text","text":"slept"}],"isError":false,"_meta":{"exitCode":0}}}`, ""},
		{"error file wins", "errfile", nil, nil, `{"error":{"code":-32099,"message":"via error file"}}`,
			`{"result":{"content":[{"type":"text","text":"via error file"}],"isError":true,"name":"errfile","_meta":{"exitCode":"<any>","mcpbash/errorCode":-32099}}}`},
		{"tool-built CallToolResult kept", "builtresult", nil, nil,
			`{"result":{"content":[{"type":"text","text":"custom"}],"isError":false,"name":"builtresult","_meta":{"mine":1,"exitCode":0}}}`, ""},
		{"unknown tool", "nope", nil, nil, `{"error":{"code":-32602,"message":"Tool 'nope' not found"}}`, ""},
		{"denied by policy.json", "secret", nil, nil, `{"error":{"code":-32602,"message":"Tool 'secret' blocked by policy (denied in server.d/policy.json)"}}`, ""},
		{"arguments not an object", "plain", []int{1}, nil, `{"error":{"code":-32602,"message":"Invalid arguments JSON"}}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if mode == "result" && tc.result != "" {
				want = tc.result
			}
			m := call(c, tc.tool, tc.args, tc.x)
			if d := harness.CompareLines([]string{want}, [][]byte{responseMember(m)}); d != "" {
				t.Errorf("%s\n got %s\nwant %s", d, responseMember(m), want)
			}
		})
	}
	m := c.Call("tools/call", map[string]any{"arguments": map[string]any{}})
	if m.Error == nil || m.Error.Message != "Tool name is required" {
		t.Errorf("missing name: %s", m.Raw)
	}
}

func responseMember(m harness.Msg) []byte {
	if m.Error != nil {
		e := map[string]any{"code": m.Error.Code, "message": m.Error.Message}
		if len(m.Error.Data) > 0 {
			e["data"] = m.Error.Data
		}
		b, _ := json.Marshal(map[string]any{"error": e})
		return b
	}
	b, _ := json.Marshal(map[string]json.RawMessage{"result": m.Result})
	return b
}

func TestToolAllowlistAndOutputCap(t *testing.T) {
	t.Parallel()
	root := toolsProject(t)
	c := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCPBASH_TOOL_ALLOWLIST=plain hello", "MCPBASH_MAX_TOOL_OUTPUT_SIZE=10", "MCPBASH_TOOL_ERRORS=jsonrpc"}})
	c.Initialize("2025-11-25", nil)
	if m := call(c, "exit3", nil, nil); m.Error == nil || m.Error.Message != "Tool 'exit3' blocked by policy (not in MCPBASH_TOOL_ALLOWLIST)" {
		t.Errorf("allowlist: %s", m.Raw)
	}
	if m := call(c, "plain", nil, nil); m.Error == nil || m.Error.Message != "Tool output exceeded 10 bytes" {
		t.Errorf("output cap: %s", m.Raw)
	}
}

// TestAccessRecord: with _meta["mcpbash/access"] the result carries what the call touched.
func TestAccessRecord(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	// The project root is read-only to tools unless the operator grants writes.
	c := p.start(t, "MCPBASH_PROJECT_ROOT_WRITABLE=true")
	m := c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "cat data/inside.txt >/dev/null; cat /etc/passwd 2>/dev/null; echo x > data/out.txt; perl 2>/dev/null; true"},
		"_meta": map[string]any{"mcpbash/access": true}})
	var r struct {
		Meta struct {
			Access struct {
				Entries []struct {
					Op, Path string
					Allowed  bool
				}
			} `json:"mcpbash/access"`
		} `json:"_meta"`
	}
	m.Decode(t, &r)
	var got []string
	for _, e := range r.Meta.Access.Entries {
		got = append(got, fmt.Sprintf("%s %s %v", e.Op, filepath.Base(e.Path), e.Allowed))
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"read inside.txt true", "passwd false", "write out.txt true", "exec perl false", "exec cat true"} {
		if !strings.Contains(all, want) {
			t.Errorf("access record lacks %q:\n%s", want, all)
		}
	}
	// Not attached unless asked for.
	m = sh(t, c, "true")
	if strings.Contains(string(m.Raw), "mcpbash/access") {
		t.Errorf("access record attached unasked: %s", m.Raw)
	}
}

// TestClientRoots: a client that offers roots is asked for them; its answer confines tools.
func TestClientRoots(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := harness.Start(t, harness.Options{Dir: p.root})
	c.Initialize("2025-11-25", map[string]any{"roots": map[string]any{"listChanged": true}})
	req := c.WaitFor(5*time.Second, "roots/list request", func(m harness.Msg) bool { return m.Method == "roots/list" })
	c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"roots":[{"uri":"file://%s","name":"outside"}]}}`, req.ID, p.outside))
	out := text(sh(t, c, "cat "+p.outside+"/secret.txt; mcp_roots_count; cat "+p.root+"/data/inside.txt 2>&1 || echo denied"))
	if !strings.Contains(out, canary) || !strings.Contains(out, "1\n") || !strings.Contains(out, "denied") {
		t.Errorf("client roots not applied:\n%s", out)
	}
	// roots/list_changed re-requests.
	c.Send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	c.WaitFor(5*time.Second, "second roots/list", func(m harness.Msg) bool { return m.Method == "roots/list" && string(m.ID) != string(req.ID) })
}
