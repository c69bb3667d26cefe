package interp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// TestPlanCallsStartFresh: calls of one tool share its plan's starting state (the fixed
// variables, the SDK prelude's functions) but never each other's: what one call sets, unsets,
// exports, defines or redefines, and the options it sets, are not seen by the next, and the
// plan's variables, the session's shared variables and the SDK's functions are whole again in
// every call; the session's map itself is never written, and a call's own variable wins over it.
func TestPlanCallsStartFresh(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	p := filepath.Join(dir, "tool.sh")
	script := `echo "fixed=${MCP_FIXED-unset} args=$MCP_TOOL_ARGS_JSON mine=${MINE-unset} pwd=$PWD session=${MCP_SESSION-unset}"
echo "env=$(env | grep -c -e '^MCP_FIXED=fixed$' -e '^MCP_TOOL_ARGS_JSON=' -e '^NEW=' -e '^MCP_SESSION=s$') mine=$(env | grep -c '^MINE=')"
echo "f=$(type -t f || echo none) retry=$(type -t mcp_with_retry) opts=$- pipefail=$(shopt -o pipefail | tr -s ' \t' ' ')"
[ "$1" = dirty ] || exit 0
MINE=1; MCP_FIXED=changed; MCP_SESSION=changed; export NEW=1; unset MCP_TOOL_ARGS_JSON PWD
f() { :; }; mcp_with_retry() { echo hijacked; }; unset -f mcp_config_load
set -euo pipefail; shopt -s extglob
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	plan := &engine.Plan{Env: map[string]string{"MCP_FIXED": "fixed"}}
	session := map[string]string{"MCP_SESSION": "s", "MCP_TOOL_ARGS_JSON": "the call's own wins"}
	call := func(args ...string) string {
		out := e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t", Args: json.RawMessage(`{"a":1}`)}, Script: p, Dir: dir, Args: args,
			ScratchBase: scratchFor(t, e), Plan: plan, Session: session, Env: map[string]string{"MCP_TOOL_ARGS_JSON": `{"a":1}`},
			Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir}})
		if out.ExitCode != 0 {
			t.Fatalf("exit %d: %s", out.ExitCode, out.Stderr)
		}
		return string(out.Stdout)
	}
	want := call()
	if !strings.Contains(want, "fixed=fixed args={\"a\":1} mine=unset pwd="+sandbox.ShellPath(dir)+" session=s") || !strings.Contains(want, "f=none retry=function") || !strings.Contains(want, "env=3 mine=0") {
		t.Fatalf("first call:\n%s", want)
	}
	if got := call("dirty"); got != want {
		t.Fatalf("a call that changes its state began differently:\n%s\nwant\n%s", got, want)
	}
	for range 3 {
		if got := call(); got != want {
			t.Fatalf("a call after one that changed its state:\n%s\nwant\n%s", got, want)
		}
	}
	if len(session) != 2 || session["MCP_SESSION"] != "s" {
		t.Fatalf("the shared session map was written: %v", session)
	}
}
