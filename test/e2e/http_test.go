package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// Streamable HTTP (`serve --http`): every exchange goes through a recording proxy that
// validates each server message against the schema of its revision.

const httpInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"%s","capabilities":%s,"clientInfo":{"name":"http-e2e","version":"1"}}}`

// httpProject is a project with tools that answer at once, wait for a file, and ask the client.
func httpProject(t *testing.T) string {
	return writeProject(t, map[string]string{
		"server.d/server.meta.json":  `{"name":"httpt","version":"1.0.0"}`,
		"tools/hello/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\necho \"hello $(mcp_args_get '.name // \"world\"')\"\n",
		"tools/hello/tool.meta.json": `{"name":"hello","description":"greets","inputSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`,
		// wait reports progress 1, waits until the test creates release-<key>, reports 2, answers.
		"tools/wait/tool.sh": "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nk=$(mcp_args_get .key)\nmcp_progress 1 started 2\n" +
			"while [ ! -e \"$MCPBASH_PROJECT_ROOT/release-$k\" ]; do sleep 0.02; done\nmcp_progress 2 done 2\necho \"released $k\"\n",
		"tools/wait/tool.meta.json": `{"name":"wait","description":"waits for a file","timeoutSecs":120,"inputSchema":{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}}`,
		"tools/ask/tool.sh":         "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\na=$(mcp_elicit 'Name?' '{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}')\necho \"answer: $a\"\n",
		"tools/ask/tool.meta.json":  `{"name":"ask","description":"asks the user","inputSchema":{"type":"object","properties":{}}}`,
	})
}

func release(t *testing.T, root, key string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "release-"+key), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hc is a raw Streamable HTTP client for one session.
type hc struct {
	t   *testing.T
	url string
	sid string
	rev string
}

type hreply struct {
	status int
	header http.Header
	body   string
	events []harness.SSEEvent // data events (priming events included), no comments
}

// msgs are the JSON-RPC messages of a reply (the body, or the events' data).
func (r hreply) msgs() []harness.Msg {
	var out []harness.Msg
	if len(r.events) == 0 && strings.HasPrefix(r.body, "{") {
		return []harness.Msg{harness.ParseMsg([]byte(r.body))}
	}
	for _, e := range r.events {
		if e.Data != "" {
			out = append(out, harness.ParseMsg([]byte(e.Data)))
		}
	}
	return out
}

func (r hreply) last() harness.Msg {
	m := r.msgs()
	if len(m) == 0 {
		return harness.Msg{}
	}
	return m[len(m)-1]
}

func (c *hc) request(method, body string, hdr ...string) *http.Request {
	req, err := http.NewRequest(method, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
	}
	if c.rev != "" {
		req.Header.Set("Mcp-Protocol-Version", c.rev)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	if h := req.Header.Get("Host"); h != "" {
		req.Host = h
	}
	return req
}

// do sends a request and reads the whole answer.
func (c *hc) do(method, body string, hdr ...string) hreply {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(c.request(method, body, hdr...).WithContext(ctx))
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	r := hreply{status: resp.StatusCode, header: resp.Header}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		events := make(chan harness.SSEEvent)
		go harness.ReadSSE(resp.Body, events)
		for e := range events {
			if !e.Comment {
				r.events = append(r.events, e)
			}
		}
		return r
	}
	b, _ := io.ReadAll(resp.Body)
	r.body = string(b)
	return r
}

func (c *hc) post(body string, hdr ...string) hreply {
	c.t.Helper()
	return c.do(http.MethodPost, body, hdr...)
}

// open sends a request and returns its live event stream (headers checked by the caller).
func (c *hc) open(method, body string, hdr ...string) (*http.Response, <-chan harness.SSEEvent, func()) {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := http.DefaultClient.Do(c.request(method, body, hdr...).WithContext(ctx))
	if err != nil {
		cancel()
		c.t.Fatalf("%s: %v", method, err)
	}
	events := make(chan harness.SSEEvent, 64)
	go harness.ReadSSE(resp.Body, events)
	closeFn := func() { cancel(); resp.Body.Close() }
	c.t.Cleanup(closeFn)
	return resp, events, closeFn
}

