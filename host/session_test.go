package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

// pipeSession runs a Server over in-memory pipes with extra test handlers.
type pipeSession struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
}

func startPipe(t *testing.T, cfg Config, extra map[string]handler) *pipeSession {
	t.Helper()
	dir := t.TempDir()
	cfg.Dirs = registry.ResolveDirs(dir, config.Dirs{})
	cfg.Meta = registry.ServerMeta{Name: "test", Version: "1.0.0"}
	srv, err := NewServer(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k, h := range extra {
		srv.handlers[k] = h
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &pipeSession{t: t, in: inW, lines: make(chan map[string]any, 1000), done: make(chan error, 1)}
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		outW.Close()
		p.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("bad line %q", sc.Text())
			}
			p.lines <- m
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		go func() {
			for range p.lines {
			}
		}()
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	p.next()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// One list_changed per kind follows initialized (COMPAT 6.4), before anything sent later.
	for _, kind := range []string{"tools", "resources", "prompts"} {
		if m := p.next(); m["method"] != "notifications/"+kind+"/list_changed" {
			t.Fatalf("after initialized: %v, want %s/list_changed", m, kind)
		}
	}
	return p
}

func (p *pipeSession) send(lines ...string) {
	for _, l := range lines {
		if _, err := io.WriteString(p.in, l+"\n"); err != nil {
			p.t.Fatal(err)
		}
	}
}

func (p *pipeSession) next() map[string]any {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatal("output closed")
		}
		return m
	case <-time.After(5 * time.Second):
		p.t.Fatal("no output")
	}
	return nil
}

func TestPanicBecomesInternalError(t *testing.T) {
	p := startPipe(t, Config{}, map[string]handler{
		"test/panic": {fn: func(context.Context, *Session, *Request) (any, error) { panic("boom") }},
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"test/panic"}`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	got := map[string]map[string]any{}
	for range 2 {
		m := p.next()
		got[fmt.Sprint(m["id"])] = m
	}
	if e, _ := got["1"]["error"].(map[string]any); e == nil || e["code"] != float64(-32603) {
		t.Errorf("panic answer = %v", got["1"])
	}
	if got["2"]["result"] == nil {
		t.Errorf("server stopped serving after a panic: %v", got["2"])
	}
}

// notifications/cancelled cancels the handler's context and suppresses its response.
func TestCancelledRequestGetsNoResponse(t *testing.T) {
	var sawCancel atomic.Bool
	started := make(chan struct{})
	p := startPipe(t, Config{}, map[string]handler{
		"test/block": {fn: func(ctx context.Context, _ *Session, _ *Request) (any, error) {
			close(started)
			<-ctx.Done()
			sawCancel.Store(true)
			return map[string]any{"late": true}, nil
		}},
	})
	p.send(`{"jsonrpc":"2.0","id":"b","method":"test/block"}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b","reason":"user"}}`,
		`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	m := p.next()
	if m["id"] != "after" {
		t.Fatalf("got %v, want only the ping answer", m)
	}
	p.in.Close()
	for m := range p.lines {
		t.Errorf("unexpected line after cancel: %v", m)
	}
	if !sawCancel.Load() {
		t.Error("handler context was not cancelled")
	}
}

// Excess requests queue under MCPBASH_MAX_CONCURRENT_REQUESTS; none is dropped.
func TestConcurrencyLimitQueues(t *testing.T) {
	var running, peak atomic.Int32
	release := make(chan struct{})
	p := startPipe(t, Config{MaxConcurrent: 2}, map[string]handler{
		"test/work": {fn: func(ctx context.Context, _ *Session, _ *Request) (any, error) {
			n := running.Add(1)
			for {
				old := peak.Load()
				if n <= old || peak.CompareAndSwap(old, n) {
					break
				}
			}
			<-release
			running.Add(-1)
			return struct{}{}, nil
		}},
	})
	for i := range 6 {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test/work"}`, i))
	}
	// Inline requests are not held up by the queue.
	p.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	if m := p.next(); m["id"] != "ping" {
		t.Fatalf("ping blocked behind queued work: %v", m)
	}
	close(release)
	seen := map[string]bool{}
	for range 6 {
		seen[fmt.Sprint(p.next()["id"])] = true
	}
	if len(seen) != 6 {
		t.Errorf("answered %v, want all 6", seen)
	}
	if peak.Load() > 2 {
		t.Errorf("peak concurrency %d exceeds limit 2", peak.Load())
	}
}

// blockingJSON marshals only when released, so a test can hold a response between the
// handler's return and its send.
type blockingJSON struct{ started, release chan struct{} }

func (b blockingJSON) MarshalJSON() ([]byte, error) {
	close(b.started)
	<-b.release
	return []byte(`{}`), nil
}

