package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadUIMeta(t *testing.T) {
	for _, c := range []struct {
		name, file, entry, meta, err string
	}{
		{"no file", "", "index.html", `{"ui":{"prefersBorder":true}}`, ""},
		{"description only", `{"description":"d"}`, "index.html", `{"ui":{"prefersBorder":true}}`, ""},
		{"meta", `{"meta":{"csp":{"connectDomains":["a"]},"prefersBorder":false}}`, "index.html", `{"ui":{"csp":{"connectDomains":["a"]},"prefersBorder":false}}`, ""},
		{"entrypoint", `{"entrypoint":"app/main.html"}`, "app/main.html", `{"ui":{"prefersBorder":true}}`, ""},
		{"entrypoint outside", `{"entrypoint":"../x.html"}`, "index.html", `{"ui":{"prefersBorder":true}}`, "not a file inside"},
		{"entrypoint absolute", `{"entrypoint":"/etc/passwd"}`, "index.html", `{"ui":{"prefersBorder":true}}`, "not a file inside"},
		{"entrypoint hidden", `{"entrypoint":".secret.html"}`, "index.html", `{"ui":{"prefersBorder":true}}`, "not a file inside"},
		{"meta not an object", `{"meta":[1]}`, "index.html", `{"ui":{"prefersBorder":true}}`, `"meta" must be an object`},
		{"not JSON", `{`, "index.html", `{"ui":{"prefersBorder":true}}`, "ui.meta.json: unexpected end"},
		{"too big", `{"description":"` + strings.Repeat("x", maxUIMetaBytes) + `"}`, "index.html", `{"ui":{"prefersBorder":true}}`, "over"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.file != "" {
				os.WriteFile(filepath.Join(dir, "ui.meta.json"), []byte(c.file), 0o644)
			}
			m, err := ReadUIMeta(dir)
			if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
				t.Errorf("err %v, want %q", err, c.err)
			}
			if m.Entrypoint != c.entry || string(m.ContentMeta()) != c.meta {
				t.Errorf("entrypoint %q meta %s, want %q %s", m.Entrypoint, m.ContentMeta(), c.entry, c.meta)
			}
		})
	}
}
