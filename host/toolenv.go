package host

import (
	"context"
	"encoding/json"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/interp"
)

// contractEnv is the original's tool contract (COMPAT §4), with sandbox paths, and the
// operator's variables named by MCPBASH_TOOL_ENV_ALLOWLIST in allowlist mode.
func (srv *Server) contractEnv(c *engine.Call, t *registry.Tool) map[string]string {
	rootsJSON, _ := json.Marshal(c.Roots)
	paths := make([]string, len(c.Roots))
	for i, r := range c.Roots {
		paths[i] = r.Path
	}
	token := ""
	if c.ProgressToken != nil {
		var s string
		if json.Unmarshal(c.ProgressToken, &s) == nil {
			token = s
		} else {
			token = string(c.ProgressToken)
		}
	}
	elicit := "0"
	if c.ElicitSupported {
		elicit = "1"
	}
	sampling := "0"
	if c.SamplingSupported {
		sampling = "1"
	}
	env := map[string]string{
		"MCP_TOOL_NAME": c.Tool, "MCP_TOOL_PATH": c.ToolPath,
		"MCP_TOOL_ARGS_JSON": string(c.Args), "MCP_TOOL_METADATA_JSON": string(t.Item), "MCP_TOOL_META_JSON": string(c.Meta),
		"MCP_PROGRESS_TOKEN": token, "MCP_ELICIT_SUPPORTED": elicit, "MCP_SAMPLING_SUPPORTED": sampling,
		"MCP_ROOTS_JSON": string(rootsJSON), "MCP_ROOTS_PATHS": strings.Join(paths, "\n"), "MCP_ROOTS_COUNT": strconv.Itoa(len(c.Roots)),
		"MCPBASH_JSON_TOOL": "jq", "MCPBASH_JSON_TOOL_BIN": "jq", "MCPBASH_MODE": "full",
		"MCPBASH_PROJECT_ROOT": srv.cfg.Dirs.Root, "MCPBASH_TOOLS_DIR": srv.cfg.Dirs.Tools,
		"MCPBASH_RESOURCES_DIR": srv.cfg.Dirs.Resources, "MCPBASH_PROMPTS_DIR": srv.cfg.Dirs.Prompts,
	}
	// The operator's named variables (MCPBASH_TOOL_ENV_MODE=allowlist), in every engine.
	srv.namedEnv(env, srv.toolEnvNames())
	return env
}

// ToolEnvironment is the environment a tool's script starts with (run-tool --print-env).
func (srv *Server) ToolEnvironment(ctx context.Context, name string, args json.RawMessage) ([]string, error) {
	tool, err := srv.reg.Tool(ctx, name)
	if err != nil {
		return nil, err
	}
	call := &engine.Call{Tool: name, ToolPath: tool.Abs, ToolDir: filepath.Dir(tool.Abs), Args: args, Meta: json.RawMessage("{}"),
		Metadata: tool.Item, Roots: srv.fallbackRoots()}
	job := engine.Job{Call: call, Script: tool.Abs, Env: srv.contractEnv(call, tool)}
	if e, ok := srv.engines[srv.engineFor(tool)].(interface{ Environment(engine.Job) []string }); ok {
		return e.Environment(job), nil
	}
	return interp.Environment(job), nil
}
