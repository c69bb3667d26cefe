package host

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// contractEnv is the original's tool contract (COMPAT §4), with sandbox paths, and the
// operator's variables named by MCPBASH_TOOL_ENV_ALLOWLIST in allowlist mode: the call's own
// variables over the tool's fixed ones.
func (srv *Server) contractEnv(c *engine.Call, t *registry.Tool) map[string]string {
	env := srv.fixedContractEnv(t)
	for k, v := range srv.callContractEnv(c) {
		env[k] = v
	}
	return env
}

// fixedContractEnv is the part of the contract every call of t gets alike (a call plan's).
// The operator's named variables never replace a contract variable; the call's own (which
// replace these) are left out.
func (srv *Server) fixedContractEnv(t *registry.Tool) map[string]string {
	env := map[string]string{
		"MCP_TOOL_NAME": t.Name, "MCP_TOOL_PATH": t.Abs, "MCP_TOOL_METADATA_JSON": string(t.Item),
		"MCPBASH_JSON_TOOL": "jq", "MCPBASH_JSON_TOOL_BIN": "jq", "MCPBASH_MODE": "full",
		"MCPBASH_PROJECT_ROOT": srv.cfg.Dirs.Root, "MCPBASH_TOOLS_DIR": srv.cfg.Dirs.Tools,
		"MCPBASH_RESOURCES_DIR": srv.cfg.Dirs.Resources, "MCPBASH_PROMPTS_DIR": srv.cfg.Dirs.Prompts,
	}
	for _, k := range callContractNames {
		env[k] = "" // held: an operator's variable of the same name must not come in
	}
	// The operator's named variables (MCPBASH_TOOL_ENV_MODE=allowlist), in every engine.
	srv.namedEnv(env, srv.toolEnvNames())
	for _, k := range callContractNames {
		delete(env, k)
	}
	return env
}

// callContractNames are the contract variables each call sets (callContractEnv).
var callContractNames = []string{"MCP_TOOL_ARGS_JSON", "MCP_TOOL_META_JSON", "MCP_PROGRESS_TOKEN", "MCP_ELICIT_SUPPORTED",
	"MCP_SAMPLING_SUPPORTED", "MCP_ROOTS_JSON", "MCP_ROOTS_PATHS", "MCP_ROOTS_COUNT"}

// callContractEnv is the part of the contract that is the call's own: its arguments, _meta,
// progress token, the client's capabilities and roots.
func (srv *Server) callContractEnv(c *engine.Call) map[string]string {
	rv := srv.rootsVars.of(c.Roots)
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
	return map[string]string{
		"MCP_TOOL_ARGS_JSON": string(c.Args), "MCP_TOOL_META_JSON": string(c.Meta),
		"MCP_PROGRESS_TOKEN": token, "MCP_ELICIT_SUPPORTED": elicit, "MCP_SAMPLING_SUPPORTED": sampling,
		"MCP_ROOTS_JSON": rv.json, "MCP_ROOTS_PATHS": rv.paths, "MCP_ROOTS_COUNT": rv.count,
	}
}

// rootsVars are the contract variables of a list of roots. A session's roots change rarely:
// the last list's are kept and reused while calls come with an equal one.
type rootsVars struct {
	json, paths, count string
}

type rootsVarsCache struct {
	mu            sync.Mutex
	valid, wasNil bool // wasNil: the list was nil (its JSON is null, an empty one's [])
	roots         []engine.Root
	vars          rootsVars
}

func (rc *rootsVarsCache) of(roots []engine.Root) rootsVars {
	rc.mu.Lock()
	if rc.valid && rc.wasNil == (roots == nil) && slices.Equal(rc.roots, roots) {
		v := rc.vars
		rc.mu.Unlock()
		return v
	}
	rc.mu.Unlock()
	rootsJSON, _ := json.Marshal(roots)
	paths := make([]string, len(roots))
	for i, r := range roots {
		paths[i] = r.Path
	}
	v := rootsVars{json: string(rootsJSON), paths: strings.Join(paths, "\n"), count: strconv.Itoa(len(roots))}
	rc.mu.Lock()
	rc.valid, rc.wasNil, rc.roots, rc.vars = true, roots == nil, slices.Clone(roots), v
	rc.mu.Unlock()
	return v
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
