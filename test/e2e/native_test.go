package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// nativeProject has a sandboxed tool (sh) and one whose meta asks for native execution (nat).
// nat's timeout is a backstop (a loaded machine can take seconds to start bash with the SDK);
// a test of the timeout sets its own per call.
func nativeProject(t *testing.T) secProject {
	return newSecProject(t, map[string]string{
		"tools/nat/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/nat/tool.meta.json": `{"name":"nat","description":"native snippet","exec":"native","timeoutSecs":120,"inputSchema":{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]}}`,
	})
}

func nat(t *testing.T, c *harness.Client, script string) harness.Msg {
	t.Helper()
	return c.Call("tools/call", map[string]any{"name": "nat", "arguments": map[string]any{"script": script}})
}

// isNative is a snippet that only real bash on the host can answer "native" to: the sandbox
// has no /proc.
const isNative = `case "$(readlink /proc/$$/exe)" in */bash) echo native ;; *) echo sandbox ;; esac`

// Native tools are gated like the original: a tool's "exec":"native" runs only when
// MCPBASH_TOOL_ALLOWLIST names it (or the server runs with --exec=native).
func TestNativeGating(t *testing.T) {
	t.Parallel()
	p := nativeProject(t)

	c := p.start(t)
	r := nat(t, c, isNative)
	if r.Error == nil || r.Error.Code != -32602 || r.Error.Message != "Tool 'nat' blocked by policy. Set MCPBASH_TOOL_ALLOWLIST in your MCP client config." {
		t.Errorf("ungated native tool: %s", r.Raw)
	}
	if got := text(sh(t, c, isNative)); got != "sandbox" {
		t.Errorf("sandbox tool ran as %q", got)
	}

	c = p.start(t, "MCPBASH_TOOL_ALLOWLIST=nat")
	if got := text(nat(t, c, isNative)); got != "native" {
		t.Errorf("allowlisted native tool ran as %q", got)
	}
	if r := sh(t, c, "echo hi"); r.Error == nil || !strings.Contains(r.Error.Message, "not in MCPBASH_TOOL_ALLOWLIST") {
		t.Errorf("allowlist must apply to every tool: %s", r.Raw)
	}

	// --exec=native: every script tool runs natively, no allowlist needed.
	c = harness.Start(t, harness.Options{Dir: p.root, Args: []string{"--exec=native"}})
	c.Initialize("2025-11-25", nil)
	if got := text(sh(t, c, isNative)); got != "native" {
		t.Errorf("--exec=native ran sh as %q", got)
	}

	// A group-writable tool file is refused, naming the reason.
	if err := os.Chmod(filepath.Join(p.root, "tools/nat/tool.sh"), 0o775); err != nil {
		t.Fatal(err)
	}
	r = nat(t, c, "echo hi")
	if r.Error == nil || r.Error.Message != "Tool path rejected by policy: tool file is group- or world-writable" {
		t.Errorf("group-writable tool: %s", r.Raw)
	}
}

// Env modes: minimal keeps the contract, PATH/HOME/LANG and non-secret MCP_*/MCPBASH_*;
// allowlist adds named variables; inherit passes everything but must be allowed explicitly.
func TestNativeEnvModes(t *testing.T) {
	t.Parallel()
	p := nativeProject(t)
	show := `for v in FOO MCPBASH_API_TOKEN MCPBASH_CUSTOM MCP_TOOL_NAME HOME; do printf '%s=%s;' "$v" "${!v-unset}"; done`
	base := []string{"MCPBASH_TOOL_ALLOWLIST=nat", "FOO=bar", "MCPBASH_API_TOKEN=s3cret", "MCPBASH_CUSTOM=custom"}
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"minimal", nil, "FOO=unset;MCPBASH_API_TOKEN=unset;MCPBASH_CUSTOM=custom;MCP_TOOL_NAME=nat;"},
		{"allowlist", []string{"MCPBASH_TOOL_ENV_MODE=allowlist", "MCPBASH_TOOL_ENV_ALLOWLIST=FOO"}, "FOO=bar;MCPBASH_API_TOKEN=unset;MCPBASH_CUSTOM=custom;MCP_TOOL_NAME=nat;"},
		{"inherit", []string{"MCPBASH_TOOL_ENV_MODE=inherit", "MCPBASH_TOOL_ENV_INHERIT_ALLOW=true"}, "FOO=bar;MCPBASH_API_TOKEN=s3cret;MCPBASH_CUSTOM=custom;MCP_TOOL_NAME=nat;"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := p.start(t, append(append([]string{}, base...), tc.env...)...)
			got := text(nat(t, c, show))
			if !strings.HasPrefix(got, tc.want) || !strings.Contains(got, "HOME=/") {
				t.Errorf("got %q, want prefix %q", got, tc.want)
			}
		})
	}
	c := p.start(t, append(base, "MCPBASH_TOOL_ENV_MODE=inherit")...)
	r := nat(t, c, "echo hi")
	if r.Error == nil || r.Error.Code != -32602 || !strings.Contains(r.Error.Message, "MCPBASH_TOOL_ENV_INHERIT_ALLOW=true") {
		t.Errorf("inherit without allow: %s", r.Raw)
	}
}