// A response still being prepared when notifications/cancelled arrives is not sent: nothing the
// client sends after the cancellation is answered before a response to the cancelled request.
func TestCancelRacingResponse(t *testing.T) {
	b := blockingJSON{started: make(chan struct{}), release: make(chan struct{})}
	p := startPipe(t, Config{}, map[string]handler{
		"test/racy": {fn: func(context.Context, *Session, *Request) (any, error) { return b, nil }},
	})
	p.send(`{"jsonrpc":"2.0","id":"r","method":"test/racy"}`)
	<-b.started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r"}}`,
		`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if m := p.next(); m["id"] != "after" {
		t.Fatalf("got %v, want the ping answer", m)
	}
	close(b.release)
	p.in.Close()
	for m := range p.lines {
		t.Errorf("answer after the cancellation was processed: %v", m)
	}
}

// A request waiting for a concurrency slot can be cancelled while the reading goroutine runs
// another, and input that ends while a request runs still gets every answer.
func TestQueuedRequestCancelledThenEOF(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	p := startPipe(t, Config{MaxConcurrent: 1}, map[string]handler{
		"test/hold": {fn: func(ctx context.Context, _ *Session, _ *Request) (any, error) {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
			return struct{}{}, nil
		}},
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"test/hold"}`, `{"jsonrpc":"2.0","id":2,"method":"test/hold"}`)
	<-started
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := p.next(); m["id"] != "p" {
		t.Fatalf("got %v, want the ping answer while request 1 holds the only slot", m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"test/hold"}`)
	p.in.Close()
	close(release)
	var ids []string
	for m := range p.lines {
		ids = append(ids, fmt.Sprint(m["id"]))
	}
	if fmt.Sprint(ids) != "[1 3]" {
		t.Errorf("answers after EOF = %v, want [1 3] (2 was cancelled)", ids)
	}
}

// A duplicate id while the first is still in flight is refused.
func TestDuplicateInflightID(t *testing.T) {
	release := make(chan struct{})
	p := startPipe(t, Config{}, map[string]handler{
		"test/wait": {fn: func(ctx context.Context, _ *Session, _ *Request) (any, error) {
			<-release
			return struct{}{}, nil
		}},
	})
	p.send(`{"jsonrpc":"2.0","id":7,"method":"test/wait"}`, `{"jsonrpc":"2.0","id":7,"method":"test/wait"}`)
	m := p.next()
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
		t.Fatalf("duplicate id answer = %v", m)
	}
	close(release)
	if m := p.next(); m["result"] == nil {
		t.Fatalf("first request answer = %v", m)
	}
}

// An id is free again once its answer is out: a client that reads the answer and reuses the
// id at once (bursts of the same ids, as simple clients number their requests) is never told
// it is still in flight. Before the fix the id was released only after the answer was written.
func TestAnsweredIDReusable(t *testing.T) {
	w, read, stop := benchPipes(t, helloProject(t, ""))
	defer stop()
	w.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}` + "\n")
	w.Flush()
	read()
	w.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const burst = 100
	var lines strings.Builder
	for i := range burst {
		fmt.Fprintf(&lines, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`+"\n", i+1)
	}
	for round := 0; round < 30; round++ {
		w.WriteString(lines.String())
		w.Flush()
		for range burst {
			if l := read(); !bytes.Contains(l, []byte("Hello, Ada!")) {
				t.Fatalf("round %d: %s", round, l)
			}
		}
	}
}

// Log respects the session level set by logging/setLevel.
func TestLogLevelFiltering(t *testing.T) {
	p := startPipe(t, Config{LogLevel: LevelInfo}, map[string]handler{
		"test/log": {fn: func(ctx context.Context, s *Session, _ *Request) (any, error) {
			s.Log(LevelDebug, "t", "debug line")
			s.Log(LevelWarning, "t", "warning line")
			s.Log(LevelError, "t", "error line")
			return struct{}{}, nil
		}},
	})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"warning"}}`)
	p.next()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"test/log"}`)
	var msgs []string
	for {
		m := p.next()
		if m["id"] != nil {
			break
		}
		params := m["params"].(map[string]any)
		msgs = append(msgs, params["level"].(string)+":"+params["data"].(string))
	}
	if got := strings.Join(msgs, ","); got != "warning:warning line,error:error line" {
		t.Errorf("logged %q", got)
	}
}

func TestParseLevel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Level
		ok   bool
	}{
		{"debug", LevelDebug, true}, {"INFO", LevelInfo, true}, {"Notice", LevelNotice, true},
		{"warning", LevelWarning, true}, {"error", LevelError, true}, {"critical", LevelCritical, true},
		{"alert", LevelAlert, true}, {"emergency", LevelEmergency, true}, {"warn", 0, false}, {"", 0, false},
	} {
		got, ok := ParseLevel(tc.in)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseLevel(%q) = %v,%v", tc.in, got, ok)
		}
	}
}

// Tool schemas come from project metadata: a $ref to a file or URL must not be fetched.
func TestSchemaRefsAreNotLoaded(t *testing.T) {
	var c schemaCache
	for _, ref := range []string{"file:///etc/passwd", "https://example.com/s.json", "/etc/passwd"} {
		schema := json.RawMessage(`{"$ref":"` + ref + `"}`)
		if _, err := c.validate(schema, json.RawMessage(`{}`)); err == nil {
			t.Errorf("$ref %s was accepted", ref)
		}
	}
	if v, err := c.validate(json.RawMessage(`{"$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`), json.RawMessage(`{"a":"x"}`)); err != nil || len(v) != 1 {
		t.Errorf("local $ref: %v %v", v, err)
	}
}

