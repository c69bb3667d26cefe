package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The original's settings that a migrated client configuration may carry.

// MCPBASH_FORCE_MINIMAL: only logging is advertised and served; the other areas answer -32601
// with the original's words.
func TestForceMinimal(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: toolsProject(t), Env: []string{"MCPBASH_FORCE_MINIMAL=true"}})
	m := c.Initialize("2025-03-26", nil)
	if !strings.Contains(string(m.Result), `"capabilities":{"logging":{}}`) {
		t.Errorf("initialize: %s", m.Raw)
	}
	for method, want := range map[string]string{
		"tools/list": "Tools capability unavailable in minimal mode", "tools/call": "Tools capability unavailable in minimal mode",
		"resources/list": "Resources capability unavailable in minimal mode", "prompts/list": "Prompts capability unavailable in minimal mode",
		"completion/complete": "Completion capability unavailable in minimal mode",
	} {
		if r := c.Call(method, map[string]any{}); r.Error == nil || r.Error.Code != -32601 || r.Error.Message != want {
			t.Errorf("%s: %s", method, r.Raw)
		}
	}
	if r := c.Call("logging/setLevel", map[string]any{"level": "DEBUG"}); r.Error != nil {
		t.Errorf("setLevel: %s", r.Raw)
	}
	if r := c.Call("logging/setLevel", map[string]any{"level": "VERBOSE"}); r.Error == nil || r.Error.Message != "Invalid log level" {
		t.Errorf("bad level: %s", r.Raw)
	}
}

// MCPBASH_DEBUG_ERRORS: a failing call names the tool, its exit code and whether a trace
// exists, in error.data (jsonrpc shape) or in the result's _meta (the default).
func TestDebugErrors(t *testing.T) {
	t.Parallel()
	dir := toolsProject(t)
	c := harness.Start(t, harness.Options{Dir: dir, Env: []string{"MCPBASH_DEBUG_ERRORS=true", "MCPBASH_TOOL_ERRORS=jsonrpc"}})
	c.Initialize("2025-11-25", nil)
	if m := call(c, "badout", nil, nil); m.Error == nil || m.Error.Code != -32603 ||
		!strings.Contains(string(m.Error.Data), `"tool":"badout"`) || !strings.Contains(string(m.Error.Data), `"exitCode":0`) ||
		!strings.Contains(string(m.Error.Data), `"traceAvailable":false`) {
		t.Errorf("jsonrpc: %s", m.Raw)
	}
	c = harness.Start(t, harness.Options{Dir: dir, Env: []string{"MCPBASH_DEBUG_ERRORS=true"}})
	c.Initialize("2025-11-25", nil)
	if m := call(c, "exit3", nil, nil); !strings.Contains(string(m.Result), `"mcpbash/debug":{"exitCode":3,"tool":"exit3","traceAvailable":false}`) {
		t.Errorf("result: %s", m.Raw)
	}
}

// scriptsProject has resource providers and completion scripts that need the host: git (an
// allowlisted command), real bash (native), the operator's variables and the JSON tool.
func scriptsProject(t *testing.T) string {
	return writeProject(t, map[string]string{
		"server.d/server.meta.json": `{"name":"scripts"}`,
		"server.d/register.json": `{"version":1,"completions":[` +
			`{"name":"jq.completion","path":"completions/jq.sh"},` +
			`{"name":"nat.completion","path":"completions/nat.sh","exec":"native"}]}`,
		"resources/git.meta.json": `{"name":"git","uri":"gitv://x","provider":"gitv"}`,
		"resources/nat.meta.json": `{"name":"nat","uri":"nat://x","provider":"nat"}`,
		"resources/env.meta.json": `{"name":"env","uri":"env://x","provider":"env"}`,
		// git is allowed by the provider's metadata; without it the same script is refused.
		"providers/gitv.sh":           "#!/usr/bin/env bash\nset -o pipefail\ngit --version | cut -d' ' -f1\n",
		"providers/gitv.sh.meta.json": `{"sandbox":{"allowCommands":["git"]}}`,
		"providers/nat.sh":            "#!/usr/bin/env bash\n" + `case "$(readlink /proc/$$/exe)" in */bash) echo "native $1" ;; *) echo "sandbox $1" ;; esac` + "\n",
		"providers/nat.sh.meta.json":  `{"exec":"native"}`,
		"providers/env.sh":            "#!/usr/bin/env bash\nprintf 'secret=%s' \"${SECRET_X:-absent}\"\n",
		"completions/jq.sh":           "#!/usr/bin/env bash\n\"$MCPBASH_JSON_TOOL_BIN\" -cn --arg s \"${SECRET_X:-absent}\" '[\"alpha\", $s]'\n",
		"completions/nat.sh":          "#!/usr/bin/env bash\n" + `case "$(readlink /proc/$$/exe)" in */bash) echo '["native"]' ;; *) echo '["sandbox"]' ;; esac` + "\n",
	})
}

