package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func scrape(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	return string(b)
}

func TestMetricsExposition(t *testing.T) {
	m := New(Options{Runtime: true})
	m.Call("acme", "tool", OutcomeOK, 30*time.Millisecond)
	m.Call("acme", "tool", OutcomeToolError, time.Second)
	m.Refusal("acme", "command_not_allowed")
	m.LimitHit("beta", "calls_per_minute")
	m.AuthDecision("jwt", "ok")
	m.AuthDecision("", "missing")
	m.Quota("acme", 2, 5, 17)
	m.Workers(3, 1, 8, 9)
	m.SessionOpened("http")
	m.SessionOpened("http")
	m.SessionClosed("http")
	m.TenantsReloaded()
	out := scrape(t, m.Handler())
	for _, want := range []string{
		`mcpbash_calls_total{kind="tool",outcome="ok",tenant="acme"} 1`,
		`mcpbash_calls_total{kind="tool",outcome="tool_error",tenant="acme"} 1`,
		`mcpbash_call_duration_seconds_count{kind="tool",tenant="acme"} 2`,
		`mcpbash_refusals_total{reason="command_not_allowed",tenant="acme"} 1`,
		`mcpbash_limits_hit_total{cause="calls_per_minute",tenant="beta"} 1`,
		`mcpbash_auth_decisions_total{method="none",result="missing"} 1`,
		`mcpbash_tenant_calls_running{tenant="acme"} 2`,
		`mcpbash_tenant_calls_waiting{tenant="acme"} 5`,
		`mcpbash_tenant_rate_tokens{tenant="acme"} 17`,
		`mcpbash_workers_busy 3`,
		`mcpbash_worker_slots 8`,
		`mcpbash_queue_waiting 9`,
		`mcpbash_sessions{transport="http"} 1`,
		`mcpbash_tenants_reloads_total 1`,
		`go_goroutines`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %s", want)
		}
	}
	// The private registry lints clean (names, help, units).
	problems, err := testutil.GatherAndLint(m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "mcpbash_") {
			t.Errorf("lint %s: %s", p.Metric, p.Text)
		}
	}
}

// TestTenantCardinality: past the cap, new tenants share one label value.
func TestTenantCardinality(t *testing.T) {
	m := New(Options{MaxTenants: 3})
	for i := range 10 {
		m.Call(fmt.Sprint("t", i), "tool", OutcomeOK, time.Millisecond)
	}
	m.Call("t0", "tool", OutcomeOK, time.Millisecond)
	if n := testutil.CollectAndCount(m.calls); n != 4 {
		t.Fatalf("%d series, want 4 (3 tenants + %s)", n, OtherTenant)
	}
	if v := testutil.ToFloat64(m.calls.WithLabelValues(OtherTenant, "tool", OutcomeOK)); v != 7 {
		t.Fatalf("%s = %v, want 7", OtherTenant, v)
	}
	if v := testutil.ToFloat64(m.calls.WithLabelValues("t0", "tool", OutcomeOK)); v != 2 {
		t.Fatalf("t0 = %v, want 2 (known tenants keep their label)", v)
	}
}

// TestTwoInstances: no global registry, so two servers in one process do not collide.
func TestTwoInstances(t *testing.T) {
	a, b := New(Options{}), New(Options{})
	a.LimitHit("x", "timeout")
	if testutil.CollectAndCount(b.limits) != 0 {
		t.Fatal("metrics leaked between instances")
	}
}

func TestProbes(t *testing.T) {
	var logged strings.Builder
	h := NewHealth(slog.New(slog.NewTextHandler(&logged, nil)))
	registryErr := errors.New("dial tcp 10.0.0.7:443: https://idp.internal/jwks unreachable")
	h.AddCheck("auth", "keys_unavailable", func() error { return registryErr })
	h.AddCheck("workers", "saturated", func() error { return nil })
	get := func(handler http.Handler) (int, map[string]any) {
		srv := httptest.NewServer(handler)
		defer srv.Close()
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		return resp.StatusCode, body
	}
	if code, _ := get(h.Healthz()); code != 200 {
		t.Fatalf("healthz %d", code)
	}
	code, body := get(h.Readyz())
	// The state, never the error: the probe needs no credentials, and the error names
	// configuration (a URL, an address), which goes to the log.
	if code != 503 || fmt.Sprint(body["failing"]) != "map[auth:keys_unavailable]" {
		t.Fatalf("readyz with a failing check: %d %v", code, body)
	}
	if !strings.Contains(logged.String(), "idp.internal") {
		t.Fatalf("the check's error was not logged: %s", logged.String())
	}
	registryErr = nil
	if code, body := get(h.Readyz()); code != 200 || body["status"] != "ready" {
		t.Fatalf("readyz when ready: %d %v", code, body)
	}
	h.Drain()
	if code, body := get(h.Readyz()); code != 503 || !strings.Contains(fmt.Sprint(body["failing"]), "draining") {
		t.Fatalf("readyz while draining: %d %v", code, body)
	}
	if code, _ := get(h.Healthz()); code != 200 {
		t.Fatal("liveness must not fail while draining (the pod would be killed mid-drain)")
	}
}

// TestRefusalReason: the refusal metric's reason label names the reason (it held the
// operation), in a bounded set of words: details after a colon or parenthesis are left out.
func TestRefusalReason(t *testing.T) {
	for _, tc := range []struct{ op, reason, want string }{
		{"exec", "not allowed", "command_not_allowed"},
		{"read", "outside the roots", "outside_roots"},
		{"write", "read-only root", "read_only_root"},
		{"write", "bytes-written limit", "bytes_written_limit"},
		{"exec", "cannot be confined: landlock: operation not permitted", "cannot_be_confined"},
		{"exec", "option --rcfile", "option"},
		{"read", "a program of the sandbox, not a file", "program_of_sandbox_not_file"},
		{"read", "", "unspecified"},
		{"read", strings.Repeat("word ", 20), "other"},
	} {
		if got := RefusalReason(tc.op, tc.reason); got != tc.want {
			t.Errorf("RefusalReason(%q, %q) = %q, want %q", tc.op, tc.reason, got, tc.want)
		}
	}
}