// Subscriptions end with the session: no poller goroutine survives it.
func TestSubscriptionPollerEndsWithSession(t *testing.T) {
	base := runtime.NumGoroutine()
	for range 3 {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "resources"), 0o755)
		os.WriteFile(filepath.Join(dir, "resources", "r.txt"), []byte("x"), 0o644)
		getenv := func(k string) string {
			if k == "MCPBASH_RESOURCES_POLL_INTERVAL_SECS" {
				return "1"
			}
			return ""
		}
		cfg := Config{Dirs: registry.ResolveDirs(dir, config.Dirs{}), Meta: registry.ServerMeta{Name: "t", Version: "1"}}
		if err := cfg.ConfigFromEnv(getenv); err != nil {
			t.Fatal(err)
		}
		srv, err := NewServer(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file://` + filepath.Join(dir, "resources", "r.txt") + `"}}
`)
		var out strings.Builder
		if err := srv.Serve(context.Background(), in, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), `"subscriptionId":"sub-`) { // no clientInfo: the original's shape
			t.Fatalf("no subscription: %s", out.String())
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > base+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base+2 {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left (base %d):\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

// ping is answered before initialize (the MCP lifecycle allows it at any time); other requests
// still wait for the handshake.
func TestPingBeforeInitialize(t *testing.T) {
	srv, err := NewServer(context.Background(), Config{Dirs: registry.ResolveDirs(t.TempDir(), config.Dirs{}), Meta: registry.ServerMeta{Name: "t", Version: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n")
	var out strings.Builder
	if err := srv.Serve(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Server not initialized"}}` + "\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// `exit` and the end of input do not cancel requests still running: each is answered, within
// the shutdown timeout; one still running then is cancelled and answered with -32003.
func TestExitDrainsInflight(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(p *pipeSession)
	}{
		{"exit", func(p *pipeSession) {
			p.send(`{"jsonrpc":"2.0","id":"s","method":"shutdown"}`, `{"jsonrpc":"2.0","id":"x","method":"exit"}`)
		}},
		{"eof", func(p *pipeSession) { p.in.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			started := make(chan struct{}, 2)
			p := startPipe(t, Config{ShutdownTimeout: time.Hour}, map[string]handler{
				"test/slow": {fn: func(ctx context.Context, _ *Session, _ *Request) (any, error) {
					started <- struct{}{}
					select {
					case <-release:
						return map[string]any{"done": true}, nil
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}},
			})
			p.send(`{"jsonrpc":"2.0","id":1,"method":"test/slow"}`)
			<-started
			tc.end(p)
			// The lifecycle answers come first; the slow request is still owed its answer.
			if tc.name == "exit" {
				for range 2 {
					if m := p.next(); m["result"] == nil {
						t.Fatalf("lifecycle answer %v", m)
					}
				}
			}
			close(release)
			m := p.next()
			if m["id"] != float64(1) || m["result"] == nil {
				t.Fatalf("in-flight request after %s: %v", tc.name, m)
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		started := make(chan struct{})
		p := startPipe(t, Config{ShutdownTimeout: time.Millisecond}, map[string]handler{
			"test/stuck": {fn: func(ctx context.Context, _ *Session, _ *Request) (any, error) {
				close(started)
				<-ctx.Done()
				return nil, errSuppressed
			}},
		})
		p.send(`{"jsonrpc":"2.0","id":1,"method":"test/stuck"}`)
		<-started
		p.in.Close()
		m := p.next()
		if e, _ := m["error"].(map[string]any); m["id"] != float64(1) || e == nil || e["code"] != float64(codeShuttingDown) {
			t.Fatalf("request past the shutdown timeout: %v, want error %d", m, codeShuttingDown)
		}
	})
}
