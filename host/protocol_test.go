package host

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
)

// TestCallToolResultJSON: the typed result writes what the map it replaced wrote, member for
// member, whatever the tool put in its own result object.
func TestCallToolResultJSON(t *testing.T) {
	text := "t<&>\"\n"
	for _, tc := range []struct {
		name string
		res  *CallToolResult
		want string
	}{
		{"text", &CallToolResult{Name: "hello", Content: textContent("Hello, <Ada>!"), Meta: map[string]any{"exitCode": 0}},
			`{"content":[{"type":"text","text":"Hello, <Ada>!"}],"isError":false,"name":"hello","_meta":{"exitCode":0}}`},
		{"timeout without name", &CallToolResult{Content: textContent("x"), IsError: true},
			`{"content":[{"type":"text","text":"x"}],"isError":true}`},
		{"structured null is sent", &CallToolResult{Content: textContent(""), HasStructured: true},
			`{"content":[{"type":"text","text":""}],"isError":false,"structuredContent":null}`},
		{"embedded", &CallToolResult{Content: []Content{{Text: "a"}, {Resource: &resourceContent{URI: "file:///x", MIMEType: "text/plain", Text: &text}}}},
			`{"content":[{"type":"text","text":"a"},{"type":"resource","resource":{"uri":"file:///x","mimeType":"text/plain","text":"t<&>\"\n"}}],"isError":false}`},
		{"tool's own", callToolResultOf(map[string]any{"content": []any{map[string]any{"type": "image", "data": "AA=="}, nil}, "isError": true,
			"structuredContent": map[string]any{"k": 1.5}, "_meta": map[string]any{"m": "v"}, "custom": []any{"x"}, "name": 3}),
			`{"content":[{"type":"image","data":"AA=="},null],"isError":true,"structuredContent":{"k":1.5},"_meta":{"m":"v"},"custom":["x"]}`},
		{"stateless", &CallToolResult{Name: "n", Content: textContent("a"), ResultType: "complete", Meta: map[string]any{metaServerInfo: json.RawMessage(`{"name":"s"}`)}},
			`{"content":[{"type":"text","text":"a"}],"isError":false,"name":"n","resultType":"complete","_meta":{"` + metaServerInfo + `":{"name":"s"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line, err := jsonrpc.Response(json.RawMessage("1"), tc.res)
			if err != nil {
				t.Fatal(err)
			}
			var got struct{ Result any }
			if err := json.Unmarshal(line, &got); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			var want any
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Result, want) {
				t.Errorf("got  %s\nwant %s", line, tc.want)
			}
			if b, err := json.Marshal(tc.res); err != nil || !json.Valid(b) {
				t.Errorf("MarshalJSON: %s %v", b, err)
			}
		})
	}
}

// TestListResultJSON: a list page, legacy and 2026-07-28.
func TestListResultJSON(t *testing.T) {
	l := &listResult{member: "tools", items: []json.RawMessage{json.RawMessage(`{"name":"a"}`)}, total: 3, nextCursor: "c"}
	b, _ := json.Marshal(l)
	if string(b) != `{"tools":[{"name":"a"}],"_meta":{"mcpbash/total":3},"nextCursor":"c"}` {
		t.Errorf("legacy: %s", b)
	}
	l.stateless = statelessFields{on: true, resultType: "complete", serverInfo: json.RawMessage(`{"name":"s"}`), ttl: true, cacheScope: "public"}
	l.items, l.nextCursor = nil, ""
	b, _ = json.Marshal(l)
	if string(b) != `{"tools":[],"_meta":{"mcpbash/total":3,"`+metaServerInfo+`":{"name":"s"}},"resultType":"complete","ttlMs":0,"cacheScope":"public"}` {
		t.Errorf("stateless: %s", b)
	}
}
