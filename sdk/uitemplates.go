package sdk

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/itchyny/gojq"

	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
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
// The config is the operator's, read by the host outside any tool call: the page's building
// ends with ctx, and no step of it may build a value larger than maxUITemplateStep.
func RenderUITemplate(ctx context.Context, name string, config json.RawMessage) (string, error) {
	var cfg any = map[string]any{}
	if len(config) > 0 {
		v, err := decodeJSON(config)
		if err != nil {
			return "", fmt.Errorf("config: %w", err)
		}
		cfg = v
	}
	return runUITemplate(ctx, map[string]any{"template": name, "config": cfg}, uiTemplateRoom)
}

// maxUITemplateStep bounds one value the host's page building makes (a page is a few KiB).
const maxUITemplateStep = 64 << 20

func uiTemplateRoom(n int64) error {
	if n > maxUITemplateStep {
		return fmt.Errorf("the UI template's page would take more than %d MiB", maxUITemplateStep>>20)
	}
	return nil
}

// uiTemplateQuery is UITemplatesJQ parsed and guarded as a script's filter is (jqorder.Guard:
// deep walks refused, large values asked of the memory first, regular expression searches
// that end with the call), once; it compiles for each run with that run's context and room.
var uiTemplateQuery = sync.OnceValues(func() (*gojq.Query, error) {
	q, err := gojq.Parse(UITemplatesJQ)
	if err != nil {
		return nil, err
	}
	ownDefs := jqorder.OwnDefs(q)
	jqorder.Guard(q)
	q.FuncDefs = slices.Concat(jqorder.GuardDefs(), ownDefs, q.FuncDefs)
	return q, nil
})

// runUITemplate runs UITemplatesJQ over input; its one result is the page. It ends with ctx,
// and room (nil: no bound) is asked before a step builds a large value.
func runUITemplate(ctx context.Context, input map[string]any, room func(int64) error) (string, error) {
	q, err := uiTemplateQuery()
	if err != nil {
		return "", err
	}
	code, err := gojq.Compile(q, jqorder.GuardFunctionsContext(ctx, room)...)
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
