package interp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// fakeCommands provides `shout` (upper-cases stdin, status from $SHOUT_STATUS) and would
// provide `cat` if utilities did not come first.
type fakeCommands struct{ seen []fakeRun }

// fakeRun is what one run of a fake command saw.
type fakeRun struct {
	prog, dir string
	argv      []string
	env       *engine.Env
}

func (f *fakeCommands) Lookup(name string) (string, engine.Program) {
	if name != "shout" && name != "cat" {
		return "", nil
	}
	prog := "/virtual/" + name + ".wasm"
	return prog, func(ctx context.Context, env *engine.Env, argv []string) int {
		f.seen = append(f.seen, fakeRun{prog: prog, dir: env.Dir, argv: argv, env: env})
		in, _ := io.ReadAll(env.Stdin)
		fmt.Fprint(env.Stdout, strings.ToUpper(string(in)))
		for _, kv := range env.Environ() {
			if v, ok := strings.CutPrefix(kv, "SHOUT_STATUS="); ok {
				var st int
				fmt.Sscan(v, &st)
				return st
			}
		}
		return 0
	}
}

// runScript runs script as a tool over a fresh read-write root, with allow as its allowlist and
// cmds as its in-process commands.
func runScript(t *testing.T, script string, allow []string, cmds engine.Commands) *engine.Outcome {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	p := filepath.Join(dir, "tool.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	return e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t", Args: json.RawMessage(`{}`)}, Script: p, Dir: dir,
		ScratchBase: scratchFor(t, e), Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir,
			Allow: allow}, Commands: cmds})
}

func TestCommandsResolveAfterUtilities(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	p := filepath.Join(dir, "tool.sh")
	script := "printf 'hi\\n' | shout | cat; export SHOUT_STATUS=3; shout </dev/null; echo \"status=$?\"; type shout; command -v shout; cd /; echo x | shout"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeCommands{}
	out := e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t", Args: json.RawMessage(`{}`)}, Script: p, Dir: dir,
		ScratchBase: scratchFor(t, e), Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir},
		Commands: fake})
	got := string(out.Stdout)
	for _, want := range []string{"HI\n", "status=3\n", "shout is hashed (/virtual/shout.wasm)\n", "/virtual/shout.wasm\n", "X\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q (stderr %s)", want, got, out.Stderr)
		}
	}
	if len(fake.seen) != 3 {
		t.Fatalf("ran %d times (cat must stay the utility)", len(fake.seen))
	}
	if c := fake.seen[0]; c.argv[0] != "shout" || c.dir != sandbox.ShellPath(dir) || c.env.FS == nil || c.prog != "/virtual/shout.wasm" {
		t.Errorf("first run: %+v", c)
	}
	if fake.seen[2].dir != "/" {
		t.Errorf("cwd not passed: %q", fake.seen[2].dir)
	}
	if !strings.Contains(string(out.Access), `"wasm command"`) {
		t.Errorf("not in the access record: %s", out.Access)
	}
}

// TestWasmCommandNeverShadowsAllowlisted (T-EXEC-5): a wasm command named like a host command
// the tool allowlists (a planted bin/git.wasm) is never what runs; the host command is.
func TestWasmCommandNeverShadowsAllowlisted(t *testing.T) {
	fake := &fakeCommands{}
	out := runScript(t, "type shout; echo hi | shout; echo rc=$?", []string{"shout"}, fake)
	if len(fake.seen) != 0 {
		t.Errorf("the wasm command ran: %+v", fake.seen)
	}
	got := string(out.Stdout) + string(out.Stderr)
	if !strings.Contains(got, "shout is /usr/bin/shout") || strings.Contains(got, "HI") {
		t.Errorf("the allowlisted name did not resolve to the host command: %q", got)
	}
}

// TestExternalEnvironment (T-EXEC-4): an allowlisted host command's environment is a fixed
// allowlist with HOME and every XDG directory at the empty read-only home; nothing of the
// script's (GIT_*, LD_*, *_CONFIG*, PYTHON*, BASH_ENV, NODE_OPTIONS ...) reaches it.
func TestExternalEnvironment(t *testing.T) {
	got := externalEnv("/h", "/t")
	want := append([]string{"PATH=" + hostProgramPath(), "HOME=/h", "TMPDIR=/t", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"XDG_CONFIG_HOME=/h", "XDG_DATA_HOME=/h", "XDG_CACHE_HOME=/h", "XDG_STATE_HOME=/h", "XDG_CONFIG_DIRS=/h",
		"GIT_CONFIG_NOSYSTEM=1"}, hostSystemEnv()...)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("external environment:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := os.Stat("/usr/bin/perl"); err != nil || runtime.GOOS == "windows" {
		t.Skip("no /usr/bin/perl on this host (a host program that prints its environment as it got it)")
	}
	out := runScript(t, "export GIT_CONFIG_GLOBAL=/x LD_PRELOAD=/x BASH_ENV=/x PYTHONSTARTUP=/x NODE_OPTIONS=--x HOME=/x\n"+
		`perl -e 'print "$_=$ENV{$_}\n" for sort keys %ENV'`, []string{"perl"}, nil)
	lines := strings.Split(strings.TrimSpace(string(out.Stdout)), "\n")
	if len(lines) != len(want) {
		t.Fatalf("the host program saw %d variables, want %d:\n%s\nstderr: %s", len(lines), len(want), out.Stdout, out.Stderr)
	}
	for _, l := range lines {
		name, _, _ := strings.Cut(l, "=")
		if !strings.Contains(strings.Join(want, "\n")+"\n", name+"=") {
			t.Errorf("unexpected variable %s", l)
		}
		if strings.HasSuffix(l, "=/x") || strings.HasSuffix(l, "=--x") {
			t.Errorf("the script's variable reached the host command: %s", l)
		}
	}
}
