package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// verbs lists the commands named under "Available Commands:" in a help text.
func verbs(help string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(help, "\n") {
		switch {
		case strings.HasPrefix(l, "Available Commands:"):
			in = true
		case in && strings.HasPrefix(l, "  "):
			out = append(out, strings.Fields(l)[0])
		case in:
			in = false
		}
	}
	return out
}

// Every verb and sub-verb, found by walking --help, answers --help with its usage and exit 0.
func TestEveryVerbHasHelp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	seen := 0
	var walk func(path []string)
	walk = func(path []string) {
		out, e, code := runCLI(t, dir, nil, append(append([]string{}, path...), "--help")...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("mcp-bash %s --help: exit %d\n%s\n%s", strings.Join(path, " "), code, out, e)
			return
		}
		seen++
		for _, v := range verbs(out) {
			if v != "help" {
				walk(append(append([]string{}, path...), v))
			}
		}
	}
	walk(nil)
	// root, the verbs of COMPAT §2 and ours, and the sub-verbs of scaffold, registry, completion.
	if seen < 20 {
		t.Errorf("walked only %d commands", seen)
	}
	for _, v := range []string{"bundle", "doctor", "run-tool", "validate", "config", "health", "debug", "scaffold", "registry", "completion", "new", "init"} {
		out, _, _ := runCLI(t, dir, nil, "--help")
		if !strings.Contains(out, "\n  "+v+" ") {
			t.Errorf("root help does not list %s", v)
		}
	}
}

// Shell completion scripts for bash, zsh, fish and PowerShell.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for shell, marker := range map[string]string{
		"bash":       "bash completion V2 for mcp-bash",
		"zsh":        "#compdef mcp-bash",
		"fish":       "complete -c mcp-bash",
		"powershell": "Register-ArgumentCompleter",
	} {
		out, e, code := runCLI(t, t.TempDir(), nil, "completion", shell)
		if code != 0 || !strings.Contains(out, marker) {
			t.Errorf("completion %s: exit %d, want %q\n%.300s\n%s", shell, code, marker, out, e)
		}
	}
}

// doctor --json: the binary's Go version, the platform, Landlock, the wasm cache (path and
// whether it exists), the roots and the project checks; exit 1 when a project check fails.
func TestDoctorJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runCLI(t, dir, nil, "new", "p")
	proj := filepath.Join(dir, "p")
	cache := t.TempDir()
	out, e, code := runCLI(t, proj, []string{"XDG_CACHE_HOME=" + cache}, "doctor", "--json")
	var r struct {
		Go, Platform, Binary, Version string
		LandlockABI                   *int `json:"landlockABI"`
		WasmCache                     struct {
			Dir    string
			Exists *bool
		}
		Roots []struct {
			Path, Name, URI string
		}
		Project struct {
			Root   string
			Checks map[string]bool
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out, e)
	}
	if r.Go != runtime.Version() || r.Platform != runtime.GOOS+"/"+runtime.GOARCH || r.LandlockABI == nil || r.Binary == "" || r.Version == "" {
		t.Errorf("binary and platform: %s", out)
	}
	if !strings.HasPrefix(r.WasmCache.Dir, cache+"/mcp-bash/") || r.WasmCache.Exists == nil || *r.WasmCache.Exists {
		t.Errorf("wasm cache under XDG_CACHE_HOME: %s", out)
	}
	if len(r.Roots) != 1 || r.Roots[0].Path != proj || r.Project.Root != proj || !r.Project.Checks["serverMeta"] {
		t.Errorf("roots and project: %s", out)
	}
	// Text output names the same things.
	out, _, code = runCLI(t, proj, nil, "doctor")
	for _, k := range []string{"go:", "platform:", "wasmCache:", "roots:", "project:"} {
		if code != 0 || !strings.Contains(out, k) {
			t.Errorf("doctor text lacks %s (exit %d):\n%s", k, code, out)
		}
	}
	// Outside a project: still a report, project and roots null.
	out, _, code = runCLI(t, t.TempDir(), nil, "doctor", "--json")
	if code != 0 || !strings.Contains(out, `"project": null`) || !strings.Contains(out, `"roots": null`) {
		t.Errorf("no project: exit %d\n%s", code, out)
	}
	// A failing project check is exit 1.
	os.WriteFile(filepath.Join(proj, "server.d", "register.json"), []byte(`{not json`), 0o644)
	out, _, code = runCLI(t, proj, nil, "doctor", "--json")
	if code != 1 || !strings.Contains(out, `"registerJSON": false`) {
		t.Errorf("broken register.json: exit %d\n%s", code, out)
	}
}

