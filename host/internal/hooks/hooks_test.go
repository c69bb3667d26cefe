package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

// project writes a project root with server.d/<hook> holding body (mode 0755) and returns the
// root and the hook's path.
func project(t *testing.T, hook, body string) (string, string) {
	t.Helper()
	root := t.TempDir()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "server.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "server.d", hook)
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, p
}

// sandboxEngine is the sandbox engine hooks run in when project hooks are off.
var sandboxEngine = sync.OnceValue(func() engine.Engine {
	e, err := interp.NewEngine(0)
	if err != nil {
		panic(err)
	}
	return e
})

// opts are a hook run's Options as the server builds them from env (config.Load): real bash
// unless env turns MCPBASH_ALLOW_PROJECT_HOOKS off, the sandbox engine otherwise.
func opts(root, script string, env map[string]string) Options {
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		switch k {
		case "PATH":
			return os.Getenv("PATH")
		case "MCPBASH_ALLOW_PROJECT_HOOKS":
			return "true"
		}
		return ""
	}
	set, err := config.Load(getenv)
	if err != nil {
		panic(err)
	}
	environ := func() []string {
		out := []string{"PATH=" + os.Getenv("PATH")}
		for k, v := range env {
			out = append(out, k+"="+v)
		}
		return out
	}
	// A backstop timeout: tests of the timeout set their own.
	return Options{Root: root, Script: script, Timeout: 2 * time.Minute, Vars: map[string]string{"MCPBASH_TOOLS_DIR": filepath.Join(root, "tools")},
		Allowed: set.Registry.AllowProjectHooks, Sandbox: sandboxEngine(), Env: getenv, Environ: environ, Passthrough: set.Passthrough}
}

// engines are the two ways a hook runs: real bash (MCPBASH_ALLOW_PROJECT_HOOKS) and the sandbox.
var engines = []struct {
	name string
	env  map[string]string
}{{"bash", nil}, {"sandbox", map[string]string{"MCPBASH_ALLOW_PROJECT_HOOKS": "false"}}}

func TestTrust(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, root, script string)
		rule  string // "" = trusted
		msg   string
	}{
		{name: "owned, executable, not writable by others"},
		{name: "shebang without exec bit", setup: func(t *testing.T, root, script string) { os.Chmod(script, 0o644) }},
		{name: "neither executable nor shebang", rule: "runnable", msg: "server.d/register.sh is neither executable nor starts with #!",
			setup: func(t *testing.T, root, script string) {
				os.WriteFile(script, []byte("echo hi\n"), 0o644)
				os.Chmod(script, 0o644)
			}},
		{name: "group-writable file", rule: "writable", msg: "server.d/register.sh is group- or world-writable (fix: chmod g-w,o-w server.d/register.sh)",
			setup: func(t *testing.T, root, script string) { os.Chmod(script, 0o775) }},
		{name: "world-writable file", rule: "writable", msg: "server.d/register.sh is group- or world-writable",
			setup: func(t *testing.T, root, script string) { os.Chmod(script, 0o757) }},
		{name: "group-writable server.d", rule: "writable", msg: "server.d is group- or world-writable (fix: chmod g-w,o-w server.d)",
			setup: func(t *testing.T, root, script string) { os.Chmod(filepath.Dir(script), 0o775) }},
		{name: "group-writable project root", rule: "writable", msg: "the project root is group- or world-writable (fix: chmod g-w,o-w <project root>)",
			setup: func(t *testing.T, root, script string) { os.Chmod(root, 0o775) }},
		{name: "symlinked hook", rule: "symlink", msg: "server.d/register.sh is a symlink (replace it with a regular file)",
			setup: func(t *testing.T, root, script string) {
				real := filepath.Join(root, "real.sh")
				os.Rename(script, real)
				os.Symlink(real, script)
			}},
		{name: "symlinked server.d", rule: "symlink", msg: "server.d is a symlink",
			setup: func(t *testing.T, root, script string) {
				os.Rename(filepath.Dir(script), filepath.Join(root, "real.d"))
				os.Symlink(filepath.Join(root, "real.d"), filepath.Dir(script))
			}},
		{name: "directory", rule: "regular", msg: "server.d/register.sh is not a regular file",
			setup: func(t *testing.T, root, script string) {
				os.Remove(script)
				os.Mkdir(script, 0o755)
			}},
		{name: "missing", rule: "unreadable", msg: "cannot check server.d/register.sh"},
		{name: "foreign owner", rule: "owner", msg: "server.d/register.sh is owned by uid 4242, not by the user running mcp-bash",
			setup: func(t *testing.T, root, script string) {
				if os.Getuid() != 0 {
					t.Skip("chown needs root")
				}
				os.Lchown(script, 4242, 4242)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, script := project(t, "register.sh", "#!/usr/bin/env bash\n")
			if tc.name == "missing" {
				os.Remove(script)
			}
			if tc.setup != nil {
				tc.setup(t, root, script)
			}
			err := CheckTrust(script, root)
			if tc.rule == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var te *TrustError
			if !errors.As(err, &te) || te.Rule != tc.rule || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v (%+v), want rule %s and %q", err, te, tc.rule, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "server.d/register.sh refused: ") {
				t.Errorf("message does not name the hook: %v", err)
			}
		})
	}
}

