package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// Protocol 2026-07-28: no initialize; every request carries its revision and capabilities.

// statelessProject is the sandbox test project plus a resource and a prompt.
func statelessProject(t *testing.T) secProject {
	return newSecProject(t, map[string]string{
		"resources/note.txt":          "first\n",
		"resources/note.meta.json":    `{"name":"note","uri":"file://./resources/note.txt","mimeType":"text/plain"}`,
		"prompts/hi/prompt.txt":       "Hello!",
		"prompts/hi/prompt.meta.json": `{"name":"hi","description":"greets","path":"prompt.txt"}`,
	})
}

func startStateless(t *testing.T, p secProject, env ...string) *harness.Client {
	// A backstop, as in secProject.start.
	env = append(env, "MCPBASH_TEST_CANARY="+canary, "MCPBASH_DEFAULT_TOOL_TIMEOUT=120")
	return harness.Start(t, harness.Options{Dir: p.root, Env: env})
}

// call sends a 2026-07-28 request with the given capabilities and log level.
func statelessCall(c *harness.Client, method string, params map[string]any, caps map[string]any, level string) harness.Msg {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = harness.RequestMeta(caps, level)
	return c.Call(method, params)
}

func resultMap(t *testing.T, m harness.Msg) map[string]any {
	t.Helper()
	var r map[string]any
	m.Decode(t, &r)
	return r
}

func TestStatelessDiscoverFirst(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p)
	d := resultMap(t, statelessCall(c, "server/discover", nil, nil, ""))
	if d["resultType"] != "complete" || d["cacheScope"] == nil || d["ttlMs"] == nil {
		t.Errorf("discover result: %v", d)
	}
	vs, _ := d["supportedVersions"].([]any)
	if len(vs) < 5 || vs[0] != "2026-07-28" || vs[1] != "2025-11-25" {
		t.Errorf("supportedVersions %v", vs)
	}
	if meta, _ := d["_meta"].(map[string]any); meta["io.modelcontextprotocol/serverInfo"] == nil {
		t.Errorf("no serverInfo in _meta: %v", d)
	}
	list := resultMap(t, statelessCall(c, "tools/list", nil, nil, ""))
	if list["resultType"] != "complete" || list["ttlMs"] != float64(0) || list["cacheScope"] != "public" {
		t.Errorf("tools/list cache hints: %v", list)
	}
	r := statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "echo hi"}}, nil, "")
	if got := strings.TrimSpace(text(r)); got != "hi" || resultMap(t, r)["resultType"] != "complete" {
		t.Errorf("tools/call: %s", r.Raw)
	}
	for _, m := range []string{"resources/list", "resources/templates/list", "prompts/list"} {
		res := resultMap(t, statelessCall(c, m, nil, nil, ""))
		if res["cacheScope"] != "public" || res["ttlMs"] == nil {
			t.Errorf("%s: %v", m, res)
		}
	}
	read := resultMap(t, statelessCall(c, "resources/read", map[string]any{"uri": "file://./resources/note.txt"}, nil, ""))
	if read["cacheScope"] != "private" || read["resultType"] != "complete" {
		t.Errorf("resources/read: %v", read)
	}
	g := statelessCall(c, "prompts/get", map[string]any{"name": "hi"}, nil, "")
	if g.Error != nil || resultMap(t, g)["resultType"] != "complete" {
		t.Errorf("prompts/get: %s", g.Raw)
	}
	// A request without _meta is still refused before initialize, as before.
	if m := c.Call("tools/list", nil); m.Error == nil || m.Error.Code != -32000 {
		t.Errorf("tools/list without _meta: %s", m.Raw)
	}
	// ping stays answered in any state.
	if m := c.Call("ping", nil); m.Error != nil {
		t.Errorf("ping: %s", m.Raw)
	}
}

func TestStatelessInitializeFirstStillLegacy(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p)
	// A probing client may discover first and then choose initialize.
	if d := c.Call("server/discover", map[string]any{}); d.Error != nil {
		t.Fatalf("discover without _meta: %s", d.Raw)
	}
	init := c.Initialize("2025-11-25", nil)
	var r struct{ ProtocolVersion string }
	init.Decode(t, &r)
	if r.ProtocolVersion != "2025-11-25" {
		t.Fatalf("negotiated %q", r.ProtocolVersion)
	}
	list := resultMap(t, c.Call("tools/list", nil))
	if _, ok := list["resultType"]; ok {
		t.Errorf("legacy result carries resultType: %v", list)
	}
	// 2026-07-28 only methods do not exist in a legacy session.
	if m := c.Call("subscriptions/listen", map[string]any{"notifications": map[string]any{}}); m.Error == nil || m.Error.Code != -32601 {
		t.Errorf("subscriptions/listen in a legacy session: %s", m.Raw)
	}
	// Initialize with 2026-07-28 is answered with the newest legacy revision.
	c2 := startStateless(t, p)
	init2 := c2.Initialize("2026-07-28", nil)
	init2.Decode(t, &r)
	if r.ProtocolVersion != "2025-11-25" {
		t.Errorf("initialize 2026-07-28 negotiated %q", r.ProtocolVersion)
	}
}

