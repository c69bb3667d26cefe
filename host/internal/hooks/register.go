package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Kinds are the registration kinds, named as the keys of register.json.
var Kinds = []string{"tools", "resources", "resourceTemplates", "prompts", "completions"}

// Registration is what one run of register.sh supplied. A kind in Functions was registered
// through the mcp_* functions (entries in call order, each valid JSON; the caller validates,
// dedupes and sorts them). A kind in Output comes from the hook's output object
// ({"tools":[…],…}), verbatim and not yet validated. A kind in neither is discovered.
type Registration struct {
	Functions map[string][]json.RawMessage
	Output    map[string]json.RawMessage
	// Warnings are non-fatal problems (output that is not JSON, output that was not used).
	Warnings []string
}

// registerShim defines the original's registration API over a private channel file (one
// NUL-terminated record per call: op, kind, payload), then sources the hook. Output is not the
// channel: the hook's stdout and stderr stay free for the JSON output contract.
const registerShim = `_MCPBASH_HOOK_CHANNEL=$1
readonly _MCPBASH_HOOK_CHANNEL
_mcpbash_hook_src=$2
shift 2
_mcpbash_emit() { printf '%s\0%s\0%s\0' "$1" "$2" "${3-}" >>"$_MCPBASH_HOOK_CHANNEL"; }
mcp_tools_register_manual() { _mcpbash_emit register tools "${1-}"; }
mcp_resources_register_manual() { _mcpbash_emit register resources "${1-}"; }
mcp_resources_templates_register_manual() { _mcpbash_emit register resourceTemplates "${1-}"; }
mcp_prompts_register_manual() { _mcpbash_emit register prompts "${1-}"; }
mcp_completion_register_manual() { _mcpbash_emit register completions "${1-}"; }
mcp_register_tool() { mcp_tools_register_manual "${1-}"; }
mcp_register_resource() { mcp_resources_register_manual "${1-}"; }
mcp_register_prompt() { mcp_prompts_register_manual "${1-}"; }
mcp_tools_manual_begin() { _mcpbash_emit begin tools; }
mcp_tools_manual_finalize() { _mcpbash_emit finalize tools; }
mcp_tools_manual_abort() { _mcpbash_emit abort tools; }
mcp_resources_manual_begin() { _mcpbash_emit begin resources; }
mcp_resources_manual_finalize() { _mcpbash_emit finalize resources; }
mcp_resources_manual_abort() { _mcpbash_emit abort resources; }
mcp_resources_templates_manual_begin() { _mcpbash_emit begin resourceTemplates; }
mcp_resources_templates_manual_finalize() { _mcpbash_emit finalize resourceTemplates; }
mcp_resources_templates_manual_abort() { _mcpbash_emit abort resourceTemplates; }
mcp_prompts_manual_begin() { _mcpbash_emit begin prompts; }
mcp_prompts_manual_finalize() { _mcpbash_emit finalize prompts; }
mcp_prompts_manual_abort() { _mcpbash_emit abort prompts; }
mcp_completion_manual_begin() { _mcpbash_emit begin completions; }
mcp_completion_manual_finalize() { _mcpbash_emit finalize completions; }
mcp_completion_manual_abort() { _mcpbash_emit abort completions; }
set -o pipefail
. "$_mcpbash_hook_src"
`