func readText(t *testing.T, c *harness.Client, uri string) string {
	t.Helper()
	m := c.Call("resources/read", map[string]any{"uri": uri})
	if m.Error != nil {
		return "error: " + m.Error.Message
	}
	var r struct{ Contents []struct{ Text string } }
	m.Decode(t, &r)
	if len(r.Contents) == 0 {
		return ""
	}
	return strings.TrimSpace(r.Contents[0].Text)
}

func complete(t *testing.T, c *harness.Client, name string) string {
	t.Helper()
	m := c.Call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": name}, "argument": map[string]any{"name": "q", "value": ""}})
	if m.Error != nil {
		return "error: " + m.Error.Message
	}
	var r struct{ Completion struct{ Values []string } }
	m.Decode(t, &r)
	return strings.Join(r.Completion.Values, ",")
}

// Providers and completion scripts choose their engine as tools do: host commands their
// metadata allows, native bash with the operator's consent; they get the JSON tool and the
// operator's variables named by MCPBASH_PROVIDER_ENV_ALLOWLIST, in the sandbox and natively.
func TestProviderAndCompletionEngines(t *testing.T) {
	t.Parallel()
	dir := scriptsProject(t)
	env := []string{"SECRET_X=from-host"}
	t.Run("defaults", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: dir, Env: env})
		c.Initialize("2025-11-25", nil)
		for uri, want := range map[string]string{
			"gitv://x": "git",
			"nat://x":  "error: providers/nat.sh: asks for native exec; allow it with MCPBASH_TOOL_ALLOWLIST=providers/nat.sh (or *), or run the server with --exec=native",
			"env://x":  "secret=absent",
		} {
			if got := readText(t, c, uri); got != want {
				t.Errorf("%s: %q, want %q", uri, got, want)
			}
		}
		if got := complete(t, c, "jq.completion"); got != "alpha,absent" {
			t.Errorf("jq.completion: %q", got)
		}
		if got := complete(t, c, "nat.completion"); !strings.Contains(got, "asks for native exec") {
			t.Errorf("nat.completion: %q", got)
		}
	})
	t.Run("consent and allowlist", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: dir, Env: append([]string{"MCPBASH_TOOL_ALLOWLIST=*",
			"MCPBASH_PROVIDER_ENV_MODE=allowlist", "MCPBASH_PROVIDER_ENV_ALLOWLIST=SECRET_X"}, env...)})
		c.Initialize("2025-11-25", nil)
		for uri, want := range map[string]string{"gitv://x": "git", "nat://x": "native nat://x", "env://x": "secret=from-host"} {
			if got := readText(t, c, uri); got != want {
				t.Errorf("%s: %q, want %q", uri, got, want)
			}
		}
		if got := complete(t, c, "jq.completion"); got != "alpha,from-host" {
			t.Errorf("jq.completion: %q", got)
		}
		if got := complete(t, c, "nat.completion"); got != "native" {
			t.Errorf("nat.completion: %q", got)
		}
	})
	t.Run("exec native for everything", func(t *testing.T) {
		t.Parallel()
		c := harness.Start(t, harness.Options{Dir: dir, Args: []string{"--exec=native"}, Env: append([]string{
			"MCPBASH_PROVIDER_ENV_MODE=allowlist", "MCPBASH_PROVIDER_ENV_ALLOWLIST=SECRET_X"}, env...)})
		c.Initialize("2025-11-25", nil)
		for uri, want := range map[string]string{"nat://x": "native nat://x", "env://x": "secret=from-host"} {
			if got := readText(t, c, uri); got != want {
				t.Errorf("%s: %q, want %q", uri, got, want)
			}
		}
		if got := complete(t, c, "jq.completion"); got != "alpha,from-host" {
			t.Errorf("jq.completion: %q", got)
		}
	})
	t.Run("a command the metadata does not allow", func(t *testing.T) {
		t.Parallel()
		d := scriptsProject(t)
		if err := os.Remove(filepath.Join(d, "providers", "gitv.sh.meta.json")); err != nil {
			t.Fatal(err)
		}
		c := harness.Start(t, harness.Options{Dir: d})
		c.Initialize("2025-11-25", nil)
		if got := readText(t, c, "gitv://x"); !strings.Contains(got, "git: command not found") {
			t.Errorf("got %q", got)
		}
	})
}

