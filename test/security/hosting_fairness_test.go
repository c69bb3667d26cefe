package security

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fairTenants: "flood" may run as many calls as there are slots and queue many more, hold
// sessions, listens and subscriptions; "calm" is an ordinary tenant.
const fairTenants = `{"version": 1,
 "default": {"roots": [{"path": "{TENANTS}/{tenant}", "name": "work", "create": true}],
             "commands": [], "limits": {"callsPerMinute": 1000000, "timeoutSecs": 3600}},
 "tenants": {"flood": {"limits": {"concurrentCalls": 8, "queueLength": 32, "sessions": 20,
                                  "listens": 6, "subscriptions": 120, "bufferedBytes": 4194304}}}}`

// TestCrossTenantFairness (issue 28): one tenant flooding every pool — calls that never end,
// a full queue, listens with more resources than it may watch, the sessions it may open, SSE
// streams it hung up on — leaves another tenant's calls within twice their unloaded latency.
//
// Latencies are medians of sequential calls measured in this test, against a baseline measured
// in the same run before the flood and after it (the larger counts, up to twice the first), so
// a loaded machine moves both alike; a loaded measurement is repeated up to three times before
// the test fails. The flood itself costs little CPU once it is in place: it holds the pools,
// which is the point. (Against the server before issue 28 calm's median was over 100x.)
func TestCrossTenantFairness(t *testing.T) {
	token := filepath.Join(t.TempDir(), "metrics-token")
	secret := "metrics-" + strings.Repeat("f", 40)
	write(t, token, secret)
	w := newTenantWorldWith(t, worldOptions{ids: []string{"flood", "calm"}, tenantsJSON: fairTenants,
		env: []string{"MCPBASH_CALL_SLOTS=8", "MCPBASH_MAX_CONCURRENT_REQUESTS=8", "MCPBASH_WORKERS_IDLE=8",
			"MCPBASH_METRICS_TOKEN_FILE=" + token, "MCPBASH_HTTP_MAX_BUFFERED_BYTES=33554432"},
		tools: map[string]string{"big": bigTool}})
	calm := w.client(t, "calm")
	calmSession := w.client(t, "calm")
	calmSession.open()
	// A starved call fails the test instead of hanging it.
	calm.hangup, calmSession.hangup = time.Minute, time.Minute
	const calls = 31
	measure := func() (stateless, session time.Duration) {
		var a, b []time.Duration
		for i := range calls {
			start := time.Now()
			r := calm.statelessCall("tools/call", "hello", map[string]any{"name": "hello", "arguments": map[string]any{"name": "calm"}}, nil)
			a = append(a, time.Since(start))
			if !strings.Contains(string(r.Body), "Hello, calm") {
				t.Fatalf("calm's stateless call %d: %s", i, r.Body)
			}
			start = time.Now()
			r = calmSession.call("tools/call", map[string]any{"name": "hello", "arguments": map[string]any{"name": "calm"}})
			b = append(b, time.Since(start))
			if !strings.Contains(string(r.Body), "Hello, calm") {
				t.Fatalf("calm's session call %d: %s", i, r.Body)
			}
		}
		return median(a), median(b)
	}
	measure() // warm the workers and caches
	base1s, base1 := measure()

	// The flood, in the order its own pools let it in (its later requests wait behind its own
	// calls): listens, streams, sessions, then calls.
	flood := w.client(t, "flood")
	// Listens: more than it may hold, some asking for far more resources than it may watch.
	notes := "file://" + filepath.Join(w.project, "resources", "notes.txt")
	uris := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("%s?%d", notes, i))
		}
		return out
	}
	var listens []listenStream
	for i := range 12 {
		n := 20
		if i%2 == 1 {
			n = 20000
		}
		listens = append(listens, flood.listen(uris(n)))
	}
	defer func() {
		for _, ls := range listens {
			ls.close()
		}
	}()
	// Streams it hung up on, with large results arriving after (held for nobody).
	vanish(t, w, "flood", 4, "flood-gate")
	// Sessions, up to its cap and past it.
	for range 20 {
		c := w.client(t, "flood")
		c.post(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
			"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}, nil)
	}
	// Calls that hold a slot until released, more than the queue takes.
	var held sync.WaitGroup
	replies := make(chan reply, 48)
	for range 48 {
		held.Add(1)
		go func() {
			defer held.Done()
			c := &client{t: t, w: w, key: flood.key}
			replies <- c.statelessCall("tools/call", "block", map[string]any{"name": "block", "arguments": map[string]any{}}, nil)
		}()
	}
	// The flood is in place when its calls run and queue as far as the scheduler lets them:
	// 4 running (half the slots, though its concurrentCalls is 8), 32 waiting.
	waitMetric(t, w, secret, `mcpbash_tenant_calls_running{tenant="flood"}`, 4)
	waitMetric(t, w, secret, `mcpbash_tenant_calls_waiting{tenant="flood"}`, 32)

	var loadeds, loaded time.Duration
	for attempt := range 3 {
		loadeds, loaded = measure()
		t.Logf("attempt %d: calm's median, stateless %v (unloaded %v), session %v (unloaded %v)", attempt+1, loadeds, base1s, loaded, base1)
		if loadeds <= 2*base1s && loaded <= 2*base1 {
			break
		}
	}
	// Release the flood, then measure the baseline again: the larger one is the bar.
	if err := os.WriteFile(filepath.Join(w.tenants, "flood", "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	held.Wait()
	close(replies)
	for _, ls := range listens {
		ls.close()
	}
	refused, other := 0, map[string]int{}
	for r := range replies {
		switch {
		case limitOf(r) == "queue_full":
			refused++
		case r.Msg.Error == nil && strings.Contains(string(r.Body), "released"):
		default:
			other[fmt.Sprintf("%d %.200s", r.Status, r.Body)]++
		}
	}
	// At most 4 ran at once (half the slots, though its concurrentCalls is 8) and 32 queued:
	// at least 12 refused (one more when a call of vanish still held its slot at the time).
	if refused < 48-4-32 || len(other) > 0 {
		t.Errorf("flood calls refused: %d, want at least 12 (4 ran, 32 queued); other answers: %v", refused, other)
	}
	base2s, base2 := measure()
	// The later baseline absorbs a load spike during the first one, but not past twice it:
	// more would be the flood's own after-effects (pollers still at work), not the machine's.
	unloaded := func(b1, b2 time.Duration) time.Duration { return max(b1, min(b2, 2*b1)) }
	bars, bar := 2*unloaded(base1s, base2s), 2*unloaded(base1, base2)
	t.Logf("unloaded medians: stateless %v/%v, session %v/%v; loaded: stateless %v, session %v", base1s, base2s, base1, base2, loadeds, loaded)
	if loadeds > bars || loaded > bar {
		t.Fatalf("calm's calls slowed past twice their unloaded latency while flood flooded: stateless %v (bar %v), session %v (bar %v)", loadeds, bars, loaded, bar)
	}
	acked, refusedListens := 0, 0
	for _, ls := range listens {
		switch {
		case ls.first["method"] == "notifications/subscriptions/acknowledged":
			acked++
		case limitIn(ls.first) != "":
			refusedListens++
		}
	}
	if acked > 6 || acked+refusedListens != len(listens) {
		t.Errorf("flood's listens: %d acknowledged (at most 6), %d refused, of %d", acked, refusedListens, len(listens))
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// waitMetric waits until a gauge of /metrics reaches want (the flood is in place).
func waitMetric(t *testing.T, w *tenantWorld, token, name string, want int) {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(name) + ` (\d+)`)
	deadline := time.Now().Add(60 * time.Second)
	for {
		m := re.FindStringSubmatch(scrape(t, w, w.srv.Base+"/metrics", token))
		if m != nil {
			if n, _ := strconv.Atoi(m[1]); n >= want {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never reached %d (%v)", name, want, m)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bigTool waits for the gate file named by its arguments, after telling the client it started
// (so the answer is an SSE stream), then writes 4 MiB.
const bigTool = `r="${MCP_ROOTS_PATHS%%$'\n'*}"; g="$(mcp_args_get '.gate')"
mcp_progress 1 started
while [ ! -e "$r/$g" ]; do sleep 0.02; done
x=0123456789abcdef; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18; do x="$x$x"; done
printf '%s' "$x"`

// vanish makes n calls of the big tool as tenant, each from a session whose client hangs up
// once the answer has become a stream, then opens the gate: the 4 MiB answers arrive for
// nobody. It returns when every one of them has been answered (the audit log says so).
func vanish(t *testing.T, w *tenantWorld, tenant string, n int, gate string) {
	t.Helper()
	before := strings.Count(readFile(t, w.audit), `"name":"big"`)
	var wg sync.WaitGroup
	for i := range n {
		c := w.client(t, tenant)
		c.open()
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{"gate":%q},"_meta":{"progressToken":"p%d"}}}`, i+1, gate, i)
			req, _ := http.NewRequest(http.MethodPost, w.srv.URL, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Authorization", "Bearer "+c.key)
			req.Header.Set("Mcp-Session-Id", c.sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			// Its own connection, closed when the client hangs up.
			hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			resp, err := hc.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			// The first event (the progress notification) has come: hang up.
			buf := make([]byte, 1)
			if _, err := resp.Body.Read(buf); err != nil {
				t.Errorf("no stream: %v", err)
			}
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				t.Errorf("the answer is not a stream: %s", resp.Header.Get("Content-Type"))
			}
			resp.Body.Close()
			hc.CloseIdleConnections()
		}()
	}
	wg.Wait()
	if err := os.WriteFile(filepath.Join(w.tenants, tenant, gate), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(120 * time.Second)
	for strings.Count(readFile(t, w.audit), `"name":"big"`) < before+n {
		if time.Now().After(deadline) {
			t.Fatalf("the big calls were not all answered: %d of %d", strings.Count(readFile(t, w.audit), `"name":"big"`)-before, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}
