package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// Replicas: three `serve --http` processes of one project behind a round-robin reverse proxy
// written here (net/http/httputil), as an operator would deploy them (docs/HOSTING.md): requests
// of the stateless 2026-07-28 revision go to any replica, requests of a 2025-11-25 session follow
// its Mcp-Session-Id to the replica that issued it (sticky routing). The replicas share
// MCPBASH_STATE_KEY_FILE, so a requestState issued by one is accepted by the others. Every
// message goes through harness.Recorder, which validates each server message against the schema.

// replicaProxy is the test load balancer.
type replicaProxy struct {
	t        *testing.T
	backends []*url.URL
	proxy    *httputil.ReverseProxy
	URL      string

	mu     sync.Mutex
	next   int
	down   map[int]bool
	sticky map[string]int // Mcp-Session-Id → replica
	calls  map[string]int // X-Test-Call → replica that received the request
	served map[int]int    // responses per replica
}

type replicaKey struct{}

// testWriter sends the proxy's log to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// choice is where one request goes; the round tripper fills it in.
type choice struct{ replica int }

func newReplicaProxy(t *testing.T, servers []*harness.HTTPServer) *replicaProxy {
	p := &replicaProxy{t: t, down: map[int]bool{}, sticky: map[string]int{}, calls: map[string]int{}, served: map[int]int{}}
	for _, s := range servers {
		u, err := url.Parse(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		p.backends = append(p.backends, u)
	}
	p.proxy = &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) {},
		Transport:     p,
		FlushInterval: -1,
		ErrorLog:      log.New(testWriter{t}, "replica proxy: ", 0),
		ModifyResponse: func(resp *http.Response) error {
			c := resp.Request.Context().Value(replicaKey{}).(*choice)
			resp.Header.Set("X-Replica", strconv.Itoa(c.replica))
			p.mu.Lock()
			defer p.mu.Unlock()
			p.served[c.replica]++
			if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
				p.sticky[sid] = c.replica
			}
			return nil
		},
		// A replica that fails while a request is on it gets the client a JSON-RPC error
		// response (502), never silence. (A stream already under way simply ends.)
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			c := r.Context().Value(replicaKey{}).(*choice)
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			if r.GetBody != nil {
				if b, e := r.GetBody(); e == nil {
					_ = json.NewDecoder(b).Decode(&req)
				}
			}
			if len(req.ID) == 0 {
				req.ID = json.RawMessage("null")
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Replica", strconv.Itoa(c.replica))
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32000,"message":%q}}`, req.ID, "replica unavailable: "+err.Error())
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		p.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), replicaKey{}, &choice{replica: -1})))
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL + "/mcp"
	return p
}

// RoundTrip sends a request to its replica: the session's for a request with Mcp-Session-Id,
// else the next live one in turn. A replica that refuses the connection is marked down and,
// since the request never reached it, the request goes to the next one.
func (p *replicaProxy) RoundTrip(r *http.Request) (*http.Response, error) {
	c := r.Context().Value(replicaKey{}).(*choice)
	sid := r.Header.Get("Mcp-Session-Id")
	for range p.backends {
		p.mu.Lock()
		i, ok := p.sticky[sid]
		if sid == "" || !ok {
			for range p.backends {
				i = p.next
				p.next = (p.next + 1) % len(p.backends)
				if !p.down[i] {
					break
				}
			}
		}
		if name := r.Header.Get("X-Test-Call"); name != "" {
			p.calls[name] = i
		}
		p.mu.Unlock()
		c.replica = i
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.Host = p.backends[i].Scheme, p.backends[i].Host, p.backends[i].Host
		if r.GetBody != nil {
			out.Body, _ = r.GetBody()
		}
		resp, err := http.DefaultTransport.RoundTrip(out)
		var op *net.OpError
		if err == nil || sid != "" || !errors.As(err, &op) || op.Op != "dial" {
			return resp, err
		}
		p.mu.Lock()
		p.down[i] = true
		p.mu.Unlock()
	}
	return nil, errors.New("no replica is up")
}

// home is the replica that holds a session.
func (p *replicaProxy) home(sid string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	i, ok := p.sticky[sid]
	if !ok {
		p.t.Fatalf("session %s was not issued through the proxy", sid)
	}
	return i
}

func (p *replicaProxy) replicaOf(call string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	i, ok := p.calls[call]
	if !ok {
		p.t.Fatalf("call %s never went through the proxy", call)
	}
	return i
}

// replicaProject is httpProject with one more tool: hold marks started-<key> (so the test knows
// the call is on a replica), reports progress, and waits until the test creates release-<key>.
func replicaProject(t *testing.T) string {
	root := httpProject(t)
	for name, body := range map[string]string{
		"tool.sh": "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nk=$(mcp_args_get .key)\n: > \"$MCPBASH_PROJECT_ROOT/started-$k\"\nmcp_progress 1 started 2\n" +
			"while [ ! -e \"$MCPBASH_PROJECT_ROOT/release-$k\" ]; do sleep 0.02; done\necho \"released $k\"\n",
		"tool.meta.json": `{"name":"hold","description":"holds until released","timeoutSecs":300,"inputSchema":{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}}`,
	} {
		if err := os.MkdirAll(filepath.Join(root, "tools", "hold"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "tools", "hold", name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// startReplicas serves root from three processes sharing one state key, behind the proxy and
// the recorder; it returns the servers, the proxy and the recorded endpoint.
func startReplicas(t *testing.T, root string) ([]*harness.HTTPServer, *replicaProxy, string) {
	key := filepath.Join(t.TempDir(), "state.key")
	if err := os.WriteFile(key, []byte("5f0c1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var servers []*harness.HTTPServer
	for range 3 {
		servers = append(servers, harness.StartHTTP(t, harness.Options{Dir: root, Env: []string{"MCPBASH_STATE_KEY_FILE=" + key, "MCPBASH_PROJECT_ROOT_WRITABLE=true"}}))
	}
	p := newReplicaProxy(t, servers)
	rec := harness.NewRecorder(t, p.URL)
	return servers, p, rec.URL
}

// statelessMeta is the _meta every 2026-07-28 request carries.
func statelessMeta(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"replicas-e2e","version":"1"}}`
}

