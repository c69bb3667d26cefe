package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var hooksOn = map[string]string{"MCPBASH_ALLOW_PROJECT_HOOKS": "true"}

func withEnv(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{"PATH": os.Getenv("PATH")}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func hookProject(script string, extra map[string]string) map[string]string {
	files := map[string]string{
		"tools/a/tool.sh":        "# mcp: {\"name\":\"discovered\"}",
		"tools/m/run.sh":         "echo",
		"prompts/p.txt":          "x",
		"resources/r.txt":        "r",
		"server.d/register.sh+x": "#!/usr/bin/env bash\ntouch \"$MCPBASH_PROJECT_ROOT/ran\"\n" + script + "\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

func ran(f *fixture) bool {
	_, err := os.Stat(filepath.Join(f.dir, "ran"))
	return err == nil
}

func warned(f *fixture, s string) bool {
	for _, w := range f.warnings {
		if strings.Contains(w.Message, s) {
			return true
		}
	}
	return false
}

// register.sh runs in real bash with MCPBASH_ALLOW_PROJECT_HOOKS, else in the sandbox (where the
// project is read-only, so its touch fails), and not at all in static mode; register.json beats
// it. Each case says once how it ran, or why it did not.
func TestRegisterShGating(t *testing.T) {
	script := `mcp_register_tool '{"name":"hooked","path":"m/run.sh"}'`
	for _, tc := range []struct {
		name    string
		env     map[string]string
		extra   map[string]string
		tools   string
		runs    bool
		warning string
	}{
		{name: "hooks off: sandboxed", env: withEnv(nil), tools: "hooked", warning: "runs in the sandbox because project hooks are off"},
		{name: "hooks off (false): sandboxed", env: withEnv(nil, "MCPBASH_ALLOW_PROJECT_HOOKS", "false"), tools: "hooked",
			warning: "set MCPBASH_ALLOW_PROJECT_HOOKS=true to run it in real bash"},
		{name: "hooks on", env: withEnv(hooksOn), tools: "hooked", runs: true, warning: "runs as real bash on this host"},
		{name: "static mode", env: withEnv(hooksOn, "MCPBASH_STATIC_REGISTRY", "1"), tools: "discovered,run", warning: "skipped in static registry mode"},
		{name: "register.json beats register.sh", env: withEnv(hooksOn), tools: "manual",
			extra: map[string]string{"server.d/register.json": `{"version":1,"tools":[{"name":"manual","path":"m/run.sh"}]}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, hookProject(script, tc.extra), tc.env)
			if got := names(f.items(t, KindTools)); got != tc.tools {
				t.Errorf("tools = %q, want %q", got, tc.tools)
			}
			if ran(f) != tc.runs {
				t.Errorf("ran = %v, want %v", ran(f), tc.runs)
			}
			if tc.warning != "" && !warned(f, tc.warning) {
				t.Errorf("warnings %+v, want %q", f.warnings, tc.warning)
			}
		})
	}
}

// Per kind: function registrations (deduplicated by name, sorted) replace discovery; the JSON
// output supplies kinds without them; other kinds are discovered. Entries are validated as
// register.json entries are.
func TestRegisterShKinds(t *testing.T) {
	f := open(t, hookProject(`
mcp_register_tool '{"name":"b","path":"m/run.sh","description":"B"}'
mcp_register_tool '{"name":"a","path":"m/run.sh"}'
mcp_register_tool '{"name":"b","path":"a/tool.sh","description":"second b"}'
mcp_completion_register_manual '{"name":"c","path":"completions/c.sh","timeoutSecs":2}'
echo '{"prompts":[{"name":"z","path":"p.txt"},{"name":"y","path":"p.txt"}]}'
`, nil), withEnv(hooksOn))
	tools := f.items(t, KindTools)
	if got := names(tools); got != "a,b" || tools[1]["description"] != "B" {
		t.Errorf("tools = %s", js(tools))
	}
	if got := names(f.items(t, KindPrompts)); got != "z,y" {
		t.Errorf("prompts from output (verbatim order) = %q", got)
	}
	if got := names(f.items(t, KindResources)); got != "r" {
		t.Errorf("resources (discovered) = %q", got)
	}
	if c := f.r.Completions(); len(c) != 1 || c[0].Name != "c" || c[0].TimeoutSecs != 2 {
		t.Errorf("completions %+v", c)
	}
	tool, err := f.r.Tool(context.Background(), "a")
	if err != nil || tool.Abs != filepath.Join(f.dir, "tools", "m", "run.sh") {
		t.Errorf("tool a: %v %+v", err, tool)
	}
}

// Every failure makes every kind fail to load, like an invalid register.json.
func TestRegisterShErrors(t *testing.T) {
	for _, tc := range []struct{ name, script, err string }{
		{"non-zero exit", "echo boom >&2; exit 4", "register.sh failed (exit status 4): boom"},
		{"entry missing a required field", `mcp_register_resource '{"name":"r"}'`, `register.sh: resources[0] needs a non-empty string "uri"`},
		{"output kind not an array", `echo '{"tools":{}}'`, `register.sh: "tools" must be an array or null`},
		{"output too large", `head -c 2000 /dev/zero | tr '\0' ' '`, "register.sh output exceeded 1024 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, hookProject(tc.script, nil), withEnv(hooksOn, "MCPBASH_MAX_MANUAL_REGISTRY_BYTES", "1024"))
			for _, k := range Kinds {
				_, err := f.r.List(context.Background(), k, "", 0)
				if !errors.Is(err, ErrLoad) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%s: err = %v, want ErrLoad with %q", k, err, tc.err)
				}
			}
		})
	}
	t.Run("untrusted", func(t *testing.T) {
		f := open(t, hookProject(`mcp_register_tool '{"name":"x","path":"m/run.sh"}'`, nil), withEnv(hooksOn))
		os.Chmod(filepath.Join(f.dir, "server.d", "register.sh"), 0o775)
		_, err := f.r.List(context.Background(), KindPrompts, "", 0)
		if !errors.Is(err, ErrLoad) || !strings.Contains(err.Error(), "server.d/register.sh refused: server.d/register.sh is group- or world-writable") {
			t.Errorf("err = %v", err)
		}
		if ran(f) {
			t.Error("untrusted register.sh ran")
		}
	})
}

// register.sh re-runs when its content changes or MCPBASH_REGISTER_TTL passes, and a fixed
// script recovers every kind.
func TestRegisterShRerun(t *testing.T) {
	f := open(t, hookProject(`echo x >> "$MCPBASH_PROJECT_ROOT/runs"
mcp_register_tool "{\"name\":\"$(cat "$MCPBASH_PROJECT_ROOT/name")\",\"path\":\"m/run.sh\"}"`,
		map[string]string{"name": "one"}), withEnv(hooksOn, "MCP_TOOLS_TTL", "0", "MCPBASH_REGISTER_TTL", "60"))
	runs := func() int {
		b, _ := os.ReadFile(filepath.Join(f.dir, "runs"))
		return strings.Count(string(b), "x")
	}
	if got := names(f.items(t, KindTools)); got != "one" || runs() != 1 {
		t.Fatalf("tools %q after %d runs", got, runs())
	}
	os.WriteFile(filepath.Join(f.dir, "name"), []byte("two"), 0o644)
	f.now = f.now.Add(time.Second)
	if got := names(f.items(t, KindTools)); got != "one" || runs() != 1 {
		t.Errorf("re-ran within MCPBASH_REGISTER_TTL: %q after %d runs", got, runs())
	}
	f.now = f.now.Add(time.Minute)
	if got := names(f.items(t, KindTools)); got != "two" || runs() != 2 {
		t.Errorf("after the TTL: %q after %d runs", got, runs())
	}
	// A content change re-runs at once; a broken script errors every kind; a fix recovers.
	script := filepath.Join(f.dir, "server.d", "register.sh")
	os.WriteFile(script, []byte("#!/usr/bin/env bash\nexit 9\n"), 0o755)
	f.now = f.now.Add(time.Second)
	if _, err := f.r.List(context.Background(), KindTools, "", 0); !errors.Is(err, ErrLoad) {
		t.Errorf("broken script: err = %v", err)
	}
	os.WriteFile(script, []byte("#!/usr/bin/env bash\nmcp_register_tool '{\"name\":\"three\",\"path\":\"m/run.sh\"}'\n"), 0o755)
	f.now = f.now.Add(time.Second)
	if got := names(f.items(t, KindTools)); got != "three" {
		t.Errorf("after the fix: %q", got)
	}
	// register.sh removed: discovery again.
	os.Remove(script)
	f.now = f.now.Add(time.Second)
	if got := names(f.items(t, KindTools)); got != "discovered,run" {
		t.Errorf("after removal: %q", got)
	}
}
