package host

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
)

// The reading role and the jobs of requests (runReading): a sequential client's calls run on
// the goroutine that read them and never pass the role on (no wake-up per call); a burst, a
// job that waits on the client and a long job do pass it, so that what the client sends
// meanwhile is read (a cancellation, an answer, the next requests of the burst).
func TestReadingRoleHandoff(t *testing.T) {
	conn := func(s *Session) *stdioConn { return s.out.(*stdioConn) }
	t.Run("sequential calls keep it", func(t *testing.T) {
		var handoffs int64 = -1
		p := startPipe(t, Config{}, map[string]handler{
			"test/work": {fn: func(_ context.Context, s *Session, _ *Request) (any, error) {
				handoffs = conn(s).handoffs.Load()
				return struct{}{}, nil
			}},
		})
		for i := range 20 {
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test/work"}`, i))
			if m := p.next(); m["id"] != float64(i) {
				t.Fatalf("got %v", m)
			}
		}
		if handoffs != 0 {
			t.Errorf("%d hand-offs of the reading role over 20 sequential calls, want 0", handoffs)
		}
	})
	t.Run("a burst runs side by side", func(t *testing.T) {
		// Each job waits until both run: they can only end if the second was read while the
		// first ran.
		var both sync.WaitGroup
		both.Add(2)
		p := startPipe(t, Config{MaxConcurrent: 4}, map[string]handler{
			"test/pair": {fn: func(ctx context.Context, _ *Session, _ *Request) (any, error) {
				both.Done()
				both.Wait()
				return struct{}{}, nil
			}},
		})
		if _, err := io.WriteString(p.in, `{"jsonrpc":"2.0","id":1,"method":"test/pair"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"test/pair"}`+"\n"); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if m := p.next(); m["result"] == nil {
				t.Fatalf("got %v", m)
			}
		}
	})
	t.Run("a job waiting on the client", func(t *testing.T) {
		p := startPipe(t, Config{}, map[string]handler{
			"test/ask": {fn: func(ctx context.Context, s *Session, _ *Request) (any, error) {
				raw, err := s.Request(ctx, "test/question", nil)
				if err != nil {
					return nil, err
				}
				return map[string]any{"answer": string(raw), "handoffs": conn(s).handoffs.Load()}, nil
			}},
		})
		p.send(`{"jsonrpc":"2.0","id":"a","method":"test/ask"}`)
		q := p.next()
		if q["method"] != "test/question" {
			t.Fatalf("got %v, want the server's request", q)
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"ok":true}}`, q["id"]))
		m := p.next()
		res, _ := m["result"].(map[string]any)
		if res == nil || !strings.Contains(fmt.Sprint(res["answer"]), "ok") || res["handoffs"] != float64(1) {
			t.Fatalf("got %v, want the answer read after one hand-off", m)
		}
	})
}
