package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// EnableHint is what a log line or error about a sandboxed hook tells the operator.
const EnableHint = "set MCPBASH_ALLOW_PROJECT_HOOKS=true to run it in real bash on the host"

// shimRun is one run of a hook through its shim: the shim's arguments after $0, the output
// cap, whether passing the cap fails the run, and the cap on the channel file (0: none).
type shimRun struct {
	shim, label string
	args        []string
	maxOutput   int64
	failOnCap   bool
	channelCap  int64
}

// sandboxed reports whether the hook runs in the sandbox engine rather than real bash.
func (o Options) sandboxed() bool { return !o.Allowed }

// run executes a shim over the hook copy in ws: in real bash when project hooks are allowed,
// else in the sandbox engine with the project read-only and ws writable.
func (o Options) run(ctx context.Context, ws *workspace, r shimRun) (outcome, error) {
	if o.sandboxed() {
		return o.runSandboxed(ctx, ws, r)
	}
	env := Environ(o)
	bash := o.Bash
	if bash == "" {
		var err error
		if bash, err = bashPath(pathOf(env)); err != nil {
			return outcome{}, err
		}
	}
	ru := run{
		args: append([]string{"--noprofile", "--norc", "-c", r.shim, r.label}, r.args...),
		dir:  o.Root, env: env, timeout: o.Timeout, maxOutput: r.maxOutput, failOnCap: r.failOnCap,
	}
	if r.channelCap > 0 {
		ru.watch, ru.watchLimit = ws.channelSize, r.channelCap
	}
	return execute(ctx, bash, ru)
}

// runSandboxed runs the shim in the sandbox engine. The sandbox has its own PATH, HOME, TMPDIR,
// identity and locale; the hook gets the operator's other variables as in real bash.
func (o Options) runSandboxed(ctx context.Context, ws *workspace, r shimRun) (outcome, error) {
	if o.Sandbox == nil {
		return outcome{}, errors.New("project hooks are off and no sandbox engine is available; " + EnableHint)
	}
	shimPath := filepath.Join(ws.dir, "shim.sh")
	if err := os.WriteFile(shimPath, []byte(r.shim), 0o600); err != nil {
		return outcome{}, err
	}
	env := environMap(o)
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "USER", "LANG", "LC_ALL"} {
		delete(env, k)
	}
	env["MCPBASH_JSON_TOOL"], env["MCPBASH_JSON_TOOL_BIN"] = "jq", "jq"
	job := engine.Job{
		Call:   &engine.Call{Tool: r.label, ToolPath: o.Script, ToolDir: filepath.Dir(o.Script), Args: json.RawMessage("{}"), Meta: json.RawMessage("{}")},
		Script: shimPath, Dir: o.Root, Args: r.args, Env: env, ScratchBase: o.TmpDir,
		Policy: sandbox.Policy{
			Roots: []sandbox.Root{
				{Path: o.Root, Name: "project", Mode: sandbox.ReadOnly},
				{Path: ws.dir, Name: "hook", Mode: sandbox.ReadWrite},
			},
			ToolDir: filepath.Dir(o.Script),
			Limits:  sandbox.Limits{Timeout: o.Timeout, MaxStdoutBytes: r.maxOutput, MaxStderrBytes: r.maxOutput},
		},
	}
	res := o.Sandbox.Run(ctx, job)
	out := outcome{exitCode: res.ExitCode, timedOut: res.TimedOut}
	out.output = append(append(out.output, res.Stdout...), res.Stderr...)
	switch {
	case res.Limit.OutputCap():
		if r.failOnCap {
			out.overflow = true
		}
	case res.Limit != engine.LimitNone:
		out.output = append(out.output, "\n"+res.LimitHit...)
		if out.exitCode == 0 {
			out.exitCode = 1
		}
	}
	if r.channelCap > 0 {
		if ws.channelSize() > r.channelCap {
			out.watchExceed = true
		}
	}
	if err := ctx.Err(); err != nil && !res.TimedOut {
		return out, err
	}
	return out, nil
}
