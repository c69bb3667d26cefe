package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

func resourceProject(t *testing.T) (root, outside string) {
	root = writeProject(t, map[string]string{
		"server.d/server.meta.json":    `{"name":"res"}`,
		"resources/greeting.txt":       "Hello from a resource file\n\n",
		"resources/greeting.meta.json": `{"name":"example-greeting","description":"greets","uri":"file://./resources/greeting.txt"}`,
		"resources/data.json":          `{"a":1}`,
		"resources/data.meta.json":     `{"name":"data","mimeType":"application/json"}`,
		"resources/image.png":          "\x89PNG\r\n\x1a\n\x00\x00binary",
		"resources/big.txt":            strings.Repeat("x", 5000),
		"resources/logs.meta.json":     `{"name":"logs","uriTemplate":"file:///{+path}","mimeType":"text/plain"}`,
		"resources/notes/today.md":     "# today",
		"resources/remote.txt":         "",
		"resources/remote.meta.json":   `{"name":"custom","uri":"custom://thing/42"}`,
		"providers/custom.sh":          "#!/usr/bin/env bash\ncase \"$1\" in\n custom://thing/42) echo \"custom provider for $1\";;\n custom://missing/*) exit 3;;\n custom://outside/*) exit 2;;\n custom://bad/*) echo 'bad uri' >&2; exit 4;;\n *) echo 'fetch failed' >&2; exit 5;;\nesac\n",
		"prompts/hello.txt":            "Hello, {{name}}! You are {{age}}. ${name} as the original writes it, $HOME stays literal.\n\n",
		"prompts/hello.meta.json":      `{"name":"hello","description":"Greets","arguments":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"number"}},"required":["name"]},"role":"assistant"}`,
		"prompts/demo.txt":             "demo",
		"prompts/demo.meta.json":       `{"name":"demo.completion","description":"has a completion script"}`,
		"prompts/demo.completion.sh":   "#!/usr/bin/env bash\nq=$(echo \"$MCP_COMPLETION_ARGS_JSON\" | jq -r .query)\nall='[\"retry job\",\"review logs\",\"rebuild cache\",\"restart\",\"rerun\",\"revert\",\"reset\"]'\necho \"$all\" | jq -c --arg q \"$q\" --argjson o \"$MCP_COMPLETION_OFFSET\" --argjson l \"$MCP_COMPLETION_LIMIT\" '[.[] | select(startswith($q))] as $m | {suggestions: $m[$o:$o+$l], hasMore: ($m | length > $o + $l)}'\n",
	})
	os.Chmod(filepath.Join(root, "prompts/demo.completion.sh"), 0o755)
	outside = t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(canary), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "resources", "escape.txt"))
	return root, outside
}

func readRes(c *harness.Client, params map[string]any) harness.Msg {
	return c.Call("resources/read", params)
}