func TestStatelessErrors(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p)
	for _, tc := range []struct {
		name string
		meta map[string]any
		code int
	}{
		{"unknown version", map[string]any{"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}, -32022},
		{"legacy version per request", map[string]any{"io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}, -32022},
		{"version not a string", map[string]any{"io.modelcontextprotocol/protocolVersion": 7, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}, -32602},
		{"no capabilities", map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28"}, -32602},
		{"capabilities not an object", map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": "x"}, -32602},
		{"bad log level", map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": map[string]any{}, "io.modelcontextprotocol/logLevel": "loud"}, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := c.Call("tools/list", map[string]any{"_meta": tc.meta})
			if m.Error == nil || m.Error.Code != tc.code {
				t.Fatalf("want %d, got %s", tc.code, m.Raw)
			}
			if tc.code == -32022 {
				var d struct {
					Requested string
					Supported []string
				}
				json.Unmarshal(m.Error.Data, &d)
				if d.Requested == "" || len(d.Supported) == 0 || d.Supported[0] != "2026-07-28" {
					t.Errorf("error data %s", m.Error.Data)
				}
			}
		})
	}
	// Methods the revision removed.
	for _, m := range []string{"logging/setLevel", "resources/subscribe", "resources/unsubscribe", "no/such"} {
		if r := statelessCall(c, m, map[string]any{"level": "debug", "uri": "file://./resources/note.txt"}, nil, ""); r.Error == nil || r.Error.Code != -32601 {
			t.Errorf("%s: %s", m, r.Raw)
		}
	}
	// A bad requestState is refused, not run.
	r := statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "echo x"}, "requestState": "forged"}, nil, "")
	if r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("forged requestState: %s", r.Raw)
	}
	// The server is still fine.
	if got := strings.TrimSpace(text(statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "echo ok"}}, nil, ""))); got != "ok" {
		t.Errorf("after errors: %q", got)
	}
}

// inputRequired decodes an InputRequiredResult.
type inputRequired struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
}

func TestStatelessElicitationRoundTrip(t *testing.T) {
	forEngines(t, testStatelessElicitationRoundTrip)
}

func testStatelessElicitationRoundTrip(t *testing.T, engine string) {
	p := statelessProject(t)
	c := startStateless(t, p, "MCPBASH_EXEC="+engine)
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	script := `a=$(mcp_elicit_string 'Name?'); b=$(mcp_elicit_confirm 'Sure?'); echo "A=$a B=$b"`
	args := map[string]any{"script": script}
	call := func(extra map[string]any) harness.Msg {
		params := map[string]any{"name": "sh", "arguments": args}
		for k, v := range extra {
			params[k] = v
		}
		return statelessCall(c, "tools/call", params, caps, "")
	}
	var ir inputRequired
	call(nil).Decode(t, &ir)
	if ir.ResultType != "input_required" || len(ir.InputRequests) != 1 || ir.RequestState == "" {
		t.Fatalf("round 1: %+v", ir)
	}
	var key string
	for k, v := range ir.InputRequests {
		key = k
		if !strings.Contains(string(v), `"method":"elicitation/create"`) || !strings.Contains(string(v), `Name?`) {
			t.Errorf("input request %s", v)
		}
	}
	// Round 2: answer the first question; the tool asks its second.
	var ir2 inputRequired
	call(map[string]any{"requestState": ir.RequestState, "inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"value": "Ada"}}}}).Decode(t, &ir2)
	if ir2.ResultType != "input_required" || len(ir2.InputRequests) != 1 {
		t.Fatalf("round 2: %+v", ir2)
	}
	var key2 string
	for k, v := range ir2.InputRequests {
		key2 = k
		if !strings.Contains(string(v), "Sure?") {
			t.Errorf("second question %s", v)
		}
	}
	// A missing answer is an error, not a silent re-ask.
	if m := call(map[string]any{"requestState": ir2.RequestState, "inputResponses": map[string]any{}}); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("missing inputResponses: %s", m.Raw)
	}
	// The state is bound to the call: other arguments cannot reuse it.
	if m := statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "echo other"}, "requestState": ir2.RequestState,
		"inputResponses": map[string]any{key2: map[string]any{"action": "accept"}}}, caps, ""); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("transplanted requestState: %s", m.Raw)
	}
	final := call(map[string]any{"requestState": ir2.RequestState, "inputResponses": map[string]any{key2: map[string]any{"action": "accept", "content": map[string]any{"confirmed": true}}}})
	got := strings.TrimSpace(text(final))
	if !strings.Contains(got, `A={"action":"accept","content":{"value":"Ada"}}`) || !strings.Contains(got, `"confirmed":true`) {
		t.Errorf("final: %s", final.Raw)
	}
	// No server→client request was ever sent.
	for _, l := range c.Lines() {
		if m := harness.ParseMsg(l); m.Method == "elicitation/create" || m.Method == "roots/list" {
			t.Errorf("server sent a request: %s", l)
		}
	}
	// Without the capability the helpers decline without a round trip.
	r := statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": `mcp_elicit_string 'N?'; echo "rc=$?"`}}, nil, "")
	if got := strings.TrimSpace(text(r)); !strings.HasSuffix(got, "rc=1") {
		t.Errorf("no capability: %s", r.Raw)
	}
}