func TestRunRegister(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      string
		functions map[string]string // kind → JSON array of entries
		output    map[string]string // kind → raw value
		warning   string
		err       string
	}{
		{name: "function registrations of each kind",
			body: `mcp_register_tool '{"name":"t","path":"t/tool.sh"}'
mcp_register_resource '{"name":"r","uri":"file:///r"}'
mcp_register_prompt '{"name":"p","path":"p.txt"}'
mcp_tools_register_manual '{"name":"t2","path":"t2.sh"}'
mcp_resources_templates_register_manual '{"name":"tpl","uriTemplate":"file:///{x}"}'
mcp_completion_register_manual '{"name":"c","path":"completions/c.sh","timeoutSecs":2}'`,
			functions: map[string]string{
				"tools":             `[{"name":"t","path":"t/tool.sh"},{"name":"t2","path":"t2.sh"}]`,
				"resources":         `[{"name":"r","uri":"file:///r"}]`,
				"prompts":           `[{"name":"p","path":"p.txt"}]`,
				"resourceTemplates": `[{"name":"tpl","uriTemplate":"file:///{x}"}]`,
				"completions":       `[{"name":"c","path":"completions/c.sh","timeoutSecs":2}]`,
			}},
		{name: "pretty JSON payloads are compacted",
			body:      "mcp_register_tool '{\n  \"name\": \"t\",\n  \"path\": \"t.sh\"\n}'",
			functions: map[string]string{"tools": `[{"name":"t","path":"t.sh"}]`}},
		{name: "strict mode scripts work (set -euo pipefail)",
			body:      "set -euo pipefail\nmcp_completion_manual_begin\nmcp_completion_register_manual '{\"name\":\"c\",\"path\":\"c.sh\"}'\nmcp_completion_manual_finalize\n",
			functions: map[string]string{"completions": `[{"name":"c","path":"c.sh"}]`}},
		{name: "begin restarts a kind",
			body:      `mcp_register_tool '{"name":"a","path":"a.sh"}'; mcp_tools_manual_begin; mcp_register_tool '{"name":"b","path":"b.sh"}'`,
			functions: map[string]string{"tools": `[{"name":"b","path":"b.sh"}]`}},
		{name: "finalize freezes a kind",
			body:      `mcp_register_tool '{"name":"a","path":"a.sh"}'; mcp_tools_manual_finalize; mcp_register_tool '{"name":"late","path":"b.sh"}'`,
			functions: map[string]string{"tools": `[{"name":"a","path":"a.sh"}]`}},
		{name: "abort discovers the kind and ignores its output",
			body:      `mcp_register_tool '{"name":"a","path":"a.sh"}'; mcp_tools_manual_abort; mcp_register_tool '{"name":"b","path":"b.sh"}'; mcp_register_prompt '{"name":"p","path":"p"}'; echo '{"tools":[{"name":"o","path":"o.sh"}]}'`,
			functions: map[string]string{"prompts": `[{"name":"p","path":"p"}]`},
			warning:   "supplied no kind"},
		{name: "JSON output supplies kinds without function registrations",
			body:      `mcp_register_prompt '{"name":"p","path":"p"}'; echo '{"tools":[{"name":"o","path":"o.sh"}],"prompts":[{"name":"ignored","path":"x"}],"resources":null}'`,
			functions: map[string]string{"prompts": `[{"name":"p","path":"p"}]`},
			output:    map[string]string{"tools": `[{"name":"o","path":"o.sh"}]`}},
		{name: "JSON output on stderr counts too",
			body:   `echo '{"resources":[]}' >&2`,
			output: map[string]string{"resources": `[]`}},
		{name: "JSON output is passed on unvalidated (the registry validates)",
			body:   `echo '{"tools":{"not":"an array"}}'`,
			output: map[string]string{"tools": `{"not":"an array"}`}},
		{name: "non-JSON output is ignored with a warning",
			body:      "echo 'hello from register.sh'\nmcp_register_tool '{\"name\":\"t\",\"path\":\"t.sh\"}'",
			functions: map[string]string{"tools": `[{"name":"t","path":"t.sh"}]`},
			warning:   `not a JSON registration object; ignored (22 bytes, last line: "hello from register.sh")`},
		{name: "nothing registered, nothing printed", body: "true"},
		{name: "non-zero exit", body: "echo 'cannot reach the catalogue' >&2\nexit 3", err: "register.sh failed (exit status 3): cannot reach the catalogue"},
		{name: "last command fails", body: "mcp_register_tool '{\"name\":\"t\",\"path\":\"t.sh\"}'\nfalse", err: "register.sh failed (exit status 1)"},
		{name: "output above 1 MiB", body: "x=$(printf '%01000000d' 0); echo \"$x$x\"", err: "register.sh output exceeded 1048576 bytes"},
		{name: "registration that is not JSON", body: `mcp_register_tool '{"name":'`, err: `register.sh: tools registration 0 is not valid JSON`},
		{name: "registrations above the per-kind cap", body: `x=$(printf '%03000d' 0); mcp_register_tool "{\"name\":\"t\",\"path\":\"$x\"}"`,
			err: "tools registrations exceed 2048 bytes (MCPBASH_MANUAL_BUFFER_MAX_BYTES)"},
	} {
		for _, eng := range engines {
			t.Run(eng.name+"/"+tc.name, func(t *testing.T) {
				root, script := project(t, "register.sh", "#!/usr/bin/env bash\n"+tc.body+"\n")
				o := opts(root, script, eng.env)
				o.MaxRegistrations = 2048
				reg, err := RunRegister(context.Background(), o)
				if tc.err != "" {
					if err == nil || !strings.Contains(err.Error(), tc.err) {
						t.Fatalf("err = %v, want %q", err, tc.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for k, v := range reg.Functions {
					b, _ := json.Marshal(v)
					got[k] = string(b)
				}
				if fmt.Sprint(got) != fmt.Sprint(orEmpty(tc.functions)) {
					t.Errorf("functions = %v\nwant %v", got, tc.functions)
				}
				gotOut := map[string]string{}
				for k, v := range reg.Output {
					gotOut[k] = string(v)
				}
				if fmt.Sprint(gotOut) != fmt.Sprint(orEmpty(tc.output)) {
					t.Errorf("output = %v\nwant %v", gotOut, tc.output)
				}
				w := strings.Join(reg.Warnings, "\n")
				if (tc.warning == "") != (w == "") || !strings.Contains(w, tc.warning) {
					t.Errorf("warnings = %q, want %q", w, tc.warning)
				}
			})
		}
	}
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// The hook runs in the project root with the operator's environment minus secrets: the
// project's variables, documented settings and the operator's own switches, never the remote
// token or credentials. In the sandbox, PATH and HOME are the sandbox's.
func TestRegisterEnvironment(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			root, script := project(t, "register.sh", `#!/usr/bin/env bash
mcp_register_tool "{\"name\":\"env\",\"path\":\"$PWD|$MCPBASH_PROJECT_ROOT|$MCPBASH_TOOLS_DIR|${MCPBASH_TOOL_ALLOWLIST-}|${MCPBASH_REMOTE_TOKEN-unset}|${AWS_SECRET_ACCESS_KEY-unset}|${GITHUB_TOKEN-unset}|${POLICY_READ_ONLY-unset}|$HOME\"}"
`)
			env := map[string]string{"MCPBASH_REMOTE_TOKEN": "s3cret", "AWS_SECRET_ACCESS_KEY": "k", "GITHUB_TOKEN": "g",
				"POLICY_READ_ONLY": "1", "MCPBASH_TOOL_ALLOWLIST": "a b", "HOME": "/home/x"}
			for k, v := range eng.env {
				env[k] = v
			}
			reg, err := RunRegister(context.Background(), opts(root, script, env))
			if err != nil {
				t.Fatal(err)
			}
			var e struct{ Path string }
			json.Unmarshal(reg.Functions["tools"][0], &e)
			home := "/home/x"
			got := strings.Split(e.Path, "|")
			if eng.name == "sandbox" {
				home = got[len(got)-1] // the sandbox's scratch HOME
				if home == "/home/x" || home == "" {
					t.Errorf("sandboxed hook saw HOME %q", home)
				}
			}
			want := strings.Join([]string{root, root, filepath.Join(root, "tools"), "a b", "unset", "unset", "unset", "1", home}, "|")
			if e.Path != want {
				t.Errorf("environment\n got %s\nwant %s", e.Path, want)
			}
		})
	}
}

