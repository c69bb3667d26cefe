package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// The original's MCP Apps helpers (ui-sdk.sh). The page itself is declared in the tool's
// metadata (_meta.ui.resourceUri); a result only carries the data the page renders.

func uiBuiltins() map[string]builtinFunc {
	return map[string]builtinFunc{
		"mcp_client_supports_ui":  clientSupportsUI,
		"mcp_result_with_ui":      resultWithUI,
		"mcp_result_with_ui_data": resultWithUI,
		"mcp_tool_meta_with_ui":   toolMetaWithUI,
		"mcp_ui_form":             uiForm,
		"mcp_ui_table":            uiTable,
		// The original's lib/ui-templates.sh functions, which its docs show tools sourcing.
		"mcp_ui_generate_from_template": uiFromTemplate,
		"mcp_ui_template_form":          uiTemplate("form"),
		"mcp_ui_template_data_table":    uiTemplate("data-table"),
		"mcp_ui_template_progress":      uiTemplate("progress"),
		"mcp_ui_template_diff_viewer":   uiTemplate("diff-viewer"),
		"mcp_ui_template_tree_view":     uiTemplate("tree-view"),
		"mcp_ui_template_kanban":        uiTemplate("kanban"),
	}
}

// clientSupportsUI: status 0 when the client offered io.modelcontextprotocol/ui.
func clientSupportsUI(s *State, _ context.Context, _ *engine.Env, _ []string) int {
	if s.Call != nil && s.Call.UISupported {
		return 0
	}
	return 1
}

// resultWithUI is mcp_result_with_ui URI TEXT [DATA] [WIDGET_META] and mcp_result_with_ui_data
// URI TEXT DATA [WIDGET_META]: URI is ignored (the tool's metadata names the page, per MCP Apps);
// a client with the extension gets TEXT, DATA as structuredContent and WIDGET_META as the
// result's _meta (for the page, not the model); any other client gets TEXT alone.
func resultWithUI(s *State, ctx context.Context, env *engine.Env, args []string) int {
	arg := func(i int, def string) string {
		if len(args) > i && args[i] != "" {
			return args[i]
		}
		return def
	}
	text := arg(1, "")
	if clientSupportsUI(s, ctx, env, nil) != 0 {
		if json.Valid([]byte(text)) {
			return resultSuccess(s, ctx, env, []string{text})
		}
		fmt.Fprintln(env.Stdout, `{"content":[{"type":"text","text":`+jsonString(text)+`}],"isError":false}`)
		return 0
	}
	o := newOrdered()
	out := `{"content":[{"type":"text","text":` + jsonString(text) + `}]`
	for _, f := range []struct {
		key, in string
	}{{"structuredContent", arg(2, "null")}, {"_meta", arg(3, "null")}} {
		v, err := o.decode([]byte(f.in))
		if err != nil {
			return resultError(s, ctx, env, []string{`{"type":"internal_error","message":"mcp_result_with_ui: ` + f.key + ` is not valid JSON"}`})
		}
		if v == nil {
			continue
		}
		if _, ok := v.(map[string]any); !ok {
			return resultError(s, ctx, env, []string{`{"type":"internal_error","message":"mcp_result_with_ui: ` + f.key + ` must be a JSON object"}`})
		}
		out += `,"` + f.key + `":` + o.encode(v)
	}
	fmt.Fprintln(env.Stdout, out+`,"isError":false}`)
	return 0
}

// toolMetaWithUI prints the _meta of a tool with a page: {"ui":{"resourceUri","visibility"}},
// indented as jq prints it.
func toolMetaWithUI(_ *State, _ context.Context, env *engine.Env, args []string) int {
	uri, vis := "", "model,app"
	if len(args) > 0 {
		uri = args[0]
	}
	if len(args) > 1 && args[1] != "" {
		vis = args[1]
	}
	var visibility []string
	for _, v := range strings.Split(vis, ",") {
		visibility = append(visibility, strings.TrimSpace(v))
	}
	type ui struct {
		ResourceURI string   `json:"resourceUri"`
		Visibility  []string `json:"visibility"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(struct {
		UI ui `json:"ui"`
	}{ui{uri, visibility}})
	env.Stdout.Write(b.Bytes())
	return 0
}

// uiForm is mcp_ui_form [--title T] [--field NAME[:TYPE[:OPT1,OPT2]]]... [--submit-tool TOOL]:
// prints the page of the original's form template (ui-templates.jq turns the flags into its
// config). Other words are skipped, as the original's loop skips them.
func uiForm(_ *State, ctx context.Context, env *engine.Env, args []string) int {
	var title, tool string
	fields := []any{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--title", "--field", "--submit-tool":
			if i+1 >= len(args) {
				fmt.Fprintf(env.Stderr, "mcp_ui_form: %s needs a value\n", args[i])
				return 2
			}
			switch v := args[i+1]; args[i] {
			case "--title":
				title = v
			case "--field":
				fields = append(fields, v)
			default:
				tool = v
			}
			i++
		}
	}
	return printUIPage(ctx, env, "mcp_ui_form", map[string]any{"template": "form",
		"args": map[string]any{"title": title, "submitTool": tool, "fields": fields}})
}

// uiTable is mcp_ui_table --columns A,B [--title T]: prints the page of the original's
// data-table template; the rows reach the page in the tool's result, not on stdin.
func uiTable(_ *State, ctx context.Context, env *engine.Env, args []string) int {
	title, columns := "Data", ""
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--title", "--columns":
			if i+1 >= len(args) {
				fmt.Fprintf(env.Stderr, "mcp_ui_table: %s needs a value\n", args[i])
				return 2
			}
			if args[i] == "--title" {
				title = args[i+1]
			} else {
				columns = args[i+1]
			}
			i++
		}
	}
	return printUIPage(ctx, env, "mcp_ui_table", map[string]any{"template": "data-table",
		"args": map[string]any{"title": title, "columns": columns}})
}

// uiFromTemplate is mcp_ui_generate_from_template NAME CONFIG: the page of template NAME.
func uiFromTemplate(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "mcp_ui_generate_from_template: usage: mcp_ui_generate_from_template TEMPLATE CONFIG_JSON")
		return 2
	}
	return uiTemplate(args[0])(s, ctx, env, args[1:])
}

// uiTemplate is mcp_ui_template_<name> CONFIG: the page of template name for CONFIG (JSON).
func uiTemplate(name string) builtinFunc {
	return func(_ *State, ctx context.Context, env *engine.Env, args []string) int {
		var cfg any = map[string]any{}
		if len(args) > 0 && args[0] != "" {
			v, err := decodeJSON([]byte(args[0]))
			if err != nil {
				fmt.Fprintf(env.Stderr, "mcp_ui_template: config is not valid JSON: %v\n", err)
				return 1
			}
			cfg = v
		}
		return printUIPage(ctx, env, "mcp_ui_template", map[string]any{"template": name, "config": cfg})
	}
}

func printUIPage(ctx context.Context, env *engine.Env, fn string, input map[string]any) int {
	page, err := runUITemplate(ctx, input, filterRoom(env.Budget))
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: %v\n", fn, err)
		return 1
	}
	fmt.Fprintln(env.Stdout, page)
	return 0
}
