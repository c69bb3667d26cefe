package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// The pages of mcp_ui_form and mcp_ui_table, and of a ui.meta.json template: what the original's
// templates put in them (fields, options, labels, columns, the tool a form submits to), escaped.
func TestUITemplates(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string // an SDK call, or
		tpl    string   // a template and its config
		config string
		want   []string
		not    []string
		status int
		stderr string
	}{
		{name: "form fields", args: []string{"mcp_ui_form", "--title", "Log", "--field", "type:select:meeting,call", "--field", "first-name_x",
			"--field", "notes:textarea", "--field", "when:date", "--submit-tool", "log-it"},
			want: []string{"<!DOCTYPE html>", "<title>Log</title>", "<h2>Log</h2>", `<select id="type" name="type">`,
				`<option value="meeting">meeting</option>`, `<option value="call">call</option>`, `<label for="first-name_x">First Name X</label>`,
				`<textarea id="notes" name="notes" placeholder=""></textarea>`, `<input type="date" id="when" name="when" placeholder="" value="">`,
				`const submitTool = "log-it";`, `const submitArgs = {};`, `<button type="submit" id="submitBtn">Submit</button>`},
			not: []string{`id="cancelBtn"`, " required>", `<span class="required">`}},
		{name: "form without flags keeps an empty title, as the original's", args: []string{"mcp_ui_form", "stray"},
			want: []string{"<title></title>", `const submitTool = "";`}},
		{name: "form escapes markup", args: []string{"mcp_ui_form", "--title", `<b>"x"&'`, "--field", `a"b:text`, "--submit-tool", "</script><script>"},
			want: []string{"<title>&lt;b&gt;&quot;x&quot;&amp;&#39;</title>", `<label for="a&quot;b">A&quot;b</label>`, `const submitTool = "<\/script><script>";`},
			not:  []string{"<b>", `"</script><script>"`}},
		{name: "form flag without value", args: []string{"mcp_ui_form", "--field"}, status: 2, stderr: "mcp_ui_form: --field needs a value\n"},
		{name: "table", args: []string{"mcp_ui_table", "--columns", "name,age", "--title", "People"},
			want: []string{"<title>People</title>", `<th data-col="0" data-sortable="true">name</th>`, `<th data-col="1" data-sortable="true">age</th>`,
				`const columns = [{"key":"name"},{"key":"age"}];`, `colspan="2"`}},
		{name: "table defaults", args: []string{"mcp_ui_table"}, want: []string{"<title>Data</title>", `colspan="1"`, "const columns = [];"}},
		{name: "table flag without value", args: []string{"mcp_ui_table", "--columns"}, status: 2, stderr: "mcp_ui_table: --columns needs a value\n"},
		{name: "generate from template", args: []string{"mcp_ui_generate_from_template", "form", `{"title":"G","fields":[{"name":"x"}]}`},
			want: []string{"<title>G</title>", `<input type="text" id="x" name="x" placeholder="" value="">`}},
		{name: "template function", args: []string{"mcp_ui_template_data_table", `{"columns":[{"key":"k"}]}`}, want: []string{`<th data-col="0">k</th>`}},
		{name: "template without config", args: []string{"mcp_ui_template_form"}, want: []string{"<title>Form</title>"}},
		{name: "unknown template", args: []string{"mcp_ui_generate_from_template", "gantt", "{}"}, status: 1,
			stderr: "mcp_ui_template: unknown UI template \"gantt\": mcp-bash builds \"form\", \"data-table\", \"progress\", \"diff-viewer\", \"tree-view\" and \"kanban\"\n"},
		{name: "config not JSON", args: []string{"mcp_ui_template_form", "{"}, status: 1, stderr: "mcp_ui_template: config is not valid JSON: unexpected EOF\n"},
		{name: "no template", args: []string{"mcp_ui_generate_from_template"}, status: 2,
			stderr: "mcp_ui_generate_from_template: usage: mcp_ui_generate_from_template TEMPLATE CONFIG_JSON\n"},
		{name: "form config", tpl: "form", config: `{"title":"T","description":"D","cancelable":true,"submitArgs":{"id":7},"fields":[
			{"name":"ok","type":"checkbox","default":true},{"name":"n","type":"number","required":true,"default":3,"placeholder":"p"},
			{"name":"c","type":"select","options":["a","b"],"default":"b","label":"Choice"}]}`,
			want: []string{`<p class="description">D</p>`, `<input type="checkbox" id="ok" name="ok" checked>`,
				`<label for="n">n <span class="required">*</span></label>`, `<input type="number" id="n" name="n" placeholder="p" value="3" required>`,
				`<option value="b" selected>b</option>`, `<label for="c">Choice</label>`, `const submitArgs = {"id":7};`, `id="cancelBtn"`}},
		{name: "progress", tpl: "progress", config: `{"title":"Build <1>","cancelTool":"stop","cancelConfirm":"Stop?"}`,
			want: []string{"<title>Build &lt;1&gt;</title>", `id="progressFill" style="width: 0%"`, `<span id="progressPercent">0</span>% complete`,
				`<div id="currentStep" class="step"></div>`, `<button type="button" id="cancelBtn">Cancel</button>`, `const cancelTool = "stop";`, `const cancelConfirm = "Stop?";`}},
		{name: "progress options off", tpl: "progress", config: `{"showPercentage":false,"showCurrentStep":false}`,
			want: []string{"<title>Progress</title>", `const cancelConfirm = "Are you sure you want to cancel?";`},
			not:  []string{`id="progressPercent"`, `id="currentStep"`, `id="cancelBtn"`}},
		{name: "diff-viewer", tpl: "diff-viewer", config: `{"viewMode":"unified","showLineNumbers":false,"leftTitle":"Before","rightTitle":"After"}`,
			want: []string{"<title>Diff Viewer</title>", `<button type="button" id="unifiedBtn" class="active">Unified</button>`,
				`<button type="button" id="splitBtn">Split</button>`, `<div class="diff-panel-header">Before</div>`, `<div class="diff-panel-header">After</div>`,
				"const showLineNumbers = false;", "const syntaxHighlight = true;", `setMode("unified");`}},
		{name: "diff-viewer defaults", tpl: "diff-viewer", config: `{}`,
			want: []string{`<button type="button" id="splitBtn" class="active">Split</button>`, `<div class="diff-panel-header">Original</div>`, `setMode("split");`}},
		{name: "tree-view", tpl: "tree-view", config: `{"title":"Files","expandLevel":2,"selectable":true,"onSelectTool":"open","showIcons":false}`,
			want: []string{"<title>Files</title>", `<input type="text" id="searchInput" placeholder="Filter...">`, `<div id="treeRoot" class="tree-empty">Waiting for data...</div>`,
				"const showIcons = false;", "const expandLevel = 2;", "const selectable = true;", `const onSelectTool = "open";`}},
		{name: "tree-view defaults", tpl: "tree-view", config: `{"expandLevel":"x"}`,
			want: []string{"<title>Tree View</title>", "const showIcons = true;", "const expandLevel = 1;", "const selectable = false;", `const onSelectTool = "";`}},
		{name: "kanban", tpl: "kanban", config: `{"columns":[{"id":"a","title":"A </script>"},{"id":"b"}],"draggable":false,"onMoveTool":"mv","onCardClickTool":"open"}`,
			want: []string{"<title>Kanban Board</title>", `<div id="kanbanBoard" class="kanban-container"></div>`,
				`const columns = [{"id":"a","title":"A <\/script>"},{"id":"b","title":"b"}];`, "const draggable = false;", `const onMoveTool = "mv";`, `const onCardClickTool = "open";`}},
		{name: "kanban defaults", tpl: "kanban", config: `{}`,
			want: []string{`const columns = [{"id":"todo","title":"To Do"},{"id":"in-progress","title":"In Progress"},{"id":"done","title":"Done"}];`, "const draggable = true;"}},
		{name: "data-table config", tpl: "data-table", config: `{"columns":[{"key":"k","label":"Key"},{"key":"v","sortable":true}]}`,
			want: []string{"<title>Data</title>", `<th data-col="0">Key</th>`, `<th data-col="1" data-sortable="true">v</th>`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, stderr string
			status := 0
			if tc.tpl != "" {
				page, err := RenderUITemplate(context.Background(), tc.tpl, json.RawMessage(tc.config))
				if err != nil {
					t.Fatal(err)
				}
				out = page
			} else {
				out, stderr, status, _ = runSDK(t, &engine.Call{Tool: "t"}, nil, tc.args...)
			}
			if status != tc.status || stderr != tc.stderr {
				t.Fatalf("status %d stderr %q, want %d %q", status, stderr, tc.status, tc.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("page lacks %s:\n%s", w, out)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("page has %s:\n%s", n, out)
				}
			}
		})
	}
}

