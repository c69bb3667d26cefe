package registry

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
)

// tree writes files (path → content; a "+x" suffix on the path makes it executable).
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for rel, body := range files {
		mode := os.FileMode(0o644)
		if p, ok := strings.CutSuffix(rel, "+x"); ok {
			rel, mode = p, 0o755
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type fixture struct {
	r        *Registry
	dir      string
	warnings []Warning
	now      time.Time
}

func open(t *testing.T, files map[string]string, env map[string]string) *fixture {
	t.Helper()
	f := &fixture{dir: tree(t, files), now: time.Unix(1_700_000_000, 0)}
	o := envOptions(t, f.dir, func(k string) string { return env[k] })
	o.ServerName = "srv"
	o.Warn = func(w Warning) { f.warnings = append(f.warnings, w) }
	o.Now = func() time.Time { return f.now }
	r, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	f.r = r
	return f
}

func (f *fixture) items(t *testing.T, k Kind) []map[string]any {
	t.Helper()
	p, err := f.r.List(context.Background(), k, "", MaxPageSize)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, it := range p.Items {
		var m map[string]any
		if err := json.Unmarshal(it, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func names(items []map[string]any) string {
	var n []string
	for _, it := range items {
		n = append(n, it["name"].(string))
	}
	return strings.Join(n, ",")
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestToolDiscovery(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // names in order
	}{
		{"meta file beats stem meta", map[string]string{
			"tools/a/tool.sh":           "echo",
			"tools/a/tool.sh.meta.json": `{"name":"from-file-meta"}`,
			"tools/a/tool.meta.json":    `{"name":"from-stem-meta"}`}, "from-file-meta"},
		{"stem meta used", map[string]string{
			"tools/a/tool.sh": "echo", "tools/a/tool.meta.json": `{"name":"stem"}`}, "stem"},
		{"meta without name or description is not used", map[string]string{
			"tools/a/tool.sh": "# mcp: {\"name\":\"inline\"}\n", "tools/a/tool.meta.json": `{"timeoutSecs":3}`}, "inline"},
		{"inline header within first 10 lines", map[string]string{
			"tools/a/run.sh": "#!/bin/bash\n# mcp: {\"name\":\"hdr\",\"description\":\"d\"}\n"}, "hdr"},
		{"inline header after line 10 is ignored", map[string]string{
			"tools/a/run.sh": strings.Repeat("#\n", 10) + "# mcp: {\"name\":\"late\"}\n"}, "run"},
		{"bad inline JSON means defaults", map[string]string{
			"tools/a/run.sh": "# mcp: {nope\n"}, "run"},
		{"defaults: stem of the file", map[string]string{"tools/x/tool.sh": "echo"}, "tool"},
		{"shebang or exec bit or extension", map[string]string{
			"tools/a/shebang": "#!/bin/sh\n", "tools/a/shebang.meta.json": `{"name":"s1"}`,
			"tools/a/execbit+x": "echo", "tools/a/execbit.meta.json": `{"name":"s2"}`,
			"tools/a/plain.txt": "not a tool", "tools/a/plain.meta.json": `{"name":"s3"}`,
			"tools/a/b.bash": "echo", "tools/a/b.meta.json": `{"name":"s4"}`}, "s1,s2,s4"},
		{"files directly in tools/ need their own metadata", map[string]string{"tools/top.sh": "echo"}, ""},
		{"flat layout with a meta file", map[string]string{
			"tools/world.sh": "echo", "tools/world.meta.json": `{"name":"world"}`,
			"tools/helper.sh": "echo", "tools/hdr.sh": "# mcp: {\"name\":\"hdr\"}"}, "hdr,world"},
		{"smoke.sh is skipped", map[string]string{"tools/a/smoke.sh": "echo"}, ""},
		{"hidden files and dirs are skipped", map[string]string{
			"tools/.hidden/tool.sh": "echo", "tools/a/.secret.sh": "echo", "tools/a/tool.sh": "echo"}, "tool"},
		{"helper beside a tool with meta is not a tool", map[string]string{
			"tools/a/tool.sh": "echo", "tools/a/tool.meta.json": `{"name":"main"}`, "tools/a/lib.sh": "f(){ :; }"}, "main"},
		{"two scripts with metadata are two tools", map[string]string{
			"tools/a/one.sh": "# mcp: {\"name\":\"one\"}", "tools/a/two.sh": "# mcp: {\"name\":\"two\"}"}, "one,two"},
		{"nested at depth", map[string]string{"tools/a/b/c/tool.sh": "# mcp: {\"name\":\"deep\"}"}, "deep"},
		{"beyond the depth limit", map[string]string{"tools/1/2/3/4/5/6/7/8/9/tool.sh": "# mcp: {\"name\":\"toodeep\"}"}, ""},
		{"names outside MCP's characters and length are skipped; dots are served", map[string]string{
			"tools/a/tool.sh": "echo", "tools/a/tool.meta.json": `{"name":"has.dot"}`,
			"tools/b/tool.sh": "echo", "tools/b/tool.meta.json": `{"name":"` + strings.Repeat("x", 129) + `"}`,
			"tools/d/tool.sh": "echo", "tools/d/tool.meta.json": `{"name":"has space"}`,
			"tools/e/tool.sh": "echo", "tools/e/tool.meta.json": `{"name":"` + strings.Repeat("y", 128) + `"}`,
			"tools/c/tool.sh": "echo", "tools/c/tool.meta.json": `{"name":"ok_name-1"}`}, "has.dot,ok_name-1," + strings.Repeat("y", 128)},
		{"sorted by name then path; duplicates listed", map[string]string{
			"tools/z/tool.sh": "# mcp: {\"name\":\"b\"}", "tools/y/tool.sh": "# mcp: {\"name\":\"a\"}",
			"tools/x/tool.sh": "# mcp: {\"name\":\"b\"}"}, "a,b,b"},
		{"wasm module", map[string]string{"tools/w/tool.wasm": "\x00asm", "tools/w/tool.meta.json": `{"name":"w"}`}, "w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, tc.files, nil)
			if got := names(f.items(t, KindTools)); got != tc.want {
				t.Errorf("tools = %q, want %q (warnings %v)", got, tc.want, f.warnings)
			}
		})
	}
}

func TestToolItemFields(t *testing.T) {
	for _, tc := range []struct {
		name, meta, want string
	}{
		{"defaults", `{"name":"t"}`, `{"name":"t","description":"","path":"a/tool.sh","inputSchema":{"type":"object","properties":{}}}`},
		{"arguments alias", `{"name":"t","arguments":{"type":"object","properties":{"x":{"type":"string"}}}}`,
			`{"name":"t","description":"","path":"a/tool.sh","inputSchema":{"properties":{"x":{"type":"string"}},"type":"object"}}`},
		{"inputSchema wins over arguments", `{"name":"t","inputSchema":{"type":"object","properties":{}},"arguments":{"properties":{"x":{}}}}`,
			`{"name":"t","description":"","path":"a/tool.sh","inputSchema":{"properties":{},"type":"object"}}`},
		{"missing type and properties added", `{"name":"t","inputSchema":{"required":[]}}`,
			`{"name":"t","description":"","path":"a/tool.sh","inputSchema":{"properties":{},"required":[],"type":"object"}}`},
		{"non-object schema → default", `{"name":"t","inputSchema":"x"}`,
			`{"name":"t","description":"","path":"a/tool.sh","inputSchema":{"type":"object","properties":{}}}`},
		{"timeouts and extras", `{"name":"t","title":"T","description":"d","timeoutSecs":"12","timeoutHint":"h","progressExtendsTimeout":true,"maxTimeoutSecs":60,"annotations":{"readOnlyHint":true},"_meta":{"k":1},"outputSchema":{"type":"object"}}`,
			`{"name":"t","title":"T","description":"d","path":"a/tool.sh","inputSchema":{"type":"object","properties":{}},"outputSchema":{"type":"object"},"timeoutSecs":12,"timeoutHint":"h","progressExtendsTimeout":true,"maxTimeoutSecs":60,"annotations":{"readOnlyHint":true},"_meta":{"k":1}}`},
		{"non-integer timeout dropped", `{"name":"t","timeoutSecs":"1.5"}`,
			`{"name":"t","description":"","path":"a/tool.sh","inputSchema":{"type":"object","properties":{}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, map[string]string{"tools/a/tool.sh": "echo", "tools/a/tool.meta.json": tc.meta}, nil)
			p, err := f.r.List(context.Background(), KindTools, "", 0)
			if err != nil || len(p.Items) != 1 {
				t.Fatal(err, len(p.Items))
			}
			if got := string(p.Items[0]); got != tc.want {
				t.Errorf("item\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestIcons(t *testing.T) {
	f := open(t, map[string]string{
		"tools/a/tool.sh": "echo",
		"tools/a/tool.meta.json": `{"name":"t","icons":[{"src":"./icon.svg"},{"src":"https://x/i.png","mimeType":"image/png"},
			{"src":"missing.png"},{"nosrc":1},{"src":"data:image/png;base64,AA=="},{"src":"pic.webp","sizes":["48x48"]}]}`,
		"tools/a/icon.svg": "<svg/>",
		"tools/a/pic.webp": "RIFF",
		"tools/b/tool.sh":  "echo", "tools/b/tool.meta.json": `{"name":"u","icons":"not-an-array"}`,
	}, nil)
	items := f.items(t, KindTools)
	want := `[{"mimeType":"image/svg+xml","src":"data:image/svg+xml;base64,PHN2Zy8+"},{"mimeType":"image/png","src":"https://x/i.png"},{"src":"missing.png"},{"src":"data:image/png;base64,AA=="},{"mimeType":"image/webp","sizes":["48x48"],"src":"data:image/webp;base64,UklGRg=="}]`
	if got := js(items[0]["icons"]); got != want {
		t.Errorf("icons\n got %s\nwant %s", got, want)
	}
	if _, ok := items[1]["icons"]; ok {
		t.Errorf("non-array icons kept: %v", items[1])
	}
}

func TestToolUIMeta(t *testing.T) {
	f := open(t, map[string]string{"tools/dash/tool.sh": "# mcp: {\"name\":\"dash\"}", "tools/dash/ui/index.html": "<html>"}, nil)
	if got := js(f.items(t, KindTools)[0]["_meta"]); got != `{"ui":{"resourceUri":"ui://srv/dash","visibility":["model","app"]}}` {
		t.Errorf("_meta = %s", got)
	}
}

func TestResourcesAndTemplates(t *testing.T) {
	f := open(t, map[string]string{
		"resources/greeting.txt":           "hello",
		"resources/greeting.meta.json":     `{"name":"greet","description":"d","uri":"file://./resources/greeting.txt"}`,
		"resources/plain.md":               "x",
		"resources/remote.txt":             "",
		"resources/remote.meta.json":       `{"name":"remote","uri":"https://example.com/r","mimeType":"application/json"}`,
		"resources/repo.txt":               "",
		"resources/repo.meta.json":         `{"name":"repo","uri":"git+https://example.com/r.git#main:README.md"}`,
		"resources/logs.meta.json":         `{"name":"logs","uriTemplate":"file:///var/log/{service}.log","title":"Logs"}`,
		"resources/static.meta.json":       `{"name":"static","uriTemplate":"file:///no/vars"}`,
		"resources/clash.meta.json":        `{"name":"greet","uriTemplate":"x://{a}"}`,
		"resources/both.meta.json":         `{"name":"both","uri":"x://a","uriTemplate":"x://{a}"}`,
		"resources/.hidden.txt":            "h",
		"resources/tpl-only.txt":           "t",
		"resources/tpl-only.txt.meta.json": `{"name":"tplonly","uriTemplate":"t://{x}"}`,
	}, nil)
	res := f.items(t, KindResources)
	if got := names(res); got != "greet,plain,remote,repo" {
		t.Fatalf("resources = %s", got)
	}
	byName := map[string]map[string]any{}
	for _, r := range res {
		byName[r["name"].(string)] = r
	}
	if r := byName["plain"]; r["uri"] != "file://"+filepath.Join(f.dir, "resources", "plain.md") || r["mimeType"] != "text/plain" || r["provider"] != "file" {
		t.Errorf("defaults: %v", r)
	}
	if byName["greet"]["uri"] != "file://./resources/greeting.txt" {
		t.Errorf("relative uri not echoed: %v", byName["greet"])
	}
	if byName["remote"]["provider"] != "https" || byName["repo"]["provider"] != "git" {
		t.Errorf("provider inference: %v %v", byName["remote"], byName["repo"])
	}
	tpls := f.items(t, KindResourceTemplates)
	if got := names(tpls); got != "logs,tplonly" {
		t.Errorf("templates = %s (warnings %v)", got, f.warnings)
	}
	if got := js(tpls[0]); got != `{"name":"logs","title":"Logs","uriTemplate":"file:///var/log/{service}.log"}` {
		t.Errorf("template item %s", got)
	}
	var msgs []string
	for _, w := range f.warnings {
		msgs = append(msgs, w.Message)
	}
	for _, want := range []string{"no {variable}", "collides with a resource name", "both uri and uriTemplate"} {
		if !strings.Contains(strings.Join(msgs, "\n"), want) {
			t.Errorf("no warning %q in %v", want, msgs)
		}
	}
}

func TestPrompts(t *testing.T) {
	f := open(t, map[string]string{
		"prompts/hello.txt": "Hello {{name}}",
		"prompts/hello.meta.json": `{"name":"hello.world","description":"d","arguments":{"type":"object",
			"properties":{"zeta":{"type":"string","description":"last letter"},"alpha":{"type":"string"}},"required":["alpha"]},"role":"assistant","metadata":{"k":"v"}}`,
		"prompts/plain.txt":            "x",
		"prompts/bad.txt":              "x",
		"prompts/bad.meta.json":        `{"name":"bad","arguments":[1,2]}`,
		"prompts/demo.completion.sh+x": "echo []",
	}, nil)
	items := f.items(t, KindPrompts)
	if got := names(items); got != "hello.world,plain" {
		t.Fatalf("prompts = %s", got)
	}
	if got := js(items[0]); got != `{"arguments":[{"description":"last letter","name":"zeta","required":false},{"name":"alpha","required":true}],"description":"d","metadata":{"k":"v"},"name":"hello.world","path":"hello.txt","role":"assistant"}` {
		t.Errorf("prompt item %s", got)
	}
	if got := js(items[1]); got != `{"arguments":[],"description":"","name":"plain","path":"plain.txt","role":"user"}` {
		t.Errorf("prompt defaults %s", got)
	}
}

func TestRegisterJSON(t *testing.T) {
	base := map[string]string{
		"tools/a/tool.sh": "# mcp: {\"name\":\"discovered\"}",
		"tools/m/run.sh":  "echo",
		"prompts/p.txt":   "x",
	}
	for _, tc := range []struct {
		name, body, err string
		tools, prompts  string
	}{
		{name: "absent kinds discover", body: `{"version":1}`, tools: "discovered,run", prompts: "p"},
		{name: "null discovers", body: `{"version":1,"tools":null}`, tools: "discovered,run", prompts: "p"},
		{name: "empty array disables", body: `{"version":1,"tools":[],"prompts":[]}`, tools: "", prompts: ""},
		{name: "manual replaces discovery", body: `{"version":1,"tools":[{"name":"manual","path":"m/run.sh","description":"m","arguments":{"properties":{"q":{"type":"string"}}}}],"_meta":{"note":"x"}}`, tools: "manual", prompts: "p"},
		{name: "bad version", body: `{"version":2}`, err: `"version" must be the number 1`},
		{name: "string version", body: `{"version":"1"}`, err: `"version" must be the number 1`},
		{name: "unknown key", body: `{"version":1,"tool":[]}`, err: `unknown top-level key "tool"`},
		{name: "kind not an array", body: `{"version":1,"tools":{}}`, err: `"tools" must be an array or null`},
		{name: "entry missing path", body: `{"version":1,"tools":[{"name":"x"}]}`, err: `tools[0] needs a non-empty string "path"`},
		{name: "BOM", body: "\uFEFF{\"version\":1}", err: "BOM"},
		{name: "not JSON", body: `{"version":1,}`, err: "not a JSON object"},
		{name: "trailing data", body: `{"version":1} {}`, err: "trailing data"},
		{name: "too large", body: `{"version":1,"_meta":"` + strings.Repeat("x", 2000) + `"}`, err: "exceeds the 1024-byte limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"server.d/register.json": tc.body}
			for k, v := range base {
				files[k] = v
			}
			dir := tree(t, files)
			env := map[string]string{"MCPBASH_MAX_MANUAL_REGISTRY_BYTES": "1024"}
			getenv := func(k string) string { return env[k] }
			o := envOptions(t, dir, getenv)
			var warnings []Warning
			o.Warn = func(w Warning) { warnings = append(warnings, w) }
			r, err := Open(context.Background(), o)
			if err != nil {
				t.Fatal(err) // an invalid file never stops the server from starting
			}
			if tc.err != "" {
				// Every kind fails with the reason, which was logged once at start.
				for _, k := range Kinds {
					if _, err := r.List(context.Background(), k, "", MaxPageSize); err == nil || !strings.Contains(err.Error(), tc.err) {
						t.Errorf("%s: err = %v, want %q", k, err, tc.err)
					}
				}
				if len(warnings) != 1 || !strings.Contains(warnings[0].Message, tc.err) {
					t.Errorf("warnings %+v", warnings)
				}
				return
			}
			f := &fixture{r: r}
			if got := names(f.items(t, KindTools)); got != tc.tools {
				t.Errorf("tools = %q, want %q", got, tc.tools)
			}
			if got := names(f.items(t, KindPrompts)); got != tc.prompts {
				t.Errorf("prompts = %q, want %q", got, tc.prompts)
			}
		})
	}
}

func TestManualToolItem(t *testing.T) {
	f := open(t, map[string]string{
		"tools/m/run.sh":         "echo",
		"server.d/register.json": `{"version":1,"tools":[{"name":"manual","path":"m/run.sh","arguments":{"properties":{}},"timeoutSecs":null}],"completions":[{"name":"c","path":"completions/c.sh","timeoutSecs":3}]}`,
	}, nil)
	if got := js(f.items(t, KindTools)[0]); got != `{"description":"","inputSchema":{"properties":{},"type":"object"},"name":"manual","path":"m/run.sh"}` {
		t.Errorf("manual item %s", got)
	}
	tool, err := f.r.Tool(context.Background(), "manual")
	if err != nil || tool.Abs != filepath.Join(f.dir, "tools", "m", "run.sh") {
		t.Errorf("tool lookup %v %+v", err, tool)
	}
	if c := f.r.Completions(); len(c) != 1 || c[0].Name != "c" || c[0].TimeoutSecs != 3 {
		t.Errorf("completions %+v", c)
	}
}

// A register.json broken while the server runs makes every kind fail to load (no fallback).
func TestRegisterJSONBreaksAtRuntime(t *testing.T) {
	f := open(t, map[string]string{"tools/a/tool.sh": "echo", "server.d/register.json": `{"version":1}`}, nil)
	f.items(t, KindTools)
	p := filepath.Join(f.dir, "server.d", "register.json")
	os.WriteFile(p, []byte(`{"version":7}`), 0o644)
	os.Chtimes(p, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	f.now = f.now.Add(10 * time.Second)
	for _, k := range Kinds {
		if _, err := f.r.List(context.Background(), k, "", 0); !errors.Is(err, ErrLoad) {
			t.Errorf("%s: err = %v, want ErrLoad", k, err)
		}
	}
	os.WriteFile(p, []byte(`{"version":1}`), 0o644)
	f.now = f.now.Add(10 * time.Second)
	if _, err := f.r.List(context.Background(), KindTools, "", 0); err != nil {
		t.Errorf("after fix: %v", err)
	}
}

func TestPaginationAndCursors(t *testing.T) {
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files["tools/"+n+"/tool.sh"] = "# mcp: {\"name\":\"" + n + "\"}"
	}
	f := open(t, files, nil)
	ctx := context.Background()
	var got []string
	cursor := ""
	for range 10 {
		p, err := f.r.List(ctx, KindTools, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 5 {
			t.Errorf("total %d", p.Total)
		}
		for _, it := range p.Items {
			var m map[string]any
			json.Unmarshal(it, &m)
			got = append(got, m["name"].(string))
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if strings.Join(got, "") != "abcde" {
		t.Errorf("paged %v", got)
	}
	first, _ := f.r.List(ctx, KindTools, "", 2)
	for _, tc := range []struct{ name, cursor string }{
		{"garbage", "!!!"},
		{"not json", "bm90IGpzb24"},
		{"wrong collection", encodeCursor(KindPrompts, 2, first.NextCursor, f.now)},
		{"stale hash", encodeCursor(KindTools, 2, "deadbeef", f.now)},
		{"offset past end", encodeCursor(KindTools, 99, f.r.cols[KindTools].hash, f.now)},
	} {
		if _, err := f.r.List(ctx, KindTools, tc.cursor, 2); !errors.Is(err, ErrInvalidCursor) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	// limit bounds: 0 → default, above max → max.
	if p, _ := f.r.List(ctx, KindTools, "", 1000); len(p.Items) != 5 {
		t.Errorf("limit clamp: %d", len(p.Items))
	}
}

func TestCursorGoesStaleAfterChange(t *testing.T) {
	f := open(t, map[string]string{"tools/a/tool.sh": "# mcp: {\"name\":\"a\"}", "tools/b/tool.sh": "# mcp: {\"name\":\"b\"}"}, nil)
	ctx := context.Background()
	p, _ := f.r.List(ctx, KindTools, "", 1)
	os.MkdirAll(filepath.Join(f.dir, "tools", "c"), 0o755)
	os.WriteFile(filepath.Join(f.dir, "tools", "c", "tool.sh"), []byte("# mcp: {\"name\":\"c\"}"), 0o644)
	f.now = f.now.Add(6 * time.Second)
	changed, err := f.r.Refresh(ctx)
	if err != nil || len(changed) != 1 || changed[0] != KindTools {
		t.Fatalf("changed = %v, %v", changed, err)
	}
	if _, err := f.r.List(ctx, KindTools, p.NextCursor, 1); !errors.Is(err, ErrInvalidCursor) {
		t.Errorf("stale cursor accepted: %v", err)
	}
	// Reported once.
	f.now = f.now.Add(6 * time.Second)
	if changed, _ := f.r.Refresh(ctx); len(changed) != 0 {
		t.Errorf("change reported twice: %v", changed)
	}
}

func TestTTLAndChangeDetection(t *testing.T) {
	f := open(t, map[string]string{"tools/a/tool.sh": "echo", "tools/a/tool.meta.json": `{"name":"a","description":"v1"}`}, nil)
	ctx := context.Background()
	f.items(t, KindTools)
	meta := filepath.Join(f.dir, "tools", "a", "tool.meta.json")
	os.WriteFile(meta, []byte(`{"name":"a","description":"v2 longer"}`), 0o644)
	// Within the TTL nothing is re-checked.
	f.now = f.now.Add(time.Second)
	if f.r.RefreshDue() {
		t.Error("refresh due within the TTL")
	}
	if changed, _ := f.r.Refresh(ctx); len(changed) != 0 {
		t.Errorf("rescanned within TTL: %v", changed)
	}
	// After it, an in-place metadata edit is caught.
	f.now = f.now.Add(5 * time.Second)
	if !f.r.RefreshDue() {
		t.Error("refresh not due after the TTL")
	}
	if changed, _ := f.r.Refresh(ctx); len(changed) != 1 {
		t.Errorf("edit not detected: %v", changed)
	}
	if f.r.RefreshDue() {
		t.Error("refresh due right after one")
	}
	if d := f.items(t, KindTools)[0]["description"]; d != "v2 longer" {
		t.Errorf("description %v", d)
	}
	// A change a list request found (rescanned, not announced) makes a refresh due at once.
	os.WriteFile(meta, []byte(`{"name":"a","description":"v3, longer still"}`), 0o644)
	f.now = f.now.Add(6 * time.Second)
	f.items(t, KindTools)
	if !f.r.RefreshDue() {
		t.Error("unannounced change: refresh not due")
	}
	if changed, _ := f.r.Refresh(ctx); len(changed) != 1 || f.r.RefreshDue() {
		t.Errorf("unannounced change: changed %v, due %v", changed, f.r.RefreshDue())
	}
}

func TestCacheFile(t *testing.T) {
	f := open(t, map[string]string{"tools/a/tool.sh": "# mcp: {\"name\":\"a\"}"}, nil)
	f.items(t, KindTools)
	data, err := os.ReadFile(filepath.Join(f.dir, ".registry", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Version     int               `json:"version"`
		GeneratedAt string            `json:"generatedAt"`
		Items       []json.RawMessage `json:"items"`
		Hash        string            `json:"hash"`
		Total       int               `json:"total"`
	}
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	if env.Version != 1 || env.Total != 1 || len(env.Hash) != 64 || env.Hash != hashItems(env.Items) || env.GeneratedAt == "" {
		t.Errorf("envelope %s", data)
	}
}

func TestStaticRegistryTrustsCache(t *testing.T) {
	dir := tree(t, map[string]string{"tools/a/tool.sh": "# mcp: {\"name\":\"a\"}"})
	getenv := func(map[string]string) func(string) string {
		return func(k string) string { return map[string]string{"MCPBASH_STATIC_REGISTRY": "1"}[k] }
	}(nil)
	ctx := context.Background()
	r1, _ := Open(ctx, envOptions(t, dir, noEnv))
	r1.Warm(ctx)
	// A tool added later is not seen in static mode: the cache is trusted.
	os.MkdirAll(filepath.Join(dir, "tools", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools", "b", "tool.sh"), []byte("# mcp: {\"name\":\"b\"}"), 0o644)
	r2, _ := Open(ctx, envOptions(t, dir, getenv))
	if p, _ := r2.List(ctx, KindTools, "", 0); p.Total != 1 {
		t.Errorf("static mode rescanned: total %d", p.Total)
	}
	// Without static mode the fingerprint differs and the tree is rescanned.
	r3, _ := Open(ctx, envOptions(t, dir, noEnv))
	if p, _ := r3.List(ctx, KindTools, "", 0); p.Total != 2 {
		t.Errorf("rescan: total %d", p.Total)
	}
}

func TestCorruptCacheIgnored(t *testing.T) {
	f := open(t, map[string]string{"tools/a/tool.sh": "# mcp: {\"name\":\"a\"}", ".registry/tools.json": `{"version":1,"items":[{"name":"ghost"}],"hash":"x"}`}, map[string]string{"MCPBASH_STATIC_REGISTRY": "1"})
	if got := names(f.items(t, KindTools)); got != "a" {
		t.Errorf("corrupt cache used: %s", got)
	}
}

func TestRegistryMaxBytes(t *testing.T) {
	f := open(t, map[string]string{"tools/a/tool.sh": "# mcp: {\"name\":\"a\",\"description\":\"" + strings.Repeat("d", 400) + "\"}"}, map[string]string{"MCPBASH_REGISTRY_MAX_BYTES": "200"})
	if _, err := f.r.List(context.Background(), KindTools, "", 0); !errors.Is(err, ErrLoad) || !strings.Contains(err.Error(), "MCPBASH_REGISTRY_MAX_BYTES") {
		t.Errorf("err = %v", err)
	}
}

func TestManyItemsWarning(t *testing.T) {
	files := map[string]string{}
	for i := range 501 {
		files["prompts/p"+strings.Repeat("0", 3)+js(i)+".txt"] = "x"
	}
	f := open(t, files, nil)
	f.items(t, KindPrompts)
	found := false
	for _, w := range f.warnings {
		found = found || strings.Contains(w.Message, "501 prompts")
	}
	if !found {
		t.Errorf("no guardrail warning: %v", f.warnings)
	}
}

func TestServerMeta(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  ServerMeta
		err   string
	}{
		{"defaults from dir, VERSION", map[string]string{"VERSION": "3.2.1\n"}, ServerMeta{Title: "", Version: "3.2.1"}, ""},
		{"package.json version", map[string]string{"package.json": `{"version":"9.9.9"}`, "server.d/server.meta.json": `{"name":"my_srv-x"}`},
			ServerMeta{Name: "my_srv-x", Title: "My Srv X", Version: "9.9.9"}, ""},
		{"instructions trimmed", map[string]string{"server.d/server.meta.json": `{"name":"n","title":"T","version":"1"}`, "server.d/server.instructions.md": "Do it.\n\n"},
			ServerMeta{Name: "n", Title: "T", Version: "1", Instructions: "Do it."}, ""},
		{"malformed", map[string]string{"server.d/server.meta.json": `{"name":`}, ServerMeta{}, "invalid JSON"},
		// MCPBASH_SERVER_NAME names a project whose meta gives no name, not one whose meta does.
		{"env name, no meta", map[string]string{"VERSION": "1"}, ServerMeta{Name: "env-srv", Title: "Env Srv", Version: "1"}, ""},
		{"env name, meta without name", map[string]string{"server.d/server.meta.json": `{"version":"2"}`}, ServerMeta{Name: "env-srv", Title: "Env Srv", Version: "2"}, ""},
		{"meta name wins over env", map[string]string{"server.d/server.meta.json": `{"name":"meta-srv","version":"3"}`}, ServerMeta{Name: "meta-srv", Title: "Meta Srv", Version: "3"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, tc.files)
			var o config.Dirs
			if strings.HasPrefix(tc.name, "env") || strings.HasPrefix(tc.name, "meta name") {
				o.ServerName = "env-srv"
			}
			m, err := LoadServerMeta(ResolveDirs(dir, o))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v", err)
				}
				return
			}
			if tc.want.Name == "" {
				tc.want.Name = filepath.Base(dir)
				tc.want.Title = titleFromName(tc.want.Name)
			}
			if err != nil || m.Name != tc.want.Name || m.Title != tc.want.Title || m.Version != tc.want.Version || m.Instructions != tc.want.Instructions {
				t.Errorf("got %+v, %v; want %+v", m, err, tc.want)
			}
		})
	}
}

func TestFindRoot(t *testing.T) {
	dir := tree(t, map[string]string{"proj/server.d/server.meta.json": "{}", "proj/a/b/.keep": ""})
	dir, _ = filepath.EvalSymlinks(dir)
	if root, found, err := FindRoot(filepath.Join(dir, "proj", "a", "b"), ""); err != nil || !found || root != filepath.Join(dir, "proj") {
		t.Errorf("walk up: %s %v %v", root, found, err)
	}
	if _, found, _ := FindRoot(dir, ""); found {
		t.Error("found a root above the marker")
	}
	if root, found, err := FindRoot(dir, filepath.Join(dir, "proj", "a")); err != nil || !found || root != filepath.Join(dir, "proj", "a") {
		t.Errorf("env: %s %v %v", root, found, err)
	}
	if _, _, err := FindRoot(dir, filepath.Join(dir, "nope")); err == nil {
		t.Error("missing MCPBASH_PROJECT_ROOT accepted")
	}
	d := ResolveDirs("/r", config.Dirs{Tools: "custom", Prompts: "/abs/p"})
	if d.Tools != "/r/custom" || d.Prompts != "/abs/p" || d.Resources != "/r/resources" || d.Registry != "/r/.registry" {
		t.Errorf("dirs %+v", d)
	}
}