func statelessTool(id int, name, args, extra, caps string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s,%s}}`, id, name, args, extra, statelessMeta(caps))
}

// waitStarted waits until the tool run by a call has created its started-<key> file; a call
// that ends first fails the test.
func waitStarted(t *testing.T, root, key string, ch <-chan callOutcome) {
	t.Helper()
	deadline := time.Now().Add(harness.Backstop)
	for {
		if _, err := os.Stat(filepath.Join(root, "started-"+key)); err == nil {
			return
		}
		select {
		case o := <-ch:
			t.Fatalf("call %s ended before its tool started: %+v %s", key, o, o.msg.Raw)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tool of call %s never started", key)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// oneInputRequest reads a 2026-07-28 InputRequiredResult with one input request: its key and the
// requestState to send back with the answer.
func oneInputRequest(t *testing.T, body string) (key, state string) {
	t.Helper()
	var ir struct {
		Result inputRequired `json:"result"`
	}
	if json.Unmarshal([]byte(body), &ir) != nil || ir.Result.ResultType != "input_required" || len(ir.Result.InputRequests) != 1 {
		t.Fatalf("want an input_required result with one request: %s", body)
	}
	for k := range ir.Result.InputRequests {
		key = k
	}
	return key, ir.Result.RequestState
}

// 2026-07-28: every request succeeds whichever replica answers it, and an elicitation's retry
// (its requestState signed by one replica) is accepted by another.
func TestHTTPReplicasStateless(t *testing.T) {
	root := replicaProject(t)
	_, p, url := startReplicas(t, root)
	c := &hc{t: t, url: url, rev: "2026-07-28"}
	by := map[string]int{}
	for i := range 9 {
		r := c.post(statelessTool(i, "hello", fmt.Sprintf(`{"name":"r%d"}`, i), "", "{}"), "Mcp-Method", "tools/call", "Mcp-Name", "hello")
		if r.status != 200 || !strings.Contains(r.body, fmt.Sprintf("hello r%d", i)) {
			t.Fatalf("call %d: %d %s", i, r.status, r.body)
		}
		by[r.header.Get("X-Replica")]++
	}
	if len(by) != 3 {
		t.Errorf("answers by replica: %v, want all three", by)
	}
	// The question comes back from one replica as input_required; the retry goes to the next.
	caps := `{"elicitation":{"form":{}}}`
	r := c.post(statelessTool(20, "ask", "{}", "", caps), "Mcp-Method", "tools/call", "Mcp-Name", "ask")
	key, state := oneInputRequest(t, r.body)
	first := r.header.Get("X-Replica")
	retry := statelessTool(21, "ask", "{}", fmt.Sprintf(`,"requestState":%q,"inputResponses":{%q:{"action":"accept","content":{"name":"Cy"}}}`, state, key), caps)
	r = c.post(retry, "Mcp-Method", "tools/call", "Mcp-Name", "ask")
	if r.header.Get("X-Replica") == first {
		t.Fatalf("the retry went to the same replica %s: the round robin is broken", first)
	}
	if !strings.Contains(r.body, "Cy") || !strings.Contains(r.body, `"resultType":"complete"`) {
		t.Errorf("retry on replica %s (first round on %s): %s", r.header.Get("X-Replica"), first, r.body)
	}
	// A server with another key refuses that requestState: the shared key is what makes it work.
	other := harness.StartHTTP(t, harness.Options{Dir: root})
	oc := &hc{t: t, url: other.URL, rev: "2026-07-28"}
	if r := oc.post(retry, "Mcp-Method", "tools/call", "Mcp-Name", "ask"); strings.Contains(r.body, "Cy") || !strings.Contains(r.body, `"error"`) {
		t.Errorf("a server without the key accepted the requestState: %d %s", r.status, r.body)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.served) != 3 {
		t.Errorf("replicas that served: %v", p.served)
	}
}

// 2025-11-25: a session routed by Mcp-Session-Id works through the proxy (its requests, its GET
// stream and an elicitation answered in a later POST all reach the replica that holds it),
// while requests without a session keep moving around the replicas. Another replica does not
// know the session (404), which is why the routing must be sticky.
func TestHTTPReplicasSticky(t *testing.T) {
	root := replicaProject(t)
	servers, p, url := startReplicas(t, root)
	c := session(t, url, "2025-11-25", `{"elicitation":{}}`)
	home := p.home(c.sid)
	stateless := &hc{t: t, url: url, rev: "2026-07-28"}
	for i := range 4 {
		if r := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"s%d"}}}`, 10+i, i)); !strings.Contains(r.body+fmt.Sprint(r.events), fmt.Sprintf("hello s%d", i)) ||
			r.header.Get("X-Replica") != strconv.Itoa(home) {
			t.Fatalf("session call %d on replica %s (session on %d): %d %s %v", i, r.header.Get("X-Replica"), home, r.status, r.body, r.events)
		}
		// Moves the round robin on, so a non-sticky proxy would send the next call elsewhere.
		if r := stateless.post(statelessTool(i, "hello", "{}", "", "{}"), "Mcp-Method", "tools/call", "Mcp-Name", "hello"); r.status != 200 {
			t.Fatalf("stateless call: %d %s", r.status, r.body)
		}
	}
	resp, _, _ := c.open(http.MethodGet, "")
	if resp.StatusCode != 200 || resp.Header.Get("X-Replica") != strconv.Itoa(home) {
		t.Fatalf("GET stream: %d on replica %s", resp.StatusCode, resp.Header.Get("X-Replica"))
	}
	// The elicitation arrives on the call's stream; its answer is a separate POST.
	_, events, _ := c.open(http.MethodPost, `{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
	m, _ := nextMsg(t, events, "elicitation/create")
	if m.Method != "elicitation/create" {
		t.Fatalf("want elicitation/create, got %s", m.Raw)
	}
	if r := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Di"}}}`, m.ID)); r.status != http.StatusAccepted {
		t.Fatalf("elicitation answer: %d %s", r.status, r.body)
	}
	for {
		m, _ := nextMsg(t, events, "the answer")
		if m.ID != nil {
			if !strings.Contains(string(m.Result), "Di") {
				t.Fatalf("answer: %s", m.Raw)
			}
			break
		}
	}
	// Straight to another replica, the session is unknown.
	direct := &hc{t: t, url: servers[(home+1)%3].URL, sid: c.sid, rev: c.rev}
	if r := direct.post(`{"jsonrpc":"2.0","id":40,"method":"ping"}`); r.status != http.StatusNotFound {
		t.Errorf("the session on another replica: %d %s", r.status, r.body)
	}
	if r := c.do(http.MethodDelete, ""); r.status/100 != 2 || r.header.Get("X-Replica") != strconv.Itoa(home) {
		t.Errorf("DELETE: %d on replica %s", r.status, r.header.Get("X-Replica"))
	}
}

