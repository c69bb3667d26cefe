package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

const canary = "CANARY-7f3a9c-host-secret"

// secProject is a project with a tool that evals a snippet, plus a directory outside every
// root holding a canary file the snippets try to reach.
type secProject struct {
	root, outside string
}

func newSecProject(t *testing.T, extra map[string]string) secProject {
	t.Helper()
	files := map[string]string{
		"server.d/server.meta.json": `{"name":"sec"}`,
		"tools/sh/tool.sh":          "#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nset +e\neval \"$(mcp_args_get '.script')\"\n",
		"tools/sh/tool.meta.json":   `{"name":"sh","description":"evaluate a snippet","inputSchema":{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]},"sandbox":{"allowCommands":["python3"]}}`,
		"data/inside.txt":           "inside\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	root := writeProject(t, files)
	outside := t.TempDir()
	if real, err := filepath.EvalSymlinks(outside); err == nil {
		outside = real
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte(canary+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return secProject{root: root, outside: outside}
}

// start serves the project. The default tool timeout is a backstop against a runaway that no
// other limit ends (below the harness's, so the result says so); tests of the timeout set
// their own per call.
func (p secProject) start(t *testing.T, env ...string) *harness.Client {
	env = append(env, "MCPBASH_TEST_CANARY="+canary, "MCPBASH_DEFAULT_TOOL_TIMEOUT=120")
	c := harness.Start(t, harness.Options{Dir: p.root, Env: env})
	c.Initialize("2025-11-25", nil)
	return c
}

// sh runs a snippet and returns the whole response line (result or error).
func sh(t *testing.T, c *harness.Client, script string) harness.Msg {
	t.Helper()
	return c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": script}})
}

// text is the concatenated text content of a result, or the error message and data.
func text(m harness.Msg) string {
	if m.Error != nil {
		return m.Error.Message + "\n" + string(m.Error.Data)
	}
	var r struct {
		Content []struct{ Text string }
		Meta    map[string]any `json:"_meta"`
	}
	json.Unmarshal(m.Result, &r)
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	if s, ok := r.Meta["stderr"].(string); ok {
		b.WriteString("\n[stderr] " + s)
	}
	return b.String()
}

// TestConfinement runs each escape attempt and checks that the canary never shows up in any
// line the server wrote, and that nothing was written outside the roots.
func TestConfinement(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	secret := filepath.Join(p.outside, "secret.txt")
	rel, _ := filepath.Rel(p.root, secret)
	if err := os.Symlink(secret, filepath.Join(p.root, "data", "planted")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(p.outside, filepath.Join(p.root, "data", "planted-dir")); err != nil {
		t.Fatal(err)
	}
	c := p.start(t)
	if out := text(sh(t, c, "cat data/inside.txt")); !strings.Contains(out, "inside") {
		t.Fatalf("control read failed: %s", out)
	}
	S := secret
	for _, tc := range []struct{ name, script string }{
		{"DotDotRelative", "cat " + rel},
		{"DotDotFromRoot", "cat ../../../../../../../../" + S},
		{"AbsolutePath", "cat " + S},
		{"RedirectIn", "while read -r l; do echo \"$l\"; done < " + S},
		{"CommandSubstitutionRead", "x=$(<" + S + "); echo \"$x\""},
		{"Mapfile", "mapfile -t a < " + S + "; echo \"${a[@]:-}\""},
		{"PlantedSymlinkFile", "cat data/planted"},
		{"PlantedSymlinkDir", "cat data/planted-dir/secret.txt; ls data/planted-dir 2>&1"},
		{"CreatedSymlink", "ln -s " + S + " data/made 2>&1; cat data/made"},
		{"Source", "source " + S},
		{"DotSource", ". " + S},
		{"Cd", "cd " + p.outside + " && cat secret.txt"},
		{"CdDotDot", "cd ../../../../../../../..; cd ." + p.outside + "; cat secret.txt"},
		{"Glob", "echo " + p.outside + "/*; for f in " + p.outside + "/*; do cat \"$f\"; done"},
		{"TestExists", "[[ -e " + S + " ]] && echo EXISTS-LEAK; test -f " + S + " && echo FILE-LEAK; [ -r " + S + " ] && echo READ-LEAK; true"},
		{"Eval", "eval \"cat " + S + "\""},
		{"Trap", "trap 'cat " + S + "' EXIT"},
		{"Subshell", "(cat " + S + "); ( cd " + p.outside + "; cat secret.txt )"},
		{"Pipeline", "cat " + S + " | cat"},
		{"ProcessSubstitution", "cat <(cat " + S + ")"},
		{"FifoPathBypass", "cat \"$TMPDIR\"/../fifo/sh-interp-x 2>&1; ln -s " + S + " \"$TMPDIR/sh-interp-x\"; cat \"$TMPDIR/sh-interp-x\""},
		{"DevFd", "cat /dev/fd/3 /proc/self/environ /proc/1/root" + S + " 2>&1"},
		{"Jq", "jq -R . " + S + "; jq -n --rawfile s " + S + " '$s'"},
		{"SdkConfig", "mcp_config_load --file " + S + "; echo \"$MCP_CONFIG_JSON\""},
		{"Background", "cat " + S + " & wait"},
		{"NestedScript", "printf '#!/bin/bash\\ncat " + S + "\\n' > data/n.sh; chmod +x data/n.sh 2>/dev/null; ./data/n.sh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := sh(t, c, tc.script)
			if strings.Contains(string(m.Raw), "CANARY") {
				t.Fatalf("canary leaked: %s", m.Raw)
			}
		})
	}
	for _, l := range c.Lines() {
		if strings.Contains(string(l), "CANARY") {
			t.Fatalf("canary leaked: %s", l)
		}
	}
}

func TestNoWritesOutsideRoots(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := p.start(t)
	o := p.outside
	for _, script := range []string{
		"echo x > " + o + "/w1",
		"echo x >> " + o + "/w2",
		"cd " + o + "; echo x > w3",
		"mkdir " + o + "/w4",
		"touch " + o + "/w5; cp data/inside.txt " + o + "/w6; mv data/inside.txt " + o + "/w7",
		"ln -s data/inside.txt " + o + "/w8",
		"rm -f " + o + "/secret.txt",
		"echo x | tee " + o + "/w9",
		"exec 3>" + o + "/w10",
		"echo x > ../../../../../../../.." + o + "/w11",
	} {
		sh(t, c, script)
	}
	ents, _ := os.ReadDir(o)
	if len(ents) != 1 || ents[0].Name() != "secret.txt" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("outside dir changed: %v", names)
	}
	if _, err := os.Stat(filepath.Join(p.root, "data", "inside.txt")); err != nil {
		t.Errorf("inside file was moved out: %v", err)
	}
}

// TestNoHostIdentity: environment, home, user ids and pids are virtual.
func TestNoHostIdentity(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := p.start(t, "MCPBASH_API_TOKEN=supersecret-token")
	m := sh(t, c, `echo "pid=$$ ppid=$PPID bashpid=$BASHPID uid=$UID euid=$EUID user=$USER home=$HOME host=$HOSTNAME tilde=~ root=~root"; env; declare -p; id; whoami 2>&1; hostname 2>&1`)
	out := text(m)
	host, _ := os.Hostname()
	for _, leak := range []string{canary, "supersecret-token", fmt.Sprintf("pid=%d", os.Getpid()), "/root", os.Getenv("HOME"), "uid=0 "} {
		if leak != "" && strings.Contains(out, leak) {
			t.Errorf("leaked %q:\n%s", leak, out)
		}
	}
	if host != "" && strings.Contains(out, "host="+host) {
		t.Errorf("host name leaked:\n%s", out)
	}
	for _, want := range []string{"pid=4242", "ppid=4241", "uid=1000", "user=mcp", "tilde=" + "", "root=~root"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}

// TestTypeRevealsNoHostPaths: type / command -v / hash answer from the sandbox's view only.
func TestTypeRevealsNoHostPaths(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := p.start(t)
	out := text(sh(t, c, `type bash; command -v bash; command -v perl; type -P sh; hash gcc; echo rc=$?; type cat; command -v jq; type mcp_fail; type cd; command -V if`))
	for _, leak := range []string{"/usr/bin/bash", "/bin/bash", "perl", "/bin/sh", "gcc is"} {
		if strings.Contains(out, leak) {
			t.Errorf("host path revealed (%q):\n%s", leak, out)
		}
	}
	for _, want := range []string{"rc=1", "cat is /usr/bin/cat", "/usr/bin/jq", "mcp_fail is a function", "cd is a shell builtin", "if is a shell keyword"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q:\n%s", want, out)
		}
	}
}

// TestHostCommandsRefused: nothing outside the allowlist runs on the host; allowlisted
// commands get a fixed environment, so LD_PRELOAD cannot ride along.
func TestHostCommandsRefused(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("python3 (the allowlisted host command of these cases) is not installed")
	}
	p := newSecProject(t, nil)
	// The system python3: under Landlock an allowlisted command may use the system directories
	// and itself, not a version manager's shims in $HOME (pyenv, asdf) that exec other files.
	c := p.start(t, "PATH=/usr/bin:/bin")
	marker := filepath.Join(p.outside, "ran")
	for _, tc := range []struct{ name, script, want string }{
		{"NotAllowlisted", "touchx " + marker + "; perl -e 'open(F, \">" + marker + "\")'; echo rc=$?", "rc=127"},
		// sh is refused (dash, or bash in POSIX mode, is not reproduced); bash runs as a new
		// sandboxed shell, confined like its parent.
		{"BinSh", "/bin/sh -c 'echo pwned > " + marker + "'; echo rc=$?", "is not supported in the sandbox"},
		{"ExecBash", "exec /bin/bash -c 'echo pwned > " + marker + "'", ""},
		{"UsrBinEnvBash", "/usr/bin/env bash -c 'echo pwned > " + marker + "'; echo rc=$?", "outside the roots"},
		{"CommandBuiltin", "command bash -c 'echo pwned > " + marker + "'; echo rc=$?", "outside the roots"},
		{"LdPreload", "export LD_PRELOAD=/tmp/evil.so BASH_ENV=/x; LD_LIBRARY_PATH=/x python3 -c 'import os; print([k for k in (\"LD_PRELOAD\", \"BASH_ENV\", \"LD_LIBRARY_PATH\") if k in os.environ])'", "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := text(sh(t, c, tc.script))
			if !strings.Contains(out, tc.want) {
				t.Errorf("got:\n%s\nwant %q", out, tc.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("host command ran")
			}
		})
	}
}

// TestRunawayScriptsEnd: each runaway ends by its limit and the next call is served. Where
// the timeout is not the limit under test it is only a backstop (120 s), so that the intended
// limit is hit first however slow the machine: doubling a string to 256 MiB takes a fraction
// of a second on a quiet machine and several on a loaded one. The harness's backstop (longer
// than every timeout here) fails a call that no limit ends.
func TestRunawayScriptsEnd(t *testing.T) {
	t.Parallel()
	p := newSecProject(t, nil)
	c := p.start(t, "MCPBASH_MAX_TOOL_OUTPUT_SIZE=100000", "MCPBASH_MAX_HEAP_MB=256")
	const backstop = 120
	for _, tc := range []struct {
		name, script, want string
		timeout            int
	}{
		{"Recursion", "f(){ f; }; f", "function call depth limit", backstop},
		{"SubstitutionRecursion", "f(){ echo $(f); }; f", "call depth limit", backstop},
		{"InfiniteLoop", "while :; do :; done", "Tool (timed out after 2s|exceeded the command limit)", 2},
		{"OutputFlood", "while :; do echo yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy; done", "Tool output exceeded 100000 bytes", backstop},
		{"BackgroundJobs", "for i in 1 2 3; do sleep 100000 & done; echo started", "started", backstop},
		{"ForkBomb", "f(){ f & f; }; f", "Tool (timed out after 2s|exceeded the (command|memory|background job|function call depth) limit)", 2},
		{"StringDoubling", "x=aaaaaaaa; while :; do x=$x$x; done", "memory (limit|budget)", backstop},
		// A panic of the former interpreter: the evaluator runs it as bash does.
		{"ArrayArithmeticInBackground", "declare -a a; { (( a[1] += 10 )); echo \"a1=${a[1]}\"; } & wait", "^a1=10$", backstop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": tc.script}, "timeoutSecs": tc.timeout})
			if out := text(m); !regexp.MustCompile(tc.want).MatchString(out) {
				t.Errorf("got:\n%.500s\nwant %q", out, tc.want)
			}
			if r := c.Call("ping", nil); r.Error != nil {
				t.Fatalf("server stopped serving: %s", r.Raw)
			}
		})
	}
}