// Verbs and exit codes the other CLI tests leave out.
func TestCLIVerbGaps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runCLI(t, dir, nil, "new", "proj")
	proj := filepath.Join(dir, "proj")
	write := func(name, body string, mode os.FileMode) {
		p := filepath.Join(proj, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("tools/slow/tool.sh", "#!/usr/bin/env bash\nsleep 30\n", 0o755)
	write("tools/slow/tool.meta.json", `{"name":"slow","description":"sleeps"}`, 0o644)
	write("tools/where/tool.sh", "#!/usr/bin/env bash\nsource \"${MCP_SDK:?}/tool-sdk.sh\"\necho \"$MCP_ROOTS_PATHS\"\n", 0o755)
	write("tools/where/tool.meta.json", `{"name":"where","description":"roots"}`, 0o644)
	write("data/keep", "", 0o644)

	for _, tc := range []struct {
		name string
		args []string
		code int
		out  []string
	}{
		{"config json", []string{"config", "--json"}, 0, []string{`"mcpServers"`, `"proj"`, `"--project-root"`}},
		{"config show", []string{"config", "--show"}, 0, []string{"MCPBASH_DEFAULT_TOOL_TIMEOUT", "30  (default)", "MCPBASH_REMOTE_TOKEN"}},
		{"config show json", []string{"config", "--show", "--json"}, 0, []string{`"name": "MCPBASH_MAX_HEAP_MB"`, `"value": "2048"`, `"set": false`}},
		{"config cursor", []string{"config", "--client", "cursor"}, 0, []string{`"mcpServers"`, `"MCPBASH_TOOL_ALLOWLIST": "*"`}},
		{"config windsurf", []string{"config", "--client", "windsurf"}, 0, []string{`"mcpServers"`}},
		{"config vscode", []string{"config", "--client", "vscode"}, 0, []string{`"servers": {`, `"proj": {`, `"type": "stdio"`, `"MCPBASH_TOOL_ALLOWLIST": "*"`}},
		{"config claude-cli", []string{"config", "--client", "claude-cli"}, 0, []string{`"name": "proj"`, `"type": "stdio"`, `"MCPBASH_PROJECT_ROOT": `}},
		{"config librechat", []string{"config", "--client", "librechat"}, 0, []string{`"name": "proj"`, `"MCPBASH_PROJECT_ROOT": `}},
		{"run-tool json", []string{"run-tool", "hello", "--json", "--args", `{"name":"J"}`}, 0, []string{`"isError":false`, "Hello, J!"}},
		{"run-tool sandbox json", []string{"run-tool", "hello", "--sandbox", "--json"}, 0, []string{`"result"`, `"access"`, `"refused":0`, `"exitCode":0`}},
		{"run-tool dry-run json", []string{"run-tool", "hello", "--dry-run", "--json"}, 0, []string{`"tool": "hello"`, `"plan"`, `"commands"`}},
		{"run-tool timeout", []string{"run-tool", "slow", "--timeout", "1"}, 1, []string{`"isError":true`}},
		{"run-tool roots", []string{"run-tool", "where", "--roots", "data"}, 0, []string{filepath.Join(proj, "data")}},
		{"run-tool verbose", []string{"run-tool", "hello", "--verbose"}, 0, []string{"Hello, World!"}},
		{"registry status json", []string{"registry", "status"}, 0, []string{`"registries"`}},
		{"health json", []string{"health"}, 0, []string{`"status": "ok"`, `"mode": "full"`, `"tools": 3`, `"projectChecks"`}},
		{"ready alias", []string{"ready"}, 0, []string{`"status": "ok"`}},
		{"validate text", []string{"validate"}, 0, []string{"0 error(s)"}},
		{"registry alone prints help", []string{"registry"}, 0, []string{"Available Commands:", "refresh"}},
		{"unknown registry verb", []string{"registry", "bogus"}, 2, nil},
		{"unknown scaffold kind", []string{"scaffold", "bogus", "x"}, 2, nil},
		{"unknown completion shell", []string{"completion", "tcsh"}, 2, nil},
		{"missing argument", []string{"scaffold", "tool"}, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, e, code := runCLI(t, proj, nil, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tc.code, out, e)
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s\nstderr: %s", w, out, e)
				}
			}
		})
	}
}

