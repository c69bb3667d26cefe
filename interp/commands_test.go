package interp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// fakeCommands provides `shout` (upper-cases stdin, status from $SHOUT_STATUS) and would
// provide `cat` if utilities did not come first.
type fakeCommands struct{ seen []sdk.Command }

func (f *fakeCommands) Lookup(name string) string {
	if name == "shout" || name == "cat" {
		return "/virtual/" + name + ".wasm"
	}
	return ""
}

func (f *fakeCommands) Run(ctx context.Context, cmd sdk.Command) int {
	f.seen = append(f.seen, cmd)
	in, _ := io.ReadAll(cmd.Stdin)
	fmt.Fprint(cmd.Stdout, strings.ToUpper(string(in)))
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, "SHOUT_STATUS="); ok {
			var st int
			fmt.Sscan(v, &st)
			return st
		}
	}
	return 0
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
	out := e.Run(context.Background(), Job{Call: &sdk.Call{Tool: "t", Args: json.RawMessage(`{}`)}, Script: p, Dir: dir,
		ScratchBase: t.TempDir(), Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir},
		Commands: fake})
	got := string(out.Stdout)
	for _, want := range []string{"HI\n", "status=3\n", "shout is /virtual/shout.wasm\n", "/virtual/shout.wasm\n", "X\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q (stderr %s)", want, got, out.Stderr)
		}
	}
	if len(fake.seen) != 3 {
		t.Fatalf("ran %d times (cat must stay the utility)", len(fake.seen))
	}
	if c := fake.seen[0]; c.Args[0] != "shout" || c.Dir != dir || c.FS == nil || c.Program != "/virtual/shout.wasm" {
		t.Errorf("first run: %+v", c)
	}
	if fake.seen[2].Dir != "/" {
		t.Errorf("cwd not passed: %q", fake.seen[2].Dir)
	}
	if !strings.Contains(string(out.Access), `"wasm command"`) {
		t.Errorf("not in the access record: %s", out.Access)
	}
}