func TestStatelessRootsRoundTrip(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p)
	caps := map[string]any{"roots": map[string]any{}}
	args := map[string]any{"script": `echo "$MCP_ROOTS_PATHS"`}
	var ir inputRequired
	statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": args}, caps, "").Decode(t, &ir)
	if ir.ResultType != "input_required" || !strings.Contains(string(ir.InputRequests["roots"]), `"method":"roots/list"`) {
		t.Fatalf("roots request: %+v", ir)
	}
	final := statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": args, "requestState": ir.RequestState,
		"inputResponses": map[string]any{"roots": map[string]any{"roots": []any{map[string]any{"uri": "file://" + p.outside, "name": "out"}}}}}, caps, "")
	if got := strings.TrimSpace(text(final)); got != p.outside {
		t.Errorf("roots in the tool: %q (%s)", got, final.Raw)
	}
	// Without the roots capability the server's fallback roots apply at once.
	r := statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": args}, nil, "")
	if got := strings.TrimSpace(text(r)); got != p.root {
		t.Errorf("fallback roots: %q", got)
	}
}

func TestStatelessLogLevelPerRequest(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p)
	script := map[string]any{"script": "mcp_log_debug demo dbg-line; mcp_log_warn demo warn-line; echo done"}
	count := func(id string) (debug, warn int) {
		for _, l := range c.Lines() {
			s := string(l)
			if !strings.Contains(s, `"notifications/message"`) {
				continue
			}
			if strings.Contains(s, "dbg-line-"+id) {
				debug++
			}
			if strings.Contains(s, "warn-line-"+id) {
				warn++
			}
		}
		return
	}
	for _, tc := range []struct {
		id, level   string
		debug, warn int
	}{{"none", "", 0, 0}, {"debug", "debug", 1, 1}, {"warning", "warning", 0, 1}} {
		s := strings.ReplaceAll(script["script"].(string), "-line", "-line-"+tc.id)
		statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": s}}, nil, tc.level)
		if d, w := count(tc.id); d != tc.debug || w != tc.warn {
			t.Errorf("level %q: debug %d warn %d, want %d %d", tc.level, d, w, tc.debug, tc.warn)
		}
	}
}

