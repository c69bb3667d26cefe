package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// healthShim sources server.d/health-checks.sh over the original's check API and reports each
// check on the channel file: its kind, subject, description and whether it passed.
// mcp_health_check_command NAME [DESCRIPTION] passes when NAME is a command the hook's shell
// can run (the host's PATH in real bash, the sandbox's commands in the sandbox); a check
// function returns its status, so a hook may also branch on it.
const healthShim = `_MCPBASH_HOOK_CHANNEL=$1
readonly _MCPBASH_HOOK_CHANNEL
_mcpbash_hook_src=$2
shift 2
mcp_health_check_command() {
	local ok=1
	if command -v "${1-}" >/dev/null 2>&1; then ok=0; fi
	printf '%s\0%s\0%s\0%s\0' command "${1-}" "${2-}" "$ok" >>"$_MCPBASH_HOOK_CHANNEL"
	return "$ok"
}
. "$_mcpbash_hook_src"
`

// HealthCheck is one check of server.d/health-checks.sh.
type HealthCheck struct {
	Kind        string `json:"kind"`
	Subject     string `json:"subject"`
	Description string `json:"description,omitempty"`
	OK          bool   `json:"ok"`
}

// RunHealthChecks runs server.d/health-checks.sh (Script), the original's project health
// checks, and returns what each check reported. A missing script returns (nil, nil). The hook
// must pass the trust check; it runs in real bash when Allowed, else in the sandbox. A hook
// that fails (non-zero exit, timeout, an unknown function) is an error: the checks did not all
// run, and `health` reports the project unhealthy with the reason.
func RunHealthChecks(ctx context.Context, o Options) ([]HealthCheck, error) {
	if _, err := os.Lstat(o.Script); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	ws, err := o.trustedWorkspace(false)
	if err != nil {
		return nil, err
	}
	defer ws.remove()
	const channelMax = 1 << 20
	res, err := o.run(ctx, ws, shimRun{shim: healthShim, label: "mcp-bash-health",
		args: []string{ws.channel, ws.script}, maxOutput: 64 << 10, channelCap: channelMax})
	switch {
	case err != nil:
		return nil, fmt.Errorf("health-checks.sh: %w", err)
	case res.timedOut:
		return nil, fmt.Errorf("health-checks.sh timed out after %s", o.Timeout)
	}
	recs, err := ws.records(4, channelMax)
	if err != nil {
		return nil, fmt.Errorf("health-checks.sh: %w", err)
	}
	var out []HealthCheck
	for _, r := range recs {
		out = append(out, HealthCheck{Kind: r[0], Subject: r[1], Description: r[2], OK: r[3] == "0"})
	}
	// A failed check returns 1, so a hook's last check decides its status: only a status the
	// checks do not explain is a failure of the script itself.
	if res.exitCode != 0 && (len(out) == 0 || out[len(out)-1].OK) {
		msg := fmt.Sprintf("health-checks.sh failed (exit status %d)", res.exitCode)
		if l := lastLine(res.output); l != "" {
			msg += ": " + l
		}
		return out, errors.New(msg)
	}
	return out, nil
}

// sourceShim sources a file (run-tool --with-server-env, --source) and reports every exported
// variable with its value on the channel file.
const sourceShim = `_MCPBASH_HOOK_CHANNEL=$1
readonly _MCPBASH_HOOK_CHANNEL
_mcpbash_hook_src=$2
shift 2
. "$_mcpbash_hook_src" || exit $?
for _mcpbash_n in $(compgen -e); do
	printf '%s\0%s\0' "$_mcpbash_n" "${!_mcpbash_n}" >>"$_MCPBASH_HOOK_CHANNEL"
done
`

// shellManaged are variables a shell sets itself, or that the sandbox gives every script; a
// sourced file's value for them does not travel.
var shellManaged = map[string]bool{"PATH": true, "HOME": true, "TMPDIR": true, "USER": true, "LOGNAME": true,
	"LANG": true, "LC_ALL": true, "PWD": true, "OLDPWD": true, "SHLVL": true, "_": true, "HOSTNAME": true,
	"EUID": true, "UID": true, "GID": true, "SHELL": true, "MCPBASH_JSON_TOOL": true, "MCPBASH_JSON_TOOL_BIN": true}

// SourceEnv sources Script (a file of variable assignments: server.d/env.sh, run-tool
// --source FILE) as a hook runs, and returns the exported variables it set or changed, for the
// caller to add to the environment of what it runs next. Variables the shell or the sandbox
// manage (PATH, HOME, ...) and the hook API's own are left out. The file must pass the trust
// check, except that it need not be executable.
func SourceEnv(ctx context.Context, o Options) (map[string]string, error) {
	name := filepath.Base(o.Script)
	ws, err := o.trustedWorkspace(true)
	if err != nil {
		return nil, err
	}
	defer ws.remove()
	const channelMax = 4 << 20
	res, err := o.run(ctx, ws, shimRun{shim: sourceShim, label: "mcp-bash-source",
		args: []string{ws.channel, ws.script}, maxOutput: 64 << 10, channelCap: channelMax})
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	case res.timedOut:
		return nil, fmt.Errorf("%s timed out after %s", name, o.Timeout)
	case res.exitCode != 0:
		msg := fmt.Sprintf("sourcing %s failed (exit status %d)", o.Script, res.exitCode)
		if l := lastLine(res.output); l != "" {
			msg += ": " + l
		}
		return nil, errors.New(msg)
	}
	recs, err := ws.records(2, channelMax)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	before := environMap(o)
	out := map[string]string{}
	for _, r := range recs {
		k, v := r[0], r[1]
		if shellManaged[k] || strings.HasPrefix(k, "MCP_") || strings.HasPrefix(k, "BASH") || strings.HasPrefix(k, "_MCPBASH") {
			continue
		}
		if old, ok := before[k]; ok && old == v {
			continue
		}
		out[k] = v
	}
	return out, nil
}
