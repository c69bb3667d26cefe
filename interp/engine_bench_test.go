package interp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// BenchmarkHelloRun is one sandboxed run of the hello example's script, without the protocol.
func BenchmarkHelloRun(b *testing.B) {
	dir := b.TempDir()
	script := filepath.Join(dir, "tool.sh")
	os.WriteFile(script, []byte("#!/usr/bin/env bash\nsource \"${MCP_SDK}/tool-sdk.sh\"\nname=\"$(mcp_args_get '.name // \"World\"')\"\nmcp_result_success \"$(mcp_json_obj message \"Hello, ${name}!\")\"\n"), 0o755)
	e, err := NewEngine(0)
	if err != nil {
		b.Fatal(err)
	}
	job := Job{Call: &engine.Call{Tool: "hello", Args: json.RawMessage(`{"name":"Ada"}`)}, Script: script, Dir: dir,
		Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir}}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := e.Run(ctx, job)
		if out.ExitCode != 0 {
			b.Fatalf("exit %d: %s", out.ExitCode, out.Stderr)
		}
	}
}
