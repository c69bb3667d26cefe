package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

// fuzzServer is one server shared by every input of a fuzzing process (each input is its own
// session), over a small project with a tool, a prompt and a resource.
func fuzzServer(f *testing.F) *Server {
	dir := f.TempDir()
	for rel, body := range map[string]string{
		"tools/echo/tool.sh":        "#!/usr/bin/env bash\necho \"$MCP_TOOL_ARGS_JSON\"\n",
		"tools/echo/tool.meta.json": `{"name":"echo","description":"echo","inputSchema":{"type":"object"}}`,
		"prompts/p.txt":             "hello {{name}}",
		"resources/r.txt":           "resource",
	} {
		p := filepath.Join(dir, rel)
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	env := map[string]string{"MCPBASH_REGISTRY_READONLY": "1", "MCPBASH_DEFAULT_TOOL_TIMEOUT": "2", "MCPBASH_TMP_ROOT": f.TempDir()}
	getenv := func(k string) string { return env[k] }
	cfg := Config{Dirs: registry.ResolveDirs(dir, config.Dirs{}), Getenv: getenv, ShutdownTimeout: 100 * time.Millisecond,
		Meta: registry.ServerMeta{Name: "fuzz", Version: "1.0.0"}}
	srv, err := NewServer(context.Background(), cfg)
	if err != nil {
		f.Fatal(err)
	}
	return srv
}

// FuzzServe (T-PROTO-1, T-PROTO-2) feeds arbitrary client input to a session. The server must
// not panic or hang, every line it writes must be one JSON-RPC 2.0 message, and (unless the
// input cancels requests or exits) every answerable message gets exactly one answer: one per
// request, one per error.
func FuzzServe(f *testing.F) {
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	// 2026-07-28: no initialize, the revision and capabilities travel in each request's _meta.
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{},"elicitation":{}},"io.modelcontextprotocol/logLevel":"debug"}`
	for _, s := range []string{
		"",
		init,
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},` + meta + `}}` + "\n",
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","requestState":"e30.AAAA","inputResponses":{"roots":{"roots":[]}},` + meta + `}}` + "\n",
		`{"jsonrpc":"2.0","id":"l","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file://./resources/r.txt"]},` + meta + `}}` + "\n",
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file://./resources/r.txt","_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}}` + "\n",
		init + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n",
		init + `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"limit":1}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"eyJ2ZXIiOjF9"}}` + "\n",
		init + `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}` + "\n",
		init + `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope"}}` + "\n",
		init + `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"p","arguments":{"name":"x"}}}` + "\n",
		init + `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}` + "\n",
		init + `[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n" + `[]` + "\n",
		init + `{"jsonrpc":"2.0","id":1,"method":"shutdown"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"exit"}` + "\n",
		init + `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" + "garbage\n" + `{"jsonrpc":"2.0","id":1` + "\n",
		init + `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{}}` + "\n",
		init + `{"jsonrpc":"2.0","id":9,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"resources/templates/list"}` + "\n",
	} {
		f.Add([]byte(s))
	}
	srv := fuzzServer(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx, bytes.NewReader(in), &out) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Fatalf("Serve did not return for input %q", in)
		}
		want, exact := expectedAnswers(in)
		got := map[string]int{}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Method  string          `json:"method"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("not a JSON-RPC 2.0 line: %q (%v)", line, err)
			}
			if m.Method != "" {
				continue // a notification or a server-to-client request
			}
			if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
				t.Fatalf("malformed response: %s", line)
			}
			got[jsonrpc.IDKey(m.ID)]++
		}
		for id, n := range got {
			if id != "null" && n > want[id] {
				t.Fatalf("%d answers to id %s, %d requests (input %q)", n, id, want[id], in)
			}
		}
		if !exact {
			return
		}
		for id, n := range want {
			if got[id] != n {
				t.Fatalf("id %s: %d answers, want %d\ninput %q\noutput %s", id, got[id], n, in, out.String())
			}
		}
	})
}

// expectedAnswers counts, per id key, the answers the input calls for. exact is false when the
// input may legitimately suppress answers (cancellation, exit) or holds batches (whose fate
// depends on the negotiated revision).
func expectedAnswers(in []byte) (map[string]int, bool) {
	want := map[string]int{}
	exact := !bytes.Contains(in, []byte("cancelled")) && !bytes.Contains(in, []byte("exit"))
	r := jsonrpc.NewReader(bytes.NewReader(in), 0)
	for {
		line, err := r.ReadLine()
		if err != nil {
			break
		}
		line = jsonrpc.Normalize(line)
		if len(line) == 0 {
			continue
		}
		items, batch := jsonrpc.Decode(line)
		if batch {
			exact = false
		}
		for _, it := range items {
			switch {
			case it.Err != nil:
				want[keyOrNull(it.ID)]++
			case it.Msg.Kind() == jsonrpc.KindRequest:
				want[jsonrpc.IDKey(it.Msg.ID)]++
			}
		}
	}
	return want, exact
}

func keyOrNull(id json.RawMessage) string {
	if id == nil {
		return "null"
	}
	return jsonrpc.IDKey(id)
}
