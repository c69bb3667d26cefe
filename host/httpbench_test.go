package host

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchHTTP serves examples/00-hello-tool over Streamable HTTP in-process and returns a function
// that posts one message of a 2025-11-25 session and returns the answer's body.
func benchHTTP(b *testing.B) func(body string) []byte {
	files := map[string]string{}
	for _, f := range []string{"server.d/server.meta.json", "tools/hello/tool.sh", "tools/hello/tool.meta.json"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "00-hello-tool", f))
		if err != nil {
			b.Fatal(err)
		}
		files[f] = string(data)
	}
	_, url := serveHTTPTest(b, files, nil)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	sid := ""
	post := func(body string) []byte {
		resp, err := client.Do(mcpPostRequest(url, sid, body))
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if sid == "" {
			sid = resp.Header.Get("Mcp-Session-Id")
		}
		return out
	}
	post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return post
}

// BenchmarkHTTPToolsCallHello is BenchmarkToolsCallHello over Streamable HTTP on loopback.
func BenchmarkHTTPToolsCallHello(b *testing.B) {
	post := benchHTTP(b)
	if out := post(`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`); !bytes.Contains(out, []byte("Hello, Ada!")) {
		b.Fatalf("unexpected %s", out)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`, i+1))
	}
}

// BenchmarkHTTPPing is BenchmarkPingRoundTrip over Streamable HTTP on loopback.
func BenchmarkHTTPPing(b *testing.B) {
	post := benchHTTP(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1))
	}
}

// serveHTTPTest writes files (0755) into a fresh project, serves it over Streamable HTTP
// in-process on a loopback port with env as its environment, and returns the project root and
// the endpoint's URL; the server is stopped when the test ends.
func serveHTTPTest(tb testing.TB, files, env map[string]string) (string, string) {
	tb.Helper()
	dir := tb.TempDir()
	for f, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(data), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	done := make(chan error, 1)
	o := HTTPOptions{Options: Options{ProjectRoot: dir, Getenv: func(k string) string { return env[k] }}, Addr: "127.0.0.1:0",
		Listening: func(a net.Addr) { addrs <- a }}
	go func() { done <- ServeHTTP(ctx, o) }()
	select {
	case a := <-addrs:
		tb.Cleanup(func() {
			cancel()
			<-done
		})
		return dir, "http://" + a.String() + MCPEndpoint
	case err := <-done:
		cancel()
		tb.Fatal(err)
		return "", ""
	}
}

// mcpPostRequest is a Streamable HTTP POST of body, in session sid when it is set.
func mcpPostRequest(url, sid, body string) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	return req
}