func TestStatelessSubscriptionsListen(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p, "MCPBASH_RESOURCES_POLL_INTERVAL_SECS=1")
	params := map[string]any{"notifications": map[string]any{"toolsListChanged": true, "resourceSubscriptions": []any{"file://./resources/note.txt", "file://./nope.txt"}},
		"_meta": harness.RequestMeta(nil, "")}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen", "params": params})
	c.Send(string(b))
	ack := c.WaitFor(10*time.Second, "acknowledgement", func(m harness.Msg) bool { return m.Method == "notifications/subscriptions/acknowledged" })
	var ap struct {
		Notifications map[string]any `json:"notifications"`
		Meta          map[string]any `json:"_meta"`
	}
	json.Unmarshal(ack.Params, &ap)
	if ap.Meta["io.modelcontextprotocol/subscriptionId"] != "listen-1" || ap.Notifications["toolsListChanged"] != true {
		t.Errorf("ack %s", ack.Raw)
	}
	if subs, _ := ap.Notifications["resourceSubscriptions"].([]any); len(subs) != 1 {
		t.Errorf("agreed resources %v (the unreadable one must be left out)", subs)
	}
	// A changed resource and a new tool are announced on the stream.
	if err := os.WriteFile(filepath.Join(p.root, "resources", "note.txt"), []byte("second\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	upd := c.WaitFor(15*time.Second, "resources/updated", func(m harness.Msg) bool { return m.Method == "notifications/resources/updated" })
	if !strings.Contains(string(upd.Params), `"io.modelcontextprotocol/subscriptionId":"listen-1"`) {
		t.Errorf("updated without subscription id: %s", upd.Raw)
	}
	statelessCall(c, "tools/list", nil, nil, "")
	dir := filepath.Join(p.root, "tools", "extra")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "tool.sh"), []byte("#!/usr/bin/env bash\necho extra\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "tool.meta.json"), []byte(`{"name":"extra","inputSchema":{"type":"object"}}`), 0o644)
	deadline := time.Now().Add(15 * time.Second)
	for {
		statelessCall(c, "tools/list", nil, nil, "") // list calls also re-check the registry
		found := false
		for _, l := range c.Lines() {
			if strings.Contains(string(l), `"notifications/tools/list_changed"`) && strings.Contains(string(l), `"listen-1"`) {
				found = true
			}
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no tools/list_changed on the stream; lines:\n%s", joined(c))
		}
		time.Sleep(300 * time.Millisecond)
	}
	// Nothing was sent that the stream did not ask for.
	for _, l := range c.Lines() {
		if strings.Contains(string(l), "prompts/list_changed") || strings.Contains(string(l), "resources/list_changed") {
			t.Errorf("unrequested notification: %s", l)
		}
	}
	// The end of input closes the stream with a result.
	c.CloseStdin()
	end := c.Response(`"listen-1"`)
	if end.Error != nil || !strings.Contains(string(end.Result), `"io.modelcontextprotocol/subscriptionId":"listen-1"`) {
		t.Errorf("stream end: %s", end.Raw)
	}
	if err := c.Wait(10 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
}

func TestStatelessListenCancelled(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p)
	params := map[string]any{"notifications": map[string]any{"promptsListChanged": true}, "_meta": harness.RequestMeta(nil, "")}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 77, "method": "subscriptions/listen", "params": params})
	c.Send(string(b))
	c.WaitFor(10*time.Second, "acknowledgement", func(m harness.Msg) bool { return m.Method == "notifications/subscriptions/acknowledged" })
	c.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}`)
	// A missing notifications filter is invalid.
	if m := statelessCall(c, "subscriptions/listen", map[string]any{}, nil, ""); m.Error == nil || m.Error.Code != -32602 {
		t.Errorf("listen without notifications: %s", m.Raw)
	}
	c.CloseStdin()
	if err := c.Wait(10 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
	for _, l := range c.Lines() {
		if m := harness.ParseMsg(l); string(m.ID) == "77" {
			t.Errorf("cancelled stream answered: %s", l)
		}
	}
}

func joined(c *harness.Client) string {
	var b strings.Builder
	for _, l := range c.Lines() {
		fmt.Fprintf(&b, "%s\n", l)
	}
	return b.String()
}

// mcp_sample in 2026-07-28 is a sampling/createMessage input request, answered on the retry.
func TestStatelessSamplingRoundTrip(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p)
	caps := map[string]any{"sampling": map[string]any{}}
	args := map[string]any{"script": `r=$(mcp_sample --max-tokens 50 --system 'Be brief' 'Say hi'); echo "rc=$? $r"`}
	var ir inputRequired
	statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": args}, caps, "").Decode(t, &ir)
	req, ok := ir.InputRequests["input-1"]
	if ir.ResultType != "input_required" || !ok || !strings.Contains(string(req), `"method":"sampling/createMessage"`) || !strings.Contains(string(req), `"maxTokens":50`) {
		t.Fatalf("sampling request: %+v", ir)
	}
	answer := map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "hi"}, "model": "m", "stopReason": "endTurn"}
	final := statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": args, "requestState": ir.RequestState,
		"inputResponses": map[string]any{"input-1": answer}}, caps, "")
	if got := strings.TrimSpace(text(final)); !strings.HasPrefix(got, `rc=0 {`) || !strings.Contains(got, `"text":"hi"`) {
		t.Errorf("final: %s", final.Raw)
	}
	// Without the capability mcp_sample fails without a round trip.
	r := statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": args}, nil, "")
	if got := strings.TrimSpace(text(r)); strings.HasPrefix(got, "rc=0") || resultMap(t, r)["resultType"] != "complete" {
		t.Errorf("no capability: %s", r.Raw)
	}
}

// Progress, cancellation and completion work per request without a session.
func TestStatelessProgressCancelComplete(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p)
	meta := harness.RequestMeta(nil, "")
	meta["progressToken"] = "tok"
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "pr", "method": "tools/call", "params": map[string]any{"name": "sh",
		"arguments": map[string]any{"script": "mcp_progress 10 a; mcp_progress 20 b; echo done"}, "_meta": meta}})
	c.Send(string(b))
	if got := strings.TrimSpace(text(c.Response(`"pr"`))); got != "done" {
		t.Errorf("progress call: %q", got)
	}
	n := 0
	for _, l := range c.Lines() {
		if strings.Contains(string(l), `"notifications/progress"`) && strings.Contains(string(l), `"progressToken":"tok"`) {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d progress notifications", n)
	}
	// Cancelled once it runs (its progress shows it).
	slowMeta := harness.RequestMeta(nil, "")
	slowMeta["progressToken"] = "slow-tok"
	b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": map[string]any{"name": "sh",
		"arguments": map[string]any{"script": "mcp_progress 1 started; sleep 100000; echo late"}, "_meta": slowMeta}})
	c.Send(string(b))
	c.WaitFor(harness.Backstop, "the slow call's progress", func(m harness.Msg) bool {
		return m.Method == "notifications/progress" && strings.Contains(string(m.Params), `"slow-tok"`)
	})
	c.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow"}}`)
	comp := statelessCall(c, "completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "hi"}, "argument": map[string]any{"name": "x", "value": ""}}, nil, "")
	if comp.Error != nil || resultMap(t, comp)["resultType"] != "complete" {
		t.Errorf("completion/complete: %s", comp.Raw)
	}
	// At end of input the server answers every request it read before exiting; the cancelled
	// call (whose sleep outlasts the backstop) must not be among them, nor hold the exit.
	c.CloseStdin()
	if err := c.Wait(harness.Backstop); err != nil {
		t.Errorf("exit: %v", err)
	}
	for _, l := range c.Lines() {
		if strings.Contains(string(l), `"id":"slow"`) {
			t.Errorf("cancelled call answered: %s", l)
		}
	}
}