// next waits for the next data event (comments skipped).
func next(t *testing.T, events <-chan harness.SSEEvent, what string) harness.SSEEvent {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e, ok := <-events:
			if !ok {
				t.Fatalf("stream ended before %s", what)
			}
			if !e.Comment {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s within 30s", what)
		}
	}
}

// nextMsg waits for the next data event that carries a message.
func nextMsg(t *testing.T, events <-chan harness.SSEEvent, what string) (harness.Msg, string) {
	t.Helper()
	for {
		e := next(t, events, what)
		if e.Data != "" {
			return harness.ParseMsg([]byte(e.Data)), e.ID
		}
	}
}

// startHTTP serves a project and returns the recording proxy's endpoint and the server.
func startHTTP(t *testing.T, root string, env ...string) (*harness.HTTPServer, string) {
	srv := harness.StartHTTP(t, harness.Options{Dir: root, Env: env})
	rec := harness.NewRecorder(t, srv.URL)
	return srv, rec.URL
}

// session initializes a session and confirms it.
func session(t *testing.T, url, rev, caps string) *hc {
	t.Helper()
	c := &hc{t: t, url: url}
	r := c.post(fmt.Sprintf(httpInit, rev, caps))
	m := r.last()
	if r.status != 200 || m.Error != nil || m.Result == nil {
		t.Fatalf("initialize: %d %s %v", r.status, r.body, r.events)
	}
	c.sid = r.header.Get("Mcp-Session-Id")
	if c.sid == "" {
		t.Fatal("initialize answered without Mcp-Session-Id")
	}
	for _, ch := range c.sid {
		if ch < 0x21 || ch > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", c.sid)
		}
	}
	c.rev = rev
	if r := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != http.StatusAccepted || r.body != "" {
		t.Fatalf("notifications/initialized: %d %q", r.status, r.body)
	}
	return c
}

func TestHTTPLifecycle(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root)
	raw := &hc{t: t, url: url}
	if r := raw.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != http.StatusBadRequest {
		t.Errorf("request without a session: %d %s", r.status, r.body)
	}
	if r := raw.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Mcp-Session-Id", "no-such-session"); r.status != http.StatusNotFound {
		t.Errorf("unknown session: %d %s", r.status, r.body)
	}
	if r := raw.do(http.MethodGet, "", "Mcp-Session-Id", "no-such-session"); r.status != http.StatusNotFound {
		t.Errorf("GET of an unknown session: %d", r.status)
	}
	if r := raw.do(http.MethodPut, "{}"); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") == "" {
		t.Errorf("PUT: %d Allow=%q", r.status, r.header.Get("Allow"))
	}
	if r := raw.post(`{"jsonrpc":`); r.status != http.StatusBadRequest || !strings.Contains(r.body, "-32700") {
		t.Errorf("parse error: %d %s", r.status, r.body)
	}
	if r := raw.post(`{}`, "Content-Type", "text/plain"); r.status != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain body: %d", r.status)
	}

	c := session(t, url, "2025-11-25", `{}`)
	// The GET stream carries what belongs to no request: the initial list_changed, one per kind.
	resp, events, closeGET := c.open(http.MethodGet, "")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, kind := range []string{"tools", "resources", "prompts"} {
		if m, id := nextMsg(t, events, kind+"/list_changed"); m.Method != "notifications/"+kind+"/list_changed" || id == "" {
			t.Errorf("GET stream: %s (id %q), want %s/list_changed with an event id", m.Raw, id, kind)
		}
	}
	closeGET()
	r := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" || !strings.Contains(r.body, "hello Ada") {
		t.Errorf("tools/call: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); r.body != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("ping: %d %s", r.status, r.body)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`); !strings.Contains(r.body, "already initialized") {
		t.Errorf("second initialize: %s", r.body)
	}
	if r := c.do(http.MethodDelete, ""); r.status != http.StatusNoContent {
		t.Errorf("DELETE: %d %s", r.status, r.body)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":5,"method":"ping"}`); r.status != http.StatusNotFound {
		t.Errorf("after DELETE: %d %s", r.status, r.body)
	}
	// A new initialize after the 404 works (what a client does next).
	if c2 := session(t, url, "2025-11-25", `{}`); c2.sid == c.sid {
		t.Error("a new session reused the ended session's id")
	}
}

