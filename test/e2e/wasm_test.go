package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
	"github.com/mcp-bash/mcp-bash/wasm"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

const wasmCanary = "CANARY-wasm-5d1e-host-secret"

// TestMain removes the binaries, the guests built by wasmtest and the shared compilation cache.
func TestMain(m *testing.M) { os.Exit(harness.Main(m, wasmtest.Cleanup)) }

// wasmCacheHome is one XDG_CACHE_HOME for every wasm server of this test process, so that each
// module is compiled once (the tests below run one after another for that reason).
func wasmCacheHome(t *testing.T) string { return wasmtest.TempDir(t, "xdg-cache") }

// wasmProject has the probe guest as a tool (tools/probe/tool.wasm) and as a command
// (bin/probe.wasm), a script tool that evaluates a snippet, planted symlinks in data/, and two
// directories with a canary outside the roots: outside/ and other/ (a root it is not given).
type wasmProject struct {
	root, data, outside, other string
}

func newWasmProject(t *testing.T) wasmProject {
	t.Helper()
	probe := wasmtest.BuildGo(t, "wasm/testdata/probe")
	root := writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"wasm-e2e"}`,
		"tools/probe/tool.meta.json": `{"name":"probe","description":"wasm probe","inputSchema":{"type":"object","properties":{` +
			`"mode":{"type":"string"},"path":{"type":"string"},"target":{"type":"string"},"code":{"type":"integer"}},"required":["mode"]},` +
			`"sandbox":{"memoryMiB":128}}`,
		"tools/sh/tool.sh":        "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/sh/tool.meta.json": `{"name":"sh","description":"evaluate a snippet","inputSchema":{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]}}`,
		"data/inside.txt":         "inside\n",
	})
	wasmtest.Copy(t, probe, filepath.Join(root, "tools", "probe", "tool.wasm"))
	wasmtest.Copy(t, probe, filepath.Join(root, "bin", "probe.wasm"))
	p := wasmProject{root: root, data: filepath.Join(root, "data"), outside: filepath.Join(root, "outside"), other: filepath.Join(root, "other")}
	for _, d := range []string{p.outside, p.other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "secret.txt"), []byte(wasmCanary+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"planted-etc": "/etc/passwd", "planted-etc-dir": "/etc",
		"planted-secret": filepath.Join(p.outside, "secret.txt"), "planted-dir": "../outside",
	} {
		if err := os.Symlink(target, filepath.Join(p.data, link)); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// start serves the project with data/ as the only root: the tool's directory is then a
// read-only root of its own, and the project's other directories are outside the roots.
func (p wasmProject) start(t *testing.T, env ...string) *harness.Client {
	t.Helper()
	// The default timeout is a backstop; tests of the timeout set theirs per call.
	env = append([]string{"MCPBASH_ROOTS=" + p.data, "XDG_CACHE_HOME=" + wasmCacheHome(t), "MCPBASH_DEFAULT_TOOL_TIMEOUT=120"}, env...)
	c := harness.Start(t, harness.Options{Dir: p.root, Env: env})
	c.Initialize("2025-11-25", nil)
	// The first call compiles the probe (a Go guest: seconds on a loaded machine; the server
	// compiles on first use): wait for it here, with room for it, so later calls and their
	// timeouts measure what they mean to.
	m := c.CallWithin(3*time.Minute, "tools/call", map[string]any{"name": "probe", "timeoutSecs": 170,
		"arguments": map[string]any{"mode": "read", "path": filepath.Join(p.data, "inside.txt")}})
	if out := text(m); !strings.Contains(out, "OK inside") {
		t.Fatalf("warm-up call: %s", out)
	}
	return c
}

func probeCall(t *testing.T, c *harness.Client, args map[string]any) harness.Msg {
	t.Helper()
	return c.Call("tools/call", map[string]any{"name": "probe", "arguments": args})
}

// assertServing checks that the server still answers a normal call.
func assertServing(t *testing.T, c *harness.Client, p wasmProject) {
	t.Helper()
	if out := text(probeCall(t, c, map[string]any{"mode": "read", "path": filepath.Join(p.data, "inside.txt")})); !strings.Contains(out, "OK inside") {
		t.Fatalf("server no longer serves: %s", out)
	}
}

// TestWasmEscapes runs each escape attempt in a guest, as a tool and as a command from a
// script: every one is refused, the canary never shows up in anything the server wrote, and
// nothing is written outside the roots or into the read-only tool directory.
func TestWasmEscapes(t *testing.T) {
	p := newWasmProject(t)
	c := p.start(t)
	toolDir := filepath.Join(p.root, "tools", "probe")
	secret := filepath.Join(p.outside, "secret.txt")
	relSecret, _ := filepath.Rel(toolDir, secret) // the guest starts in the tool's directory
	d := p.data
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"DotDotRelative", map[string]any{"mode": "read", "path": relSecret}},
		{"DotDotFromRoot", map[string]any{"mode": "read", "path": d + "/../outside/secret.txt"}},
		{"DotDotMany", map[string]any{"mode": "read", "path": "../../../../../../../../../.." + secret}},
		{"AbsoluteOutside", map[string]any{"mode": "read", "path": secret}},
		{"AbsoluteEtc", map[string]any{"mode": "read", "path": "/etc/passwd"}},
		{"ProcSelf", map[string]any{"mode": "read", "path": "/proc/self/environ"}},
		{"RootNotGiven", map[string]any{"mode": "read", "path": filepath.Join(p.other, "secret.txt")}},
		{"ProjectOutsideRoots", map[string]any{"mode": "read", "path": filepath.Join(p.root, "server.d", "server.meta.json")}},
		{"ListRootNotGiven", map[string]any{"mode": "list", "path": p.other}},
		{"PlantedSymlinkEtc", map[string]any{"mode": "read", "path": d + "/planted-etc"}},
		{"PlantedSymlinkEtcDir", map[string]any{"mode": "read", "path": d + "/planted-etc-dir/passwd"}},
		{"PlantedSymlinkOutside", map[string]any{"mode": "read", "path": d + "/planted-secret"}},
		{"PlantedSymlinkDotDot", map[string]any{"mode": "read", "path": d + "/planted-dir/secret.txt"}},
		{"ListPlantedDir", map[string]any{"mode": "list", "path": d + "/planted-dir"}},
		{"WritePlantedSymlinkOutside", map[string]any{"mode": "write", "path": d + "/planted-secret"}},
		{"WritePlantedSymlinkDotDot", map[string]any{"mode": "write", "path": d + "/planted-dir/new.txt"}},
		{"WritePlantedSymlinkEtc", map[string]any{"mode": "append", "path": d + "/planted-etc"}},
		{"WriteAbsoluteOutside", map[string]any{"mode": "write", "path": filepath.Join(p.outside, "new.txt")}},
		{"WriteDotDot", map[string]any{"mode": "write", "path": d + "/../outside/new2.txt"}},
		{"WriteReadOnlyToolDir", map[string]any{"mode": "write", "path": filepath.Join(toolDir, "tool.meta.json")}},
		{"CreateInReadOnlyToolDir", map[string]any{"mode": "write", "path": filepath.Join(toolDir, "new.txt")}},
		{"MkdirOutside", map[string]any{"mode": "mkdir", "path": filepath.Join(p.outside, "made")}},
		{"RemoveOutside", map[string]any{"mode": "remove", "path": secret}},
		{"RenameOut", map[string]any{"mode": "rename", "target": d + "/inside.txt", "path": filepath.Join(p.outside, "moved.txt")}},
		{"GuestSymlinkAbsolute", map[string]any{"mode": "symlink", "path": d + "/made-abs", "target": secret}},
		{"GuestSymlinkEtc", map[string]any{"mode": "symlink", "path": d + "/made-etc", "target": "/etc/passwd"}},
		{"GuestSymlinkDotDot", map[string]any{"mode": "symlink", "path": d + "/made-rel", "target": "../outside/secret.txt"}},
		{"HardLinkOutside", map[string]any{"mode": "link", "path": d + "/hard", "target": secret}},
		{"HardLinkInside", map[string]any{"mode": "link", "path": d + "/hard2", "target": d + "/inside.txt"}},
		{"HardLinkPlanted", map[string]any{"mode": "link", "path": d + "/hard3", "target": d + "/planted-etc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := text(probeCall(t, c, tc.args))
			if !strings.HasPrefix(out, "ERR") {
				t.Errorf("not refused: %s", out)
			}
		})
	}
	// The same from a script, through the command bin/probe.wasm.
	for _, tc := range []struct{ name, script string }{
		{"CommandAbsolute", "probe read " + secret},
		{"CommandDotDot", "cd " + d + " && probe read ../outside/secret.txt"},
		{"CommandPlanted", "probe read " + d + "/planted-secret; probe read " + d + "/planted-dir/secret.txt"},
		{"CommandWritePlanted", "probe write " + d + "/planted-dir/new3.txt"},
		{"CommandSymlink", "probe symlink " + d + "/made-cmd " + secret},
		{"CommandHardLink", "probe link " + d + "/hard-cmd " + secret},
		{"CommandRootNotGiven", "probe read " + filepath.Join(p.other, "secret.txt")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := text(sh(t, c, tc.script))
			if !strings.Contains(out, "ERR") || strings.Contains(out, "OK") {
				t.Errorf("not refused: %s", out)
			}
		})
	}
	// Control: inside the roots works, both ways.
	if out := text(probeCall(t, c, map[string]any{"mode": "write", "path": d + "/written.txt"})); !strings.HasPrefix(out, "OK") {
		t.Errorf("write inside the root failed: %s", out)
	}
	if out := text(sh(t, c, "cd "+d+" && probe read inside.txt")); !strings.Contains(out, "OK inside") {
		t.Errorf("command read inside the root failed: %s", out)
	}
	for _, l := range c.Lines() {
		if strings.Contains(string(l), wasmCanary) || strings.Contains(string(l), "root:x:0:0") {
			t.Errorf("secret leaked: %.300s", l)
		}
	}
	for _, f := range []string{filepath.Join(p.outside, "new.txt"), filepath.Join(p.outside, "new2.txt"), filepath.Join(p.outside, "moved.txt"),
		filepath.Join(p.outside, "new3.txt"), filepath.Join(p.outside, "made"), filepath.Join(toolDir, "new.txt")} {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("%s was created", f)
		}
	}
	if b, _ := os.ReadFile(secret); string(b) != wasmCanary+"\n" {
		t.Errorf("secret changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(toolDir, "tool.meta.json")); !strings.Contains(string(b), `"probe"`) {
		t.Errorf("tool metadata changed: %q", b)
	}
}

// TestWasmLimits ends a guest at each limit with a result that names it, and the server keeps
// serving after each. The guests never end by themselves (an endless loop or output, an hour's
// sleep, a pipe whose writer outlives the harness's backstop), so an answer naming the limit
// shows the limit ended them; where the timeout is not under test it is a 120 s backstop.
func TestWasmLimits(t *testing.T) {
	p := newWasmProject(t)
	c := p.start(t, "MCPBASH_MAX_TOOL_OUTPUT_SIZE=1048576")
	call := func(args map[string]any, timeout int) (harness.Msg, time.Duration) {
		start := time.Now()
		m := c.Call("tools/call", map[string]any{"name": "probe", "arguments": args, "timeoutSecs": timeout})
		return m, time.Since(start)
	}
	t.Run("InfiniteLoop", func(t *testing.T) {
		m, took := call(map[string]any{"mode": "loop"}, 2)
		if out := text(m); !strings.Contains(out, "timed out after 2s") {
			t.Errorf("after %v: %s", took, out)
		}
		assertServing(t, c, p)
	})
	t.Run("Sleep", func(t *testing.T) {
		m, took := call(map[string]any{"mode": "sleep"}, 1)
		if out := text(m); !strings.Contains(out, "timed out after 1s") {
			t.Errorf("after %v: %s", took, out)
		}
		assertServing(t, c, p)
	})
	t.Run("StdinNeverClosed", func(t *testing.T) {
		// A command reading a pipe whose writer never closes it.
		start := time.Now()
		m := c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "{ echo x; sleep 100000; } | probe stdin"}, "timeoutSecs": 2})
		if out := text(m); !strings.Contains(out, "timed out after 2s") {
			t.Errorf("after %v: %s", time.Since(start), out)
		}
		assertServing(t, c, p)
	})
	t.Run("Memory", func(t *testing.T) {
		m, took := call(map[string]any{"mode": "alloc"}, 120)
		var r struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
		}
		m.Decode(t, &r)
		if out := text(m); !r.IsError || !strings.Contains(out, "memory limit (128 MiB") {
			t.Errorf("after %v: %s", took, out)
		}
		assertServing(t, c, p)
	})
	t.Run("MemoryInCommand", func(t *testing.T) {
		out := text(sh(t, c, "probe alloc; echo status=$?"))
		if !strings.Contains(out, "exceeded the memory limit (256 MiB") || strings.Contains(out, "status=0") {
			t.Errorf("%s", out)
		}
		assertServing(t, c, p)
	})
	t.Run("EndlessOutput", func(t *testing.T) {
		m, took := call(map[string]any{"mode": "spew"}, 120)
		if !strings.Contains(string(m.Result), `"isError":true`) || text(m) != "Tool output exceeded 1048576 bytes" {
			t.Errorf("after %v: %.300s", took, m.Raw)
		}
		assertServing(t, c, p)
	})
	t.Run("EndlessOutputFromCommand", func(t *testing.T) {
		m := c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "probe spew"}, "timeoutSecs": 120})
		if !strings.Contains(string(m.Result), `"isError":true`) || text(m) != "Tool output exceeded 1048576 bytes" {
			t.Errorf("%.300s", m.Raw)
		}
		assertServing(t, c, p)
	})
}

// TestWasmContract checks the tool contract (arguments, environment, stdout, exit status,
// stderr, progress and logs) and commands in pipelines.
func TestWasmContract(t *testing.T) {
	p := newWasmProject(t)
	c := p.start(t, "MCPBASH_TOOL_ERRORS=jsonrpc") // the original's error shapes
	t.Run("ArgumentsOnStdinAndEnv", func(t *testing.T) {
		var r struct {
			StructuredContent struct {
				Args  map[string]any `json:"args"`
				Stdin string         `json:"stdin"`
			} `json:"structuredContent"`
		}
		probeCall(t, c, map[string]any{"mode": "args"}).Decode(t, &r)
		if r.StructuredContent.Args["mode"] != "args" {
			t.Errorf("args: %+v", r.StructuredContent)
		}
		var e struct {
			StructuredContent struct {
				Args []string `json:"args"`
				Cwd  string   `json:"cwd"`
				Env  []string `json:"env"`
			} `json:"structuredContent"`
		}
		probeCall(t, c, map[string]any{"mode": "env"}).Decode(t, &e)
		env := strings.Join(e.StructuredContent.Env, "\n")
		if !strings.Contains(env, `MCP_TOOL_ARGS_JSON={"mode":"env"}`) || !strings.Contains(env, "MCP_TOOL_NAME=probe") ||
			!strings.Contains(env, "USER=mcp") || strings.Contains(env, "XDG_CACHE_HOME") {
			t.Errorf("environment: %s", env)
		}
		if e.StructuredContent.Cwd != p.root || len(e.StructuredContent.Args) != 1 {
			t.Errorf("cwd %q args %v", e.StructuredContent.Cwd, e.StructuredContent.Args)
		}
	})
	t.Run("ExitStatusAndStderr", func(t *testing.T) {
		m := probeCall(t, c, map[string]any{"mode": "exit", "code": 3})
		if m.Error == nil || !strings.Contains(string(m.Error.Data), `"exitCode":3`) || !strings.Contains(string(m.Error.Data), "exiting with 3") {
			t.Errorf("%s", m.Raw)
		}
	})
	t.Run("Fail", func(t *testing.T) {
		m := probeCall(t, c, map[string]any{"mode": "fail"})
		if m.Error == nil || m.Error.Code != -32001 || m.Error.Message != "probe failed on purpose" {
			t.Errorf("%s", m.Raw)
		}
	})
	t.Run("ProgressAndLogs", func(t *testing.T) {
		m := c.Call("tools/call", map[string]any{"name": "probe", "arguments": map[string]any{"mode": "progress"},
			"_meta": map[string]any{"progressToken": "wasm-p"}})
		if out := text(m); !strings.Contains(out, "done") {
			t.Fatalf("%s", out)
		}
		var progress, logs int
		for _, l := range c.Lines() {
			msg := harness.ParseMsg(l)
			switch {
			case msg.Method == "notifications/progress" && strings.Contains(string(msg.Params), `"wasm-p"`):
				progress++
			case msg.Method == "notifications/message" && strings.Contains(string(msg.Params), `"probe"`):
				logs++
				if strings.Contains(string(msg.Params), `"k"`) && !strings.Contains(string(msg.Params), `"data":{"k":1}`) {
					t.Errorf("JSON log data not passed as JSON: %s", msg.Params)
				}
			}
		}
		if progress != 3 || logs != 2 {
			t.Errorf("progress %d, logs %d", progress, logs)
		}
	})
	t.Run("CommandPipeline", func(t *testing.T) {
		out := text(sh(t, c, `printf 'a\nb\n' | probe upper | tr -d '\n'; echo; export GREETING=hi; probe env | jq -r '.env[] | select(startswith("GREETING="))'; cd `+p.data+` && probe env | jq -r .cwd; probe exit 7; echo "status=$?"; type probe`))
		for _, want := range []string{"AB", "GREETING=hi", p.data, "status=7",
			"probe is hashed (" + filepath.Join(p.root, "bin", "probe.wasm") + ")"} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q in:\n%s", want, out)
			}
		}
	})
	t.Run("UnknownCommandStill127", func(t *testing.T) {
		if out := text(sh(t, c, "nosuchwasm; echo status=$?")); !strings.Contains(out, "status=127") {
			t.Errorf("%s", out)
		}
	})
}

// TestWasmCacheOutsideRoots (T-WASM-3): compiled code is cached under XDG_CACHE_HOME, and a
// cache directory inside a root (where a tool could plant native code) is refused: the server
// says so, keeps compiled code in memory, and never writes an entry or a key there.
func TestWasmCacheOutsideRoots(t *testing.T) {
	p := newWasmProject(t)
	xdg := t.TempDir()
	c := p.start(t, "XDG_CACHE_HOME="+xdg)
	assertServing(t, c, p)
	entries, _ := filepath.Glob(filepath.Join(xdg, "mcp-bash", "wazero-*", "*"))
	if len(entries) == 0 {
		t.Errorf("nothing cached under %s", xdg)
	}

	inside := filepath.Join(p.data, "wasm-cache")
	c2 := p.start(t, "MCPBASH_WASM_CACHE_DIR="+inside)
	assertServing(t, c2, p)
	if !strings.Contains(c2.Stderr(), "contains the wasm compilation cache") {
		t.Errorf("no warning on stderr:\n%s", c2.Stderr())
	}
	if ents, _ := os.ReadDir(inside); len(ents) > 0 {
		t.Errorf("the cache inside the root at %s was used: %v", inside, ents)
	}
	if _, err := os.Stat(wasm.CacheKeyPath(inside)); err == nil {
		t.Errorf("a key was made inside the root")
	}
}

// TestWasmStaticPlan: validate and run-tool --dry-run describe a wasm tool instead of parsing
// the module as a script, and report a module that cannot run.
func TestWasmStaticPlan(t *testing.T) {
	p := newWasmProject(t)
	env := []string{"XDG_CACHE_HOME=" + wasmCacheHome(t)}
	out, errOut, code := runCLI(t, p.root, env, "run-tool", "probe", "--dry-run", "--json")
	if code != 0 || !strings.Contains(out, `"kind": "wasm"`) || !strings.Contains(out, "WebAssembly tool under wazero: memory limit 128 MiB") {
		t.Fatalf("dry-run: exit %d\n%s\n%s", code, out, errOut)
	}
	if out, errOut, code := runCLI(t, p.root, env, "validate"); code != 0 {
		t.Fatalf("validate: exit %d\n%s\n%s", code, out, errOut)
	}
	// A tool.wasm that is not a module: an error finding, validate fails, the dry run says so.
	if err := os.WriteFile(filepath.Join(p.root, "tools", "probe", "tool.wasm"), []byte("#!/bin/sh\necho not wasm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(t, p.root, env, "validate", "--json")
	if code != 1 || !strings.Contains(out, `"kind": "wasm"`) || !strings.Contains(out, `"severity": "error"`) {
		t.Fatalf("validate of a broken module: exit %d\n%s\n%s", code, out, errOut)
	}
}

// Variables the operator names (MCPBASH_TOOL_ENV_MODE=allowlist, MCPBASH_TOOL_ENV_ALLOWLIST)
// reach a tool in every engine, the sandbox, wasm and native; others never reach the sandbox
// or wasm, and the remote token's settings reach none even when named.
func TestToolEnvAllowlistEveryEngine(t *testing.T) {
	p := newWasmProject(t)
	harness.WriteFiles(t, p.root, map[string]string{
		"tools/nat/tool.sh":        "#!/usr/bin/env bash\nprintf '%s|%s|%s' \"${API_KEY-unset}\" \"${OTHER-unset}\" \"${MCPBASH_REMOTE_TOKEN_KEY-unset}\"\n",
		"tools/nat/tool.meta.json": `{"name":"nat","description":"native env","exec":"native"}`,
	})
	named := []string{"API_KEY=k-123", "OTHER=other", "MCPBASH_REMOTE_TOKEN_KEY=custom/key", "MCPBASH_TOOL_ALLOWLIST=*"}
	for _, mode := range []string{"minimal", "allowlist"} {
		t.Run(mode, func(t *testing.T) {
			env := append([]string{"MCPBASH_TOOL_ENV_MODE=" + mode, "MCPBASH_TOOL_ENV_ALLOWLIST=API_KEY,MCPBASH_REMOTE_TOKEN_KEY"}, named...)
			c := p.start(t, env...)
			want := "unset|unset|unset"
			if mode == "allowlist" {
				want = "k-123|unset|unset"
			}
			if got := text(c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{
				"script": `printf '%s|%s|%s' "${API_KEY-unset}" "${OTHER-unset}" "${MCPBASH_REMOTE_TOKEN_KEY-unset}"`}})); got != want {
				t.Errorf("sandbox: %q, want %q", got, want)
			}
			if got := text(c.Call("tools/call", map[string]any{"name": "nat", "arguments": map[string]any{}})); got != want {
				t.Errorf("native: %q, want %q", got, want)
			}
			// The first call may wait for the module's compilation (cached afterwards).
			c.Send(`{"jsonrpc":"2.0","id":"env","method":"tools/call","params":{"name":"probe","arguments":{"mode":"env"}}}`)
			m := c.WaitFor(2*time.Minute, "probe env", func(m harness.Msg) bool { return string(m.ID) == `"env"` })
			var out struct{ Env []string }
			if err := json.Unmarshal([]byte(text(m)), &out); err != nil {
				t.Fatal(err)
			}
			has := map[string]bool{}
			for _, kv := range out.Env {
				has[kv] = true
			}
			if has["API_KEY=k-123"] != (mode == "allowlist") || has["OTHER=other"] || has["MCPBASH_REMOTE_TOKEN_KEY=custom/key"] {
				t.Errorf("wasm env: %v", out.Env)
			}
		})
	}
}