// Payloads over MCPBASH_ENV_PAYLOAD_THRESHOLD go through files; the SDK reads either.
func TestNativeArgsSpill(t *testing.T) {
	t.Parallel()
	p := nativeProject(t)
	c := p.start(t, "MCPBASH_TOOL_ALLOWLIST=nat", "MCPBASH_ENV_PAYLOAD_THRESHOLD=10")
	got := text(nat(t, c, `echo "json=[${MCP_TOOL_ARGS_JSON}] file=$([ -f "$MCP_TOOL_ARGS_FILE" ] && echo yes) meta=$([ -f "$MCP_TOOL_METADATA_FILE" ] && echo yes)"; mcp_args_get '.script' | head -c 4`))
	if got != "json=[] file=yes meta=yes\necho" {
		t.Errorf("got %q", got)
	}
}

// Limits: the timeout ends the whole group and answers with the timeout result; the stdout cap
// is an isError result (the original's -32603 with MCPBASH_TOOL_ERRORS=jsonrpc); embedded
// resources are read through the roots only.
func TestNativeLimits(t *testing.T) {
	t.Parallel()
	p := nativeProject(t)
	c := p.start(t, "MCPBASH_TOOL_ALLOWLIST=nat", "MCPBASH_MAX_TOOL_OUTPUT_SIZE=1000")
	// The sleep outlasts the harness's backstop, so an answer at all shows that the timeout
	// ended the group rather than waiting for it.
	r := c.Call("tools/call", map[string]any{"name": "nat", "arguments": map[string]any{"script": "sleep 100000"}, "timeoutSecs": 2})
	if !strings.Contains(string(r.Result), `"isError":true`) || !strings.Contains(text(r), "timed out after 2s") {
		t.Errorf("timeout result: %s", r.Raw)
	}
	r = nat(t, c, "head -c 100000 /dev/zero | tr '\\0' x")
	if !strings.Contains(string(r.Result), `"isError":true`) || text(r) != "Tool output exceeded 1000 bytes" {
		t.Errorf("output cap: %s", r.Raw)
	}
	r = nat(t, c, `mcp_result_text_with_resource '{"ok":true}' --path /etc/passwd --path data/inside.txt`)
	if strings.Contains(string(r.Raw), "root:") || !strings.Contains(string(r.Raw), `inside\n`) {
		t.Errorf("resources: %s", r.Raw)
	}
}

