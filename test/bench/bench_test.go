// Package bench measures the real binary: cold start, protocol round trips and list latency on a
// large generated project. Run with `make bench` (go test -bench, medians via benchstat).
package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`

type proc struct {
	cmd *exec.Cmd
	in  *bufio.Writer
	inc io.Closer
	out *bufio.Reader
}

func spawn(b *testing.B, dir string, args ...string) *proc { return spawnEnv(b, dir, nil, args...) }

// spawnEnv is spawn with extra environment variables.
func spawnEnv(b *testing.B, dir string, env []string, args ...string) *proc {
	cmd := exec.Command(harness.Binary(b), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + dir, "GOGC=" + os.Getenv("BENCH_GOGC"), "GOMAXPROCS=" + os.Getenv("BENCH_PROCS")}, env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &proc{cmd: cmd, in: bufio.NewWriter(in), inc: in, out: bufio.NewReader(out)}
}

func (p *proc) roundTrip(b *testing.B, line string) []byte {
	p.in.WriteString(line)
	p.in.WriteByte('\n')
	if err := p.in.Flush(); err != nil {
		b.Fatal(err)
	}
	for {
		l, err := p.out.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		// Notifications nobody waits for (the list_changed that follow initialized) are skipped.
		if !bytes.HasPrefix(l, notificationPrefix) {
			return l
		}
	}
}

var notificationPrefix = []byte(`{"jsonrpc":"2.0","method":"notifications/`)

func (p *proc) close() {
	p.inc.Close()
	_ = p.cmd.Wait()
}

// BenchmarkColdStart is spawn → initialize response, on the built-in project.
func BenchmarkColdStart(b *testing.B) {
	dir := b.TempDir()
	harness.Binary(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := spawn(b, dir)
		p.roundTrip(b, initLine)
		b.StopTimer()
		p.close()
		b.StartTimer()
	}
}

// BenchmarkPingStdio is sequential ping round trips over the binary's real stdio pipes.
func BenchmarkPingStdio(b *testing.B) {
	p := spawn(b, b.TempDir())
	defer p.close()
	p.roundTrip(b, initLine)
	p.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pings/s")
}

// GenerateTools writes a project with n tools (each a directory with tool.sh and meta).
func GenerateTools(tb testing.TB, n int) string {
	dir := tb.TempDir()
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "server.d"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "server.d", "server.meta.json"), []byte(`{"name":"big"}`), 0o644))
	for i := range n {
		td := filepath.Join(dir, "tools", fmt.Sprintf("tool%04d", i))
		must(os.MkdirAll(td, 0o755))
		must(os.WriteFile(filepath.Join(td, "tool.sh"), []byte("#!/usr/bin/env bash\necho hi\n"), 0o755))
		meta := fmt.Sprintf(`{"name":"tool-%04d","description":"Generated tool %d","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}},"timeoutSecs":10}`, i, i)
		must(os.WriteFile(filepath.Join(td, "tool.meta.json"), []byte(meta), 0o644))
	}
	return dir
}

// BenchmarkToolsListFirstPage2000 is a warm tools/list (first page of 50) round trip on a
// 2,000-tool project, through the binary.
func BenchmarkToolsListFirstPage2000(b *testing.B) {
	dir := GenerateTools(b, 2000)
	p := spawn(b, dir)
	defer p.close()
	p.roundTrip(b, initLine)
	p.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	p.roundTrip(b, `{"jsonrpc":"2.0","id":"warm","method":"tools/list"}`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+1))
	}
}

func helloProject(b *testing.B) string {
	dir := b.TempDir()
	src := filepath.Join(harness.RepoRoot(), "examples", "00-hello-tool")
	cp := exec.Command("cp", "-r", src+"/.", dir)
	if out, err := cp.CombinedOutput(); err != nil {
		b.Fatalf("%v %s", err, out)
	}
	return dir
}

// BenchmarkToolsCallHello is sequential tools/call of the hello example (SDK, mcp_result_success
// and an outputSchema) over the binary's stdio; it reports the median latency and calls/s.
func BenchmarkToolsCallHello(b *testing.B) { benchHello(b, spawn(b, helloProject(b))) }

