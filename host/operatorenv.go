package host

import "strings"

// What of the operator's environment reaches scripts. The sandbox and wasm engines start from a
// virtual environment (nothing of the host); the operator adds to it by name only
// (MCPBASH_TOOL_ENV_MODE=allowlist with MCPBASH_TOOL_ENV_ALLOWLIST for tools,
// MCPBASH_PROVIDER_ENV_MODE=allowlist with MCPBASH_PROVIDER_ENV_ALLOWLIST for providers and
// completion scripts), and those names arrive in every engine. The native engine applies the
// modes to the real environment itself (host/internal/native).

// transportSecret reports variables that never reach a script, whatever the mode or list:
// the remote token guards the transport, and no script needs it (the original leaked it:
// docs/COMPATIBILITY.md).
func transportSecret(name string) bool { return strings.HasPrefix(name, "MCPBASH_REMOTE_TOKEN") }

// namedEnv adds to env the operator's variables that names lists (set ones only), without
// replacing what env has: the contract's variables win.
func (srv *Server) namedEnv(env map[string]string, names []string) {
	if srv.cfg.Getenv == nil {
		return
	}
	for _, name := range names {
		if _, taken := env[name]; taken || transportSecret(name) {
			continue
		}
		if v := srv.cfg.Getenv(name); v != "" {
			env[name] = v
		}
	}
}

// toolEnvNames are the operator's variables every tool gets (MCPBASH_TOOL_ENV_MODE=allowlist).
func (srv *Server) toolEnvNames() []string {
	if n := srv.cfg.Settings.Native; n.EnvMode == "allowlist" {
		return n.EnvAllowlist
	}
	return nil
}
