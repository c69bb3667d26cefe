package interp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// TestCallsReusedStartFresh: a run's call state (and its evaluator's) is reused by later runs
// once the run has ended (calls, eval.Runner.Release). Whatever a run ended with (a refusal, an
// mcp_fail, resources, a limit, writes in its access record, stderr, a nonzero status) a
// later run of a plain script reports none of it, sequentially and with runs in parallel.
func TestCallsReusedStartFresh(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	e, err := NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, script string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The side files are the run's own, in its scratch root (its HOME).
	clean := write("clean.sh", `[ "$MCP_TOOL_ERROR_FILE" = "$HOME/.mcp-error.json" ] && [ "$MCP_TOOL_RESOURCES_FILE" = "$HOME/.mcp-resources.json" ] &&
[ "$MCP_PROGRESS_STREAM" = "$HOME/.mcp-progress.ndjson" ] && [ "$MCP_LOG_STREAM" = "$HOME/.mcp-log.ndjson" ] &&
[ "$MCP_CANCEL_FILE" = "$HOME/.mcp-cancelled" ] && [ "$MCP_TOOL_CANCELLATION_FILE" = "$HOME/.mcp-cancelled" ] && [ -n "$HOME" ] &&
echo "ok $# ${MINE-unset}"`)
	dirty := []struct {
		script string
		limits sandbox.Limits
	}{
		{write("refused.sh", "MINE=1; echo ${x@P}\n"), sandbox.Limits{}},
		{write("fail.sh", "MINE=1; echo >&2 noise; mcp_fail -32001 boom\n"), sandbox.Limits{}},
		{write("resources.sh", `MINE=1; echo data > "$PWD/r.txt"; printf '{"uri":"file://%s/r.txt"}\n' "$PWD" >> "$MCP_TOOL_RESOURCES_FILE"; exit 3`), sandbox.Limits{}},
		{write("limit.sh", "MINE=1; while :; do :; done\n"), sandbox.Limits{MaxCommands: 100}},
	}
	run := func(script string, limits sandbox.Limits, args ...string) *engine.Outcome {
		return e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t", Args: json.RawMessage(`{}`)}, Script: script, Dir: dir, Args: args,
			ScratchBase: scratchFor(t, e), Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir, Limits: limits}})
	}
	check := func(out *engine.Outcome) string {
		var access struct{ Entries []json.RawMessage }
		_ = json.Unmarshal(out.Access, &access)
		switch {
		case string(out.Stdout) != "ok 0 unset\n" || len(out.Stderr) != 0 || out.ExitCode != 0:
			return "output " + string(out.Stdout) + string(out.Stderr)
		case out.Fail != nil || out.Refused != nil || len(out.Resources) != 0 || len(out.Embedded) != 0:
			return "a failure, refusal or resource of another run"
		case out.Limit != engine.LimitNone || out.LimitHit != "" || out.TimedOut || out.Cancelled:
			return "a limit of another run: " + out.LimitHit
		case strings.Contains(string(out.Access), "r.txt"):
			return "another run's access record: " + string(out.Access)
		}
		return ""
	}
	for _, d := range dirty {
		out := run(d.script, d.limits, "a", "b")
		if out.ExitCode == 0 && out.Fail == nil && out.Refused == nil && out.Limit == engine.LimitNone {
			t.Fatalf("%s ended cleanly: %s%s", d.script, out.Stdout, out.Stderr)
		}
		if msg := check(run(clean, sandbox.Limits{})); msg != "" {
			t.Fatalf("after %s: %s", filepath.Base(d.script), msg)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 6 {
				if i%2 == 0 {
					d := dirty[(i+j)%len(dirty)]
					run(d.script, d.limits, "a")
				} else if msg := check(run(clean, sandbox.Limits{})); msg != "" {
					errs <- msg
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Fatalf("in parallel: %s", msg)
	}
}

// TestSDKEnvPerShell: the functions an SDK builtin's environment shares between the builtins of
// one shell (call.sdkShell) are never those of another shell: an SDK builtin in a subshell, a
// pipeline element, a command substitution or under a temporary assignment reads that shell's
// variables, the main shell's builtins after them read the main shell's again, and a later run
// (a reused call) reads its own.
func TestSDKEnvPerShell(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	e, err := NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "t.sh")
	body := `MCP_CONFIG_JSON="{\"a\":\"$1\"}"
mcp_config_get .a
( MCP_CONFIG_JSON='{"a":"sub"}'; mcp_config_get .a )
mcp_config_get .a
echo | { MCP_CONFIG_JSON='{"a":"pipe"}'; mcp_config_get .a; } | cat
mcp_config_get .a
echo "$(MCP_CONFIG_JSON='{"a":"subst"}'; mcp_config_get .a) $(mcp_config_get .a)"
MCP_CONFIG_JSON='{"a":"temp"}' mcp_config_get .a
mcp_config_get .a
f() { local MCP_CONFIG_JSON='{"a":"local"}'; mcp_config_get .a; }
f
mcp_config_get .a
`
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, main := range []string{"one", "two"} {
		out := e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t", Args: json.RawMessage(`{}`)}, Script: script, Dir: dir, Args: []string{main},
			ScratchBase: scratchFor(t, e), Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadOnly}}, ToolDir: dir}})
		want := strings.NewReplacer("M", main).Replace("M\nsub\nM\npipe\nM\nsubst M\ntemp\nM\nlocal\nM\n")
		if string(out.Stdout) != want || out.ExitCode != 0 {
			t.Fatalf("run %s: %q (want %q), status %d, stderr %s", main, out.Stdout, want, out.ExitCode, out.Stderr)
		}
	}
}
