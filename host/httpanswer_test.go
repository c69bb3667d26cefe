package host

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHTTPJSONAnswerLength: a POST answered with application/json says its length, whatever
// its size (net/http alone sends a body of more than 2 KB chunked), and the body is the whole
// answer: real HTTP on loopback, examples/00-hello-tool.
func TestHTTPJSONAnswerLength(t *testing.T) {
	files := map[string]string{}
	for _, f := range []string{"server.d/server.meta.json", "tools/hello/tool.sh", "tools/hello/tool.meta.json"} {
		data, err := os.ReadFile(filepath.Join("..", "examples", "00-hello-tool", f))
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(data)
	}
	_, url := serveHTTPTest(t, files, nil)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	sid := ""
	post := func(body string) (*http.Response, []byte) {
		t.Helper()
		resp, err := client.Do(mcpPostRequest(url, sid, body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, out
	}
	long := strings.Repeat("Ada", 3000) // a 9 KB greeting: past net/http's 2 KB and its 4 KB buffers
	for _, c := range []struct {
		name, body, want string
	}{
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, `"protocolVersion":"2025-11-25"`},
		{"ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `"result":{}`},
		{"small call", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`, "Hello, Ada!"},
		{"large call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello","arguments":{"name":"` + long + `"}}}`, "Hello, " + long + "!"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := post(c.body)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("HTTP %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(body)) {
				t.Errorf("Transfer-Encoding %q, Content-Length %d for a %d-byte body", resp.TransferEncoding, resp.ContentLength, len(body))
			}
			if !json.Valid(body) || !bytes.Contains(body, []byte(c.want)) {
				t.Errorf("answer %.200s, want %.80s in it", body, c.want)
			}
			if sid == "" {
				if sid = resp.Header.Get(hdrSessionID); sid == "" {
					t.Fatal("initialize answered without a session id")
				}
				if resp, body := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
					t.Fatalf("notifications/initialized: HTTP %d %s", resp.StatusCode, body)
				}
			}
		})
	}
}
