package payloadlog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedactAndRecord(t *testing.T) {
	p := filepath.Join(t.TempDir(), "payload.log")
	l, err := Open(p, []string{"s3cr3t-token-value"})
	if err != nil {
		t.Fatal(err)
	}
	in, out := l.Wrap(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"api_key":"abc","password":"pw","q":"s3cr3t-token-value"},"_meta":{"progressToken":"p1"}}}`+"\n"), &bytes.Buffer{})
	io.ReadAll(in)
	out.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"authorization":"Bearer x","ok":true}}` + "\n"))
	l.Close()
	data, _ := os.ReadFile(p)
	s := string(data)
	for _, leak := range []string{`"abc"`, `"pw"`, "s3cr3t-token-value", "Bearer x"} {
		if strings.Contains(s, leak) {
			t.Errorf("leaked %s:\n%s", leak, s)
		}
	}
	for _, want := range []string{"C> ", "S> ", `"progressToken":"p1"`, `"ok":true`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s:\n%s", want, s)
		}
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}