// The protocol version header: unsupported → 400; absent → the session's revision; batches only
// where the revision has them.
func TestHTTPProtocolVersionHeader(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root)
	c := session(t, url, "2025-06-18", `{}`)
	if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Mcp-Protocol-Version", "1999-01-01"); r.status != http.StatusBadRequest {
		t.Errorf("unsupported version header: %d %s", r.status, r.body)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "Mcp-Protocol-Version", ""); r.status != 200 {
		t.Errorf("no version header: %d %s", r.status, r.body)
	}
	if r := c.post(`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`); r.status != http.StatusBadRequest || !strings.Contains(r.body, "Batch arrays are not allowed for protocol 2025-06-18") {
		t.Errorf("batch on 2025-06-18: %d %s", r.status, r.body)
	}
	old := session(t, url, "2025-03-26", `{}`)
	old.rev = "" // 2025-03-26 clients send no version header
	r := old.post(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"zz"}},{"jsonrpc":"2.0","id":"b","method":"tools/list"}]`)
	var batch []json.RawMessage
	if r.status != 200 || json.Unmarshal([]byte(r.body), &batch) != nil || len(batch) != 2 {
		t.Errorf("batch on 2025-03-26: %d %s", r.status, r.body)
	}
}

// Accept decides the form of the answer: JSON when the response is all there is, SSE when
// messages come first (a priming event first on 2025-11-25); a JSON-only client gets the answer
// alone; accepting neither is 406.
func TestHTTPAccept(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root)
	c := session(t, url, "2025-11-25", `{}`)
	call := func(id int, key string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait","arguments":{"key":%q},"_meta":{"progressToken":"p%d"}}}`, id, key, id)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, "Accept", "text/plain"); r.status != http.StatusNotAcceptable {
		t.Errorf("Accept text/plain: %d", r.status)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "Accept", "text/event-stream"); len(r.events) == 0 || r.last().Result == nil {
		t.Errorf("SSE-only client: %d %q %v", r.status, r.body, r.events)
	}
	// Progress before the response: an SSE stream, priming event first, the response last.
	release(t, root, "a")
	r := c.post(call(4, "a"))
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") || len(r.events) < 4 {
		t.Fatalf("call with progress: %s %v", r.header.Get("Content-Type"), r.events)
	}
	if r.events[0].ID == "" || r.events[0].Data != "" {
		t.Errorf("first event %+v, want a priming event (an id, empty data)", r.events[0])
	}
	var kinds []string
	for _, m := range r.msgs() {
		kinds = append(kinds, m.Method+string(m.ID))
	}
	if got := strings.Join(kinds, " "); got != "notifications/progress notifications/progress 4" {
		t.Errorf("stream: %s", got)
	}
	// The same call from a JSON-only client: the answer alone.
	release(t, root, "b")
	r = c.post(call(5, "b"), "Accept", "application/json")
	if r.header.Get("Content-Type") != "application/json" || !strings.Contains(r.body, "released b") {
		t.Errorf("JSON-only client: %s %s", r.header.Get("Content-Type"), r.body)
	}
	// On 2025-06-18 there is no priming event.
	c2 := session(t, url, "2025-06-18", `{}`)
	release(t, root, "c")
	r = c2.post(call(6, "c"))
	if len(r.events) == 0 || r.events[0].Data == "" {
		t.Errorf("2025-06-18 stream starts with %+v", r.events)
	}
}

// A tool's question to the client travels on its call's stream; the answer is POSTed (202) and
// the stream ends with the result.
func TestHTTPElicitationOnPOSTStream(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root)
	c := session(t, url, "2025-11-25", `{"elicitation":{"form":{}}}`)
	resp, events, _ := c.open(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("content type %s", resp.Header.Get("Content-Type"))
	}
	req, _ := nextMsg(t, events, "elicitation/create")
	if req.Method != "elicitation/create" || req.ID == nil {
		t.Fatalf("got %s, want elicitation/create", req.Raw)
	}
	if r := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Ada"}}}`, req.ID)); r.status != http.StatusAccepted {
		t.Fatalf("answer: %d %s", r.status, r.body)
	}
	res, _ := nextMsg(t, events, "the result")
	if string(res.ID) != "2" || !strings.Contains(string(res.Result), `Ada`) {
		t.Fatalf("result %s", res.Raw)
	}
	if _, ok := <-events; ok {
		t.Error("the stream goes on after the response")
	}
}

