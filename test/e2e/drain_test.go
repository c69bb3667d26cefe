package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// Graceful drain over HTTP, with every kind of work a server holds when SIGTERM comes: calls in
// flight in a 2025-11-25 session (an SSE stream under way, and a response not yet begun), the
// same for 2026-07-28 requests, an idle session with its GET stream open, and a session with a
// resource subscription (a poller that lives as long as the session). The shutdown timeout is
// far beyond the test's backstop, so the test passes only if the drain ends on events: each
// call is answered once released, new connections are refused meanwhile, the streams end, and
// the server exits 0 without waiting for the timeout.
// waitNotReady waits until a draining server's readiness probe fails (503, or the listener is
// gone already).
func waitNotReady(srv *harness.HTTPServer) {
	for {
		resp, err := http.Get(srv.Base + "/readyz")
		if err != nil {
			return
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			return
		}
	}
}

func TestHTTPDrainInFlight(t *testing.T) {
	root := replicaProject(t)
	if err := os.MkdirAll(filepath.Join(root, "resources"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "resources", "watched.txt"), []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := harness.StartHTTP(t, harness.Options{Dir: root, Env: []string{"MCPBASH_SHUTDOWN_TIMEOUT=3600", "MCPBASH_PROJECT_ROOT_WRITABLE=true"}})
	url := harness.NewRecorder(t, srv.URL).URL

	sess := session(t, url, "2025-11-25", `{}`)
	idle := session(t, url, "2025-11-25", `{}`)
	getResp, getStream, _ := idle.open(http.MethodGet, "")
	if getResp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %d", getResp.StatusCode)
	}
	sub := session(t, url, "2025-11-25", `{}`)
	if r := sub.post(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file://./resources/watched.txt"}}`); r.status != http.StatusOK || r.last().Error != nil {
		t.Fatalf("resources/subscribe: %d %s %v", r.status, r.body, r.events)
	}
	stateless := &hc{t: t, url: url, rev: "2026-07-28"}

	calls := map[string]<-chan callOutcome{}
	for i, c := range []struct {
		key      string
		client   *hc
		progress bool
	}{{"sess-stream", sess, true}, {"sess-json", sess, false}, {"sl-stream", stateless, true}, {"sl-json", stateless, false}} {
		calls[c.key] = startHold(t, c.client, 10+i, c.key, c.progress)
		waitStarted(t, root, c.key, calls[c.key])
	}

	srv.Signal(syscall.SIGTERM)
	// New connections are refused while the calls are still running.
	waitNotReady(srv)
	addr := strings.TrimPrefix(srv.Base, "http://")
	deadline := time.Now().Add(harness.Backstop)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("new connections still accepted while draining")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for key, ch := range calls {
		select {
		case o := <-ch:
			t.Fatalf("%s ended before it was released: %+v %s", key, o, o.msg.Raw)
		default:
		}
	}

	for key := range calls {
		release(t, root, key)
	}
	for key, ch := range calls {
		o := outcome(t, ch, key)
		if o.msg.ID == nil || o.msg.Error != nil || !strings.Contains(string(o.msg.Result), "released "+key) {
			t.Errorf("%s during the drain: %+v %s", key, o, o.msg.Raw)
		}
	}
	// The idle session's GET stream ends with the server.
	for range getStream {
	}
	if err := srv.Wait(harness.Backstop); err != nil {
		t.Errorf("exit: %v\n%s", err, srv.Stderr())
	}
	if _, err := http.Post(srv.URL, "application/json", strings.NewReader(fmt.Sprintf(httpInit, "2025-11-25", "{}"))); err == nil {
		t.Error("a connection was accepted after the drain")
	}
}
