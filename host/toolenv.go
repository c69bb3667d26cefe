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
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// contractEnv is the original's tool contract (COMPAT §4), with sandbox paths, and the
// operator's variables named by MCPBASH_TOOL_ENV_ALLOWLIST in allowlist mode: the call's own
// variables over the tool's fixed ones.
func (srv *Server) contractEnv(c *engine.Call, t *registry.Tool) map[string]string {
	env := srv.fixedContractEnv(t)
	own, session := srv.callContractEnv(c, t)
	for k, v := range session {
		env[k] = v
	}
	for k, v := range own {
		env[k] = v
	}
	return env
}

// fixedContractEnv is the part of the contract every call of t gets alike (a call plan's).
// The operator's named variables never replace a contract variable; the call's own (which
// replace these) are left out.
func (srv *Server) fixedContractEnv(t *registry.Tool) map[string]string {
	sh := srv.toolPathForm(t)
	env := map[string]string{
		"MCP_TOOL_NAME": t.Name, "MCP_TOOL_PATH": sh(t.Abs), "MCP_TOOL_METADATA_JSON": string(t.Item),
		"MCPBASH_JSON_TOOL": "jq", "MCPBASH_JSON_TOOL_BIN": "jq", "MCPBASH_MODE": "full",
		"MCPBASH_PROJECT_ROOT": sh(srv.cfg.Dirs.Root), "MCPBASH_TOOLS_DIR": sh(srv.cfg.Dirs.Tools),
		"MCPBASH_RESOURCES_DIR": sh(srv.cfg.Dirs.Resources), "MCPBASH_PROMPTS_DIR": sh(srv.cfg.Dirs.Prompts),
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
	"MCP_SAMPLING_SUPPORTED", "MCP_ROOTS_JSON", "MCP_ROOTS_PATHS", "MCP_ROOTS_COUNT", "MCPBASH_CLIENT_SUPPORTS_UI"}

// callContractEnv is the part of the contract that is the call's own: its arguments, _meta and
// progress token (own, a new map), and the client's capabilities and roots in t's path form
// (session: a map shared by the calls that have the same, never changed; engine.Job.Session).
func (srv *Server) callContractEnv(c *engine.Call, t *registry.Tool) (own, session map[string]string) {
	token := ""
	if c.ProgressToken != nil {
		var s string
		if json.Unmarshal(c.ProgressToken, &s) == nil {
			token = s
		} else {
			token = string(c.ProgressToken)
		}
	}
	own = map[string]string{"MCP_TOOL_ARGS_JSON": string(c.Args), "MCP_TOOL_META_JSON": string(c.Meta), "MCP_PROGRESS_TOKEN": token}
	return own, srv.rootsVars.session(c, srv.wantsNative(t))
}

// sessionVars are the contract variables of the client's capabilities and roots.
type sessionVars struct {
	roots                rootsVars
	elicit, sampling, ui bool
}

func capFlag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// session is the shared map of c's session variables in one path form (native: MSYSPath): the
// last one made is kept per form and reused while calls have the same.
func (rc *rootsVarsCache) session(c *engine.Call, native bool) map[string]string {
	key := sessionVars{roots: rc.of(c.Roots, native), elicit: c.ElicitSupported, sampling: c.SamplingSupported, ui: c.UISupported}
	form := 0
	if native {
		form = 1
	}
	rc.mu.Lock()
	if e := &rc.sessions[form]; e.env != nil && e.key == key {
		m := e.env
		rc.mu.Unlock()
		return m
	}
	rc.mu.Unlock()
	m := map[string]string{
		// The original's flag for mcp_client_supports_ui.
		"MCPBASH_CLIENT_SUPPORTS_UI": capFlag(key.ui),
		"MCP_ELICIT_SUPPORTED":       capFlag(key.elicit), "MCP_SAMPLING_SUPPORTED": capFlag(key.sampling),
		"MCP_ROOTS_JSON": key.roots.json, "MCP_ROOTS_PATHS": key.roots.paths, "MCP_ROOTS_COUNT": key.roots.count,
	}
	rc.mu.Lock()
	rc.sessions[form] = sessionEntry{key: key, env: m}
	rc.mu.Unlock()
	return m
}

// toolPathForm is how t's script sees host paths: on Windows Git-Bash's form (/c/Users/...),
// as the in-process engines show the host and as Git-Bash's bash.exe (native tools, which keep
// MSYS's //server/share) resolves them; on Unix the paths themselves.
func (srv *Server) toolPathForm(t *registry.Tool) func(string) string {
	if srv.wantsNative(t) {
		return sandbox.MSYSPath
	}
	return sandbox.ShellPath
}

// rootsVars are the contract variables of a list of roots. A session's roots change rarely:
// the last list's are kept, per path form, and reused while calls come with an equal one.
type rootsVars struct {
	json, paths, count string
}

type rootsVarsCache struct {
	mu       sync.Mutex
	forms    [2]rootsVarsEntry // [0] the sandbox's paths (ShellPath), [1] native tools' (MSYSPath)
	sessions [2]sessionEntry   // the session variables made last, per form
}

type sessionEntry struct {
	key sessionVars
	env map[string]string // never changed once made: calls share it
}

type rootsVarsEntry struct {
	valid bool
	roots []engine.Root // as the client gave them (the key)
	vars  rootsVars
}

func (rc *rootsVarsCache) of(roots []engine.Root, native bool) rootsVars {
	form, sh := 0, sandbox.ShellPath
	if native {
		form, sh = 1, sandbox.MSYSPath
	}
	rc.mu.Lock()
	if e := &rc.forms[form]; e.valid && slices.Equal(e.roots, roots) {
		v := e.vars
		rc.mu.Unlock()
		return v
	}
	rc.mu.Unlock()
	shown := make([]engine.Root, len(roots))
	paths := make([]string, len(roots))
	for i, r := range roots {
		r.Path = sh(r.Path)
		shown[i], paths[i] = r, r.Path
	}
	rootsJSON, _ := json.Marshal(shown) // never null: no roots are []
	v := rootsVars{json: string(rootsJSON), paths: strings.Join(paths, "\n"), count: strconv.Itoa(len(roots))}
	rc.mu.Lock()
	rc.forms[form] = rootsVarsEntry{valid: true, roots: slices.Clone(roots), vars: v}
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