// run-tool --print-env shows the native environment, with per-call paths named.
func TestNativePrintEnv(t *testing.T) {
	t.Parallel()
	p := nativeProject(t)
	out, _, code := runCLI(t, p.root, []string{"FOO=bar"}, "run-tool", "nat", "--print-env")
	if code != 0 || !strings.Contains(out, "MCP_TOOL_NAME=nat\n") || strings.Contains(out, "FOO=") ||
		!strings.Contains(out, "MCP_SDK=(per-process read-only copy of the embedded SDK)") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// run-tool on a native tool nobody allowed names the run-tool fix, not an MCP client's config.
func TestNativeRunToolHint(t *testing.T) {
	t.Parallel()
	p := nativeProject(t)
	out, errOut, code := runCLI(t, p.root, nil, "run-tool", "nat", "--args", `{"script":"echo hi"}`)
	if code != 1 || strings.Contains(out+errOut, "MCP client config") || !strings.Contains(out, "Tool 'nat' blocked by policy.") ||
		!strings.Contains(errOut, "pass --allow-self to allow nat") {
		t.Errorf("exit %d:\n%s\n%s", code, out, errOut)
	}
	if out, _, code := runCLI(t, p.root, nil, "run-tool", "nat", "--allow-self", "--args", `{"script":"echo hi"}`); code != 0 || !strings.Contains(out, `"text":"hi"`) {
		t.Errorf("--allow-self: exit %d:\n%s", code, out)
	}
}

// Native tools run under Landlock: no /etc/hosts (the host facts of native.HostInfo, such as
// /etc/passwd, are readable), no writes outside the roots, no TCP to a
// loopback listener, while the same actions inside the roots work; sandbox.network lets a
// tool connect.
func TestNativeConfinement(t *testing.T) {
	t.Parallel()
	port := harness.GreetingListener(t, "hello-from-listener\n")
	p := newSecProject(t, map[string]string{
		"tools/nat/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/nat/tool.meta.json": `{"name":"nat","exec":"native","inputSchema":{"type":"object","properties":{"script":{"type":"string"}}}}`,
		"tools/net/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/net/tool.meta.json": `{"name":"net","exec":"native","sandbox":{"network":true},"inputSchema":{"type":"object","properties":{"script":{"type":"string"}}}}`,
	})
	c := p.start(t, "MCPBASH_TOOL_ALLOWLIST=nat,net", "MCPBASH_ROOTS=.")
	connect := fmt.Sprintf(`if exec 3<>/dev/tcp/127.0.0.1/%d; then head -n1 <&3; else echo refused; fi`, port)
	for _, tc := range []struct{ name, script, want string }{
		{"read /etc/hosts", `cat /etc/hosts >/dev/null 2>&1 && echo read || echo denied`, "denied"},
		{"read /etc/passwd (a host fact)", `cat /etc/passwd >/dev/null 2>&1 && echo read || echo denied`, "read"},
		{"read the outside canary", `cat ` + filepath.Join(p.outside, "secret.txt") + ` 2>/dev/null || echo denied`, "denied"},
		{"write outside", `echo x > ` + filepath.Join(p.outside, "new.txt") + ` 2>/dev/null && echo wrote || echo denied`, "denied"},
		{"read inside", `cat data/inside.txt`, "inside"},
		{"write inside", `echo made > data/made.txt && cat data/made.txt`, "made"},
		{"TCP connect", connect, "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := text(nat(t, c, tc.script)); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(p.outside, "new.txt")); err == nil {
		t.Error("a native tool wrote outside the roots")
	}
	r := c.Call("tools/call", map[string]any{"name": "net", "arguments": map[string]any{"script": connect}})
	if got := text(r); got != "hello-from-listener" {
		t.Errorf("sandbox.network tool: %q", got)
	}
}

// TestNativeRlimits: a native tool runs under rlimits it cannot raise (address space, CPU time,
// file size, open files), and a tool that hits one gets a result naming it.
//
// The wall-clock timeout (120 s) is only a backstop: a second of CPU time takes a wall-clock
// second on a quiet machine but ten or more on a loaded one, and the limit under test must be
// the one that ends the call.
func TestNativeRlimits(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, map[string]string{
		"tools/nat/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/nat/tool.meta.json": `{"name":"nat","description":"native snippet","exec":"native","timeoutSecs":120,"inputSchema":{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]}}`,
		// No SDK (the JSON tool is a Go program, which needs more address space than this test allows).
		"tools/mem/tool.sh":        "#!/usr/bin/env bash\nx=aaaaaaaaaaaaaaaa; while :; do x=$x$x; done\n",
		"tools/mem/tool.meta.json": `{"name":"mem","description":"grows a string","exec":"native","timeoutSecs":120}`,
	})
	c := p.start(t, "MCPBASH_TOOL_ALLOWLIST=*", "MCPBASH_NATIVE_CPU_SECS=1", "MCPBASH_NATIVE_MAX_FILE_MB=1", "MCPBASH_NATIVE_MAX_OPEN_FILES=100")
	if got := text(nat(t, c, `echo "$(ulimit -H -v) $(ulimit -S -t) $(ulimit -f) $(ulimit -n)"; ulimit -S -n 4096 2>/dev/null || echo cannot-raise`)); got != "8388608 1 1024 100\ncannot-raise" {
		t.Errorf("limits inside the tool: %q", got)
	}
	for _, tc := range []struct{ script, want string }{
		{"while :; do :; done", "Tool exceeded the CPU time limit (1 s)"},
		{"head -c 3000000 /dev/zero > \"$TMPDIR/big.bin\"; echo rc=$?", "Tool exceeded the file size limit (1024 KiB)"},
	} {
		if got := text(nat(t, c, tc.script)); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.script, got, tc.want)
		}
	}
	m := p.start(t, "MCPBASH_TOOL_ALLOWLIST=*", "MCPBASH_NATIVE_MAX_AS_MB=256")
	if got := text(m.Call("tools/call", map[string]any{"name": "mem", "arguments": map[string]any{}})); !strings.HasPrefix(got, "Tool exceeded the memory limit (256 MiB of address space)") {
		t.Errorf("memory: %q", got)
	}
	if r := m.Call("ping", nil); r.Error != nil {
		t.Errorf("server after the memory limit: %s", r.Raw)
	}
}

// TestNotUTF8NotedInEveryEngine: output that is not UTF-8 (it reaches the client as U+FFFD) is
// named on the call's stderr whichever engine ran it: the native engine here, the sandbox
// engine in process isolation (its worker), as in-process.
func TestNotUTF8NotedInEveryEngine(t *testing.T) {
	t.Parallel()
	p := nativeProject(t)
	const note = "[stderr] mcp-bash: stdout is not UTF-8 (1 invalid byte, the first at offset 3)"
	c := p.start(t, "MCPBASH_TOOL_ALLOWLIST=nat,sh")
	for name, call := range map[string]func(*testing.T, *harness.Client, string) harness.Msg{"native": nat, "sandbox": sh} {
		if got := text(call(t, c, `printf 'caf\xe9\n'`)); !strings.Contains(got, note) {
			t.Errorf("%s: %q", name, got)
		}
		if got := text(call(t, c, `printf 'caf\xc3\xa9\n'`)); strings.Contains(got, "not UTF-8") {
			t.Errorf("%s: UTF-8 output noted: %q", name, got)
		}
	}
	c = p.start(t, "MCPBASH_ISOLATION=process")
	if got := text(sh(t, c, `printf 'caf\xe9\n'`)); !strings.Contains(got, note) {
		t.Errorf("sandbox in a worker: %q", got)
	}
}
