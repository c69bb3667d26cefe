package registry

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var fuzzEnv = map[string]string{"MCPBASH_REGISTRY_READONLY": "1", "MCP_TOOLS_TTL": "0"}

func fuzzGetenv(k string) string { return fuzzEnv[k] }

func fuzzOptions(tb testing.TB, dir string) Options {
	o := envOptions(tb, dir, fuzzGetenv)
	o.ServerName = "fuzz"
	return o
}

// fuzzProject writes files into a fresh directory and opens a read-only registry on it.
func fuzzProject(t *testing.T, files map[string][]byte) (*Registry, error) {
	dir := t.TempDir()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return Open(context.Background(), fuzzOptions(t, dir))
}

// listAll pages through every kind and checks that each item is valid JSON.
func listAll(t *testing.T, r *Registry) {
	ctx := context.Background()
	for _, k := range Kinds {
		cursor := ""
		for pages := 0; pages < 100; pages++ {
			p, err := r.List(ctx, k, cursor, 2)
			if err != nil {
				break
			}
			for _, it := range p.Items {
				if !json.Valid(it) {
					t.Fatalf("%s: invalid item %q", k, it)
				}
			}
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
	}
	if tools, err := r.List(ctx, KindTools, "", MaxPageSize); err == nil {
		for _, it := range tools.Items {
			var m struct{ Name string }
			_ = json.Unmarshal(it, &m)
			_, _ = r.Tool(ctx, m.Name)
		}
	}
	_, _ = r.Prompts(ctx)
	_, _ = r.Resources(ctx)
	_, _ = r.Templates(ctx)
	_ = r.Completions()
}

// FuzzCursor (T-PROTO-1: cursors are client input): any cursor string is either rejected or decodes to an offset within the list, and
// every cursor the registry issues decodes to the offset it was made for.
func FuzzCursor(f *testing.F) {
	now := time.Unix(1700000000, 0)
	f.Add(encodeCursor(KindTools, 1, "h", now), uint16(3), 0)
	f.Add(encodeCursor(KindPrompts, 7, "h", now), uint16(3), 1)
	f.Add("", uint16(0), 0)
	f.Add("eyJ2ZXIiOjEsImNvbGxlY3Rpb24iOiJ0b29scyIsIm9mZnNldCI6LTEsImhhc2giOiJoIn0", uint16(5), 2)
	f.Add("====", uint16(1), -5)
	f.Add("eyJ2ZXIiOjEsImNvbGxlY3Rpb24iOiJ0b29scyIsIm9mZnNldCI6OTIyMzM3MjAzNjg1NDc3NTgwNywiaGFzaCI6ImgifQ", uint16(5), 1)
	r := cursorRegistry(f)
	f.Fuzz(func(t *testing.T, s string, total uint16, limit int) {
		off, err := decodeCursor(s, KindTools, "h", int(total))
		if err == nil && (off < 0 || off > int(total)) {
			t.Fatalf("cursor %q decoded to offset %d of %d", s, off, total)
		}
		want := int(total) / 2
		if got, err := decodeCursor(encodeCursor(KindTools, want, "h", now), KindTools, "h", int(total)); err != nil || got != want {
			t.Fatalf("round trip: %d, %v", got, err)
		}
		// Through a real registry: a hostile cursor or limit never panics or over-reads.
		p, err := r.List(context.Background(), KindTools, s, limit)
		if err == nil && (len(p.Items) > MaxPageSize || len(p.Items) > p.Total) {
			t.Fatalf("page of %d items (total %d)", len(p.Items), p.Total)
		}
	})
}

// cursorRegistry is a registry of five tools (so that pages and cursors exist).
func cursorRegistry(f *testing.F) *Registry {
	dir := f.TempDir()
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		for rel, body := range map[string]string{
			"tools/" + n + "/tool.sh":        "#!/usr/bin/env bash\necho " + n + "\n",
			"tools/" + n + "/tool.meta.json": `{"name":"` + n + `","description":"d"}`,
		} {
			p := filepath.Join(dir, rel)
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
				f.Fatal(err)
			}
		}
	}
	r, err := Open(context.Background(), fuzzOptions(f, dir))
	if err != nil {
		f.Fatal(err)
	}
	return r
}

// FuzzRegisterJSON (T-REG-1): a hostile server.d/register.json is refused with an error or served; it
// never panics and never yields invalid list items.
func FuzzRegisterJSON(f *testing.F) {
	for _, s := range []string{
		`{"version":1}`,
		`{"version":1,"tools":[{"name":"t","path":"t/tool.sh","description":"d","inputSchema":{"type":"object"}}]}`,
		`{"version":1,"tools":[],"resources":[{"name":"r","uri":"file:///etc/passwd"}],"prompts":null}`,
		`{"version":1,"resourceTemplates":[{"name":"x","uriTemplate":"file:///{path}"}],"completions":[{"name":"c","path":"../../etc/passwd"}]}`,
		`{"version":1,"tools":[{"name":"t","path":"../../../../bin/sh"}]}`,
		`{"version":1,"tools":{"name":"t"}}`, `{"version":2}`, `[]`, `{"version":1}{}`, "\xEF\xBB\xBF{\"version\":1}",
		`{"version":1,"prompts":[{"name":"p","path":"p.txt","arguments":[{"name":"a","required":true}]}]}`,
		`{"version":1,"_meta":{"x":1},"tools":[{"name":"t","path":"t/tool.sh","icons":[{"src":"../../../../etc/passwd"}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := fuzzProject(t, map[string][]byte{
			"server.d/register.json": data,
			"tools/t/tool.sh":        []byte("#!/usr/bin/env bash\necho hi\n"),
			"prompts/p.txt":          []byte("hello {{a}}"),
		})
		if err != nil {
			return
		}
		listAll(t, r)
	})
}

// FuzzToolMeta (T-REG-1): hostile tool.meta.json files and inline `# mcp:` headers are skipped or
// defaulted, never fatal.
func FuzzToolMeta(f *testing.F) {
	for _, s := range [][2]string{
		{`{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}`, `{"name":"h"}`},
		{`{"name":"t","exec":"native","sandbox":{"allowCommands":["bash"],"network":true},"timeoutSecs":-1}`, ``},
		{`{"name":"","description":""}`, `{"name":"x","arguments":[1,2]}`},
		{`{"name":"t","outputSchema":{"$ref":"http://example.com/s.json"},"icons":[{"src":"/etc/passwd"}]}`, `not json`},
		{`{"name":"t","_meta":{"ui":{"resourceUri":"ui://../../x"}},"annotations":{"readOnlyHint":"yes"}}`, `{"timeoutSecs":1e309}`},
		{`[]`, `{}`}, {`null`, `null`}, {`{"name":1}`, `{"name":{"a":1}}`},
	} {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, meta, header []byte) {
		r, err := fuzzProject(t, map[string][]byte{
			"tools/t/tool.sh":           append(append([]byte("#!/usr/bin/env bash\n# mcp: "), header...), "\necho hi\n"...),
			"tools/t/tool.meta.json":    meta,
			"tools/u/tool.sh":           append(append([]byte("#!/usr/bin/env bash\n# mcp: "), header...), "\n"...),
			"prompts/p.txt":             []byte("hi {{a}}"),
			"prompts/p.meta.json":       meta,
			"resources/r.txt":           []byte("r"),
			"resources/r.txt.meta.json": meta,
		})
		if err != nil {
			return
		}
		listAll(t, r)
	})
}
