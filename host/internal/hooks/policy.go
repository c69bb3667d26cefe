package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// policyOutputCap is how much of policy.sh's output is kept (for the log); the rest is
// discarded.
const policyOutputCap = 64 << 10

// Denial is a tool call refused by server.d/policy.sh, in the shape of the JSON-RPC error the
// call answers with.
type Denial struct {
	Code    int
	Message string
	Data    json.RawMessage // nil when the hook set none
}

func (d *Denial) Error() string { return d.Message }

// policyShim sources the hook over a default allow-all mcp_tools_policy_check and the
// original's mcp_tools_error CODE MESSAGE [DATA], calls the check with the tool's name and
// metadata, and reports the status and _MCP_TOOLS_ERROR_{CODE,MESSAGE,DATA} on the channel
// file. The call sits in an if so that a hook's own `set -e` cannot end the
// shell before the report.
const policyShim = `_MCPBASH_HOOK_CHANNEL=$1
readonly _MCPBASH_HOOK_CHANNEL
_mcpbash_hook_src=$2
_mcpbash_tool=$3
_mcpbash_metadata=$4
shift 4
_MCP_TOOLS_ERROR_CODE=
_MCP_TOOLS_ERROR_MESSAGE=
_MCP_TOOLS_ERROR_DATA=
mcp_tools_policy_check() { return 0; }
mcp_tools_error() { _MCP_TOOLS_ERROR_CODE=${1-}; _MCP_TOOLS_ERROR_MESSAGE=${2-}; _MCP_TOOLS_ERROR_DATA=${3-}; }
set -o pipefail
. "$_mcpbash_hook_src"
if mcp_tools_policy_check "$_mcpbash_tool" "$_mcpbash_metadata"; then _mcpbash_status=0; else _mcpbash_status=$?; fi
printf '%s\0%s\0%s\0%s\0' "$_mcpbash_status" "${_MCP_TOOLS_ERROR_CODE-}" "${_MCP_TOOLS_ERROR_MESSAGE-}" "${_MCP_TOOLS_ERROR_DATA-}" >>"$_MCPBASH_HOOK_CHANNEL"
`

// PolicyCheck asks server.d/policy.sh whether a tool may run. It returns nil to allow and a
// *Denial to refuse. The caller applies MCPBASH_TOOL_ALLOWLIST first, so the hook can only
// restrict further (COMPAT §7 #11).
//
// A missing policy.sh allows. The hook must pass the trust check; it is sourced (in real bash
// with MCPBASH_ALLOW_PROJECT_HOOKS, else in the sandbox) and mcp_tools_policy_check NAME
// METADATA_JSON is called: status 0 allows, anything else denies with _MCP_TOOLS_ERROR_CODE
// (default -32602), _MCP_TOOLS_ERROR_MESSAGE (default "Tool '<name>' blocked by policy") and
// _MCP_TOOLS_ERROR_DATA (JSON, else a string), which the original's mcp_tools_error CODE
// MESSAGE [DATA] sets. Every failure denies: an untrusted hook, bash missing, a timeout, a hook
// that exits before the check returns.
func PolicyCheck(ctx context.Context, o Options, name string, metadata json.RawMessage) error {
	if _, err := os.Lstat(o.Script); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	o.defaults()
	deny := func(reason string) error {
		msg := fmt.Sprintf("Tool '%s' blocked by policy", name)
		if reason != "" {
			msg += " (" + reason + ")"
		}
		return &Denial{Code: -32602, Message: msg}
	}
	content, err := readTrusted(o.Script, o.Root, false)
	if err != nil {
		return deny(err.Error())
	}
	ws, err := newWorkspace(o, content)
	if err != nil {
		return deny("policy.sh: " + err.Error())
	}
	defer ws.remove()
	if len(metadata) == 0 {
		metadata = json.RawMessage("{}")
	}
	// One record per check; anything bigger than this is not what the shim writes.
	const policyChannelMax = 1 << 20
	res, err := o.run(ctx, ws, shimRun{shim: policyShim, label: "mcp-bash-policy",
		args: []string{ws.channel, ws.script, name, string(metadata)}, maxOutput: policyOutputCap})
	switch {
	case err != nil:
		return deny("policy.sh: " + err.Error())
	case res.timedOut:
		return deny(fmt.Sprintf("policy.sh timed out after %s", o.Timeout))
	}
	recs, err := ws.records(4, policyChannelMax)
	if err != nil {
		return deny("policy.sh: " + err.Error())
	}
	if len(recs) == 0 {
		msg := fmt.Sprintf("policy.sh exited (status %d) before mcp_tools_policy_check returned for '%s'; denied: %s", res.exitCode, name, lastLine(res.output))
		if o.sandboxed() {
			msg += " (it ran in the sandbox: " + EnableHint + ")"
		}
		o.Warn(msg)
		return deny("")
	}
	rec := recs[len(recs)-1]
	if rec[0] == "0" {
		return nil
	}
	d := &Denial{Code: -32602, Message: rec[2]}
	if c, err := strconv.Atoi(strings.TrimSpace(rec[1])); err == nil && c != 0 {
		d.Code = c
	}
	if d.Message == "" {
		d.Message = fmt.Sprintf("Tool '%s' blocked by policy", name)
	}
	if data := strings.TrimSpace(rec[3]); data != "" {
		var buf bytes.Buffer
		if json.Compact(&buf, []byte(data)) == nil {
			d.Data = buf.Bytes()
		} else {
			d.Data, _ = json.Marshal(rec[3])
		}
	}
	return d
}