func TestResourcesRead(t *testing.T) {
	t.Parallel()
	root, outside := resourceProject(t)
	c := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCPBASH_MAX_RESOURCE_BYTES=4096"}})
	c.Initialize("2025-11-25", nil)
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"by uri, relative file uri", map[string]any{"uri": "file://./resources/greeting.txt"},
			`{"result":{"contents":[{"uri":"file://./resources/greeting.txt","mimeType":"text/plain","text":"Hello from a resource file"}]}}`},
		{"by name", map[string]any{"name": "example-greeting"},
			`{"result":{"contents":[{"uri":"file://./resources/greeting.txt","mimeType":"text/plain","text":"Hello from a resource file"}]}}`},
		{"declared mime wins", map[string]any{"name": "data"}, `{"result":{"contents":[{"uri":"<any>","mimeType":"application/json","text":"{\"a\":1}"}]}}`},
		{"binary as blob", map[string]any{"uri": "file://" + filepath.Join(root, "resources", "image.png")},
			`{"result":{"contents":[{"uri":"<any>","mimeType":"text/plain","blob":"` + base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00binary")) + `"}]}}`},
		{"template instance", map[string]any{"uri": "file://" + filepath.Join(root, "resources", "notes", "today.md")},
			`{"result":{"contents":[{"uri":"<any>","mimeType":"text/plain","text":"# today"}]}}`},
		{"outside the roots", map[string]any{"uri": "file:///etc/passwd"}, `{"error":{"code":-32603,"message":"Resource outside allowed roots"}}`},
		{"dotdot out", map[string]any{"uri": "file://./resources/../../../" + filepath.Join(outside, "secret.txt")}, `{"error":{"code":-32603,"message":"Resource outside allowed roots"}}`},
		{"symlink out", map[string]any{"uri": "file://" + filepath.Join(root, "resources", "escape.txt")}, `{"error":{"code":-32603,"message":"Resource outside allowed roots"}}`},
		{"missing", map[string]any{"uri": "file://" + filepath.Join(root, "resources", "nope.txt")}, `{"error":{"code":-32002,"message":"Resource not found"}}`},
		{"too large", map[string]any{"uri": "file://" + filepath.Join(root, "resources", "big.txt")}, `{"error":{"code":-32603,"message":"Resource exceeds 4096 bytes (MCPBASH_MAX_RESOURCE_BYTES)"}}`},
		{"unknown name", map[string]any{"name": "nope"}, `{"error":{"code":-32002,"message":"Resource not found"}}`},
		{"neither", map[string]any{}, `{"error":{"code":-32602,"message":"Resource name or uri required"}}`},
		{"project provider", map[string]any{"uri": "custom://thing/42"}, `{"result":{"contents":[{"uri":"custom://thing/42","mimeType":"text/plain","text":"custom provider for custom://thing/42"}]}}`},
		{"provider exit 3", map[string]any{"uri": "custom://missing/x"}, `{"error":{"code":-32002,"message":"Resource not found"}}`},
		{"provider exit 2", map[string]any{"uri": "custom://outside/x"}, `{"error":{"code":-32603,"message":"Resource outside allowed roots"}}`},
		{"provider exit 4", map[string]any{"uri": "custom://bad/x"}, `{"error":{"code":-32602,"message":"bad uri"}}`},
		{"provider exit 5", map[string]any{"uri": "custom://other"}, `{"error":{"code":-32603,"message":"fetch failed"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := readRes(c, tc.params)
			if strings.Contains(string(m.Raw), "CANARY") {
				t.Fatalf("leak: %s", m.Raw)
			}
			if d := harness.CompareLines([]string{tc.want}, [][]byte{responseMember(m)}); d != "" {
				t.Errorf("%s\n got %s\nwant %s", d, responseMember(m), tc.want)
			}
		})
	}
}

// TestResourceSubscriptionBareClient: a client that sends no clientInfo (the original's tests
// and hand-written clients) gets the original's {"subscriptionId"} and can unsubscribe with it.
func TestResourceSubscriptionBareClient(t *testing.T) {
	t.Parallel()
	root, _ := resourceProject(t)
	c := harness.Start(t, harness.Options{Dir: root})
	if m := c.Call("initialize", map[string]any{}); m.Error != nil {
		t.Fatalf("initialize: %s", m.Raw)
	}
	c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var res map[string]any
	c.Call("resources/subscribe", map[string]any{"uri": "file://./resources/greeting.txt"}).Decode(t, &res)
	id, _ := res["subscriptionId"].(string)
	if len(res) != 1 || !strings.HasPrefix(id, "sub-") {
		t.Fatalf("subscribe result %v (want only subscriptionId)", res)
	}
	if m := c.Call("resources/unsubscribe", map[string]any{"subscriptionId": id}); m.Error != nil {
		t.Errorf("unsubscribe: %s", m.Raw)
	}
}

