package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

func toolProject(t *testing.T, n int) string {
	files := map[string]string{"server.d/server.meta.json": `{"name":"reg"}`}
	for i := range n {
		files[fmt.Sprintf("tools/t%02d/tool.sh", i)] = "#!/usr/bin/env bash\necho hi\n"
		files[fmt.Sprintf("tools/t%02d/tool.meta.json", i)] = fmt.Sprintf(`{"name":"t%02d","description":"tool %d"}`, i, i)
	}
	files["resources/a.txt"] = "A"
	files["resources/b.txt"] = "B"
	files["resources/logs.meta.json"] = `{"name":"logs","uriTemplate":"file:///logs/{day}.log"}`
	files["prompts/greet.txt"] = "Hello {{name}}"
	files["prompts/greet.meta.json"] = `{"name":"greet","description":"Greets","arguments":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`
	return writeProject(t, files)
}

type listResult struct {
	Tools             []map[string]any `json:"tools"`
	Resources         []map[string]any `json:"resources"`
	ResourceTemplates []map[string]any `json:"resourceTemplates"`
	Prompts           []map[string]any `json:"prompts"`
	NextCursor        *string          `json:"nextCursor"`
	Meta              map[string]any   `json:"_meta"`
}

func TestListMethodsAndPagination(t *testing.T) {
	t.Parallel()
	for _, rev := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			t.Parallel()
			c := harness.Start(t, harness.Options{Dir: toolProject(t, 7)})
			c.Initialize(rev, nil)
			var seen []string
			var cursor *string
			for page := 0; ; page++ {
				params := map[string]any{"limit": 3}
				if cursor != nil {
					params["cursor"] = *cursor
				}
				var r listResult
				c.Call("tools/list", params).Decode(t, &r)
				if r.Meta["mcpbash/total"] != float64(7) {
					t.Errorf("total %v", r.Meta)
				}
				for _, x := range r.Tools {
					seen = append(seen, x["name"].(string))
				}
				if r.NextCursor == nil {
					break
				}
				cursor = r.NextCursor
				if page > 5 {
					t.Fatal("pagination does not end")
				}
			}
			if strings.Join(seen, ",") != "t00,t01,t02,t03,t04,t05,t06" {
				t.Errorf("paged %v", seen)
			}
			var r listResult
			c.Call("resources/list", nil).Decode(t, &r)
			if len(r.Resources) != 2 || r.Resources[0]["name"] != "a" {
				t.Errorf("resources %v", r.Resources)
			}
			c.Call("resources/templates/list", nil).Decode(t, &r)
			if len(r.ResourceTemplates) != 1 || r.ResourceTemplates[0]["uriTemplate"] != "file:///logs/{day}.log" {
				t.Errorf("templates %v", r.ResourceTemplates)
			}
			c.Call("prompts/list", nil).Decode(t, &r)
			if len(r.Prompts) != 1 || fmt.Sprint(r.Prompts[0]["arguments"]) != "[map[name:name required:true]]" {
				t.Errorf("prompts %v", r.Prompts)
			}
			for _, bad := range []any{"garbage", 12} {
				m := c.Call("tools/list", map[string]any{"cursor": bad})
				if m.Error == nil || m.Error.Code != -32602 {
					t.Errorf("cursor %v: %s", bad, m.Raw)
				}
			}
		})
	}
}

// addTool adds a tool atomically (built beside the project, then renamed into tools/), so the
// server sees one change, not a half-written tool.
func addTool(t *testing.T, root, name string) {
	t.Helper()
	d := filepath.Join(root, ".staging-"+name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d, "tool.sh"), []byte("#!/usr/bin/env bash\necho\n"), 0o755)
	os.WriteFile(filepath.Join(d, "tool.meta.json"), []byte(`{"name":"`+name+`","description":"new"}`), 0o644)
	if err := os.Rename(d, filepath.Join(root, "tools", name)); err != nil {
		t.Fatal(err)
	}
}

// Adding a tool while the server runs raises one tools/list_changed (besides the one that
// follows initialized), makes old cursors stale and shows the tool in the next list.
func TestListChangedWhileRunning(t *testing.T) {
	t.Parallel()
	root := toolProject(t, 4)
	c := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCP_TOOLS_TTL=0"}})
	c.Initialize("2025-11-25", nil)
	var first listResult
	c.Call("tools/list", map[string]any{"limit": 2}).Decode(t, &first)
	addTool(t, root, "zz-new")
	c.Call("ping", nil)
	c.WaitFor(10*time.Second, "tools/list_changed", func(m harness.Msg) bool { return m.Method == "notifications/tools/list_changed" })
	var r listResult
	c.Call("tools/list", nil).Decode(t, &r)
	if len(r.Tools) != 5 || r.Tools[4]["name"] != "zz-new" {
		t.Errorf("tools after add: %v", r.Tools)
	}
	stale := c.Call("tools/list", map[string]any{"cursor": *first.NextCursor})
	if stale.Error == nil || stale.Error.Code != -32602 || stale.Error.Message != "Invalid cursor" {
		t.Errorf("stale cursor: %s", stale.Raw)
	}
	c.Call("ping", nil)
	c.Call("tools/list", nil)
	c.CloseStdin()
	c.Wait(5 * time.Second)
	n := 0
	for _, l := range c.Lines() {
		if strings.Contains(string(l), "notifications/tools/list_changed") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d tools/list_changed notifications, want 2 (after initialized, after the change)", n)
	}
}