// A template mcp-bash does not build, and a config that is not JSON, are errors, not a page.
func TestUITemplateErrors(t *testing.T) {
	for _, tc := range []struct{ tpl, config, want string }{
		{"gantt", `{}`, `unknown UI template "gantt"`},
		{"form", `{"title":`, "config:"},
	} {
		if _, err := RenderUITemplate(context.Background(), tc.tpl, json.RawMessage(tc.config)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want %q", tc.tpl, tc.config, err, tc.want)
		}
	}
	if IsUITemplate("gantt") || IsUITemplate("") || !IsUITemplate("form") || !IsUITemplate("data-table") || !IsUITemplate("progress") ||
		!IsUITemplate("diff-viewer") || !IsUITemplate("tree-view") || !IsUITemplate("kanban") {
		t.Error("IsUITemplate")
	}
}

// The templates run guarded (issue 27): a config that makes a page step larger than the room
// left ends with the room's error, and the building ends with its context.
func TestUITemplateBounds(t *testing.T) {
	cols := make([]any, 2000)
	for i := range cols {
		cols[i] = map[string]any{"key": "k", "label": strings.Repeat("x", 1000)}
	}
	full := errors.New("the call's memory is spent")
	var asked int64
	room := func(n int64) error {
		asked = max(asked, n)
		if n > 1<<20 {
			return full
		}
		return nil
	}
	input := map[string]any{"template": "data-table", "config": map[string]any{"columns": cols}}
	if _, err := runUITemplate(context.Background(), input, room); !errors.Is(err, full) {
		t.Errorf("a 2 MB table head: %v, want the room's error (largest asked %d)", err, asked)
	}
	if page, err := runUITemplate(context.Background(), input, nil); err != nil || len(page) < 2_000_000 {
		t.Errorf("without a bound: %d bytes, %v", len(page), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runUITemplate(ctx, input, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("an ended context: %v", err)
	}
	big, _ := json.Marshal(map[string]any{"columns": cols})
	if _, err := RenderUITemplate(context.Background(), "data-table", big); err != nil {
		t.Errorf("the host's bound refuses a 2 MB page: %v", err)
	}
}