// callOutcome is how one call in flight ended.
type callOutcome struct {
	status int
	msg    harness.Msg // the answer, if any
	ended  bool        // the stream ended without an answer
}

// startHold sends a hold call through the proxy and returns a channel that reports its outcome.
// With a progress token the answer is an SSE stream, and startHold returns once its first
// message (the progress) reached the client, so that the stream is under way end to end;
// without one, the server holds the response until the answer.
func startHold(t *testing.T, c *hc, id int, key string, progress bool) <-chan callOutcome {
	var body string
	hdr := []string{"X-Test-Call", key}
	tok := ""
	if progress {
		tok = fmt.Sprintf(`"progressToken":%q,`, key)
	}
	if c.rev == "2026-07-28" {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{"key":%q},%s}}`, id, key,
			strings.Replace(statelessMeta("{}"), `"_meta":{`, `"_meta":{`+tok, 1))
		hdr = append(hdr, "Mcp-Method", "tools/call", "Mcp-Name", "hold")
	} else {
		body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hold","arguments":{"key":%q},"_meta":{%s"k":1}}}`, id, key, tok)
	}
	out := make(chan callOutcome, 1)
	// begun closes when a streamed call's first message (its progress) reached the client, or
	// when the call ended: only then is its stream under way at the client, not just at the tool.
	begun := make(chan struct{})
	var once sync.Once
	ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
	req := c.request(http.MethodPost, body, hdr...).WithContext(ctx)
	go func() {
		defer cancel()
		defer once.Do(func() { close(begun) })
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- callOutcome{ended: true}
			return
		}
		defer resp.Body.Close()
		o := callOutcome{status: resp.StatusCode}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			b, _ := io.ReadAll(resp.Body)
			o.msg = harness.ParseMsg(b)
			out <- o
			return
		}
		events := make(chan harness.SSEEvent)
		go harness.ReadSSE(resp.Body, events)
		for e := range events {
			if e.Comment || e.Data == "" {
				continue
			}
			once.Do(func() { close(begun) })
			if m := harness.ParseMsg([]byte(e.Data)); m.ID != nil {
				o.msg = m
			}
		}
		o.ended = o.msg.ID == nil
		out <- o
	}()
	if progress {
		<-begun
	}
	return out
}