// 2025-03-26 does not advertise listChanged, so no notification is sent.
func TestNoListChangedOnOldRevisions(t *testing.T) {
	t.Parallel()
	root := toolProject(t, 1)
	c := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCP_TOOLS_TTL=0"}})
	c.Initialize("2025-03-26", nil)
	c.Call("tools/list", nil)
	addTool(t, root, "late")
	c.Call("ping", nil)
	var r listResult
	c.Call("tools/list", nil).Decode(t, &r)
	if len(r.Tools) != 2 {
		t.Errorf("tools %v", r.Tools)
	}
	c.CloseStdin()
	c.Wait(5 * time.Second)
	for _, l := range c.Lines() {
		if strings.Contains(string(l), "list_changed") {
			t.Errorf("unexpected %s", l)
		}
	}
}

// An invalid register.json does not stop the server (GUI clients would show only
// "disconnected"): it starts, logs the reason, and every list answers -32603 with it (COMPAT
// §1.8) until the file is fixed.
func TestInvalidRegisterJSONServesErrors(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"x"}`,
		"server.d/register.json":    `{"version":1,"tools":[{"name":"x"}]}`,
	})
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	const reason = `tools[0] needs a non-empty string \"path\"`
	for _, method := range []string{"tools/list", "resources/list", "prompts/list"} {
		m := c.Call(method, nil)
		if m.Error == nil || m.Error.Code != -32603 || !strings.HasPrefix(m.Error.Message, "Unable to load") || !strings.Contains(string(m.Error.Data), reason) {
			t.Errorf("%s: %s", method, m.Raw)
		}
	}
	if !strings.Contains(c.Stderr(), `register.json: tools[0] needs a non-empty string "path"`) {
		t.Errorf("stderr:\n%s", c.Stderr())
	}
	if m := c.Call("ping", nil); m.Error != nil {
		t.Errorf("ping: %s", m.Raw)
	}
}

func TestRegisterJSONVariants(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"x"}`,
		"server.d/register.json": `{"version":1,"tools":[{"name":"manual-one","path":"m/run.sh","description":"from register.json"}],
			"resources":[],"resourceTemplates":[{"name":"byday","uriTemplate":"x://{day}"}],"prompts":null}`,
		"tools/m/run.sh":  "#!/usr/bin/env bash\necho\n",
		"tools/d/tool.sh": "#!/usr/bin/env bash\necho\n",
		"resources/r.txt": "r",
		"prompts/p.txt":   "p",
	})
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	var r listResult
	c.Call("tools/list", nil).Decode(t, &r)
	if len(r.Tools) != 1 || r.Tools[0]["name"] != "manual-one" {
		t.Errorf("tools %v", r.Tools)
	}
	c.Call("resources/list", nil).Decode(t, &r)
	if len(r.Resources) != 0 {
		t.Errorf("resources not disabled: %v", r.Resources)
	}
	c.Call("resources/templates/list", nil).Decode(t, &r)
	if len(r.ResourceTemplates) != 1 {
		t.Errorf("templates %v", r.ResourceTemplates)
	}
	c.Call("prompts/list", nil).Decode(t, &r)
	if len(r.Prompts) != 1 || r.Prompts[0]["name"] != "p" {
		t.Errorf("prompts %v", r.Prompts)
	}
}

// Malformed metadata is skipped with a structured warning that reaches the client as a log
// notification (and stderr); the rest of the list is intact.
func TestMalformedMetadataWarning(t *testing.T) {
	t.Parallel()
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"x"}`,
		"prompts/bad.txt":           "x",
		"prompts/bad.meta.json":     `{"name":"bad","arguments":"nope"}`,
		"prompts/good.txt":          "x",
	})
	c := harness.Start(t, harness.Options{Dir: root})
	c.Initialize("2025-11-25", nil)
	var r listResult
	c.Call("prompts/list", nil).Decode(t, &r)
	if len(r.Prompts) != 1 || r.Prompts[0]["name"] != "good" {
		t.Errorf("prompts %v", r.Prompts)
	}
	m := c.WaitFor(5*time.Second, "warning notification", func(m harness.Msg) bool {
		return m.Method == "notifications/message" && strings.Contains(string(m.Params), "mcp.registry")
	})
	var p struct {
		Level string
		Data  struct{ Kind, Path, Message string }
	}
	json.Unmarshal(m.Params, &p)
	if p.Level != "warning" || p.Data.Kind != "prompts" || !strings.Contains(p.Data.Message, "JSON Schema object") {
		t.Errorf("warning %s", m.Raw)
	}
}
