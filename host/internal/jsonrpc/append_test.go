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

// TestForeignEncodings: JSON in UTF-16 or UTF-32, with or without a byte order mark, is a
// parse error that names the encoding; nothing of it is decoded.
func TestForeignEncodings(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin"}}`
	utf16 := func(big bool) []byte {
		var b []byte
		for _, r := range msg {
			if big {
				b = append(b, 0, byte(r))
			} else {
				b = append(b, byte(r), 0)
			}
		}
		return b
	}
	utf32 := func(big bool) []byte {
		var b []byte
		for _, r := range msg {
			if big {
				b = append(b, 0, 0, 0, byte(r))
			} else {
				b = append(b, byte(r), 0, 0, 0)
			}
		}
		return b
	}
	for name, body := range map[string][]byte{
		"UTF-16LE (with a byte order mark)": append([]byte{0xFF, 0xFE}, utf16(false)...),
		"UTF-16BE (with a byte order mark)": append([]byte{0xFE, 0xFF}, utf16(true)...),
		"UTF-32LE (with a byte order mark)": append([]byte{0xFF, 0xFE, 0, 0}, utf32(false)...),
		"UTF-32BE (with a byte order mark)": append([]byte{0, 0, 0xFE, 0xFF}, utf32(true)...),
		"UTF-16LE":                          utf16(false), "UTF-16BE": utf16(true), "UTF-32LE": utf32(false), "UTF-32BE": utf32(true),
	} {
		items, batch := Decode(Normalize(body))
		if batch || len(items) != 1 || items[0].Msg != nil || items[0].Err == nil || items[0].Err.Code != CodeParseError || !strings.Contains(string(items[0].Err.Data), name) {
			t.Errorf("%s: %+v", name, items[0])
		}
	}
}