// A timed-out hook is killed with everything it started (its process group), and a hook that
// exits leaves nothing running either. The sleeps last a day, so a run they held would not end
// for that long: the minute bounds below separate that from a loaded machine's slowness. The
// normal exit's timeout is a backstop (a loaded machine can take seconds to start bash). The
// timeout case needs the hook to have started its job before the timeout ends it: when it had
// not (no pid file yet), the run is repeated with twice the timeout.
func TestRunRegisterKillsProcessGroup(t *testing.T) {
	for _, tc := range []struct {
		name, tail string
		timeout    time.Duration
		timesOut   bool
	}{
		{name: "timeout", tail: "sleep 86400", timeout: 300 * time.Millisecond, timesOut: true},
		{name: "normal exit", tail: "mcp_register_tool '{\"name\":\"t\",\"path\":\"t.sh\"}'", timeout: 2 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, script := project(t, "register.sh", "#!/usr/bin/env bash\nsleep 86400 &\necho $! > \"$MCPBASH_PROJECT_ROOT/bg.pid\"\n"+tc.tail+"\n")
			pidFile := filepath.Join(root, "bg.pid")
			for timeout := tc.timeout; ; timeout *= 2 {
				o := opts(root, script, nil)
				o.Timeout = timeout
				start := time.Now()
				_, err := RunRegister(context.Background(), o)
				want := ""
				if tc.timesOut {
					want = fmt.Sprintf("register.sh timed out after %v (its process group was killed)", timeout)
				}
				if want == "" && err != nil || want != "" && (err == nil || err.Error() != want) {
					t.Fatalf("err = %v, want %q", err, want)
				}
				if d := time.Since(start); d > time.Minute+timeout {
					t.Errorf("took %s: the background job held the run", d)
				}
				if _, err := os.Stat(pidFile); err == nil || !tc.timesOut || timeout > time.Minute {
					break
				}
			}
			b, rerr := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if rerr != nil || pid <= 0 {
				t.Fatalf("no pid file: %v", rerr)
			}
			deadline := time.Now().Add(time.Minute)
			for harness.PidAlive(pid) {
				if time.Now().After(deadline) {
					harness.KillPid(pid)
					t.Fatalf("background sleep %d still running", pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func TestRunRegisterUntrusted(t *testing.T) {
	root, script := project(t, "register.sh", "#!/usr/bin/env bash\ntouch \"$MCPBASH_PROJECT_ROOT/ran\"\n")
	os.Chmod(filepath.Dir(script), 0o777)
	_, err := RunRegister(context.Background(), opts(root, script, nil))
	if err == nil || !strings.Contains(err.Error(), "server.d is group- or world-writable") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("an untrusted hook ran")
	}
}

func TestPolicyCheck(t *testing.T) {
	meta := json.RawMessage(`{"name":"x","path":"x/tool.sh"}`)
	for _, tc := range []struct {
		name   string
		body   string // "" = no policy.sh
		env    map[string]string
		tool   string
		setup  func(root, script string)
		want   string // "" = allowed; else the denial as JSON
		reason string // a substring the message must contain
	}{
		{name: "no policy.sh allows", tool: "x"},
		{name: "status 0 allows", body: `mcp_tools_policy_check() { return 0; }`, tool: "x"},
		{name: "a hook without the function allows", body: `true`, tool: "x"},
		{name: "default denial", body: `mcp_tools_policy_check() { [ "$1" != "x" ]; }`, tool: "x",
			want: `{"Code":-32602,"Message":"Tool 'x' blocked by policy","Data":null}`},
		{name: "other tools pass", body: `mcp_tools_policy_check() { [ "$1" != "x" ]; }`, tool: "y"},
		{name: "custom code, message and JSON data",
			body: `mcp_tools_policy_check() { _MCP_TOOLS_ERROR_CODE=-32050; _MCP_TOOLS_ERROR_MESSAGE="no $1 on Sundays"; _MCP_TOOLS_ERROR_DATA='{"day": "sunday"}'; return 1; }`,
			tool: "x", want: `{"Code":-32050,"Message":"no x on Sundays","Data":{"day":"sunday"}}`},
		{name: "data that is not JSON becomes a string",
			body: `mcp_tools_policy_check() { _MCP_TOOLS_ERROR_DATA='plain words'; return 2; }`,
			tool: "x", want: `{"Code":-32602,"Message":"Tool 'x' blocked by policy","Data":"plain words"}`},
		{name: "set -e in the hook keeps the custom error",
			body: "set -euo pipefail\nmcp_tools_policy_check() { _MCP_TOOLS_ERROR_CODE=-32001; _MCP_TOOLS_ERROR_MESSAGE=nope; return 1; }",
			tool: "x", want: `{"Code":-32001,"Message":"nope","Data":null}`},
		{name: "metadata is the second argument",
			body: `mcp_tools_policy_check() { case "$2" in *'"path":"x/tool.sh"'*) return 1;; esac; }`,
			tool: "x", want: `{"Code":-32602,"Message":"Tool 'x' blocked by policy","Data":null}`},
		{name: "exit inside the check denies",
			body: `mcp_tools_policy_check() { exit 0; }`,
			tool: "x", want: `{"Code":-32602,"Message":"Tool 'x' blocked by policy","Data":null}`},
		{name: "mcp_tools_error sets code, message and data", body: `mcp_tools_policy_check() { mcp_tools_error -32600 "Capability required" '{"reason":"auth"}'; return 1; }`,
			tool: "x", want: `{"Code":-32600,"Message":"Capability required","Data":{"reason":"auth"}}`},
		{name: "untrusted hook fails closed", body: `mcp_tools_policy_check() { return 0; }`, tool: "x",
			setup:  func(root, script string) { os.Chmod(script, 0o777) },
			reason: "Tool 'x' blocked by policy (server.d/policy.sh refused: server.d/policy.sh is group- or world-writable"},
		{name: "timeout denies", body: `mcp_tools_policy_check() { sleep 86400; }`, tool: "x",
			reason: "Tool 'x' blocked by policy (policy.sh timed out after 300ms)"},
	} {
		for _, eng := range engines {
			t.Run(eng.name+"/"+tc.name, func(t *testing.T) {
				root, script := project(t, "policy.sh", "#!/usr/bin/env bash\n"+tc.body+"\n")
				if tc.body == "" {
					os.Remove(script)
				}
				if tc.setup != nil {
					tc.setup(root, script)
				}
				env := map[string]string{"MCPBASH_ALLOW_PROJECT_HOOKS": "true"}
				for k, v := range tc.env {
					env[k] = v
				}
				for k, v := range eng.env {
					env[k] = v
				}
				o := opts(root, script, env)
				// The timeout is under test only where the reason says so; elsewhere it is a
				// backstop (starting bash takes seconds on a loaded machine).
				if strings.Contains(tc.reason, "timed out") {
					o.Timeout = 300 * time.Millisecond
				}
				var warnings []string
				o.Warn = func(s string) { warnings = append(warnings, s) }
				err := PolicyCheck(context.Background(), o, tc.tool, meta)
				switch {
				case tc.want == "" && tc.reason == "":
					if err != nil {
						t.Fatalf("denied: %v", err)
					}
				default:
					var d *Denial
					if !errors.As(err, &d) {
						t.Fatalf("err = %v, want a denial", err)
					}
					b, _ := json.Marshal(d)
					if tc.want != "" && string(b) != tc.want {
						t.Errorf("denial %s\nwant %s", b, tc.want)
					}
					if !strings.Contains(d.Message, tc.reason) || d.Code != -32602 && tc.reason != "" {
						t.Errorf("denial %s, want %q", b, tc.reason)
					}
				}
			})
		}
	}
}

// The original's documented policy examples (its test_tools_policy): a read-only switch from
// the operator's environment, a capability gate with data, and a limit read from the tool's
// metadata with jq, each through mcp_tools_error; in real bash and in the sandbox.
func TestPolicyExamples(t *testing.T) {
	policy := "#!/usr/bin/env bash\n" + harness.PolicyExample("hello")
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("the real-bash run needs jq on PATH")
	}
	hello := json.RawMessage(`{"name":"hello","path":"hello/tool.sh"}`)
	slow := json.RawMessage(`{"name":"slow","path":"slow/tool.sh","timeoutSecs":20}`)
	for _, tc := range []struct {
		name string
		env  map[string]string
		tool string
		meta json.RawMessage
		want string // "" = allowed
	}{
		{"allowed by default", nil, "hello", hello, ""},
		{"read-only", map[string]string{"POLICY_READ_ONLY": "1"}, "hello", hello, `{"Code":-32602,"Message":"Tool 'hello' disabled by policy","Data":null}`},
		{"read-only spares other tools", map[string]string{"POLICY_READ_ONLY": "1"}, "slow", slow, ""},
		{"capability gate", map[string]string{"POLICY_REQUIRE_AUTH": "1"}, "hello", hello, `{"Code":-32600,"Message":"Capability required","Data":{"reason":"auth"}}`},
		{"timeout from metadata", map[string]string{"POLICY_MAX_TIMEOUT": "10"}, "slow", slow, `{"Code":-32602,"Message":"Tool 'slow' exceeds policy timeout","Data":{"timeout":20}}`},
		{"timeout within the limit", map[string]string{"POLICY_MAX_TIMEOUT": "30"}, "slow", slow, ""},
	} {
		for _, eng := range engines {
			t.Run(eng.name+"/"+tc.name, func(t *testing.T) {
				root, script := project(t, "policy.sh", policy)
				env := map[string]string{}
				for k, v := range tc.env {
					env[k] = v
				}
				for k, v := range eng.env {
					env[k] = v
				}
				err := PolicyCheck(context.Background(), opts(root, script, env), tc.tool, tc.meta)
				if tc.want == "" {
					if err != nil {
						t.Fatalf("denied: %v", err)
					}
					return
				}
				var d *Denial
				if !errors.As(err, &d) {
					t.Fatalf("err = %v, want a denial", err)
				}
				if b, _ := json.Marshal(d); string(b) != tc.want {
					t.Errorf("denial %s\nwant %s", b, tc.want)
				}
			})
		}
	}
}

// A policy check that runs long is bounded by its context as well as its timeout.
func TestPolicyCheckContext(t *testing.T) {
	root, script := project(t, "policy.sh", "#!/usr/bin/env bash\nmcp_tools_policy_check() { sleep 86400; }\n")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	o := opts(root, script, map[string]string{"MCPBASH_ALLOW_PROJECT_HOOKS": "1"})
	o.Timeout = 2 * time.Minute // the context, not the timeout, must end it
	err := PolicyCheck(ctx, o, "x", nil)
	var d *Denial
	if !errors.As(err, &d) || time.Since(start) > time.Minute {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
}

// A sandboxed hook can write its workspace: a channel it replaces with a symlink (to a file
// outside every root when the sandbox lets it, else to its own copy) is refused, never followed
// by the server (issue 16, finding 1's
// class: the server never reads a path a tool could have written).
func TestChannelReplacedBySymlink(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("CANARY-hook-channel\x000\x00\x00\x00\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	plant := `c=$_MCPBASH_HOOK_CHANNEL; rm -f "$c" || exit 9; ln -s ` + secret + ` "$c" 2>/dev/null || ln -s hook.sh "$c" || exit 8` + "\n"
	sandboxed := map[string]string{"MCPBASH_ALLOW_PROJECT_HOOKS": "false"}
	t.Run("policy", func(t *testing.T) {
		root, script := project(t, "policy.sh", "#!/usr/bin/env bash\n"+plant+"mcp_tools_policy_check() { return 0; }\n")
		err := PolicyCheck(context.Background(), opts(root, script, sandboxed), "hello", json.RawMessage(`{}`))
		var d *Denial
		if !errors.As(err, &d) {
			t.Fatalf("err = %v, want a denial (the channel is not the shim's)", err)
		}
		if strings.Contains(fmt.Sprint(err, d.Message, string(d.Data)), "CANARY") {
			t.Fatalf("the server followed the planted link: %v", err)
		}
		if !strings.Contains(d.Message, "report channel") {
			t.Fatalf("denial %q, want the channel refused", d.Message)
		}
	})
	t.Run("register", func(t *testing.T) {
		root, script := project(t, "register.sh", "#!/usr/bin/env bash\n"+plant)
		reg, err := RunRegister(context.Background(), opts(root, script, sandboxed))
		if err == nil {
			t.Fatalf("registration %+v, want an error (the channel is not the shim's)", reg)
		}
		if strings.Contains(err.Error(), "CANARY") {
			t.Fatalf("the server followed the planted link: %v", err)
		}
		if !strings.Contains(err.Error(), "report channel") {
			t.Fatalf("err = %v, want the channel refused", err)
		}
	})
}