// run-tool prints its answer on one compact line when stdout is not a terminal, as the
// original does (scripts pipe it to tail -n1 or jq).
func TestRunToolPrintsOneLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, e, code := runCLI(t, dir, nil, "new", "proj"); code != 0 {
		t.Fatalf("new: %s", e)
	}
	out, e, code := runCLI(t, filepath.Join(dir, "proj"), nil, "run-tool", "hello", "--args", `{"name":"<Ada>"}`)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if code != 0 || len(lines) != 1 || !strings.Contains(lines[0], `"message":"Hello, <Ada>!"`) {
		t.Errorf("exit %d, stdout %q, stderr %s", code, out, e)
	}
}

// The original also takes notifications/cancelled with the request's id in params.id (the
// spelling before requestId).
func TestCancelledLegacyID(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := p.start(t)
	c.Send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"sh","arguments":{"script":"mcp_progress 1 started; sleep 100000"},"_meta":{"progressToken":1}}}`)
	c.WaitFor(harness.Backstop, "progress", func(m harness.Msg) bool { return m.Method == "notifications/progress" })
	c.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"id":"slow"}}`)
	c.Call("ping", nil)
	// End of input waits for every request still running: the exit proves the cancellation.
	c.CloseStdin()
	if err := c.Wait(harness.Backstop); err != nil {
		t.Errorf("server exit: %v", err)
	}
	for _, l := range c.Lines() {
		if strings.Contains(string(l), `"id":"slow"`) {
			t.Errorf("cancelled request answered: %s", l)
		}
	}
}

// server.meta.json "env": the project declares which of the operator's variables its tools and
// providers need (the original's bundle-style launch); the operator's environment still wins,
// inherit still needs the operator's consent, and any other key refuses to start.
func TestProjectEnvPolicy(t *testing.T) {
	t.Parallel()
	files := func(env string) map[string]string {
		return map[string]string{
			"server.d/server.meta.json": `{"name":"meta-env"` + env + `}`,
			"tools/show/tool.meta.json": `{"name":"show","inputSchema":{"type":"object"}}`,
			"tools/show/tool.sh":        "#!/usr/bin/env bash\nprintf '%s' \"${SECRET_X:-absent}\"\n",
			"providers/sec.sh":          "#!/usr/bin/env bash\nprintf 'secret=%s' \"${SECRET_X:-absent}\"\n",
			"resources/sec.meta.json":   `{"name":"sec","uriTemplate":"sec://{id}"}`,
		}
	}
	allow := `,"env":{"MCPBASH_TOOL_ENV_MODE":"allowlist","MCPBASH_TOOL_ENV_ALLOWLIST":"SECRET_X","MCPBASH_PROVIDER_ENV_MODE":"allowlist","MCPBASH_PROVIDER_ENV_ALLOWLIST":"SECRET_X"}`
	for _, tc := range []struct {
		name, env       string
		extra           []string
		tool, resource  string
		toolErr, refuse string
	}{
		{name: "declared", env: allow, tool: "from-host", resource: "secret=from-host"},
		{name: "not declared", tool: "absent", resource: "secret=absent"},
		{name: "operator wins", env: allow, extra: []string{"MCPBASH_TOOL_ENV_ALLOWLIST=OTHER"}, tool: "absent", resource: "secret=from-host"},
		{name: "inherit needs consent", env: `,"env":{"MCPBASH_TOOL_ENV_MODE":"inherit"}`,
			toolErr: "Tool 'show' blocked: MCPBASH_TOOL_ENV_MODE=inherit requires MCPBASH_TOOL_ENV_INHERIT_ALLOW=true", resource: "secret=absent"},
		{name: "consent is the operator's", env: `,"env":{"MCPBASH_TOOL_ENV_INHERIT_ALLOW":"true"}`,
			refuse: "env: MCPBASH_TOOL_ENV_INHERIT_ALLOW is not a setting a project may declare"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := harness.Start(t, harness.Options{Dir: writeProject(t, files(tc.env)), Env: append([]string{"SECRET_X=from-host"}, tc.extra...)})
			if tc.refuse != "" {
				if err := c.Wait(harness.Backstop); err == nil || !strings.Contains(c.Stderr(), tc.refuse) {
					t.Errorf("exit %v, stderr:\n%s", err, c.Stderr())
				}
				return
			}
			c.Initialize("2025-11-25", nil)
			m := c.Call("tools/call", map[string]any{"name": "show", "arguments": map[string]any{}})
			switch {
			case tc.toolErr != "":
				if m.Error == nil || m.Error.Message != tc.toolErr {
					t.Errorf("tool: %s", m.Raw)
				}
			case text(m) != tc.tool:
				t.Errorf("tool: %s, want %q", m.Raw, tc.tool)
			}
			r := c.Call("resources/read", map[string]any{"uri": "sec://1"})
			if !strings.Contains(string(r.Result), `"text":"`+tc.resource+`"`) {
				t.Errorf("resource: %s, want %q", r.Raw, tc.resource)
			}
		})
	}
}

