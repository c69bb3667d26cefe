package sdk

import (
	"strings"
	"testing"
)

// TestNotUTF8Notes: a note per stream that is not UTF-8, naming the count and first offset;
// none for UTF-8, nor for a character the stderr tail's cut split (at most 3 leading bytes).
func TestNotUTF8Notes(t *testing.T) {
	for _, tc := range []struct {
		stdout, stderr string
		want           []string
	}{
		{"h\xc3\xa9", "\xe2\x82\xac", nil},
		{"", "\xa9\x82x", nil},
		{"a\xffb\xfe", "", []string{"stdout is not UTF-8 (2 invalid bytes, the first at offset 1)"}},
		{"ok", "x\xfe", []string{"stderr is not UTF-8 (1 invalid byte, the first at offset 1)"}},
		{"\xff", "\xa9\x82\xff", []string{"stdout is not UTF-8 (1 invalid byte, the first at offset 0)", "stderr is not UTF-8 (1 invalid byte, the first at offset 0)"}},
	} {
		got := NotUTF8Notes([]byte(tc.stdout), []byte(tc.stderr))
		if len(got) != len(tc.want) {
			t.Fatalf("%q %q: %q, want %q", tc.stdout, tc.stderr, got, tc.want)
		}
		for i, w := range tc.want {
			if !strings.HasPrefix(got[i], "mcp-bash: "+w+": ") || !strings.Contains(got[i], "(base64)") {
				t.Errorf("%q %q: note %q, want %q and the fix", tc.stdout, tc.stderr, got[i], w)
			}
		}
	}
}