// RunRegister runs server.d/register.sh once, in real bash when Allowed, else in the sandbox.
// It does not check static mode; the caller does. An error (untrusted file, non-zero exit, output above
// MaxOutput, timeout, a registration that is not JSON) means every kind fails to load.
//
// The server wraps the script in begin/finalize for every kind, as the original does. Per kind:
// function registrations replace discovery; a kind the script aborted is discovered; else,
// when the output is a JSON object with that key (not null), the output supplies it; else
// discovery. Output that is not a JSON object is ignored with a warning.
func RunRegister(ctx context.Context, o Options) (*Registration, error) {
	ws, err := o.trustedWorkspace(false)
	if err != nil {
		return nil, err
	}
	defer ws.remove()
	limit := o.MaxRegistrations*int64(len(Kinds)) + 64<<10
	res, err := o.run(ctx, ws, shimRun{shim: registerShim, label: "mcp-bash-register",
		args: []string{ws.channel, ws.script}, maxOutput: o.MaxOutput, failOnCap: true, channelCap: limit})
	if err != nil {
		return nil, fmt.Errorf("register.sh: %w", err)
	}
	switch {
	case res.timedOut:
		return nil, fmt.Errorf("register.sh timed out after %s (its process group was killed)", o.Timeout)
	case res.overflow:
		return nil, fmt.Errorf("register.sh output exceeded %d bytes (MCPBASH_MAX_MANUAL_REGISTRY_BYTES)", o.MaxOutput)
	case res.watchExceed:
		return nil, fmt.Errorf("register.sh registrations exceeded %d bytes", limit)
	case res.exitCode != 0:
		msg := fmt.Sprintf("register.sh failed (exit status %d)", res.exitCode)
		if l := lastLine(res.output); l != "" {
			msg += ": " + l
		}
		if o.sandboxed() {
			msg += " (it ran in the sandbox because project hooks are off: " + EnableHint + ")"
		}
		return nil, errors.New(msg)
	}
	recs, err := ws.records(3, limit)
	if err != nil {
		return nil, fmt.Errorf("register.sh: %w", err)
	}
	return collect(recs, res.output, o.MaxRegistrations)
}

// kindState follows one kind through begin/register/finalize/abort.
type kindState struct {
	active, aborted bool
	entries         []json.RawMessage
	bytes           int64
}

// collect replays the channel and applies the output contract.
func collect(records [][]string, output []byte, maxPerKind int64) (*Registration, error) {
	states := map[string]*kindState{}
	for _, k := range Kinds {
		states[k] = &kindState{active: true} // the server's begin
	}
	for _, rec := range records {
		op, kind, payload := rec[0], rec[1], rec[2]
		st := states[kind]
		if st == nil {
			continue
		}
		switch op {
		case "begin":
			*st = kindState{active: true}
		case "abort":
			*st = kindState{aborted: true}
		case "finalize":
			// The script is done with this kind: later registrations are ignored, as in the
			// original once a kind is no longer active.
			st.active = false
		case "register":
			if !st.active || payload == "" {
				continue
			}
			if !json.Valid([]byte(payload)) {
				return nil, fmt.Errorf("register.sh: %s registration %d is not valid JSON: %.80q", kind, len(st.entries), payload)
			}
			st.bytes += int64(len(payload))
			if st.bytes > maxPerKind {
				return nil, fmt.Errorf("register.sh: %s registrations exceed %d bytes (MCPBASH_MANUAL_BUFFER_MAX_BYTES)", kind, maxPerKind)
			}
			var buf bytes.Buffer
			_ = json.Compact(&buf, []byte(payload))
			st.entries = append(st.entries, buf.Bytes())
		}
	}

	reg := &Registration{Functions: map[string][]json.RawMessage{}, Output: map[string]json.RawMessage{}}
	var wantOutput []string
	for _, k := range Kinds {
		st := states[k]
		switch {
		case st.aborted:
		case len(st.entries) > 0:
			reg.Functions[k] = st.entries
		default:
			wantOutput = append(wantOutput, k)
		}
	}
	text := bytes.TrimSpace(output)
	if len(text) == 0 {
		return reg, nil
	}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&top); err != nil || top == nil || dec.More() {
		reg.Warnings = append(reg.Warnings, fmt.Sprintf("register.sh printed output that is not a JSON registration object; ignored (%d bytes, last line: %q)", len(text), lastLine(text)))
		return reg, nil
	}
	used := false
	for _, k := range wantOutput {
		if v, ok := top[k]; ok && string(bytes.TrimSpace(v)) != "null" {
			reg.Output[k] = v
			used = true
		}
	}
	if !used {
		reg.Warnings = append(reg.Warnings, fmt.Sprintf("register.sh printed a JSON object that supplied no kind; ignored (keys: %s)", strings.Join(slices.Sorted(maps.Keys(top)), ", ")))
	}
	return reg, nil
}

func pathOf(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			return v
		}
	}
	return ""
}
