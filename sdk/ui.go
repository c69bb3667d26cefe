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
		"mcp_ui_form":             uiTemplateUnavailable("mcp_ui_form"),
		"mcp_ui_table":            uiTemplateUnavailable("mcp_ui_table"),
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

// uiTemplateUnavailable: the original builds these pages from its built-in HTML templates,
// which mcp-bash does not ship.
func uiTemplateUnavailable(name string) builtinFunc {
	return func(_ *State, _ context.Context, env *engine.Env, _ []string) int {
		fmt.Fprintf(env.Stderr, "mcp-bash: %s is not available: it generates a page from the original's built-in UI templates, which mcp-bash does not ship; write the page as ui/<name>/index.html (mcp-bash scaffold ui <name>)\n", name)
		return 1
	}
}
