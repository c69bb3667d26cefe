package security

import (
	"debug/buildinfo"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// memoryTenants: "ghost" hangs up on its calls; its streams may hold 8 MiB.
const memoryTenants = `{"version": 1,
 "default": {"roots": [{"path": "{TENANTS}/{tenant}", "name": "work", "create": true}],
             "commands": [], "limits": {"callsPerMinute": 1000000, "timeoutSecs": 600, "concurrentCalls": 4,
                                        "sessions": 200, "bufferedBytes": 8388608}}}`

const (
	memoryBudget = 16 << 20 // MCPBASH_HTTP_MAX_BUFFERED_BYTES
	memoryLimit  = 96 << 20 // GOMEMLIMIT: the process's own budget, as docs/HOSTING.md advises
)

// TestVanishedClientsMemory (finding 5, issue 28): clients that hang up with large answers in
// flight leave the server within its documented bounds. The bytes held for streams nobody reads
// never pass MCPBASH_HTTP_MAX_BUFFERED_BYTES (the backlogs are evicted, oldest first), and the
// server's anonymous memory settles within its GOMEMLIMIT: 40 answers of 4 MiB (160 MiB that the
// server before issue 28 held until the sessions expired) cost it nothing once answered.
func TestVanishedClientsMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the server's memory from /proc")
	}
	if raceBuilt(harness.Binary(t)) {
		t.Skip("the race detector's shadow memory is anonymous memory too: measured on a plain build")
	}
	token := t.TempDir() + "/metrics-token"
	secret := "metrics-" + strings.Repeat("v", 40)
	write(t, token, secret)
	w := newTenantWorldWith(t, worldOptions{ids: []string{"ghost"}, tenantsJSON: memoryTenants,
		env: []string{"MCPBASH_CALL_SLOTS=8", "MCPBASH_WORKERS_IDLE=4", "MCPBASH_METRICS_TOKEN_FILE=" + token,
			"MCPBASH_HTTP_MAX_BUFFERED_BYTES=" + strconv.Itoa(memoryBudget), "GOMEMLIMIT=" + strconv.Itoa(memoryLimit)},
		tools: map[string]string{"big": bigTool}})
	buffered := regexp.MustCompile(`mcpbash_sse_buffered_bytes (\S+)`)
	heldNow := func() float64 {
		m := buffered.FindStringSubmatch(scrape(t, w, w.srv.Base+"/metrics", secret))
		if m == nil {
			t.Fatal("no mcpbash_sse_buffered_bytes in /metrics")
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	for wave := range 10 {
		vanish(t, w, "ghost", 4, "gate-"+strconv.Itoa(wave))
		if held := heldNow(); held > memoryBudget {
			t.Fatalf("wave %d: streams hold %.0f bytes, over the %d-byte budget", wave, held, memoryBudget)
		}
	}
	// The answers are out (the audit log says so): what they cost is garbage the runtime
	// returns within its limit. Waits for that, not for a clock.
	bound := int64(memoryLimit + 16<<20)
	deadline := time.Now().Add(90 * time.Second)
	for {
		rss := rssAnon(t, w.srv.PID())
		if rss <= bound {
			t.Logf("anonymous RSS %d MiB (bound %d MiB), streams hold %.0f bytes", rss>>20, bound>>20, heldNow())
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("anonymous RSS %d MiB, over %d MiB after 40 vanished 4 MiB answers", rss>>20, bound>>20)
		}
		// Scrapes allocate, so a server with nothing else to do still reaches its next GC.
		heldNow()
		time.Sleep(100 * time.Millisecond)
	}
}

// raceBuilt reports whether bin was built with -race.
func raceBuilt(bin string) bool {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// rssAnon is a process's anonymous resident memory (heap, stacks; not the mapped binary).
func rssAnon(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no RssAnon in /proc/pid/status")
	return 0
}