func TestResourceSubscription(t *testing.T) {
	t.Parallel()
	root, _ := resourceProject(t)
	c := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCPBASH_RESOURCES_POLL_INTERVAL_SECS=1"}})
	c.Initialize("2025-11-25", nil)
	uri := "file://./resources/greeting.txt"
	var res map[string]any
	c.Call("resources/subscribe", map[string]any{"uri": uri}).Decode(t, &res)
	meta, _ := res["_meta"].(map[string]any)
	subID, _ := meta["mcpbash/subscriptionId"].(string)
	if len(res) != 1 || !strings.HasPrefix(subID, "sub-") {
		t.Fatalf("subscribe result %v (want only _meta with the subscription id)", res)
	}
	if m := c.Call("resources/subscribe", map[string]any{"uri": "file:///etc/passwd"}); m.Error == nil {
		t.Errorf("subscribe to an unreadable resource succeeded: %s", m.Raw)
	}
	os.WriteFile(filepath.Join(root, "resources", "greeting.txt"), []byte("changed"), 0o644)
	m := c.WaitFor(10*time.Second, "resources/updated", func(m harness.Msg) bool { return m.Method == "notifications/resources/updated" })
	if !strings.Contains(string(m.Params), uri) {
		t.Errorf("updated %s", m.Params)
	}
	if m := c.Call("resources/unsubscribe", map[string]any{}); m.Error == nil || m.Error.Message != "subscriptionId required" {
		t.Errorf("unsubscribe without id: %s", m.Raw)
	}
	c.Call("resources/unsubscribe", map[string]any{"subscriptionId": subID})
	time.Sleep(100 * time.Millisecond)
	n := len(c.Lines())
	os.WriteFile(filepath.Join(root, "resources", "greeting.txt"), []byte("changed again"), 0o644)
	time.Sleep(2500 * time.Millisecond)
	for _, l := range c.Lines()[n:] {
		if strings.Contains(string(l), "resources/updated") {
			t.Errorf("update after unsubscribe: %s", l)
		}
	}
	// The poller ends with the session: EOF exits promptly.
	c.CloseStdin()
	if err := c.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestPromptsGet(t *testing.T) {
	t.Parallel()
	root, _ := resourceProject(t)
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"renders", map[string]any{"name": "hello", "arguments": map[string]any{"name": "Ada", "age": "36", "extra": "ignored"}},
			`{"result":{"description":"Greets","messages":[{"role":"assistant","content":{"type":"text","text":"Hello, Ada! You are 36. Ada as the original writes it, $HOME stays literal."}}],"text":"Hello, Ada! You are 36. Ada as the original writes it, $HOME stays literal.","arguments":{"name":"Ada","age":"36","extra":"ignored"}}}`},
		{"missing required", map[string]any{"name": "hello", "arguments": map[string]any{"age": "3"}}, `{"error":{"code":-32602,"message":"Missing required argument: name"}}`},
		{"optional left as placeholder", map[string]any{"name": "hello", "arguments": map[string]any{"name": "Bo"}},
			`{"result":{"description":"Greets","messages":[{"role":"assistant","content":{"type":"text","text":"Hello, Bo! You are {{age}}. Bo as the original writes it, $HOME stays literal."}}],"text":"<any>","arguments":{"name":"Bo"}}}`},
		{"unknown prompt", map[string]any{"name": "nope"}, `{"error":{"code":-32602,"message":"Prompt not found"}}`},
		{"no name", map[string]any{}, `{"error":{"code":-32602,"message":"Prompt name is required"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := c.Call("prompts/get", tc.params)
			if d := harness.CompareLines([]string{tc.want}, [][]byte{responseMember(m)}); d != "" {
				t.Errorf("%s\n got %s\nwant %s", d, responseMember(m), tc.want)
			}
		})
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	root, _ := resourceProject(t)
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	type comp struct {
		Completion struct {
			Values     []string
			HasMore    bool
			NextCursor string
		}
	}
	var got []string
	params := map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "demo.completion"}, "argument": map[string]any{"name": "query", "value": "re"}}
	for page := 0; page < 5; page++ {
		var r comp
		c.Call("completion/complete", params).Decode(t, &r)
		got = append(got, r.Completion.Values...)
		if !r.Completion.HasMore {
			break
		}
		params["cursor"] = r.Completion.NextCursor
	}
	if strings.Join(got, ",") != "retry job,review logs,rebuild cache,restart,rerun,revert,reset" {
		t.Errorf("paged %v", got)
	}
	// The built-in generator for names without a provider.
	var r comp
	c.Call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "hello"}, "argument": map[string]any{"name": "name", "value": "Ad"}}).Decode(t, &r)
	if fmt.Sprint(r.Completion.Values) != "[Ad Ad snippet Ad example]" {
		t.Errorf("built-in: %v", r.Completion.Values)
	}
	for _, tc := range []struct {
		params map[string]any
		msg    string
	}{
		{map[string]any{"argument": map[string]any{"name": "x"}}, "Completion ref is required"},
		{map[string]any{"ref": map[string]any{"type": "ref/bogus"}, "argument": map[string]any{"name": "x"}}, "Completion ref is invalid"},
		{map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "hello"}}, "Completion argument name is required"},
		{map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "hello"}, "argument": map[string]any{"name": "x"}, "cursor": "garbage"}, "Invalid cursor"},
	} {
		m := c.Call("completion/complete", tc.params)
		if m.Error == nil || m.Error.Code != -32602 || m.Error.Message != tc.msg {
			t.Errorf("%v: %s", tc.params, m.Raw)
		}
	}
	var res struct{ Resources []json.RawMessage }
	c.Call("resources/list", nil).Decode(t, &res)
}

// MCP Apps: UI directories are listed as ui:// resources and readable; the extension is echoed.
func TestUIResources(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"apps"}`,
		"ui/dash/index.html":        "<html>dash</html>",
		"tools/chart/tool.sh":       "#!/usr/bin/env bash\necho chart\n",
		"tools/chart/ui/index.html": "<html>chart</html>",
	})
	c := harness.Start(t, harness.Options{Dir: root})
	init := c.Initialize("2025-11-25", map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}})
	if !strings.Contains(string(init.Raw), `"io.modelcontextprotocol/ui"`) {
		t.Errorf("extension not echoed: %s", init.Raw)
	}
	var list struct{ Resources []map[string]any }
	c.Call("resources/list", nil).Decode(t, &list)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, fmt.Sprint(r["uri"]))
	}
	if strings.Join(uris, ",") != "ui://apps/dash,ui://apps/chart" {
		t.Errorf("ui resources %v", uris)
	}
	// A client without the extension sees them listed too, as the original lists them.
	plain := harness.Start(t, harness.Options{Dir: root})
	plain.Initialize("2025-11-25", nil)
	var l2 struct {
		Resources []map[string]any
		Meta      map[string]any `json:"_meta"`
	}
	plain.Call("resources/list", nil).Decode(t, &l2)
	if len(l2.Resources) != 2 || l2.Meta["mcpbash/total"] != float64(2) {
		t.Errorf("UI resources not listed without the extension: %v %v", l2.Resources, l2.Meta)
	}
	m := c.Call("resources/read", map[string]any{"uri": "ui://apps/dash"})
	if !strings.Contains(string(m.Raw), `"text":"\u003chtml\u003edash\u003c/html\u003e"`) && !strings.Contains(string(m.Raw), "<html>dash</html>") {
		t.Errorf("read: %s", m.Raw)
	}
	var tools struct{ Tools []map[string]any }
	c.Call("tools/list", nil).Decode(t, &tools)
	if fmt.Sprint(tools.Tools[0]["_meta"]) != "map[ui:map[resourceUri:ui://apps/chart visibility:[model app]]]" {
		t.Errorf("tool _meta.ui: %v", tools.Tools[0]["_meta"])
	}
}

