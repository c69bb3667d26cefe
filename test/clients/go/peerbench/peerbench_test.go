package peerbench

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestResponseID covers the client's id matching; it needs no servers, so plain `go test` stays fast.
func TestResponseID(t *testing.T) {
	for _, c := range []struct {
		line string
		id   int64
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":42,"result":{}}`, 42, true},
		{`{"id":7,"jsonrpc":"2.0","result":{}}`, 7, true},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, 0, false},
		{`{"jsonrpc":"2.0","id":3,"method":"roots/list"}`, 0, false},
	} {
		id, ok := responseID([]byte(c.line))
		if id != c.id || ok != c.ok {
			t.Errorf("%s: got %d %v", c.line, id, ok)
		}
	}
}

// BenchmarkPeers runs one whole comparison over stdio (it ignores b.N; use -benchtime 1x) and
// logs the table. Sizes: PEERBENCH_RUNS (default 5). `make bench-peers` is the usual way to run it.
func BenchmarkPeers(b *testing.B) { benchPeers(b, false) }

// BenchmarkPeersHTTP is BenchmarkPeers over Streamable HTTP.
func BenchmarkPeersHTTP(b *testing.B) { benchPeers(b, true) }

func benchPeers(b *testing.B, overHTTP bool) {
	o := DefaultOptions()
	if os.Getenv("PEERBENCH_RUNS") == "1" {
		o.Runs, o.ColdStarts, o.SeqDuration, o.Bursts, o.IdleSessions = 1, 5, 200*time.Millisecond, 3, 50
	}
	servers, err := Setup(b.TempDir(), os.Getenv("MCPBASH_TEST_BINARY"), overHTTP)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	res, err := Run(servers, o)
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	for _, bar := range res.Bars() {
		b.ReportMetric(bar.Ratio, bar.Unit)
	}
	fmt.Print(res.Markdown()) // b.Log would truncate the table
}