// Without a project, the getting_started tool is all there is, and its text links the quick
// start and the project layout, and names MCPBASH_PROJECT_ROOT; no root is refused on the way.
func TestGettingStartedLinks(t *testing.T) {
	t.Parallel()
	c := harness.Start(t, harness.Options{Dir: t.TempDir()})
	c.Initialize("2025-11-25", nil)
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	c.Call("tools/list", nil).Decode(t, &list)
	if len(list.Tools) != 1 || list.Tools[0].Name != "getting_started" {
		t.Fatalf("tools: %+v", list.Tools)
	}
	out := text(c.Call("tools/call", map[string]any{"name": "getting_started", "arguments": map[string]any{}}))
	for _, want := range []string{"README.md#quick-start", "docs/PROJECT-STRUCTURE.md", "MCPBASH_PROJECT_ROOT"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(harness.RepoRoot(), "docs", "PROJECT-STRUCTURE.md")); err != nil {
		t.Errorf("the linked document: %v", err)
	}
	// The staged project is the session's root: it must be one a root may be (not /dev/shm).
	if e := c.Stderr(); strings.Contains(e, "refused") {
		t.Errorf("stderr: %s", e)
	}
}

// A tool.meta.json that is not JSON, or whose fields have the wrong types, is served with
// defaults: validate reports each with file, line and fix (exit 1), and the server logs each
// at start.
func TestValidateBrokenMetadata(t *testing.T) {
	t.Parallel()
	dir := writeProject(t, map[string]string{
		"server.d/server.meta.json":        `{"name":"broken"}`,
		"tools/broken_meta/tool.sh":        "#!/usr/bin/env bash\necho hi\n",
		"tools/broken_meta/tool.meta.json": "{\"name\": \"broken_meta\",\n \"description\": \"x\",\n}\n",
		"tools/badtypes/tool.sh":           "#!/usr/bin/env bash\necho hi\n",
		"tools/badtypes/tool.meta.json":    "{\"name\": \"badtypes\",\n \"description\": 5,\n \"inputSchema\": {\"type\": \"objekt\", \"properties\": []}}\n",
		// Well-typed fields whose schemas break their metaschema: every call would fail.
		"tools/badschema/tool.sh":        "#!/usr/bin/env bash\necho hi\n",
		"tools/badschema/tool.meta.json": `{"name": "badschema", "description": "x", "inputSchema": {"type": "object", "properties": {"n": {"type": "strin"}}}, "outputSchema": {"type": "object", "minProperties": "x"}}`,
	})
	out, errOut, code := runCLI(t, dir, nil, "validate")
	for _, want := range []string{
		"tools/broken_meta/tool.meta.json:3:2: error: invalid JSON: invalid character '}' looking for beginning of object key string",
		"tools/badtypes/tool.meta.json:2:2: error: \"description\" must be a string, not a number\n    fix: write \"description\": \"...\"",
		"tools/badtypes/tool.meta.json:3:2: error: inputSchema.type must be \"object\", not \"objekt\"",
		"tools/badtypes/tool.meta.json:3:2: error: inputSchema.properties must be an object (one schema per argument), not an array",
		"tools/badschema/tool.meta.json: error: inputSchema is not a valid JSON Schema (every call of the tool fails): /properties/n/type: value must be one of",
		"tools/badschema/tool.meta.json: error: outputSchema is not a valid JSON Schema (every call of the tool fails): /minProperties: got string, want integer",
		"6 error(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("validate exit %d, want 1\n%s%s", code, out, errOut)
	}
	// validate wrote the registry cache: the server logs the problems all the same, and lists
	// schemas MCP accepts.
	c := harness.Start(t, harness.Options{Dir: dir})
	c.Initialize("2025-11-25", nil)
	c.Call("tools/list", nil)
	for _, want := range []string{
		"broken_meta/tool.meta.json:3:2: invalid JSON: invalid character '}'",
		"badtypes/tool.meta.json:2:2: \"description\" must be a string, not a number (fix: write \"description\": \"...\")",
		"badtypes/tool.meta.json:3:2: inputSchema.properties must be an object",
	} {
		if !strings.Contains(c.Stderr(), want) {
			t.Errorf("server log lacks %q:\n%s", want, c.Stderr())
		}
	}
}

