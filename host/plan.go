package host

import (
	"context"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/interp"
)

// ToolPlan is run-tool --dry-run: where a tool is and what its script will do in the sandbox.
func (srv *Server) ToolPlan(ctx context.Context, name string) (*registry.Tool, *interp.Plan, error) {
	tool, err := srv.reg.Tool(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if tool.Kind == registry.ToolWasm {
		plan, err := srv.wasmPlan(ctx, tool)
		return tool, plan, err
	}
	plan, err := interp.AnalyzeFile(tool.Abs, srv.allowedCommands(tool))
	if err == nil && srv.wantsNative(tool) {
		plan.Findings = nativeFindings(tool, plan.Findings)
	}
	return tool, plan, err
}

// nativeFindings keeps what matters for a tool that runs in real bash on the host: parse errors,
// and a note in place of the sandbox analysis, which does not apply.
func nativeFindings(tool *registry.Tool, fs []interp.Finding) []interp.Finding {
	out := []interp.Finding{{File: tool.Abs, Line: 1, Col: 1, Severity: "info", Kind: "native",
		Message:    "runs natively in bash on the host (exec: native); the sandbox analysis does not apply",
		Suggestion: "the server runs it only when MCPBASH_TOOL_ALLOWLIST names it (or with --exec=native)"}}
	for _, f := range fs {
		if f.Kind == "parse" {
			out = append(out, f)
		}
	}
	return out
}
