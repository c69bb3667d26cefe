package interp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// TestLongPayloadsGoThroughFiles: above the job's Spill, the contract's JSON payloads reach
// the script as the original hands them over (the variable empty, <NAME>_FILE naming a file
// with the payload); at or below it, in the variable, and <NAME>_FILE is unset.
func TestLongPayloadsGoThroughFiles(t *testing.T) {
	long := `{"s":"` + strings.Repeat("x", 300000) + `"}`
	const script = `printf 'json=%s file=%s\n' "${#MCP_TOOL_ARGS_JSON}" "${MCP_TOOL_ARGS_FILE-unset}"
[ -n "${MCP_TOOL_ARGS_FILE-}" ] && wc -c < "$MCP_TOOL_ARGS_FILE"
printf 'meta=%s metafile=%s\n' "${#MCP_TOOL_META_JSON}" "${MCP_TOOL_META_FILE-unset}"
wc -c <<< "$MCP_TOOL_ARGS_JSON" > /dev/null && echo "programs run"
`
	tests := []struct {
		name, args string
		spill      int
		want       string
	}{
		{"long", long, 65536, "json=0 file=$HOME/.mcp-args.json\n300008\nmeta=2 metafile=unset\nprograms run\n"},
		{"at the threshold", long, len(long), "json=300008 file=unset\nmeta=2 metafile=unset\n"},
		{"never", long, 0, "json=300008 file=unset\nmeta=2 metafile=unset\n"},
		{"short", `{"a":1}`, 65536, "json=7 file=unset\nmeta=2 metafile=unset\nprograms run\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			p := filepath.Join(dir, "tool.sh")
			if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			e, err := NewEngine(0)
			if err != nil {
				t.Fatal(err)
			}
			out := e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t", Args: json.RawMessage(tt.args)}, Script: p, Dir: dir,
				ScratchBase: scratchFor(t, e), Spill: tt.spill,
				Env:    map[string]string{"MCP_TOOL_ARGS_JSON": tt.args, "MCP_TOOL_META_JSON": "{}"},
				Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir}})
			got := string(out.Stdout)
			// The payload in a variable is a 300 KB environment string, which a program cannot
			// be given (execve's E2BIG): the engine refuses as bash's system does.
			if tt.args == long && tt.spill != 65536 {
				if !strings.Contains(string(out.Stderr), "Argument list too long") {
					t.Errorf("stderr = %q, want execve's E2BIG", out.Stderr)
				}
			}
			home := ""
			if i := strings.Index(got, "file=/"); i >= 0 {
				if j := strings.Index(got[i:], "/.mcp-args.json"); j >= 0 {
					home = got[i+len("file=") : i+j]
				}
			}
			want := strings.ReplaceAll(tt.want, "$HOME", home)
			if got != want {
				t.Errorf("stdout = %q, want %q (stderr %q)", got, want, out.Stderr)
			}
		})
	}
}