// A change of the project reaches an open GET stream as list_changed.
func TestHTTPGETListChanged(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root, "MCP_TOOLS_TTL=0.2")
	c := session(t, url, "2025-11-25", `{}`)
	_, events, _ := c.open(http.MethodGet, "")
	for range 3 {
		nextMsg(t, events, "the initial list_changed")
	}
	if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); r.status != 200 {
		t.Fatalf("tools/list: %d", r.status)
	}
	if err := os.MkdirAll(filepath.Join(root, "tools", "added"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "tools", "added", "tool.sh"), []byte("#!/usr/bin/env bash\necho added\n"), 0o755)
	os.WriteFile(filepath.Join(root, "tools", "added", "tool.meta.json"), []byte(`{"name":"added","description":"new","inputSchema":{"type":"object"}}`), 0o644)
	for {
		// The server re-checks on its keep-alive tick and after each request; poke it until the
		// change arrives (each poke is an event the test waits on, not a guess of time).
		c.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		select {
		case e := <-events:
			if e.Comment || e.Data == "" {
				continue
			}
			if m := harness.ParseMsg([]byte(e.Data)); m.Method != "notifications/tools/list_changed" {
				t.Fatalf("GET stream: %s", e.Data)
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// A client that loses a POST stream resumes it with GET and Last-Event-ID: it gets what it
// missed, the response included, exactly once.
func TestHTTPResumeWithLastEventID(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root)
	c := session(t, url, "2025-11-25", `{}`)
	_, events, closeStream := c.open(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"key":"r"},"_meta":{"progressToken":"t"}}}`)
	var last string
	for {
		m, id := nextMsg(t, events, "the first progress")
		last = id
		if m.Method == "notifications/progress" {
			break
		}
	}
	closeStream() // the connection is lost while the call runs
	release(t, root, "r")
	r := c.do(http.MethodGet, "", "Last-Event-Id", last)
	var got []string
	for _, m := range r.msgs() {
		got = append(got, m.Method+string(m.ID))
	}
	if strings.Join(got, " ") != "notifications/progress 2" || !strings.Contains(string(r.last().Result), "released r") {
		t.Errorf("resumed stream: %s (%v)", strings.Join(got, " "), r.events)
	}
	// Resuming again from the same point replays the same events; from an unknown stream: 400.
	if r2 := c.do(http.MethodGet, "", "Last-Event-Id", last); len(r2.msgs()) != 2 {
		t.Errorf("second resumption: %v", r2.events)
	}
	if r3 := c.do(http.MethodGet, "", "Last-Event-Id", "999_1"); r3.status != http.StatusBadRequest {
		t.Errorf("unknown stream: %d", r3.status)
	}
}

// Origin and Host are checked against DNS rebinding: foreign → 403, loopback and allowed → OK.
func TestHTTPOrigin(t *testing.T) {
	root := httpProject(t)
	srv := harness.StartHTTP(t, harness.Options{Dir: root, Env: []string{"MCPBASH_HTTP_ALLOWED_ORIGINS=https://app.example.com"}})
	raw := &hc{t: t, url: srv.URL}
	init := fmt.Sprintf(httpInit, "2025-11-25", "{}")
	for _, tc := range []struct {
		hdr  []string
		want int
	}{
		{[]string{"Origin", "http://evil.example.com"}, http.StatusForbidden},
		{[]string{"Host", "evil.example.com", "Origin", "http://evil.example.com"}, http.StatusForbidden},
		{[]string{"Host", "evil.example.com"}, http.StatusForbidden},
		{[]string{"Origin", "http://localhost:5173"}, http.StatusOK},
		{[]string{"Origin", "http://127.0.0.1"}, http.StatusOK},
		{[]string{"Origin", "https://app.example.com"}, http.StatusOK},
		{[]string{"Origin", "null"}, http.StatusForbidden},
	} {
		if r := raw.post(init, tc.hdr...); r.status != tc.want {
			t.Errorf("%v: %d, want %d (%s)", tc.hdr, r.status, tc.want, r.body)
		}
	}
}

// A body over MCPBASH_MAX_LINE_BYTES is refused with 413 before it is read whole.
func TestHTTPBodyCap(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root, "MCPBASH_MAX_LINE_BYTES=2048")
	c := session(t, url, "2025-11-25", `{}`)
	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{"name":%q}}}`, strings.Repeat("x", 4096))
	if r := c.post(big); r.status != http.StatusRequestEntityTooLarge || !strings.Contains(r.body, "MCPBASH_MAX_LINE_BYTES") {
		t.Errorf("big body: %d %s", r.status, r.body)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":3,"method":"ping"}`); r.status != 200 {
		t.Errorf("after the refusal: %d", r.status)
	}
}

