package stress

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// memBudget bounds the server's resident memory in every scenario.
const memBudget = 1 << 30

// TestConcurrentSlowCalls: 100 slow calls in flight at once all answer, each exactly once and
// with its own result.
func TestConcurrentSlowCalls(t *testing.T) {
	t.Parallel()
	n, ms := 100, pick(200, 1000)
	c := start(t, project(t), false, "MCPBASH_MAX_CONCURRENT_REQUESTS=100")
	began := time.Now()
	var lines []string
	for i := range n {
		lines = append(lines, call(idf("slow", i), "slow", map[string]any{"n": i, "ms": ms}))
	}
	c.send(lines...)
	c.wait(60*time.Second, "all slow calls answered", func() bool {
		for i := range n {
			if !c.has(idf("slow", i)) {
				return false
			}
		}
		return true
	})
	for i := range n {
		if got := c.text(idf("slow", i)); strings.TrimSpace(got) != fmt.Sprint(i) {
			t.Errorf("call %d answered %q", i, got)
		}
	}
	if d := c.duplicates(); len(d) > 0 {
		t.Errorf("answered more than once: %v", d)
	}
	t.Logf("%d concurrent calls of %d ms answered in %v; server RSS %d MiB", n, ms, time.Since(began).Round(time.Millisecond), c.rss()>>20)
	if r := c.rss(); r > memBudget {
		t.Errorf("RSS %d MiB over budget", r>>20)
	}
}

// TestSequentialCalls: thousands of calls one after another: none lost, none duplicated, each
// with its own answer.
func TestSequentialCalls(t *testing.T) {
	t.Parallel()
	n := pick(1000, 10000)
	c := start(t, project(t), false)
	began := time.Now()
	for i := range n {
		id := idf("seq", i)
		c.send(call(id, "echo", map[string]any{"n": i}))
		c.wait(30*time.Second, "answer "+id, func() bool { return c.has(id) })
	}
	elapsed := time.Since(began)
	for i := range n {
		if got := strings.TrimSpace(c.text(idf("seq", i))); got != fmt.Sprint(i) {
			t.Fatalf("call %d answered %q", i, got)
		}
	}
	if d := c.duplicates(); len(d) > 0 {
		t.Errorf("answered more than once: %v", d)
	}
	c.mu.Lock()
	total := c.n
	c.mu.Unlock()
	if total != n+1 { // + initialize
		t.Errorf("%d answers for %d requests", total, n+1)
	}
	t.Logf("%d sequential calls in %v (%.0f µs per round trip); server RSS %d MiB", n, elapsed.Round(time.Millisecond),
		float64(elapsed.Microseconds())/float64(n), c.rss()>>20)
}

// TestClientStopsReading (T-PROTO-4): the client sends many calls with large results and reads
// nothing for a while; the server's memory stays bounded (its output queue applies backpressure
// in lines and bytes), and once the client reads again every call is answered.
func TestClientStopsReading(t *testing.T) {
	t.Parallel()
	n, kb := pick(300, 2000), pick(256, 1024)
	c := start(t, project(t), true)
	go func() {
		for i := range n {
			c.send(call(idf("bp", i), "big", map[string]any{"kb": kb}))
		}
	}()
	var peak int64
	for range pick(20, 60) { // 2 s (small) or 6 s of not reading
		time.Sleep(100 * time.Millisecond)
		peak = max(peak, c.rss())
	}
	// The output queue holds at most MCPBASH_MAX_OUTPUT_QUEUE_BYTES (64 MiB); senders blocked
	// behind it hold one result each (at most MCPBASH_MAX_CONCURRENT_REQUESTS of them).
	if peak > 384<<20 {
		t.Errorf("RSS reached %d MiB while the client was not reading (bound 384 MiB)", peak>>20)
	}
	c.resume()
	c.wait(120*time.Second, "every call answered after reading resumed", func() bool {
		for i := range n {
			if !c.has(idf("bp", i)) {
				return false
			}
		}
		return true
	})
	for i := 0; i < n; i += max(1, n/20) {
		if got := c.text(idf("bp", i)); len(got) != kb*1024 {
			t.Errorf("call %d: %d bytes", i, len(got))
		}
	}
	t.Logf("%d calls × %d KiB unread: peak RSS %d MiB (%d MiB of results)", n, kb, peak>>20, n*kb>>10)
}

// TestClientStopsReadingSmallAnswers: with small answers, which the server may write from the
// goroutine that handled the request, a client that stops reading stalls the server only until
// it reads again: nothing is lost or duplicated.
func TestClientStopsReadingSmallAnswers(t *testing.T) {
	t.Parallel()
	n := pick(3000, 20000)
	c := start(t, project(t), true)
	go func() {
		for i := range n {
			if i%10 == 0 {
				c.send(call(idf("se", i), "echo", map[string]any{"n": i}))
			} else {
				c.send(ping(idf("sp", i)))
			}
		}
	}()
	time.Sleep(time.Duration(pick(1, 3)) * time.Second)
	c.resume()
	c.wait(120*time.Second, "every request answered after reading resumed", func() bool {
		for i := range n {
			p := "sp"
			if i%10 == 0 {
				p = "se"
			}
			if !c.has(idf(p, i)) {
				return false
			}
		}
		return true
	})
	if d := c.duplicates(); len(d) > 0 {
		t.Errorf("answered more than once: %v", d[:min(len(d), 5)])
	}
	for i := 0; i < n; i += 10 {
		if got := c.text(idf("se", i)); got != fmt.Sprint(i) {
			t.Fatalf("echo %d answered %q", i, got)
		}
	}
}

