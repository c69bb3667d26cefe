package sdk

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/itchyny/gojq"
)

// UITemplatesJQ is sdk/bash/ui-templates.jq: the pages of the original's six UI templates
// (form, data-table, progress, diff-viewer, tree-view, kanban). The sandbox's mcp_ui_form/mcp_ui_table, the host (a ui.meta.json
// naming a template) and the native SDK (the file written next to tool-sdk.sh) run this one
// program, so every engine builds the same page.
//
//go:embed bash/ui-templates.jq
var UITemplatesJQ string

// IsUITemplate reports whether name is a template UITemplatesJQ builds.
func IsUITemplate(name string) bool {
	switch name {
	case "form", "data-table", "progress", "diff-viewer", "tree-view", "kanban":
		return true
	}
	return false
}

// RenderUITemplate builds the page of template name from its ui.meta.json config (nil: {}).
func RenderUITemplate(ctx context.Context, name string, config json.RawMessage) (string, error) {
	var cfg any = map[string]any{}
	if len(config) > 0 {
		v, err := decodeJSON(config)
		if err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		cfg = v
	}
	return runUITemplate(ctx, map[string]any{"template": name, "config": cfg})
}

// runUITemplate runs UITemplatesJQ over input; its one result is the page.
func runUITemplate(ctx context.Context, input map[string]any) (string, error) {
	q, err := gojq.Parse(UITemplatesJQ)
	if err != nil {
		return "", err
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return "", err
	}
	v, ok := code.RunWithContext(ctx, input).Next()
	if !ok {
		return "", errors.New("ui-templates.jq gave no page")
	}
	if err, isErr := v.(error); isErr {
		var je interface{ Value() any }
		if errors.As(err, &je) {
			if s, ok := je.Value().(string); ok {
				return "", errors.New(s)
			}
		}
		return "", err
	}
	page, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("ui-templates.jq gave a %T, not a page", v)
	}
	return page, nil
}