// Open streams hold no worker: more streams than MCPBASH_MAX_CONCURRENT_REQUESTS leave calls
// served, a duplicate open id is refused, and every stream is answered at end of input.
func TestStatelessManyListeners(t *testing.T) {
	p := statelessProject(t)
	c := startStateless(t, p, "MCPBASH_MAX_CONCURRENT_REQUESTS=2")
	params := map[string]any{"notifications": map[string]any{"toolsListChanged": true}, "_meta": harness.RequestMeta(nil, "")}
	const n = 10
	for i := 0; i < n; i++ {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("s%d", i), "method": "subscriptions/listen", "params": params})
		c.Send(string(b))
	}
	acks := 0
	c.WaitFor(10*time.Second, "acknowledgements", func(m harness.Msg) bool {
		if m.Method == "notifications/subscriptions/acknowledged" {
			acks++
		}
		return acks == n
	})
	if got := strings.TrimSpace(text(statelessCall(c, "tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "echo served"}}, nil, ""))); got != "served" {
		t.Errorf("call with open streams: %q", got)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s0", "method": "subscriptions/listen", "params": params})
	c.Send(string(b))
	dup := c.WaitFor(10*time.Second, "duplicate refusal", func(m harness.Msg) bool { return string(m.ID) == `"s0"` && m.Error != nil })
	if dup.Error.Code != -32600 {
		t.Errorf("duplicate: %s", dup.Raw)
	}
	c.CloseStdin()
	if err := c.Wait(10 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
	for i := 0; i < n; i++ {
		if m := c.Response(fmt.Sprintf(`"s%d"`, i)); m.Error != nil && i != 0 {
			t.Errorf("stream %d: %s", i, m.Raw)
		}
	}
	ends := 0
	for _, l := range c.Lines() {
		if strings.Contains(string(l), `"result":{"_meta":{"io.modelcontextprotocol/serverInfo"`) && strings.Contains(string(l), `"io.modelcontextprotocol/subscriptionId"`) {
			ends++
		}
	}
	if ends != n {
		t.Errorf("%d streams closed with a result, want %d", ends, n)
	}
}
