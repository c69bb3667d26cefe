package security

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestTenantsQuotasAndFairness: 50 tenants × 20 concurrent sessions of mixed calls while one
// tenant ("hog") holds its only slot and fills its queue, and another ("flood") bursts past its
// calls-per-minute: every other tenant's calls complete (the hog's queue holds nothing they
// need), the hog's and the flood's excess is refused with the limit named, and every request
// gets an answer. Nothing here waits on a clock: the hog's calls end when the test creates a
// file, after everyone else has finished.
func TestTenantsQuotasAndFairness(t *testing.T) {
	const tenants, sessions = 50, 20
	// Rounds of mixed calls per session: 1 here, more under `make stress`.
	rounds := 1
	if v, err := strconv.Atoi(os.Getenv("MCPBASH_TENANTS_LOAD_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	var ids []string
	for i := range tenants {
		ids = append(ids, fmt.Sprintf("t%02d", i))
	}
	ids = append(ids, "hog", "flood")
	cfg := `{"version": 1,
 "default": {"roots": [{"path": "{TENANTS}/{tenant}", "name": "work", "create": true}],
             "limits": {"callsPerMinute": 100000, "concurrentCalls": 2, "queueLength": 1000, "timeoutSecs": 120}},
 "tenants": {"hog": {"limits": {"concurrentCalls": 1, "queueLength": 3, "timeoutSecs": 3600}},
             "flood": {"limits": {"callsPerMinute": 1}}}}`
	token := filepath.Join(t.TempDir(), "metrics-token")
	secret := "metrics-" + strings.Repeat("m", 40)
	write(t, token, secret)
	w := newTenantWorld(t, ids, cfg, "MCPBASH_HTTP_MAX_SESSIONS=2000", "MCPBASH_WORKERS_IDLE=64", "MCPBASH_CALL_SLOTS=8", "MCPBASH_METRICS_TOKEN_FILE="+token)

	// The hog: 6 calls that block until released. One runs, three wait, two are refused.
	hog := w.client(t, "hog")
	hogReplies := make(chan reply, 6)
	for range 6 {
		go func() {
			c := &client{t: t, w: w, key: hog.key}
			// Held until released, however long the others take on a loaded machine.
			hogReplies <- c.statelessCall("tools/call", "block", map[string]any{"name": "block", "arguments": map[string]any{}, "timeoutSecs": 3600}, nil)
		}()
	}
	for range 2 {
		r := <-hogReplies
		if limitOf(r) != "queue_full" {
			t.Fatalf("hog's excess call: %s, want a queue_full refusal", r.Body)
		}
	}

	// Everyone else, while the hog's queue is full.
	var wg sync.WaitGroup
	errs := make(chan string, tenants*sessions*(rounds+1))
	for _, id := range ids[:tenants] {
		for i := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := w.client(t, id)
				c.open()
				if r := c.call("tools/list", map[string]any{}); r.Status != 200 || r.Msg.Error != nil {
					errs <- fmt.Sprintf("%s tools/list: %d %s", id, r.Status, r.Body)
					return
				}
				for round := range rounds {
					var r reply
					switch (i + round) % 3 {
					case 0:
						r = c.call("tools/call", map[string]any{"name": "hello", "arguments": map[string]any{"name": id}})
						if !strings.Contains(string(r.Body), "Hello, "+id) {
							errs <- fmt.Sprintf("%s hello: %s", id, r.Body)
						}
					case 1:
						r = c.call("prompts/get", map[string]any{"name": "greet", "arguments": map[string]any{"name": id, "notes": "n"}})
					case 2:
						r = c.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": map[string]any{"name": "name", "value": "a"}})
					}
					if r.Status != 200 || r.Msg.Error != nil {
						errs <- fmt.Sprintf("%s call %d: %d %s", id, (i+round)%3, r.Status, r.Body)
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	// The flood: ten calls at once against one call per minute.
	floodReplies := make(chan reply, 10)
	for range 10 {
		go func() {
			c := w.client(t, "flood")
			floodReplies <- c.statelessCall("tools/call", "hello", map[string]any{"name": "hello", "arguments": map[string]any{}}, nil)
		}()
	}
	admitted, refused := 0, 0
	for range 10 {
		r := <-floodReplies
		switch {
		case limitOf(r) == "calls_per_minute":
			refused++
			if !strings.Contains(string(r.Msg.Error.Data), "retryAfterMs") {
				t.Errorf("rate refusal without retryAfterMs: %s", r.Body)
			}
		case r.Msg.Error == nil && strings.Contains(string(r.Body), "Hello"):
			admitted++
		default:
			t.Errorf("flood call: %s", r.Body)
		}
	}
	// The bucket holds one call and refills one a minute: at most one more if this test
	// took a minute to get here.
	if admitted < 1 || admitted > 2 || refused < 8 {
		t.Errorf("flood: %d admitted, %d refused; want 1 (2 at most) and the rest refused", admitted, refused)
	}

	// Release the hog: its four admitted calls all finish.
	if err := os.WriteFile(filepath.Join(w.tenants, "hog", "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		r := <-hogReplies
		if r.Msg.Error != nil || !strings.Contains(string(r.Body), "released") {
			t.Errorf("hog's admitted call: %s", r.Body)
		}
	}

	// The metrics count the refusals per tenant and cause.
	body := []byte(scrape(t, w, w.srv.Base+"/metrics", secret))
	metric := func(re string) int {
		m := regexp.MustCompile(re + ` (\d+)`).FindSubmatch(body)
		if m == nil {
			return -1
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	if n := metric(`mcpbash_limits_hit_total\{cause="queue_full",tenant="hog"\}`); n != 2 {
		t.Errorf("queue_full refusals of hog in /metrics: %d, want 2", n)
	}
	if n := metric(`mcpbash_limits_hit_total\{cause="calls_per_minute",tenant="flood"\}`); n != refused {
		t.Errorf("calls_per_minute refusals of flood in /metrics: %d, want %d", n, refused)
	}
	if n := metric(`mcpbash_calls_total\{kind="tool",outcome="ok",tenant="t07"\}`); n < 1 {
		t.Errorf("t07's tool calls in /metrics: %d", n)
	}
}
