package host

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

// notificationPrefix starts the notifications a benchmark does not wait for (the list_changed
// that follow initialized).
var notificationPrefix = []byte(`{"jsonrpc":"2.0","method":"notifications/`)

// benchServe serves the project in dir over real OS pipes (the same framing, reader, dispatch
// and writer path as stdio) and initializes a session. roundTrip sends one line and returns
// the next response, which stays valid until the next call; stop ends the session.
func benchServe(b *testing.B, dir string) (roundTrip func(line string) []byte, stop func()) {
	w, read, stop := benchPipes(b, dir)
	roundTrip = func(line string) []byte {
		w.WriteString(line)
		w.WriteByte('\n')
		w.Flush()
		return read()
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	w.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	return roundTrip, stop
}

// benchPipes serves the project in dir over real OS pipes: w writes to the server, read
// returns its next response (notifications skipped; valid until the next read), and stop ends
// the session.
func benchPipes(b testing.TB, dir string) (w *bufio.Writer, read func() []byte, stop func()) {
	cfg := Config{Dirs: registry.ResolveDirs(dir, config.Dirs{}), Meta: registry.ServerMeta{Name: "bench", Version: "1"}}
	if err := cfg.ConfigFromEnv(func(string) string { return "" }); err != nil {
		b.Fatal(err)
	}
	srv, err := NewServer(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	done := make(chan struct{})
	go func() {
		_ = srv.Serve(context.Background(), inR, outW)
		outW.Close()
		close(done)
	}()
	rd := bufio.NewReaderSize(outR, 1<<16)
	read = func() []byte {
		for {
			// ReadSlice: the benchmarks measure the server, not a copy of each response.
			l, err := rd.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			if !bytes.HasPrefix(l, notificationPrefix) { // skips the list_changed after initialized
				return l
			}
		}
	}
	return bufio.NewWriterSize(inW, 1<<16), read, func() {
		inW.Close()
		<-done
	}
}

// BenchmarkPingRoundTrip measures sequential ping round trips through the host over OS pipes.
func BenchmarkPingRoundTrip(b *testing.B) {
	roundTrip, stop := benchServe(b, b.TempDir())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1))
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pings/s")
	stop()
}

// BenchmarkToolsCallHello is tools/call of the hello example through the whole host (framing,
// dispatch, schema validation, sandbox run, shaping) over OS pipes.
func BenchmarkToolsCallHello(b *testing.B) { benchHelloCalls(b, "") }

// BenchmarkToolsCallFixed is BenchmarkToolsCallHello with a script that only prints the
// result: the fixed cost of a sandboxed tool call, whatever the script does.
func BenchmarkToolsCallFixed(b *testing.B) {
	benchHelloCalls(b, "#!/usr/bin/env bash\nprintf '%s' '{\"message\":\"Hello, Ada!\"}'\n")
}

// benchHelloCalls times sequential hello calls of helloProject(script).
func benchHelloCalls(b *testing.B, script string) {
	roundTrip, stop := benchServe(b, helloProject(b, script))
	if l := roundTrip(`{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`); !strings.Contains(string(l), "Hello, Ada!") {
		b.Fatalf("unexpected %s", l)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`, i+1))
	}
	b.StopTimer()
	stop()
}

// helloProject copies examples/00-hello-tool into a temp dir; script, if set, replaces its
// tool.sh.
func helloProject(b testing.TB, script string) string {
	dir := b.TempDir()
	for _, f := range []string{"server.d/server.meta.json", "tools/hello/tool.sh", "tools/hello/tool.meta.json"} {
		data, err := os.ReadFile("../examples/00-hello-tool/" + f)
		if err != nil {
			b.Fatal(err)
		}
		if script != "" && strings.HasSuffix(f, "tool.sh") {
			data = []byte(script)
		}
		if err := os.MkdirAll(dir+"/"+f[:strings.LastIndex(f, "/")], 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(dir+"/"+f, data, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}