// MCP Apps: ui.meta.json, as the original reads it: its description (and title) in the list, its
// `meta` (csp, permissions, prefersBorder, default true) as the page's `_meta.ui` in the list and
// in resources/read, its entrypoint as the page, else the page of its template and config (form,
// data-table); a template we do not build is refused loudly.
func TestUIMeta(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"apps"}`,
		"ui/dash/index.html":        "<html>dash</html>",
		"ui/dash/ui.meta.json":      `{"title":"Dash","description":"The dashboard","meta":{"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"clipboardWrite":{}},"prefersBorder":false}}`,
		"ui/page/main.html":         "<html>main</html>",
		"ui/page/ui.meta.json":      `{"entrypoint":"main.html"}`,
		"ui/tpl/ui.meta.json":       `{"template":"form","config":{"title":"Log <it>","submitTool":"log","fields":[{"name":"kind","type":"select","options":["call","mail"],"required":true}]}}`,
		"ui/kan/ui.meta.json":       `{"template":"gantt"}`,
		"ui/prog/ui.meta.json":      `{"template":"progress","description":"Build progress","config":{"cancelTool":"stop"}}`,
		"ui/out/ui.meta.json":       `{"entrypoint":"../dash/index.html"}`,
		"ui/out/index.html":         "<html>out</html>",
	})
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	var list struct{ Resources []map[string]any }
	c.Call("resources/list", nil).Decode(t, &list)
	got := map[string]string{}
	for _, r := range list.Resources {
		got[fmt.Sprint(r["uri"])] = fmt.Sprint(r["title"], " ", r["description"], " ", r["_meta"])
	}
	for uri, want := range map[string]string{
		"ui://apps/dash": "Dash The dashboard map[ui:map[csp:map[connectDomains:[https://api.example.com]] permissions:map[clipboardWrite:map[]] prefersBorder:false]]",
		"ui://apps/page": "<nil> MCP App UI for page map[ui:map[prefersBorder:true]]",
		"ui://apps/out":  "<nil> MCP App UI for out map[ui:map[prefersBorder:true]]",
		"ui://apps/tpl":  "<nil> MCP App UI for tpl map[ui:map[csp:map[resourceDomains:[https://cdn.jsdelivr.net]] prefersBorder:true]]",
		"ui://apps/prog": "<nil> Build progress map[ui:map[csp:map[resourceDomains:[https://cdn.jsdelivr.net]] prefersBorder:true]]",
	} {
		if got[uri] != want {
			t.Errorf("%s listed as %q, want %q", uri, got[uri], want)
		}
	}
	if _, ok := got["ui://apps/kan"]; ok || len(got) != 5 {
		t.Errorf("listed %v", got)
	}
	for uri, want := range map[string]string{
		"ui://apps/dash": `"_meta":{"ui":{"csp":{"connectDomains":["https://api.example.com"]},"permissions":{"clipboardWrite":{}},"prefersBorder":false}}`,
		"ui://apps/page": "main.html",
		"ui://apps/out":  "out.html",
		"ui://apps/tpl":  "form",
		"ui://apps/prog": "progress",
	} {
		m := c.Call("resources/read", map[string]any{"uri": uri})
		var r struct{ Contents []map[string]any }
		m.Decode(t, &r)
		if len(r.Contents) != 1 {
			t.Fatalf("%s: %s", uri, m.Raw)
		}
		switch uri {
		case "ui://apps/dash":
			if !strings.Contains(string(m.Raw), want) {
				t.Errorf("%s: %s lacks %s", uri, m.Raw, want)
			}
		case "ui://apps/page":
			if r.Contents[0]["text"] != "<html>main</html>" {
				t.Errorf("%s: %s", uri, m.Raw)
			}
		case "ui://apps/out":
			// An entrypoint outside the directory is refused: index.html is served.
			if r.Contents[0]["text"] != "<html>out</html>" {
				t.Errorf("%s: %s", uri, m.Raw)
			}
		case "ui://apps/prog":
			if page, _ := r.Contents[0]["text"].(string); !strings.Contains(page, `const cancelTool = "stop";`) {
				t.Errorf("%s: %s", uri, m.Raw)
			}
		case "ui://apps/tpl":
			page, _ := r.Contents[0]["text"].(string)
			for _, part := range []string{"<title>Log &lt;it&gt;</title>", `<select id="kind" name="kind" required>`,
				`<option value="mail">mail</option>`, `const submitTool = "log";`} {
				if !strings.Contains(page, part) || r.Contents[0]["mimeType"] != "text/html;profile=mcp-app" {
					t.Errorf("%s lacks %s: %s", uri, part, m.Raw)
				}
			}
		}
	}
	// End of input ends the server: its stderr is then complete.
	c.CloseStdin()
	if err := c.Wait(harness.Backstop); err != nil {
		t.Errorf("exit: %v", err)
	}
	stderr := c.Stderr()
	for _, want := range []string{`UI template "gantt" is not one of the original's templates`, `entrypoint "../dash/index.html" is not a file inside the UI directory`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// SSRF: https resources and downloads to private, loopback, link-local and metadata addresses,
// names resolving to loopback, plain http and hosts off the allowlist are all refused.
func TestHTTPSRefusals(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := harness.Start(t, harness.Options{Dir: p.root, Env: []string{"MCPBASH_HTTPS_ALLOW_ALL=true", "MCPBASH_HTTPS_TIMEOUT=3"}})
	c.Initialize("2025-11-25", nil)
	for _, u := range []string{
		"https://127.0.0.1/x", "https://[::1]/x", "https://169.254.169.254/latest/meta-data/", "https://10.0.0.1/x",
		"https://192.168.1.1/x", "https://localhost/x", "https://0.0.0.0/x", "https://[fd00:ec2::254]/x",
		"http://example.com/x", "https://user:pw@example.com/x",
	} {
		m := c.Call("resources/read", map[string]any{"uri": u})
		if m.Error == nil || m.Error.Code == 0 {
			t.Errorf("%s: %s", u, m.Raw)
		}
		out := text(sh(t, c, "mcp_download_safe --url '"+u+"' --out data/dl.bin"))
		if !strings.Contains(out, `"success":false`) {
			t.Errorf("download %s: %s", u, out)
		}
	}
	out := text(sh(t, c, "mcp_download_safe_or_fail --url https://127.0.0.1/x --out data/dl.bin; echo not-reached"))
	if !strings.Contains(out, "Download failed (host_denied)") {
		t.Errorf("or_fail: %s", out)
	}
	if _, err := os.Stat(filepath.Join(p.root, "data", "dl.bin")); err == nil {
		t.Error("a refused download wrote a file")
	}
	// No allowlist and no ALLOW_ALL: every host is refused.
	c2 := harness.Start(t, harness.Options{Dir: p.root})
	c2.Initialize("2025-11-25", nil)
	if m := c2.Call("resources/read", map[string]any{"uri": "https://example.com/"}); m.Error == nil || !strings.Contains(string(m.Error.Data), "MCPBASH_HTTPS_ALLOW_HOSTS") {
		t.Errorf("default deny: %s", m.Raw)
	}
	// git is off unless enabled.
	if m := c2.Call("resources/read", map[string]any{"uri": "git+https://example.com/r.git#main:README.md"}); m.Error == nil || !strings.Contains(string(m.Error.Data), "MCPBASH_ENABLE_GIT_PROVIDER") {
		t.Errorf("git default off: %s", m.Raw)
	}
}

// An executable prompt file is a prompt script: it runs in the sandbox and its stdout is the text.
func TestPromptScript(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"ps"}`,
		"prompts/dyn.sh":            "#!/usr/bin/env bash\nname=$(printf '%s' \"$MCP_PROMPT_ARGS_JSON\" | jq -r .name)\necho \"Generated for $name on $(cat /etc/shadow 2>/dev/null || echo sandbox)\"\n",
		"prompts/dyn.meta.json":     `{"name":"dyn","description":"generated","arguments":{"type":"object","properties":{"name":{"type":"string"}}}}`,
	})
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	m := c.Call("prompts/get", map[string]any{"name": "dyn", "arguments": map[string]any{"name": "Ada"}})
	if !strings.Contains(string(m.Raw), `"text":"Generated for Ada on sandbox"`) {
		t.Errorf("prompt script: %s", m.Raw)
	}
}

// A prompt script that prints {"messages":[...]} returns those messages (images, resources,
// several turns); output that is not a valid message list stays one text message.
func TestPromptScriptMessages(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"ps"}`,
		"prompts/multi.sh":          "#!/usr/bin/env bash\necho '{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"iVBORw0KGgo=\",\"mimeType\":\"image/png\"}},{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"Seen.\"}}]}'\n",
		"prompts/badrole.sh":        "#!/usr/bin/env bash\necho '{\"messages\":[{\"role\":\"system\",\"content\":{\"type\":\"text\",\"text\":\"x\"}}]}'\n",
	})
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	var res struct {
		Messages []struct {
			Role    string
			Content map[string]any
		}
		Text string
	}
	c.Call("prompts/get", map[string]any{"name": "multi"}).Decode(t, &res)
	if len(res.Messages) != 2 || res.Messages[0].Content["type"] != "image" || res.Messages[1].Role != "assistant" || res.Text != "Seen." {
		t.Errorf("messages: %+v", res)
	}
	res.Messages = nil
	c.Call("prompts/get", map[string]any{"name": "badrole"}).Decode(t, &res)
	if len(res.Messages) != 1 || res.Messages[0].Content["type"] != "text" || !strings.Contains(res.Text, `"role":"system"`) {
		t.Errorf("invalid message list must stay text: %+v", res)
	}
}

