package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// FuzzReader (T-PROTO-1): the bounded line reader returns exactly the input's lines, reports each line over
// the cap as *LineTooLongError (and goes on with the next), and never returns more than the cap.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"", "\n", "a\nb", "{}\n{}\n", "x\r\n\n\n", "0123456789abcdefghij\nshort\n", "\xEF\xBB\xBF{}\n"} {
		f.Add([]byte(s), uint8(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, max uint8) {
		limit := int(max%64) + 1
		r := NewReader(bytes.NewReader(in), limit)
		// Reference: split on newlines; a final segment without newline counts when non-empty.
		segs := bytes.Split(in, []byte("\n"))
		if len(segs[len(segs)-1]) == 0 {
			segs = segs[:len(segs)-1]
		}
		for i, want := range segs {
			got, err := r.ReadLine()
			var tl *LineTooLongError
			over := len(want) > limit
			switch {
			case over:
				if !errors.As(err, &tl) {
					t.Fatalf("line %d (%d bytes, cap %d): err %v, got %q", i, len(want), limit, err, got)
				}
			case err != nil:
				t.Fatalf("line %d: unexpected error %v", i, err)
			case !bytes.Equal(got, want):
				t.Fatalf("line %d: got %q want %q", i, got, want)
			}
			if len(got) > limit {
				t.Fatalf("line %d: %d bytes over the cap %d", i, len(got), limit)
			}
		}
		if got, err := r.ReadLine(); err != io.EOF {
			t.Fatalf("after the last line: %q, %v", got, err)
		}
	})
}

// FuzzDecode (T-PROTO-1): any line decodes without panicking into items that are each either a well-formed
// message or an error whose response encodes as one valid JSON-RPC line.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`,
		`[]`, `[1,2]`, `{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}`, `{"jsonrpc":"1.0","id":"x","method":"m"}`,
		`{"jsonrpc":"2.0","id":9007199254740993,"method":"m","params":[1]}`, `{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
		"\xEF\xBB\xBF {\"jsonrpc\":\"2.0\",\"id\":\"\\u0000\",\"method\":\"m\"}\r", `{"jsonrpc":"2.0","id":null,"method":"m"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":"s"}`, `nul`, `{"a":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		line := Normalize(in)
		if len(line) == 0 {
			return
		}
		items, _ := Decode(line)
		if len(items) == 0 {
			t.Fatal("no items")
		}
		for _, it := range items {
			if (it.Msg == nil) == (it.Err == nil) {
				t.Fatalf("item must be a message or an error: %+v", it)
			}
			if it.Err != nil {
				checkLine(t, ErrorResponse(it.ID, it.Err))
				continue
			}
			if it.Msg.Kind() == KindInvalid {
				t.Fatalf("invalid message passed: %+v", it.Msg)
			}
			if it.Msg.Kind() == KindRequest {
				b, err := Response(it.Msg.ID, map[string]any{})
				if err != nil {
					t.Fatal(err)
				}
				checkLine(t, b)
			}
		}
	})
}

func checkLine(t *testing.T, b []byte) {
	t.Helper()
	if bytes.ContainsAny(b, "\n") || !json.Valid(b) {
		t.Fatalf("not one valid JSON line: %q", b)
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	if json.Unmarshal(b, &m) != nil || m.JSONRPC != "2.0" || m.ID == nil {
		t.Fatalf("not a JSON-RPC 2.0 response: %s", b)
	}
}
