package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// membersAgree checks Members against encoding/json on one input: when Members answers, the
// keys and values it gives (the last of a key winning) are the map a decoder builds.
func membersAgree(t *testing.T, in []byte) {
	if !json.Valid(in) {
		return
	}
	got := map[string][]byte{}
	ok := Members(in, func(k, v []byte) { got[string(k)] = v })
	var want map[string]json.RawMessage
	err := json.Unmarshal(in, &want)
	if !ok {
		// Only objects whose keys have escapes or text that is not UTF-8 may be refused.
		if err == nil && !bytes.Contains(in, []byte(`\`)) && utf8.Valid(in) && bytes.HasPrefix(bytes.TrimSpace(in), []byte("{")) {
			t.Fatalf("%q refused", in)
		}
		return
	}
	if err != nil {
		t.Fatalf("%q: Members answered, encoding/json: %v", in, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d members, want %d", in, len(got), len(want))
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Fatalf("%q: member %q = %q, want %q", in, k, got[k], v)
		}
	}
}

func TestMembers(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : "x,}]" , "b":[1,{"c":"}"}],"a":null}`, `{"id":"\"q\\","method":"tools/call"}`,
		`{"k\u0065y":1}`, "{\"é\":true,\"\\n\":false}", `[1]`, `"s"`, `{"a":{"b":{"c":[]}}, "d" :-1.5e3}`,
	} {
		membersAgree(t, []byte(in))
	}
	if Members([]byte(`{"k\u0065y":1}`), func(k, v []byte) {}) {
		t.Error("a key with an escape was read")
	}
}

func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`,
		`{"a":[{"b":"}"}],"a":2}`, `{"\u00e9":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { membersAgree(t, in) })
}
