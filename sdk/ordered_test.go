package sdk

import (
	"encoding/json"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// TestSDKKeepsMemberOrder: the SDK functions that pass a script's JSON through print it as the
// original's `jq -c` does (checked against jq 1.6): members in written order, a repeated key in
// its first place with its last value, members the SDK adds appended.
func TestSDKKeepsMemberOrder(t *testing.T) {
	call := &engine.Call{Tool: "t", Args: json.RawMessage(`{}`)}
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"mcp_emit_json", `{"b":1,"a":[1.0,2e2,"\u00e9"],"z":{"y":null,"x":true}}`}, `{"b":1,"a":[1,200,"é"],"z":{"y":null,"x":true}}`},
		{[]string{"mcp_emit_json", `{"a":1,"a":2,"c":3}`}, `{"a":2,"c":3}`},
		{[]string{"mcp_emit_json", ` { "k" : [ 1 , { } ] } `}, `{"k":[1,{}]}`},
		{[]string{"mcp_emit_json", `"x\u0001\"\/"`}, `"x\u0001\"/"`},
		{[]string{"mcp_emit_json", `{"m":"a\ud83d\ude00b"}`}, `{"m":"a😀b"}`},
		{[]string{"mcp_emit_json", `12345678901234567`}, `12345678901234568`},
		{[]string{"mcp_emit_json", `-0.5e-3`}, `-0.0005`},
		{[]string{"mcp_result_success", `{"z":1,"a":{"y":2,"b":3}}`},
			`{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"z\":1,\"a\":{\"y\":2,\"b\":3}}}"}],"structuredContent":{"success":true,"result":{"z":1,"a":{"y":2,"b":3}}},"isError":false}`},
		{[]string{"mcp_result_error", `{"message":"x"}`},
			`{"content":[{"type":"text","text":"x"}],"structuredContent":{"success":false,"error":{"message":"x","type":"internal_error"}},"isError":true}`},
		{[]string{"mcp_result_error", `{"type":"","z":0,"message":7}`},
			`{"content":[{"type":"text","text":"7"}],"structuredContent":{"success":false,"error":{"type":"internal_error","z":0,"message":7}},"isError":true}`},
		{[]string{"mcp_result_error", `{"message":{"b":1,"a":2}}`},
			`{"content":[{"type":"text","text":"{\"b\":1,\"a\":2}"}],"structuredContent":{"success":false,"error":{"message":{"b":1,"a":2},"type":"internal_error"}},"isError":true}`},
		{[]string{"mcp_error", "bad_input", "no", "--data", `{"y":1,"x":2}`, "--hint", "h"},
			`{"content":[{"type":"text","text":"no"}],"structuredContent":{"success":false,"error":{"type":"bad_input","message":"no","data":{"y":1,"x":2},"hint":"h"}},"isError":true}`},
	} {
		out, errOut, st, _ := runSDK(t, call, nil, tc.args...)
		if st != 0 || out != tc.out+"\n" {
			t.Errorf("%q: status %d, stdout\n%s\nwant\n%s\n(stderr %q)", tc.args, st, out, tc.out, errOut)
		}
	}
	for _, bad := range []string{``, ` `, `{"a":1} {"b":2}`, `{"a":}`, `[1,]`, `{'a':1}`, `nul`} {
		if out, _, st, _ := runSDK(t, call, nil, "mcp_emit_json", bad); st != 1 || out != "" {
			t.Errorf("mcp_emit_json %q: status %d stdout %q, want 1 and nothing", bad, st, out)
		}
	}
}

// TestArgsAndMetaKeepMemberOrder: mcp_args_get and mcp_meta_* print objects as the original's
// `jq -rc` does (expected outputs from jq 1.6): members of objects passed through in the
// client's order, objects built by one literal in written order.
func TestArgsAndMetaKeepMemberOrder(t *testing.T) {
	call := &engine.Call{Tool: "t", Args: json.RawMessage(`{"z":{"b":1,"a":2},"y":[{"d":0,"c":1}]}`),
		Meta: json.RawMessage(`{"progressToken":"t","z":{"b":1,"a":2}}`)}
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"mcp_args_get", ".z"}, `{"b":1,"a":2}`},
		{[]string{"mcp_args_get", "."}, `{"z":{"b":1,"a":2},"y":[{"d":0,"c":1}]}`},
		{[]string{"mcp_args_get", ".y[0]"}, `{"d":0,"c":1}`},
		{[]string{"mcp_args_get", "{q: .z.a, p: 1}"}, `{"q":2,"p":1}`},
		{[]string{"mcp_args_get", ".z | keys"}, `["a","b"]`},
		// Listing, changing and printing objects follow jq's order too (jqorder.Rewrite).
		{[]string{"mcp_args_get", ".z | keys_unsorted"}, `["b","a"]`},
		{[]string{"mcp_args_get", `.z | to_entries | map("\(.key)=\(.value)") | join(",")`}, `b=1,a=2`},
		{[]string{"mcp_args_get", ".z.c = 3 | .z"}, `{"b":1,"a":2,"c":3}`},
		{[]string{"mcp_args_get", ".z + {x: 0}"}, `{"b":1,"a":2,"x":0}`},
		{[]string{"mcp_args_get", "[.z[]]"}, `[1,2]`},
		{[]string{"mcp_args_get", ".z | tojson"}, `{"b":1,"a":2}`},
		{[]string{"mcp_args_get", "del(.z.b) | .z"}, `{"a":2}`},
		{[]string{"mcp_meta_raw"}, `{"progressToken":"t","z":{"b":1,"a":2}}`},
		{[]string{"mcp_meta_get", ".z"}, `{"b":1,"a":2}`},
	} {
		for range 2 { // and the same again: nothing is left over from a run
			out, errOut, st, _ := runSDK(t, call, nil, tc.args...)
			if st != 0 || out != tc.out+"\n" {
				t.Errorf("%q: status %d, stdout %q, want %q (stderr %q)", tc.args, st, out, tc.out, errOut)
			}
		}
	}
}
