package host

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitFile waits for the file to exist (the test's event), failing after a generous bound.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

// TestHTTPDisconnect: what a client's disconnect does to its request, on real HTTP on
// loopback. The exchange watches the disconnect only once it acts (a stream, a held exchange,
// a 2026-07-28 request), so the plain JSON answer of a 2025-xx session is the case to prove:
// its request is not cancelled (those revisions resume, they do not cancel on a disconnect),
// runs to its end, and the session serves on. A 2026-07-28 request is cancelled by the
// disconnect: with one slot for such requests, the next one runs only because the first was
// cancelled (the first is never released).
func TestHTTPDisconnect(t *testing.T) {
	files := map[string]string{
		"server.d/server.meta.json": `{"name":"disc","version":"1.0.0"}`,
		// wait marks that it started, waits for release-<key>, then marks that it ran to its end.
		"tools/wait/tool.sh": "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nk=$(mcp_args_get .key)\n" +
			": > \"$MCPBASH_PROJECT_ROOT/started-$k\"\n" +
			"while [ ! -e \"$MCPBASH_PROJECT_ROOT/release-$k\" ]; do sleep 0.01; done\n" +
			": > \"$MCPBASH_PROJECT_ROOT/ended-$k\"\necho \"released $k\"\n",
		"tools/wait/tool.meta.json": `{"name":"wait","description":"waits for a file","timeoutSecs":3600,"inputSchema":{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}}`,
	}
	root, url := serveHTTPTest(t, files, map[string]string{"MCPBASH_MAX_CONCURRENT_REQUESTS": "1", "MCPBASH_DEFAULT_TOOL_TIMEOUT": "3600",
		// No keep-alive turns a pending answer into a stream (which watches the disconnect) within
		// the 60 s bound below.
		"MCPBASH_HTTP_KEEPALIVE_SECS": "3600"})
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	post := func(ctx context.Context, body string, hdr ...string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		return client.Do(req)
	}
	answer := func(ctx context.Context, body string, hdr ...string) (*http.Response, string) {
		t.Helper()
		resp, err := post(ctx, body, hdr...)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	// gone starts a call of wait with key k and drops the connection once the tool runs.
	gone := func(k, body string, hdr ...string) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			resp, err := post(ctx, body, hdr...)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			errc <- err
		}()
		waitFile(t, filepath.Join(root, "started-"+k))
		cancel()
		if err := <-errc; err == nil {
			t.Fatalf("call %s answered before the client went away", k)
		}
	}

	t.Run("2025-11-25 JSON answer: not cancelled", func(t *testing.T) {
		resp, _ := answer(context.Background(), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		sid := resp.Header.Get(hdrSessionID)
		hdr := []string{hdrSessionID, sid, hdrProtocol, "2025-11-25"}
		if r, _ := answer(context.Background(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...); r.StatusCode != http.StatusAccepted {
			t.Fatalf("initialized: %d", r.StatusCode)
		}
		gone("a", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{"key":"a"}}}`, hdr...)
		if err := os.WriteFile(filepath.Join(root, "release-a"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		waitFile(t, filepath.Join(root, "ended-a")) // ran to its end after the client left
		// The session serves on: a call after the disconnect is answered in JSON.
		if err := os.WriteFile(filepath.Join(root, "release-b"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		r, body := answer(context.Background(), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"key":"b"}}}`, hdr...)
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, "released b") {
			t.Fatalf("the call after the disconnect: %d %s %s", r.StatusCode, r.Header.Get("Content-Type"), body)
		}
	})

	t.Run("2026-07-28: cancelled", func(t *testing.T) {
		call := func(id int, k string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait","arguments":{"key":%q},`+
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`, id, k)
		}
		hdr := []string{hdrProtocol, StatelessVersion, hdrMethod, "tools/call", hdrName, "wait"}
		gone("c", call(1, "c"), hdr...) // never released: only its cancellation frees the slot
		if err := os.WriteFile(filepath.Join(root, "release-d"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		// Bounded so that a call never cancelled fails here rather than at the test's timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		resp, err := post(ctx, call(2, "d"), hdr...)
		if err != nil {
			t.Fatalf("the call after the disconnected one (still holding the only slot?): %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if r, body := resp, string(b); r.StatusCode != http.StatusOK || !strings.Contains(body, "released d") {
			t.Fatalf("the call after the cancelled one: %d %s", r.StatusCode, body)
		}
		if _, err := os.Stat(filepath.Join(root, "ended-c")); err == nil {
			t.Error("the disconnected 2026-07-28 call ran to its end")
		}
	})
}
