package host

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	plan, err := interp.AnalyzeFileWith(tool.Abs, interp.AnalyzeOptions{Allowed: srv.allowedCommands(tool),
		Wasm: srv.wasmCommandNames(tool), LibFuncs: srv.libraryFuncs(tool)})
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

// wasmCommandNames are the wasm commands a call of t can run: NAME.wasm in its directory and in
// the project's bin/.
func (srv *Server) wasmCommandNames(t *registry.Tool) []string {
	var out []string
	for _, dir := range []string{filepath.Dir(t.Abs), filepath.Join(srv.cfg.Dirs.Root, "bin")} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if n, ok := strings.CutSuffix(e.Name(), ".wasm"); ok && n != "" && !e.IsDir() {
				out = append(out, n)
			}
		}
	}
	return out
}

// maxLibFiles bounds how many library files validate reads for function names.
const maxLibFiles = 256

// libraryFuncs are the functions defined in the files a tool may source: the project's lib/
// (as the original's examples keep mcp_detect_cli in lib/cli-detect.sh) and the other .sh files
// of the tool's directory.
func (srv *Server) libraryFuncs(t *registry.Tool) []string {
	var files []string
	_ = filepath.WalkDir(filepath.Join(srv.cfg.Dirs.Root, "lib"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || len(files) >= maxLibFiles:
			return filepath.SkipDir
		case d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != filepath.Join(srv.cfg.Dirs.Root, "lib"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(d.Name(), ".sh"):
			files = append(files, p)
		}
		return nil
	})
	ents, _ := os.ReadDir(filepath.Dir(t.Abs))
	for _, e := range ents {
		if p := filepath.Join(filepath.Dir(t.Abs), e.Name()); !e.IsDir() && strings.HasSuffix(e.Name(), ".sh") && p != t.Abs {
			files = append(files, p)
		}
	}
	var out []string
	for _, f := range files {
		out = append(out, interp.FuncNamesOf(f)...)
	}
	return out
}