// SIGTERM drains: a call in flight is answered, new connections are refused, the server exits 0.
func TestHTTPDrainOnSIGTERM(t *testing.T) {
	root := httpProject(t)
	srv := harness.StartHTTP(t, harness.Options{Dir: root, Env: []string{"MCPBASH_SHUTDOWN_TIMEOUT=60"}})
	c := session(t, srv.URL, "2025-11-25", `{}`)
	_, events, _ := c.open(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"key":"d"},"_meta":{"progressToken":"t"}}}`)
	for {
		if m, _ := nextMsg(t, events, "progress"); m.Method == "notifications/progress" {
			break
		}
	}
	srv.Signal(syscall.SIGTERM)
	waitNotReady(srv)
	release(t, root, "d")
	for {
		m, _ := nextMsg(t, events, "the answer")
		if m.ID != nil {
			if !strings.Contains(string(m.Result), "released d") {
				t.Fatalf("answer during the drain: %s", m.Raw)
			}
			break
		}
	}
	if err := srv.Wait(30 * time.Second); err != nil {
		t.Errorf("exit: %v\n%s", err, srv.Stderr())
	}
	if _, err := http.Post(srv.URL, "application/json", strings.NewReader(fmt.Sprintf(httpInit, "2025-11-25", "{}"))); err == nil {
		t.Error("a connection was accepted after the drain")
	}
}

// A call still running when the shutdown timeout ends is answered with -32003, not lost.
func TestHTTPDrainTimeout(t *testing.T) {
	root := httpProject(t)
	srv := harness.StartHTTP(t, harness.Options{Dir: root, Env: []string{"MCPBASH_SHUTDOWN_TIMEOUT=1"}})
	c := session(t, srv.URL, "2025-11-25", `{}`)
	_, events, _ := c.open(http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"key":"never"},"_meta":{"progressToken":"t"}}}`)
	for {
		if m, _ := nextMsg(t, events, "progress"); m.Method == "notifications/progress" {
			break
		}
	}
	srv.Signal(syscall.SIGTERM)
	for {
		m, _ := nextMsg(t, events, "the answer")
		if m.ID != nil {
			if m.Error == nil || m.Error.Code != -32003 {
				t.Fatalf("answer after the shutdown timeout: %s", m.Raw)
			}
			break
		}
	}
	if err := srv.Wait(30 * time.Second); err != nil {
		t.Errorf("exit: %v", err)
	}
}

// MCPBASH_HTTP_MAX_SESSIONS bounds the open sessions: one more initialize gets 503.
func TestHTTPMaxSessions(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root, "MCPBASH_HTTP_MAX_SESSIONS=2")
	a := session(t, url, "2025-11-25", `{}`)
	session(t, url, "2025-11-25", `{}`)
	raw := &hc{t: t, url: url}
	if r := raw.post(fmt.Sprintf(httpInit, "2025-11-25", "{}")); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("third session: %d %s", r.status, r.body)
	}
	a.do(http.MethodDelete, "")
	session(t, url, "2025-11-25", `{}`)
}

