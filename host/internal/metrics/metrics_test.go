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

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
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
	// The scrape parses as the text exposition format, and each family keeps its type, its
	// help and the label names the documentation gives (docs/HOSTING.md).
	fams := parse(t, out)
	for name, want := range map[string]struct {
		typ    dto.MetricType
		labels string
	}{
		"mcpbash_calls_total":           {dto.MetricType_COUNTER, "kind,outcome,tenant"},
		"mcpbash_call_duration_seconds": {dto.MetricType_HISTOGRAM, "kind,tenant"},
		"mcpbash_refusals_total":        {dto.MetricType_COUNTER, "reason,tenant"},
		"mcpbash_limits_hit_total":      {dto.MetricType_COUNTER, "cause,tenant"},
		"mcpbash_auth_decisions_total":  {dto.MetricType_COUNTER, "method,result"},
		"mcpbash_tenant_calls_running":  {dto.MetricType_GAUGE, "tenant"},
		"mcpbash_tenant_calls_waiting":  {dto.MetricType_GAUGE, "tenant"},
		"mcpbash_tenant_rate_tokens":    {dto.MetricType_GAUGE, "tenant"},
		"mcpbash_workers_busy":          {dto.MetricType_GAUGE, ""},
		"mcpbash_workers_idle":          {dto.MetricType_GAUGE, ""},
		"mcpbash_worker_slots":          {dto.MetricType_GAUGE, ""},
		"mcpbash_queue_waiting":         {dto.MetricType_GAUGE, ""},
		"mcpbash_sessions":              {dto.MetricType_GAUGE, "transport"},
		"mcpbash_tenants_reloads_total": {dto.MetricType_COUNTER, ""},
	} {
		f := fams[name]
		if f == nil {
			t.Errorf("no family %s", name)
			continue
		}
		if f.GetType() != want.typ || f.GetHelp() == "" {
			t.Errorf("%s: type %v help %q, want %v and a help text", name, f.GetType(), f.GetHelp(), want.typ)
		}
		for _, s := range f.GetMetric() {
			var names []string
			for _, l := range s.GetLabel() {
				names = append(names, l.GetName())
			}
			if got := strings.Join(names, ","); got != want.labels {
				t.Errorf("%s labels %s, want %s", name, got, want.labels)
			}
		}
	}
	// The duration histogram's buckets are the documented bounds, cumulative, with +Inf.
	h := fams["mcpbash_call_duration_seconds"].GetMetric()[0].GetHistogram()
	var bounds []string
	for _, b := range h.GetBucket() {
		bounds = append(bounds, fmt.Sprint(b.GetUpperBound()))
	}
	if got := strings.Join(bounds, " "); got != "0.001 0.0025 0.005 0.01 0.025 0.05 0.1 0.25 0.5 1 2.5 5 10 30 60 120 +Inf" {
		t.Errorf("buckets %s", got)
	}
	if h.GetSampleCount() != 2 || h.GetBucket()[4].GetCumulativeCount() != 0 || h.GetBucket()[5].GetCumulativeCount() != 1 || h.GetBucket()[9].GetCumulativeCount() != 2 {
		t.Errorf("histogram counts: %v", h)
	}
	for _, want := range []string{`mcpbash_call_duration_seconds_bucket{kind="tool",tenant="acme",le="+Inf"} 2`, "# TYPE mcpbash_calls_total counter\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
}

// parse reads a scrape as Prometheus does.
func parse(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the scrape does not parse: %v\n%s", err, text)
	}
	return fams
}

// value is the sample of family name whose labels are exactly want (nil: none such).
func value(t *testing.T, m *Metrics, name string, want map[string]string) *float64 {
	t.Helper()
	f := parse(t, string(m.exposition()))[name]
	for _, s := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range s.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			continue
		}
		v := s.GetCounter().GetValue() + s.GetGauge().GetValue()
		return &v
	}
	return nil
}

// TestLabelValuesEscaped: a label value with a quote, a backslash or a newline (a tenant id
// is the operator's) is escaped, and the scrape still parses with the value intact.
func TestLabelValuesEscaped(t *testing.T) {
	m := New(Options{})
	odd := "a\"b\\c\nd"
	m.LimitHit(odd, "timeout")
	if v := value(t, m, "mcpbash_limits_hit_total", map[string]string{"cause": "timeout", "tenant": odd}); v == nil || *v != 1 {
		t.Fatalf("escaped tenant: %v\n%s", v, m.exposition())
	}
}

// TestTenantCardinality: past the cap, new tenants share one label value.
func TestTenantCardinality(t *testing.T) {
	m := New(Options{MaxTenants: 3})
	for i := range 10 {
		m.Call(fmt.Sprint("t", i), "tool", OutcomeOK, time.Millisecond)
	}
	m.Call("t0", "tool", OutcomeOK, time.Millisecond)
	if n := len(parse(t, string(m.exposition()))["mcpbash_calls_total"].GetMetric()); n != 4 {
		t.Fatalf("%d series, want 4 (3 tenants + %s)", n, OtherTenant)
	}
	if v := value(t, m, "mcpbash_calls_total", map[string]string{"kind": "tool", "outcome": OutcomeOK, "tenant": OtherTenant}); v == nil || *v != 7 {
		t.Fatalf("%s = %v, want 7", OtherTenant, v)
	}
	if v := value(t, m, "mcpbash_calls_total", map[string]string{"kind": "tool", "outcome": OutcomeOK, "tenant": "t0"}); v == nil || *v != 2 {
		t.Fatalf("t0 = %v, want 2 (known tenants keep their label)", v)
	}
}

// TestTwoInstances: no global registry, so two servers in one process do not collide.
func TestTwoInstances(t *testing.T) {
	a, b := New(Options{}), New(Options{})
	a.LimitHit("x", "timeout")
	if n := len(parse(t, string(b.exposition()))["mcpbash_limits_hit_total"].GetMetric()); n != 0 {
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