// BenchmarkIsolation is the hello call in both isolation modes, in the same run: in the server
// process (the default) and in a worker process (MCPBASH_ISOLATION=process). Issue 10: process
// would be the default if its per-call overhead were within 150 µs of inproc.
func BenchmarkIsolation(b *testing.B) {
	dir := helloProject(b)
	for _, mode := range []string{"inproc", "process"} {
		b.Run(mode, func(b *testing.B) { benchHello(b, spawnEnv(b, dir, []string{"MCPBASH_ISOLATION=" + mode})) })
	}
}

// benchHello measures sequential hello calls on a started server.
func benchHello(b *testing.B, p *proc) {
	defer p.close()
	p.roundTrip(b, initLine)
	p.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	p.roundTrip(b, `{"jsonrpc":"2.0","id":"warm","method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		l := p.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`, i+1))
		lat = append(lat, time.Since(t0))
		if i == 0 && !bytes.Contains(l, []byte("Hello, Ada!")) {
			b.Fatalf("unexpected answer %s", l)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// BenchmarkNativeHello compares, in the same run, a native-mode tools/call of the hello example
// (server round trip, process group, side-channel files, bash, the Bash SDK) with its floor:
// bash running the same tool.sh with the same SDK and JSON tool and nothing else.
// Report: p50 of native / p50 of floor.
func BenchmarkNativeHello(b *testing.B) {
	dir := helloProject(b)
	script := filepath.Join(dir, "tools", "hello", "tool.sh")
	b.Run("native", func(b *testing.B) {
		p := spawn(b, dir, "--exec=native")
		defer p.close()
		p.roundTrip(b, initLine)
		p.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		if l := p.roundTrip(b, `{"jsonrpc":"2.0","id":"warm","method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`); !bytes.Contains(l, []byte(`Hello, Ada!`)) {
			b.Fatalf("unexpected answer %s", l)
		}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			p.roundTrip(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`, i+1))
			lat = append(lat, time.Since(t0))
		}
		b.StopTimer()
		reportP50(b, lat)
	})
	b.Run("bash-floor", func(b *testing.B) {
		sdkDir := b.TempDir()
		if out, err := exec.Command(harness.Binary(b), "jq", "-rn", "$ENV.X").CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		os.Symlink(harness.Binary(b), filepath.Join(sdkDir, "jq"))
		sdkSrc, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "sdk", "bash", "tool-sdk.sh"))
		if err != nil {
			b.Fatal(err)
		}
		os.WriteFile(filepath.Join(sdkDir, "tool-sdk.sh"), sdkSrc, 0o444)
		env := []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "MCP_SDK=" + sdkDir, "MCPBASH_JSON_TOOL_BIN=" + filepath.Join(sdkDir, "jq"),
			`MCP_TOOL_ARGS_JSON={"name":"Ada"}`, "MCP_TOOL_NAME=hello"}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			cmd := exec.Command("bash", script)
			cmd.Dir, cmd.Env = dir, env
			out, err := cmd.Output()
			lat = append(lat, time.Since(t0))
			if err != nil || !bytes.Contains(out, []byte("Hello, Ada!")) {
				b.Fatalf("floor: %v %s", err, out)
			}
		}
		b.StopTimer()
		reportP50(b, lat)
	})
}

func reportP50(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
}

// BenchmarkConcurrentSleep100 sends 100 calls of a tool that sleeps 1 s at once and reports
// the wall time until the last answer.
func BenchmarkConcurrentSleep100(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "server.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "server.d", "server.meta.json"), []byte(`{"name":"sleepy"}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "tools", "nap"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools", "nap", "tool.sh"), []byte("#!/usr/bin/env bash\nsleep 1\necho rested\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools", "nap", "tool.meta.json"), []byte(`{"name":"nap","description":"sleeps 1s"}`), 0o644)
	cmd := exec.Command(harness.Binary(b))
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "MCPBASH_MAX_CONCURRENT_REQUESTS=100"}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	p := &proc{cmd: cmd, in: bufio.NewWriter(in), inc: in, out: bufio.NewReader(out)}
	p.roundTrip(b, initLine)
	p.in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	var walls []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for j := 0; j < 100; j++ {
			fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"nap"}}`+"\n", i*1000+j)
		}
		p.in.Flush()
		for j := 0; j < 100; j++ {
			if _, err := p.out.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
		walls = append(walls, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(walls)
	b.ReportMetric(walls[len(walls)/2].Seconds(), "wall-s")
}