// 2026-07-28 over HTTP: no session; the mirrored headers are checked; unknown methods are 404;
// a tool's question ends the round (InputRequiredResult) and the retry carries the answer.
func TestHTTPStateless(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root)
	c := &hc{t: t, url: url, rev: "2026-07-28"}
	meta := func(caps string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"}}`
	}
	r := c.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta("{}")+`}}`, "Mcp-Method", "tools/list")
	if r.status != 200 || r.header.Get("Mcp-Session-Id") != "" || !strings.Contains(r.body, `"resultType":"complete"`) {
		t.Errorf("tools/list: %d %s %s", r.status, r.header.Get("Mcp-Session-Id"), r.body)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta("{}") + `}}`); r.status != 400 || !strings.Contains(r.body, "-32020") {
		t.Errorf("no Mcp-Method: %d %s", r.status, r.body)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{`+meta("{}")+`}}`, "Mcp-Method", "prompts/list"); r.status != 400 || !strings.Contains(r.body, "-32020") {
		t.Errorf("Mcp-Method mismatch: %d %s", r.status, r.body)
	}
	call := `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Bo"},` + meta("{}") + `}}`
	if r := c.post(call, "Mcp-Method", "tools/call"); r.status != 400 || !strings.Contains(r.body, "Mcp-Name") {
		t.Errorf("no Mcp-Name: %d %s", r.status, r.body)
	}
	if r := c.post(call, "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?aGVsbG8=?="); r.status != 200 || !strings.Contains(r.body, "hello Bo") {
		t.Errorf("tools/call (base64 Mcp-Name): %d %s", r.status, r.body)
	}
	if r := c.post(call, "Mcp-Method", "tools/call", "Mcp-Name", "hello", "Mcp-Protocol-Version", "2025-11-25"); r.status != 400 || !strings.Contains(r.body, "-32020") {
		t.Errorf("version header mismatch: %d %s", r.status, r.body)
	}
	if r := c.post(`{"jsonrpc":"2.0","id":5,"method":"no/such","params":{`+meta("{}")+`}}`, "Mcp-Method", "no/such"); r.status != http.StatusNotFound || !strings.Contains(r.body, "-32601") {
		t.Errorf("unknown method: %d %s", r.status, r.body)
	}
	if r := c.do(http.MethodGet, ""); r.status != http.StatusMethodNotAllowed {
		t.Errorf("GET on 2026-07-28: %d", r.status)
	}
	// Multi round trip: the question comes back as input_required; the retry answers it.
	ask := func(id int, extra string) hreply {
		return c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ask","arguments":{}%s,%s}}`, id, extra, meta(`{"elicitation":{"form":{}}}`)),
			"Mcp-Method", "tools/call", "Mcp-Name", "ask")
	}
	r = ask(6, "")
	key, state := oneInputRequest(t, r.body)
	r = ask(7, fmt.Sprintf(`,"requestState":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"Cy"}}}`, state, key))
	if !strings.Contains(r.body, "Cy") || !strings.Contains(r.body, `"resultType":"complete"`) {
		t.Errorf("retry: %s", r.body)
	}
	// server/discover needs no session and no headers.
	raw := &hc{t: t, url: url}
	if r := raw.post(`{"jsonrpc":"2.0","id":8,"method":"server/discover"}`); r.status != 200 || !strings.Contains(r.body, "supportedVersions") {
		t.Errorf("discover: %d %s", r.status, r.body)
	}
}

// subscriptions/listen over HTTP: an SSE stream that acknowledges, carries list_changed and ends
// when the client closes it.
func TestHTTPStatelessListen(t *testing.T) {
	root := httpProject(t)
	_, url := startHTTP(t, root, "MCP_TOOLS_TTL=0.2")
	c := &hc{t: t, url: url, rev: "2026-07-28"}
	body := `{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp, events, _ := c.open(http.MethodPost, body, "Mcp-Method", "subscriptions/listen")
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("listen: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if m, _ := nextMsg(t, events, "acknowledged"); m.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %s", m.Raw)
	}
	os.MkdirAll(filepath.Join(root, "tools", "late"), 0o755)
	os.WriteFile(filepath.Join(root, "tools", "late", "tool.sh"), []byte("#!/usr/bin/env bash\necho late\n"), 0o755)
	os.WriteFile(filepath.Join(root, "tools", "late", "tool.meta.json"), []byte(`{"name":"late","description":"new","inputSchema":{"type":"object"}}`), 0o644)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for {
		c.post(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{`+meta+`}}`, "Mcp-Method", "ping")
		select {
		case e := <-events:
			if e.Comment || e.Data == "" {
				continue
			}
			m := harness.ParseMsg([]byte(e.Data))
			if m.Method != "notifications/tools/list_changed" || !bytes.Contains(m.Params, []byte(`"l"`)) {
				t.Fatalf("listen stream: %s", e.Data)
			}
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}