// The original also subscribes by the resource's name; updates then name its URI and carry
// the new content.
func TestResourceSubscriptionByName(t *testing.T) {
	t.Parallel()
	root, _ := resourceProject(t)
	c := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCPBASH_RESOURCES_POLL_INTERVAL_SECS=1"}})
	c.Initialize("2025-11-25", nil)
	if m := c.Call("resources/subscribe", map[string]any{"name": "example-greeting"}); m.Error != nil {
		t.Fatalf("subscribe by name: %s", m.Raw)
	}
	if m := c.Call("resources/subscribe", map[string]any{"name": "no-such"}); m.Error == nil || m.Error.Code != -32002 {
		t.Errorf("unknown name: %s", m.Raw)
	}
	if m := c.Call("resources/subscribe", map[string]any{}); m.Error == nil || m.Error.Message != "Resource name or uri required" {
		t.Errorf("neither: %s", m.Raw)
	}
	os.WriteFile(filepath.Join(root, "resources", "greeting.txt"), []byte("changed"), 0o644)
	m := c.WaitFor(10*time.Second, "resources/updated", func(m harness.Msg) bool { return m.Method == "notifications/resources/updated" })
	// The content read goes along, as the original sends it.
	if string(m.Params) != `{"contents":[{"uri":"file://./resources/greeting.txt","mimeType":"text/plain","text":"changed"}],"uri":"file://./resources/greeting.txt"}` {
		t.Errorf("updated %s", m.Params)
	}
}
