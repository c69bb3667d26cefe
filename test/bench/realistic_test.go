package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

const realisticArgs = `{"name":"  Ada  ","limit":2,"pattern":"error"}`

func realisticDir(tb testing.TB) string {
	dir, _ := filepath.EvalSymlinks(tb.TempDir())
	script, err := os.ReadFile("testdata/realistic.sh")
	if err != nil {
		tb.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "tool.sh"), script, 0o755)
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	var log strings.Builder
	mods := []string{"auth", "db", "api", "cache"}
	for i := 0; i < 200; i++ {
		lvl := "info"
		if i%3 == 0 {
			lvl = "error"
		}
		fmt.Fprintf(&log, "2026-11-23T07:%02d:00Z %s module=%s request %d done\n", i%60, lvl, mods[i%len(mods)], i)
	}
	os.WriteFile(filepath.Join(dir, "data", "app.log"), []byte(log.String()), 0o644)
	return dir
}

func runRealisticBash(tb testing.TB, dir string) []byte {
	cmd := exec.Command("/bin/bash", "tool.sh")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C", "MCP_TOOL_ARGS_JSON=" + realisticArgs}
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("bash: %v", err)
	}
	return out
}

func runRealisticSandbox(tb testing.TB, e *interp.Engine, dir string) []byte {
	out := e.Run(context.Background(), interp.Job{Call: &engine.Call{Tool: "realistic", Args: json.RawMessage(realisticArgs)},
		Script: filepath.Join(dir, "tool.sh"), Dir: dir, Env: map[string]string{"MCP_TOOL_ARGS_JSON": realisticArgs},
		Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir}})
	if out.ExitCode != 0 {
		tb.Fatalf("sandbox exit %d: %s", out.ExitCode, out.Stderr)
	}
	return out.Stdout
}

// TestRealisticScriptAgrees makes sure the benchmark compares like with like.
func TestRealisticScriptAgrees(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed for the bash side")
	}
	dir := realisticDir(t)
	e, _ := interp.NewEngine(0)
	var a, b map[string]any
	json.Unmarshal(runRealisticBash(t, dir), &a)
	json.Unmarshal(runRealisticSandbox(t, e, dir), &b)
	if fmt.Sprint(a) != fmt.Sprint(b) || len(a) != 12 {
		t.Fatalf("outputs differ:\nbash:    %v\nsandbox: %v", a, b)
	}
}

// BenchmarkRealisticScript runs the 50-line script per call under the sandbox engine and under
// /bin/bash with real coreutils and jq, in the same run, and reports the median ratio.
func BenchmarkRealisticScript(b *testing.B) {
	if _, err := exec.LookPath("jq"); err != nil {
		b.Skip("jq not installed")
	}
	dir := realisticDir(b)
	e, _ := interp.NewEngine(0)
	var sb, bb []time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		runRealisticSandbox(b, e, dir)
		sb = append(sb, time.Since(t0))
		t0 = time.Now()
		runRealisticBash(b, dir)
		bb = append(bb, time.Since(t0))
	}
	slices.Sort(sb)
	slices.Sort(bb)
	ms, mb := sb[len(sb)/2], bb[len(bb)/2]
	b.ReportMetric(float64(ms.Microseconds()), "sandbox-µs")
	b.ReportMetric(float64(mb.Microseconds()), "bash-µs")
	b.ReportMetric(float64(mb)/float64(ms), "speedup-x")
	_ = bytes.MinRead
}
