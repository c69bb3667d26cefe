package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/test/harness"
	"github.com/mcp-bash/mcp-bash/wasm"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

// Benchmarks of WebAssembly tools, all in one run (`make bench`): the cold compile of the Go
// example guest, the first call after a restart with a warm compilation cache, a warm call of
// the Go guest, and a minimal hand-assembled guest that shows wazero's fixed cost per call.
// Bars (docs/WASM.md): warm Go call ≤ 8 ms p50, minimal instance ≤ 0.3 ms, warm-cache
// restart ≥ 10× faster than the cold compile.

const statsCall = `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"stats","arguments":{"path":"data/sample.txt"}}}`

// TestMain removes the binaries and the guests built by wasmtest.
func TestMain(m *testing.M) { os.Exit(harness.Main(m, wasmtest.Cleanup)) }

// wasmExample copies examples/20-wasm-tool with a freshly built tools/stats/tool.wasm.
func wasmExample(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	src := filepath.Join(harness.RepoRoot(), "examples", "20-wasm-tool")
	if out, err := exec.Command("cp", "-r", src+"/.", dir).CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	wasmtest.Copy(b, wasmtest.BuildGo(b, "examples/20-wasm-tool/src/stats"), filepath.Join(dir, "tools", "stats", "tool.wasm"))
	return dir
}

// spawnWasm starts the server with its compilation cache under cacheHome.
func spawnWasm(b *testing.B, dir, cacheHome string) *proc {
	cmd := exec.Command(harness.Binary(b))
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "XDG_CACHE_HOME=" + cacheHome}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &proc{cmd: cmd, in: bufio.NewWriter(in), inc: in, out: bufio.NewReader(out)}
}

// call sends a request and reads lines until its response (skipping notifications).
func (p *proc) call(b *testing.B, id, line string) []byte {
	p.in.WriteString(line + "\n")
	if err := p.in.Flush(); err != nil {
		b.Fatal(err)
	}
	want := []byte(`"id":"` + id + `"`)
	for {
		l, err := p.out.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		if bytes.Contains(l, want) && !bytes.Contains(l, []byte(`"method"`)) {
			return l
		}
	}
}

// firstCall is spawn → initialize → the first stats call answered.
func firstCall(b *testing.B, dir, cacheHome string) time.Duration {
	t0 := time.Now()
	p := spawnWasm(b, dir, cacheHome)
	p.roundTrip(b, initLine)
	p.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	l := p.call(b, "first", fmt.Sprintf(statsCall, "first"))
	took := time.Since(t0)
	if !bytes.Contains(l, []byte(`"words":9`)) {
		b.Fatalf("unexpected answer %s", l)
	}
	p.close()
	return took
}

func wasmP50(b *testing.B, lat []time.Duration, unit string) {
	slices.Sort(lat)
	p50 := lat[len(lat)/2]
	switch unit {
	case "ms":
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	default:
		b.ReportMetric(float64(p50.Nanoseconds())/1000, "p50-µs")
	}
}

// BenchmarkWasmColdCompile: first call of the Go guest with an empty compilation cache.
func BenchmarkWasmColdCompile(b *testing.B) {
	dir := wasmExample(b)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cache := b.TempDir()
		b.StartTimer()
		lat = append(lat, firstCall(b, dir, cache))
	}
	b.StopTimer()
	wasmP50(b, lat, "ms")
}

// BenchmarkWasmWarmRestart: first call of the Go guest after a restart, the compiled code
// coming from the file cache.
func BenchmarkWasmWarmRestart(b *testing.B) {
	dir := wasmExample(b)
	cache := b.TempDir()
	firstCall(b, dir, cache) // fills the cache
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lat = append(lat, firstCall(b, dir, cache))
	}
	b.StopTimer()
	wasmP50(b, lat, "ms")
}

// BenchmarkWasmWarmCallGo: sequential tools/call of the Go example guest on a running server
// (instantiate, Go runtime start, read a file through the sandbox, JSON out).
func BenchmarkWasmWarmCallGo(b *testing.B) {
	dir := wasmExample(b)
	p := spawnWasm(b, dir, b.TempDir())
	defer p.close()
	p.roundTrip(b, initLine)
	p.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	p.call(b, "warm", fmt.Sprintf(statsCall, "warm"))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprint(i)
		t0 := time.Now()
		p.call(b, id, fmt.Sprintf(statsCall, id))
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	wasmP50(b, lat, "ms")
}

// BenchmarkWasmMinimalCall: tools/call of the minimal guest through the server (the server's
// own per-call work included: validation, roots, scratch, result shaping).
func BenchmarkWasmMinimalCall(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "server.d"), 0o755)
	os.MkdirAll(filepath.Join(dir, "tools", "min"), 0o755)
	os.WriteFile(filepath.Join(dir, "server.d", "server.meta.json"), []byte(`{"name":"min"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "tools", "min", "tool.meta.json"), []byte(`{"name":"min","description":"minimal guest"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "tools", "min", "tool.wasm"), wasmtest.Minimal(), 0o644)
	p := spawnWasm(b, dir, b.TempDir())
	defer p.close()
	p.roundTrip(b, initLine)
	p.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const line = `{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"min","arguments":{}}}`
	if l := p.call(b, "warm", fmt.Sprintf(line, "warm")); !bytes.Contains(l, []byte(`"text":"ok"`)) {
		b.Fatalf("unexpected answer %s", l)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprint(i)
		t0 := time.Now()
		p.call(b, id, fmt.Sprintf(line, id))
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	wasmP50(b, lat, "µs")
}

// BenchmarkWasmMinimalInstance: wazero's fixed cost per call, in-process: instantiate the
// minimal guest (anonymous, with the sandbox FS, explicit env, memory limit, context close) and
// run it.
func BenchmarkWasmMinimalInstance(b *testing.B) {
	dir := b.TempDir()
	mod := filepath.Join(dir, "min.wasm")
	os.WriteFile(mod, wasmtest.Minimal(), 0o644)
	rt, err := wasm.New(context.Background(), wasm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	fsys, err := sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}}, sandbox.Scratch{}, &sandbox.Record{})
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	env := sandbox.BaseEnv("/tmp", "/tmp", map[string]string{"MCP_TOOL_NAME": "min"})
	var out bytes.Buffer
	run := func() {
		out.Reset()
		st, err := rt.Run(context.Background(), wasm.Program{Module: mod, Args: []string{"min"}, Env: env, Dir: dir, Stdout: &out, FS: fsys})
		if err != nil || st != 0 || out.String() != "ok\n" {
			b.Fatalf("status %d err %v out %q", st, err, out.String())
		}
	}
	run()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		run()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	wasmP50(b, lat, "µs")
}