// A client that declares roots but lists none (the Inspector CLI, go-sdk) offers no roots: tools
// get the fallback (here the project root, read-only), not nothing.
func TestEmptyClientRootsFallBack(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := harness.Start(t, harness.Options{Dir: p.root})
	c.Initialize("2025-11-25", map[string]any{"roots": map[string]any{"listChanged": true}})
	req := c.WaitFor(harness.Backstop, "roots/list request", func(m harness.Msg) bool { return m.Method == "roots/list" })
	c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"roots":[]}}`, req.ID))
	// The first call waits for that answer.
	out := text(sh(t, c, "mcp_roots_count; cat "+p.root+"/data/inside.txt >/dev/null 2>&1 && echo readable || echo denied"))
	if out != "1\nreadable" {
		t.Errorf("empty list: %q, want the project root as the one root", out)
	}
}

// A refused write says why, with the path as the script wrote it: outside the roots, or a
// read-only root; in a redirection and in a utility. Reads outside the roots still find nothing.
func TestRefusedWritesSayWhy(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := p.start(t)
	for _, tc := range []struct{ script, want string }{
		{"echo x > /etc/mcp-bash-probe", "/etc/mcp-bash-probe: Permission denied (sandbox: outside the roots)"},
		// GNU mkdir quotes with the locale's quotes (the sandbox's is C.UTF-8).
		{"mkdir /opt/mcp-bash-probe", "mkdir: cannot create directory \u2018/opt/mcp-bash-probe\u2019: Permission denied (sandbox: outside the roots)"},
		{"echo x >> tools/sh/tool.sh", " tools/sh/tool.sh: Permission denied (sandbox: read-only root)"},
		{"cat /etc/shadow", "cat: /etc/shadow: No such file or directory"},
	} {
		// A failed redirection reports on the script's stderr, which the result appends.
		m := sh(t, c, tc.script+" 2>&1; echo rc=$?")
		if out := text(m); !strings.Contains(out, tc.want) || !strings.Contains(out, "rc=1") {
			t.Errorf("%s: %q, want %q", tc.script, out, tc.want)
		}
	}
}

// MCPBASH_SERVER_NAME names a project whose server.meta.json gives no name (serverInfo and the
// title derived from it, as the original's runtime does); a meta name wins over it.
func TestServerNameFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, meta, wantName, wantTitle string
	}{
		{"no meta", "", "mcp-server", "Mcp Server"},
		{"meta without name", `{"version":"1.0.0"}`, "mcp-server", "Mcp Server"},
		{"meta name wins", `{"name":"from-meta"}`, "from-meta", "From Meta"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			files := map[string]string{
				"tools/hello/tool.meta.json": `{"name":"hello","description":"hi","inputSchema":{"type":"object"}}`,
				"tools/hello/tool.sh":        "#!/usr/bin/env bash\necho hi\n",
			}
			if tc.meta != "" {
				files["server.d/server.meta.json"] = tc.meta
			}
			writeTree(t, dir, files)
			c := harness.Start(t, harness.Options{Dir: dir, Env: []string{"MCPBASH_PROJECT_ROOT=" + dir, "MCPBASH_SERVER_NAME=mcp-server"}})
			m := c.Initialize("2025-11-25", nil)
			if m.Error != nil {
				t.Fatalf("initialize: %s", m.Raw)
			}
			want := fmt.Sprintf(`"name":%q`, tc.wantName)
			if !strings.Contains(string(m.Result), want) || !strings.Contains(string(m.Result), fmt.Sprintf(`"title":%q`, tc.wantTitle)) {
				t.Errorf("serverInfo: want %s and title %q in %s", want, tc.wantTitle, m.Result)
			}
		})
	}
}