// TestHugeRequests: a 20 MiB line over the default 16 MiB limit gets a clean error and the
// session goes on; with the limit raised, a 20 MiB argument reaches the tool whole.
func TestHugeRequests(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a", 20<<20)
	line := call(`"huge"`, "len", map[string]any{"s": big})

	c := start(t, project(t), false)
	c.send(line, ping(`"after"`))
	c.wait(60*time.Second, "answer after the oversized line", func() bool { return c.has(`"after"`) })
	c.mu.Lock()
	refused := len(c.answers["null"]) == 1 && strings.Contains(string(c.answers["null"][0]), "line limit")
	c.mu.Unlock()
	if !refused || c.has(`"huge"`) {
		t.Errorf("oversized line: want one error with a null id, got answers %v", c.text(`"huge"`))
	}
	if r := c.rss(); r > memBudget {
		t.Errorf("RSS %d MiB", r>>20)
	}

	c = start(t, project(t), false, "MCPBASH_MAX_LINE_BYTES=33554432")
	for i := range pick(1, 3) {
		id := idf("huge", i)
		c.send(strings.Replace(line, `"id":"huge"`, `"id":`+id, 1))
		c.wait(120*time.Second, "20 MiB call answered", func() bool { return c.has(id) })
		if got := c.text(id); got != fmt.Sprintf("len=%d\n", 20<<20) && got != fmt.Sprintf("len=%d", 20<<20) {
			t.Errorf("20 MiB argument: %.200q", got)
		}
	}
	rss := c.rss()
	t.Logf("20 MiB request: server RSS %d MiB", rss>>20)
	if rss > memBudget {
		t.Errorf("RSS %d MiB over budget", rss>>20)
	}
}

// TestStdinClosedMidCall: calls in flight when stdin closes are still answered, then the server
// exits cleanly.
func TestStdinClosedMidCall(t *testing.T) {
	t.Parallel()
	c := start(t, project(t), false)
	n := pick(10, 50)
	var lines []string
	for i := range n {
		lines = append(lines, call(idf("eof", i), "slow", map[string]any{"n": i, "ms": 300}))
	}
	c.send(lines...)
	time.Sleep(50 * time.Millisecond)
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(harness.Backstop):
		t.Fatal("server did not exit after stdin closed")
	}
	for i := range n {
		if got := strings.TrimSpace(c.text(idf("eof", i))); got != fmt.Sprint(i) {
			t.Errorf("call %d in flight at EOF answered %q", i, got)
		}
	}
	if c.waitErr != nil {
		t.Errorf("server exit: %v\n%s", c.waitErr, c.stderr.String())
	}
}

// TestCancellationRace: calls finishing at random moments around their cancellation. An
// uncancelled call always answers exactly once. A cancelled call answers at most once, and only
// with an answer that was already on its way: it must come before the answer to the ping the
// client sent right after the cancellation (the server handles both in order). Calls cancelled
// long before they could finish never answer.
func TestCancellationRace(t *testing.T) {
	t.Parallel()
	n := pick(300, 3000)
	c := start(t, project(t), false, "MCPBASH_MAX_CONCURRENT_REQUESTS=32")
	rng := rand.New(rand.NewPCG(1, 2))
	cancelled := map[int]bool{}
	var wg sync.WaitGroup
	for i := range n {
		id := idf("race", i)
		c.send(call(id, "slow", map[string]any{"n": i, "ms": rng.IntN(20)}))
		if rng.IntN(2) == 0 {
			cancelled[i] = true
			delay := time.Duration(rng.IntN(25)) * time.Millisecond
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(delay)
				c.send(cancel(id), ping(idf("after", i)))
			}()
		}
		if i%50 == 49 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	// Long calls cancelled early: never answered.
	const long = 20
	for i := range long {
		c.send(call(idf("long", i), "slow", map[string]any{"n": i, "ms": 600_000}))
	}
	time.Sleep(200 * time.Millisecond)
	for i := range long {
		c.send(cancel(idf("long", i)))
	}
	wg.Wait()
	c.send(ping(`"final"`))
	c.wait(60*time.Second, "all uncancelled calls and pings answered", func() bool {
		for i := range n {
			if (!cancelled[i] && !c.has(idf("race", i))) || (cancelled[i] && !c.has(idf("after", i))) {
				return false
			}
		}
		return c.has(`"final"`)
	})
	// At end of input the server answers every request it read before it exits: a long call
	// that was not cancelled would answer then (at its timeout, ten times sooner than its
	// sleep), so after the exit every answer that will ever come is in.
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(harness.Backstop):
		t.Fatal("server did not exit at end of input")
	}
	c.mu.Lock()
	late, answeredCancelled := 0, 0
	for i := range n {
		id := idf("race", i)
		if !cancelled[i] {
			continue
		}
		if len(c.answers[id]) > 0 {
			answeredCancelled++
			if c.order[id] > c.order[idf("after", i)] {
				late++
				t.Errorf("cancelled call %s answered after the cancellation was processed", id)
			}
		}
	}
	for i := range long {
		if len(c.answers[idf("long", i)]) > 0 {
			t.Errorf("call long-%d answered although cancelled long before it could finish: %s", i, c.answers[idf("long", i)][0])
		}
	}
	c.mu.Unlock()
	if d := c.duplicates(); len(d) > 0 {
		t.Errorf("answered more than once: %v", d)
	}
	t.Logf("%d calls, %d cancelled: %d of those had already answered, %d answered late", n, len(cancelled), answeredCancelled, late)
}
