package host

// The project's server-side scripts other than tools: resource providers (providers/<scheme>.sh)
// and completion scripts. They get a tool's engine choice and environment: the sandbox by
// default, with the host commands their metadata allows (capped by MCPBASH_SANDBOX_ALLOW_COMMANDS);
// native bash when the server runs --exec=native, or when their metadata says "exec": "native"
// and MCPBASH_TOOL_ALLOWLIST consents (it names the script's project path, or is *); the
// operator's variables per MCPBASH_PROVIDER_ENV_MODE; and the JSON tool.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/native"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// scriptMeta is what a provider or completion script may say about how it runs: from
// <script>.meta.json, or from its register.json entry.
type scriptMeta struct {
	Exec    string          `json:"exec"`
	Sandbox json.RawMessage `json:"sandbox"`
}

// readScriptMeta reads <script>.meta.json (zero when absent); a file that is not a JSON object
// is an error, not a silent default.
func readScriptMeta(script string) (scriptMeta, error) {
	var m scriptMeta
	data, err := os.ReadFile(script + ".meta.json")
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil {
		return m, fmt.Errorf("%s.meta.json: %v", filepath.Base(script), err)
	}
	return m, nil
}

// scriptFailure is a JSON-RPC -32603 for a script that cannot run as its metadata asks.
func scriptFailure(rel, msg string) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, rel+": "+msg, nil)
}

// runScript runs a provider or completion script's job in the engine its metadata and the
// operator choose. job holds the call, the sandbox roots and limits and the script's contract
// variables; runScript adds the commands it may run, the operator's variables and the JSON tool.
func (srv *Server) runScript(ctx context.Context, meta scriptMeta, job engine.Job) (*engine.Outcome, error) {
	rel := srv.projectRel(job.Script)
	n := srv.cfg.Settings.Native
	if job.Env == nil {
		job.Env = map[string]string{}
	}
	for k, v := range srv.cfg.Dirs.Vars() {
		if _, set := job.Env[k]; !set {
			job.Env[k] = v
		}
	}
	if n.ProviderEnvMode == "allowlist" {
		srv.namedEnv(job.Env, n.ProviderEnvAllowlist)
	}
	job.Policy.Allow = srv.allowedCommandsOf(meta.Sandbox)
	job.Network = sandboxNetwork(meta.Sandbox)
	job.Confiner = srv.confiner
	switch meta.Exec {
	case "", ExecSandbox, ExecNative:
	default:
		return nil, scriptFailure(rel, fmt.Sprintf("unknown exec %q (want sandbox or native)", meta.Exec))
	}
	if srv.cfg.Exec != ExecNative && meta.Exec != ExecNative {
		job.Env["MCPBASH_JSON_TOOL"], job.Env["MCPBASH_JSON_TOOL_BIN"] = "jq", "jq"
		return srv.engine.Run(ctx, job), nil
	}
	// Native: the operator's consent, the file's trust, the inherit consent.
	if srv.cfg.Exec != ExecNative {
		list := srv.cfg.Settings.ToolAllowlist
		if list == nil || !slices.Contains(list, "*") && !slices.Contains(list, rel) {
			return nil, scriptFailure(rel, fmt.Sprintf("asks for native exec; allow it with MCPBASH_TOOL_ALLOWLIST=%s (or *), or run the server with --exec=native", rel))
		}
	}
	if why := toolPathProblem(srv.cfg.Dirs.Root, job.Script); why != "" {
		return nil, scriptFailure(rel, "path rejected by policy: "+strings.Replace(why, "tools directory", "project", 1))
	}
	if n.ProviderEnvMode == "inherit" && !n.ProviderEnvInheritAllow {
		return nil, scriptFailure(rel, "MCPBASH_PROVIDER_ENV_MODE=inherit requires MCPBASH_PROVIDER_ENV_INHERIT_ALLOW=true")
	}
	return srv.scriptNative.Run(ctx, job), nil
}

// projectRel is a path relative to the project root, with slashes (the path itself outside it).
func (srv *Server) projectRel(p string) string {
	if rel, err := filepath.Rel(srv.cfg.Dirs.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

// scriptNativeEngine is the native engine of providers and completion scripts: the tools'
// native engine with MCPBASH_PROVIDER_ENV_MODE ("isolate" is the tools' "minimal").
func (srv *Server) scriptNativeEngine(self string) *native.Engine {
	e := srv.nativeEngine(self)
	n := srv.cfg.Settings.Native
	mode := n.ProviderEnvMode
	if mode == "isolate" {
		mode = "minimal"
	}
	e.Env = native.EnvPolicy{Environ: srv.cfg.Environ, Mode: mode, Allow: n.ProviderEnvAllowlist}
	return e
}