func outcome(t *testing.T, ch <-chan callOutcome, what string) callOutcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(harness.Backstop):
		t.Fatalf("%s: no outcome (silence)", what)
		return callOutcome{}
	}
}

// Killing one replica loses only the calls in flight on it, and each of those fails cleanly: a
// response not yet begun becomes the proxy's JSON-RPC error (502), a stream under way ends. The
// calls on the other replicas are answered, the dead replica's session gets an error response,
// and new stateless requests all succeed on the replicas left.
func TestHTTPReplicaKilled(t *testing.T) {
	root := replicaProject(t)
	servers, p, url := startReplicas(t, root)
	sess := session(t, url, "2025-11-25", `{}`)
	victim := p.home(sess.sid)
	stateless := &hc{t: t, url: url, rev: "2026-07-28"}

	type call struct {
		key string
		ch  <-chan callOutcome
	}
	var calls []call
	// Two rounds over the replicas, one call at a time so each lands where the round robin says:
	// streamed (progress) calls, then calls whose response has not begun.
	for i := range 6 {
		key := fmt.Sprintf("s%d", i)
		calls = append(calls, call{key, startHold(t, stateless, 100+i, key, i < 3)})
		waitStarted(t, root, key, calls[i].ch)
	}
	calls = append(calls, call{"sess", startHold(t, sess, 200, "sess", true)})
	waitStarted(t, root, "sess", calls[6].ch)
	onVictim := map[string]bool{}
	for _, c := range calls {
		onVictim[c.key] = p.replicaOf(c.key) == victim
	}
	if n := len(onVictim); n != 7 {
		t.Fatalf("calls routed: %v", onVictim)
	}

	servers[victim].Signal(syscall.SIGKILL)
	_ = servers[victim].Wait(harness.Backstop)
	for _, c := range calls {
		release(t, root, c.key)
	}
	ended, refused := 0, 0
	for _, c := range calls {
		o := outcome(t, c.ch, c.key)
		switch {
		case !onVictim[c.key]:
			if o.msg.ID == nil || !strings.Contains(string(o.msg.Result), "released "+c.key) {
				t.Errorf("%s (replica %d, alive): %+v %s", c.key, p.replicaOf(c.key), o, o.msg.Raw)
			}
		case o.ended:
			ended++ // the stream under way ended without an answer
		case o.status == http.StatusBadGateway && o.msg.Error != nil:
			refused++
		default:
			t.Errorf("%s (on the killed replica): %+v %s", c.key, o, o.msg.Raw)
		}
	}
	// The session went to replica 0, the calls to 1 2 0 1 2 0: on the victim, one streamed
	// call, one whose response had not begun, and the session's call.
	if ended != 2 || refused != 1 {
		t.Errorf("on the killed replica: %d streams ended and %d calls refused, want 2 and 1", ended, refused)
	}
	// The dead replica's session: an error response, not silence.
	if r := sess.post(`{"jsonrpc":"2.0","id":300,"method":"ping"}`); r.status != http.StatusBadGateway || !strings.Contains(r.body, `"error"`) {
		t.Errorf("session on the killed replica: %d %s", r.status, r.body)
	}
	// New requests: all answered, by the replicas left.
	for i := range 6 {
		r := stateless.post(statelessTool(400+i, "hello", fmt.Sprintf(`{"name":"n%d"}`, i), "", "{}"), "Mcp-Method", "tools/call", "Mcp-Name", "hello")
		if r.status != 200 || !strings.Contains(r.body, fmt.Sprintf("hello n%d", i)) || r.header.Get("X-Replica") == strconv.Itoa(victim) {
			t.Errorf("after the kill, call %d: %d on replica %s: %s", i, r.status, r.header.Get("X-Replica"), r.body)
		}
	}
}
