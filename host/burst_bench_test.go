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

// BenchmarkToolsCallHelloBurst writes 100 hello calls at once and reads the 100 answers, as
// bench-peers' concurrency phase does; b.N counts calls.
func BenchmarkToolsCallHelloBurst(b *testing.B) {
	dir := helloProject(b, "")
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
	w := bufio.NewWriterSize(inW, 1<<16)
	read := func(n int) {
		for n > 0 {
			l, err := rd.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			if !bytes.HasPrefix(l, notificationPrefix) {
				n--
			}
		}
	}
	w.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}` + "\n")
	w.Flush()
	read(1)
	w.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	var burst strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&burst, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`+"\n", i+1)
	}
	w.WriteString(burst.String())
	w.Flush()
	read(100)
	b.ResetTimer()
	for i := 0; i < b.N; i += 100 {
		w.WriteString(burst.String())
		w.Flush()
		read(100)
	}
	b.StopTimer()
	inW.Close()
	<-done
}
