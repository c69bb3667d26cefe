package host

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkToolsCallHelloBurst writes 100 hello calls at once and reads the 100 answers, as
// bench-peers' concurrency phase does; b.N counts calls.
func BenchmarkToolsCallHelloBurst(b *testing.B) {
	w, read, stop := benchPipes(b, helloProject(b, ""))
	w.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}` + "\n")
	w.Flush()
	read()
	w.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	var burst strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&burst, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`+"\n", i+1)
	}
	run := func() {
		w.WriteString(burst.String())
		w.Flush()
		for range 100 {
			if l := read(); !bytes.Contains(l, []byte("Hello, Ada!")) {
				b.Fatalf("unexpected %s", l)
			}
		}
	}
	run() // warm-up
	b.ResetTimer()
	for i := 0; i < b.N; i += 100 {
		run()
	}
	b.StopTimer()
	stop()
}
