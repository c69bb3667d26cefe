package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAppendString: every string reads back as encoding/json reads its own encoding of it
// (invalid UTF-8 as U+FFFD), and the output is valid JSON.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote\back`, "nl\ncr\rtab\t", "\x00\x01\x1f\x7f", "<a & b>",
		"héllo wörld ☃ 𝄞", "bad\xffutf8\xc3", "line\u2028para\u2029", strings.Repeat("x", 300)} {
		b := AppendString([]byte("pre"), s)
		if !strings.HasPrefix(string(b), "pre") {
			t.Fatalf("prefix lost: %q", b)
		}
		b = b[3:]
		if !json.Valid(b) {
			t.Fatalf("%q: invalid JSON %q", s, b)
		}
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		want := s
		if !utf8.ValidString(s) {
			want = strings.ToValidUTF8(s, "\ufffd")
		}
		if got != want {
			t.Errorf("%q read back as %q", s, got)
		}
	}
}

type appender struct{ s string }

func (a appender) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"s":`...)
	return append(AppendString(b, a.s), '}'), nil
}

// TestResponseAppender: an Appender is written into the envelope as it is, with any id.
func TestResponseAppender(t *testing.T) {
	for _, id := range []string{`1`, `"x"`, `"<odd>"`, ``} {
		line, err := Response(json.RawMessage(id), appender{s: "a<b"})
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     json.RawMessage
			Result struct{ S string }
		}
		if err := json.Unmarshal(line, &m); err != nil || m.Result.S != "a<b" {
			t.Errorf("id %s: %s (%v)", id, line, err)
		}
	}
}