// init turns the working directory into a project; validate --strict, --fix and errors.
func TestInitAndValidateExitCodes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "here")
	os.MkdirAll(dir, 0o755)
	out, e, code := runCLI(t, dir, nil, "init", "--name", "mine")
	if code != 0 || !strings.Contains(out, "created server.d/server.meta.json") {
		t.Fatalf("init: exit %d\n%s\n%s", code, out, e)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "server.d", "server.meta.json")); !strings.Contains(string(b), `"mine"`) {
		t.Errorf("init --name: %s", b)
	}
	// A script without its executable bit is a warning: --strict fails, --fix repairs it.
	os.Chmod(filepath.Join(dir, "tools", "hello", "tool.sh"), 0o644)
	if out, _, code := runCLI(t, dir, nil, "validate", "--strict", "--json"); code != 1 || !strings.Contains(out, `"exec-bit"`) || !strings.Contains(out, `"ok": false`) {
		t.Errorf("--strict with a warning: exit %d\n%s", code, out)
	}
	if _, _, code := runCLI(t, dir, nil, "validate", "--fix"); code != 0 {
		t.Errorf("--fix: exit %d", code)
	}
	if out, _, code := runCLI(t, dir, nil, "validate", "--strict"); code != 0 {
		t.Errorf("after --fix: exit %d\n%s", code, out)
	}
	// A command the sandbox cannot run is an error with file:line and a fix.
	os.MkdirAll(filepath.Join(dir, "tools", "perl"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools", "perl", "tool.sh"), []byte("#!/usr/bin/env bash\nperl -e 1\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools", "perl", "tool.meta.json"), []byte(`{"name":"perl","description":"p"}`), 0o644)
	out, _, code = runCLI(t, dir, nil, "validate")
	if code != 1 || !strings.Contains(out, "tools/perl/tool.sh:2:") || !strings.Contains(out, "fix:") {
		t.Errorf("validate error: exit %d\n%s", code, out)
	}
	// Verbs that need a project say so, exit 1.
	if _, e, code := runCLI(t, t.TempDir(), nil, "validate"); code != 1 || !strings.Contains(e, "No MCP project found") {
		t.Errorf("no project: exit %d %s", code, e)
	}
}

// TestValidateOriginalMetaChecks: the original's validate checks (a missing name, a directory
// named otherwise than its tool, a missing shebang). A nameless tools/<dir>/tool.sh is served as
// "tool", as the original serves it, so two of them are a duplicate, named by file.
func TestValidateOriginalMetaChecks(t *testing.T) {
	t.Parallel()
	dir := writeProject(t, map[string]string{
		"server.d/server.meta.json":       `{"name":"v"}`,
		"tools/no-name/tool.meta.json":    `{"description":"d","inputSchema":{"type":"object"}}`,
		"tools/no-name/tool.sh":           "#!/usr/bin/env bash\necho a\n",
		"tools/zz/tool.meta.json":         `{"description":"d"}`,
		"tools/zz/tool.sh":                "#!/usr/bin/env bash\necho b\n",
		"tools/mismatch/tool.meta.json":   `{"name":"other-name","description":"d"}`,
		"tools/mismatch/tool.sh":          "#!/usr/bin/env bash\necho c\n",
		"tools/no-shebang/tool.meta.json": `{"name":"no-shebang","description":"d"}`,
		"tools/no-shebang/tool.sh":        "echo d\n",
	})
	out, _, code := runCLI(t, dir, nil, "validate")
	for _, want := range []string{
		`tools/no-name/tool.meta.json:1: error: missing required "name"`,
		`fix: add "name": "no-name" (until then the tool is served as "tool")`,
		`tools/zz/tool.meta.json:1: error: missing required "name"`,
		`tools/zz/tool.sh: warning: duplicate tool name "tool" (calls run ` + filepath.Join(dir, "tools", "no-name", "tool.sh") + `)`,
		`tools/mismatch/tool.meta.json:1: warning: directory name does not match tool.meta.json name "other-name"`,
		`tools/no-shebang/tool.sh: warning: missing shebang`,
		"3 tool(s) checked",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("validate lacks %q:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("validate: exit %d\n%s", code, out)
	}
}
