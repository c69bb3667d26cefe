package security

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The regression suite of the hosting attack pass (issue 28): every finding and its variants,
// over every revision, with tenant isolation still holding (TestCrossTenant).

// attackAuth needs scopes per method and per tool beyond the required "mcp".
const attackAuth = `{"apiKeysFile": "api-keys", "scopes": {"required": ["mcp"],
  "methods": {"resources/read": ["mcp:read"], "resources/subscribe": ["mcp:read"], "subscriptions/listen": ["mcp:read"],
              "prompts/get": ["mcp:prompts"], "completion/complete": ["mcp:prompts"], "tools/list": ["mcp:list"]},
  "tools": {"admin_*": ["mcp:admin"]}}}`

const allScopes = "mcp mcp:admin mcp:read mcp:prompts mcp:list"

const attackTenants = `{"version": 1,
 "default": {"roots": [{"path": "{TENANTS}/{tenant}", "name": "work", "create": true}],
             "commands": [], "limits": {"callsPerMinute": 100000, "timeoutSecs": 20}},
 "tenants": {"rate": {"limits": {"callsPerMinute": 2}},
             "seats": {"limits": {"listens": 2, "subscriptions": 3}}}}`

// adminTool leaves a mark in its tenant's root when it runs: the suite's proof that it did not.
const adminTool = `r="${MCP_ROOTS_PATHS%%$'\n'*}"; echo ran >> "$r/admin-ran"; mcp_result_success "$(mcp_json_obj ran ADMIN-RAN)"`

func newAttackWorld(t *testing.T, env ...string) *tenantWorld {
	return newTenantWorldWith(t, worldOptions{
		ids:         []string{"a", "ops", "rate", "seats", "b", "b/2"},
		tenantsJSON: attackTenants,
		authJSON:    attackAuth,
		scopes:      map[string]string{"ops": allScopes, "rate": allScopes, "seats": allScopes, "b": allScopes, "b/2": allScopes},
		tools:       map[string]string{"admin_x": adminTool},
		env:         env,
	})
}

// bodyVariants are spellings of one message: the ones that decode to it (a UTF-8 byte order
// mark, whitespace) must be authorized as it is; the others (other encodings, garbage) must
// not run at all.
func bodyVariants(msg []byte) map[string][]byte {
	bom := []byte{0xEF, 0xBB, 0xBF}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	utf16 := func(big bool, mark bool) []byte {
		var b []byte
		if mark {
			if big {
				b = append(b, 0xFE, 0xFF)
			} else {
				b = append(b, 0xFF, 0xFE)
			}
		}
		for _, c := range string(msg) {
			if big {
				b = append(b, byte(c>>8), byte(c))
			} else {
				b = append(b, byte(c), byte(c>>8))
			}
		}
		return b
	}
	utf32 := func(big bool) []byte {
		b := []byte{0xFF, 0xFE, 0, 0}
		if big {
			b = []byte{0, 0, 0xFE, 0xFF}
		}
		for _, c := range string(msg) {
			if big {
				b = append(b, 0, 0, byte(c>>8), byte(c))
			} else {
				b = append(b, byte(c), byte(c>>8), 0, 0)
			}
		}
		return b
	}
	return map[string][]byte{
		"plain":               msg,
		"utf-8 bom":           cat(bom, msg),
		"bom then whitespace": cat(bom, []byte("\r\n \t"), msg, []byte("\r\n")),
		"whitespace then bom": cat([]byte(" \n"), bom, msg),
		"two boms":            cat(bom, bom, msg),
		"utf-16le bom":        utf16(false, true),
		"utf-16be bom":        utf16(true, true),
		"utf-16le":            utf16(false, false),
		"utf-16be":            utf16(true, false),
		"utf-32le bom":        utf32(false),
		"utf-32be bom":        utf32(true),
		"nul first":           cat([]byte{0}, msg),
		"trailing garbage":    cat(msg, []byte("x")),
		"two messages":        cat(msg, msg),
	}
}

// decodesAsIs are the variants the server reads as the message itself.
var decodesAsIs = map[string]bool{"plain": true, "utf-8 bom": true, "bom then whitespace": true}

type attackCall struct {
	name, method, mcpName string
	params                string // JSON
	stateless, legacy     bool   // only in 2026-07-28 / only in sessions
}

var attackCalls = []attackCall{
	{name: "admin tool", method: "tools/call", mcpName: "admin_x", params: `{"name":"admin_x","arguments":{}}`},
	{name: "admin tool, name in another case", method: "tools/call", mcpName: "admin_x", params: `{"Name":"admin_x","arguments":{}}`},
	{name: "admin tool, name given twice", method: "tools/call", mcpName: "admin_x", params: `{"name":"hello","name":"admin_x","arguments":{}}`},
	{name: "resources/read", method: "resources/read", mcpName: "file:///nowhere", params: `{"uri":"file:///nowhere"}`},
	{name: "resources/subscribe", method: "resources/subscribe", params: `{"uri":"file:///nowhere"}`, legacy: true},
	{name: "prompts/get", method: "prompts/get", mcpName: "greet", params: `{"name":"greet","arguments":{"name":"x"}}`},
	{name: "completion/complete", method: "completion/complete", params: `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"a"}}`},
	{name: "tools/list", method: "tools/list", params: `{}`},
	{name: "subscriptions/listen", method: "subscriptions/listen", params: `{"notifications":{"toolsListChanged":true}}`, stateless: true},
}

// statelessParams adds the 2026-07-28 _meta to a call's params, keeping the params' own text
// (a decoder would merge a key given twice away).
func statelessParams(params string) string {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if p := strings.TrimSpace(params); p != "{}" {
		return strings.TrimSuffix(p, "}") + "," + meta + "}"
	}
	return "{" + meta + "}"
}

// TestScopeBypassRegression (finding 1): the body is parsed once and that parse is what
// authorization and dispatch both see, so no spelling of a call runs it with fewer scopes than
// it needs: a UTF-8 byte order mark, whitespace, other encodings, a batch, every method, every
// revision.
func TestScopeBypassRegression(t *testing.T) {
	w := newAttackWorld(t)
	marker := filepath.Join(w.tenants, "a", "admin-ran")
	for _, rev := range []string{"2025-03-26", "2025-06-18", "2025-11-25", stateless} {
		a := w.client(t, "a")
		a.hangup = 30 * time.Second // a call that runs holds a listen open: fail, do not hang
		if rev != stateless {
			a.version = rev
			a.open()
		}
		for _, call := range attackCalls {
			if call.stateless && rev != stateless || call.legacy && rev == stateless {
				continue
			}
			params, headers := call.params, map[string]string{}
			if rev == stateless {
				params = statelessParams(params)
				headers = map[string]string{"Mcp-Protocol-Version": stateless, "Mcp-Method": call.method, "Accept": "application/json, text/event-stream"}
				if call.mcpName != "" {
					headers["Mcp-Name"] = call.mcpName
				}
			}
			msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"` + call.method + `","params":` + params + `}`)
			bodies := bodyVariants(msg)
			asIs := map[string]bool{}
			for k := range decodesAsIs {
				asIs[k] = true
			}
			if rev == "2025-03-26" {
				// That revision's batches: the call among others, and alone.
				for name, b := range map[string][]byte{"batch": []byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"},` + string(msg) + `]`),
					"batch of one": []byte(`[` + string(msg) + `]`)} {
					for vn, vb := range bodyVariants(b) {
						bodies[name+", "+vn] = vb
						asIs[name+", "+vn] = decodesAsIs[vn]
					}
				}
			}
			for variant, body := range bodies {
				r := a.raw(body, headers)
				where := fmt.Sprintf("%s / %s / %s", rev, call.name, variant)
				if strings.Contains(string(r.Body), "ADMIN-RAN") || r.Status == http.StatusOK && bytes.Contains(r.Body, []byte(`"result"`)) {
					t.Errorf("%s: answered without the scope: %d %.300s", where, r.Status, r.Body)
				}
				switch {
				case asIs[variant]:
					if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "insufficient_scope") {
						t.Errorf("%s: %d %.200s, want 403 insufficient_scope", where, r.Status, r.Body)
					}
				case r.Status != http.StatusBadRequest && r.Status != http.StatusForbidden:
					t.Errorf("%s: %d %.200s, want 400 (not JSON) or 403", where, r.Status, r.Body)
				}
			}
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the admin tool ran for a key without mcp:admin")
	}
	// A body declared in another charset is refused whatever it holds.
	a := w.client(t, "a")
	a.open()
	if r := a.raw([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), map[string]string{"Content-Type": "application/json; charset=utf-16"}); r.Status != http.StatusUnsupportedMediaType {
		t.Errorf("charset=utf-16: %d %s", r.Status, r.Body)
	}
	// Positive control: the key with the scope runs the tool, BOM or not; the one without
	// never did.
	ops := w.client(t, "ops")
	ops.open()
	for _, body := range [][]byte{[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin_x","arguments":{}}}`),
		append([]byte{0xEF, 0xBB, 0xBF}, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"Name":"admin_x","arguments":{}}}`...)} {
		if r := ops.raw(body, nil); r.Status != 200 || !strings.Contains(string(r.Body), "ADMIN-RAN") {
			t.Fatalf("ops: %d %s", r.Status, r.Body)
		}
	}
	if _, err := os.Stat(filepath.Join(w.tenants, "ops", "admin-ran")); err != nil {
		t.Fatal("the positive control did not run the tool")
	}
}

// listenStream is an open subscriptions/listen stream: its first message, and close to hang up.
type listenStream struct {
	first map[string]any
	close func()
}

// listen opens a 2026-07-28 subscriptions/listen stream as c's tenant and waits for its first
// message (the acknowledgement, or the refusal).
func (c *client) listen(uris []string) listenStream {
	c.t.Helper()
	params := map[string]any{"notifications": map[string]any{"toolsListChanged": true, "resourceSubscriptions": uris},
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": stateless, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": params})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.w.srv.URL, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Mcp-Protocol-Version", stateless)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := c.w.http.Do(req)
	if err != nil {
		cancel()
		c.t.Fatal(err)
	}
	ls := listenStream{close: func() { cancel(); resp.Body.Close() }}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		events := make(chan harness.SSEEvent, 16)
		go harness.ReadSSE(bufio.NewReader(resp.Body), events)
		for ev := range events {
			if ev.Comment || ev.Data == "" {
				continue
			}
			_ = json.Unmarshal([]byte(ev.Data), &ls.first)
			break
		}
	} else {
		body, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(body, &ls.first)
	}
	return ls
}

func limitIn(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	d, _ := e["data"].(map[string]any)
	s, _ := d["limit"].(string)
	return s
}

// TestListenIsAdmittedAndBounded (finding 2): opening a listen stream passes its tenant's
// admission and is audited; a tenant holds at most its listens and its subscriptions, refused
// whole and at once past them; a stream the client hangs up gives its seats back.
func TestListenIsAdmittedAndBounded(t *testing.T) {
	w := newAttackWorld(t)
	notes := "file://" + filepath.Join(w.project, "resources", "notes.txt")
	// Over its rate: the listen is refused like any call, and audited as refused.
	rate := w.client(t, "rate")
	for range 2 {
		rate.statelessCall("tools/call", "hello", map[string]any{"name": "hello", "arguments": map[string]any{}}, nil)
	}
	if ls := rate.listen([]string{notes}); limitIn(ls.first) != "calls_per_minute" {
		ls.close()
		t.Fatalf("a listen over the tenant's rate: %v", ls.first)
	} else {
		ls.close()
	}
	seats := w.client(t, "seats")
	// More resources than the tenant may watch: refused whole, before any is read.
	if ls := seats.listen([]string{notes, notes + "?1", notes + "?2", notes + "?3"}); limitIn(ls.first) != "subscriptions" {
		ls.close()
		t.Fatalf("a listen past subscriptions: %v", ls.first)
	} else {
		ls.close()
	}
	first, second := seats.listen([]string{notes}), seats.listen(nil)
	defer second.close()
	for _, ls := range []listenStream{first, second} {
		if ls.first["method"] != "notifications/subscriptions/acknowledged" {
			t.Fatalf("listen within the seats: %v", ls.first)
		}
	}
	if ls := seats.listen(nil); limitIn(ls.first) != "listens" {
		ls.close()
		t.Fatalf("a third listen: %v", ls.first)
	} else {
		ls.close()
	}
	// The client hangs up one stream: its seats come back once the server has noticed.
	first.close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ls := seats.listen([]string{notes})
		ok := ls.first["method"] == "notifications/subscriptions/acknowledged"
		ls.close()
		if ok {
			break
		}
		if limitIn(ls.first) != "listens" || time.Now().After(deadline) {
			t.Fatalf("after a hang-up: %v", ls.first)
		}
	}
	// The audit log has the refusals as refusals, with the limit as the cause.
	causes := auditOutcomes(t, w)
	for _, want := range []string{"rate/listen/refused/calls_per_minute", "seats/listen/refused/subscriptions", "seats/listen/refused/listens", "seats/listen/ok/"} {
		if !causes[want] {
			t.Errorf("audit log lacks %s: %v", want, causes)
		}
	}
}

// auditOutcomes reads the audit log as tenant/kind/outcome/cause entries.
func auditOutcomes(t *testing.T, w *tenantWorld) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(w.audit)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct{ Tenant, Kind, Outcome, Cause string }
		if json.Unmarshal([]byte(line), &rec) == nil {
			out[rec.Tenant+"/"+rec.Kind+"/"+rec.Outcome+"/"+rec.Cause] = true
		}
	}
	return out
}

// TestRefusalsAreAuditedAsRefused (finding 3): a call refused by a quota is audited and
// counted as refused, with the limit as the cause, not as cancelled.
func TestRefusalsAreAuditedAsRefused(t *testing.T) {
	token := filepath.Join(t.TempDir(), "metrics-token")
	write(t, token, "metrics-token-"+strings.Repeat("x", 40))
	w := newAttackWorld(t, "MCPBASH_METRICS_TOKEN_FILE="+token)
	rate := w.client(t, "rate")
	rate.open()
	var refused int
	for range 4 {
		r := rate.call("tools/call", map[string]any{"name": "hello", "arguments": map[string]any{}})
		if r.Msg.Error != nil && r.Msg.Error.Code == -32029 {
			refused++
		}
	}
	if refused < 2 {
		t.Fatalf("%d refusals of 4 calls at 2 per minute", refused)
	}
	causes := auditOutcomes(t, w)
	if !causes["rate/tool/refused/calls_per_minute"] || causes["rate/tool/cancelled/"] {
		t.Fatalf("audit outcomes %v", causes)
	}
	body := scrape(t, w, w.srv.Base+"/metrics", "metrics-token-"+strings.Repeat("x", 40))
	if !strings.Contains(body, `mcpbash_calls_total{kind="tool",outcome="refused",tenant="rate"}`) ||
		strings.Contains(body, `outcome="cancelled",tenant="rate"`) {
		t.Fatalf("metrics:\n%s", grepLines(body, "mcpbash_calls_total"))
	}
}

// scrape GETs url (with token as a bearer token, when given) and wants a 200.
func scrape(t *testing.T, w *tenantWorld, url, token string) string {
	t.Helper()
	code, body := get(t, w, url, token)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", url, code, body)
	}
	return body
}

func get(t *testing.T, w *tenantWorld, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := w.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestMetricsNeedCredentials (finding 4): /metrics lists every tenant, so it is never served
// with less protection than /mcp: refused on the MCP listener of an authenticated server,
// behind its own token when one is set, on its own listener when one is set.
func TestMetricsNeedCredentials(t *testing.T) {
	t.Run("no setting", func(t *testing.T) {
		w := newAttackWorld(t)
		w.client(t, "a").open()
		code, body := get(t, w, w.srv.Base+"/metrics", "")
		if code != http.StatusForbidden || strings.Contains(body, "mcpbash_") {
			t.Fatalf("/metrics without credentials: %d %.300s", code, body)
		}
		// A tenant's API key is no metrics credential either.
		if code, body := get(t, w, w.srv.Base+"/metrics", w.keys["ops"]); code != http.StatusForbidden || strings.Contains(body, "mcpbash_") {
			t.Fatalf("/metrics with a tenant's key: %d", code)
		}
	})
	t.Run("token", func(t *testing.T) {
		token := filepath.Join(t.TempDir(), "metrics-token")
		secret := "metrics-" + strings.Repeat("s", 40)
		write(t, token, secret+"\n")
		w := newAttackWorld(t, "MCPBASH_METRICS_TOKEN_FILE="+token)
		if code, _ := get(t, w, w.srv.Base+"/metrics", ""); code != http.StatusUnauthorized {
			t.Fatalf("/metrics without the token: %d", code)
		}
		if code, _ := get(t, w, w.srv.Base+"/metrics", w.keys["ops"]); code != http.StatusUnauthorized {
			t.Fatalf("/metrics with a tenant's key: %d", code)
		}
		if code, body := get(t, w, w.srv.Base+"/metrics", secret); code != 200 || !strings.Contains(body, "mcpbash_sse_buffered_bytes") {
			t.Fatalf("/metrics with the token: %d", code)
		}
	})
	t.Run("own listener", func(t *testing.T) {
		w := newAttackWorld(t, "MCPBASH_METRICS_ADDR=127.0.0.1:0")
		url := metricsURL(t, w)
		if code, body := get(t, w, url, ""); code != 200 || !strings.Contains(body, "mcpbash_") {
			t.Fatalf("own listener: %d", code)
		}
		if code, _ := get(t, w, w.srv.Base+"/metrics", ""); code != http.StatusForbidden {
			t.Fatalf("/metrics on the MCP listener with a metrics listener: %d", code)
		}
		if code, _ := get(t, w, strings.TrimSuffix(url, "/metrics")+"/mcp", ""); code != http.StatusNotFound {
			t.Fatalf("the metrics listener serves /mcp: %d", code)
		}
	})
}

// metricsURL is the metrics listener's URL from the server's log.
func metricsURL(t *testing.T, w *tenantWorld) string {
	t.Helper()
	for _, line := range strings.Split(w.srv.Stderr(), "\n") {
		var rec struct{ Msg, URL string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "metrics listening" {
			return rec.URL
		}
	}
	t.Fatalf("no metrics listener in the log:\n%s", w.srv.Stderr())
	return ""
}

// TestReadinessReportsStates (finding 6): /readyz needs no credentials, so it names states,
// never configuration: an issuer whose keys cannot be fetched is "keys_unavailable", without
// its URL or the dial error (those go to the log).
func TestReadinessReportsStates(t *testing.T) {
	jwks := "https://127.0.0.1:1/secret-path/jwks.json"
	auth := `{"apiKeysFile": "api-keys", "resource": "https://mcp.example.test/mcp",
	  "jwt": {"issuer": "https://127.0.0.1:1/secret-issuer", "jwksUrl": "` + jwks + `"}}`
	w := newTenantWorldWith(t, worldOptions{ids: []string{"a"}, tenantsJSON: attackTenants, authJSON: auth})
	// A token that makes the server try the key set (and fail).
	tok := &client{t: t, w: w, key: "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsifQ.eyJzdWIiOiJhIn0.c2ln"}
	tok.post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}, nil)
	resp, err := w.http.Get(w.srv.Base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "keys_unavailable") {
		t.Fatalf("/readyz: %d %s", resp.StatusCode, body)
	}
	for _, leak := range []string{"127.0.0.1", "secret-path", "secret-issuer", "dial", "connect"} {
		if strings.Contains(string(body), leak) {
			t.Errorf("/readyz names %q: %s", leak, body)
		}
	}
}

// TestRequestStateBoundToSubject: a requestState is its principal's, not its tenant's: another
// key of the same tenant presenting it is answered as for a forged one.
func TestRequestStateBoundToSubject(t *testing.T) {
	w := newAttackWorld(t)
	b, b2 := w.client(t, "b"), w.client(t, "b/2")
	caps := map[string]any{"roots": map[string]any{}}
	args := map[string]any{"script": "printf hi"}
	state := b.requestState(args, caps)
	retry := map[string]any{"name": "eval", "arguments": args, "requestState": state,
		"inputResponses": map[string]any{"roots": map[string]any{"roots": []any{}}}}
	other := b2.statelessCall("tools/call", "eval", retry, caps)
	forged := b2.statelessCall("tools/call", "eval", map[string]any{"name": "eval", "arguments": args, "requestState": state + "x",
		"inputResponses": retry["inputResponses"]}, caps)
	if other.Msg.Error == nil || forged.Msg.Error == nil || other.Msg.Error.Message != forged.Msg.Error.Message {
		t.Fatalf("another key's requestState: %s; forged: %s", other.Body, forged.Body)
	}
	if own := b.statelessCall("tools/call", "eval", retry, caps); own.Msg.Error != nil || !strings.Contains(string(own.Body), "hi") {
		t.Fatalf("the issuing key's retry: %s", own.Body)
	}
}

// TestRecordFloodIsAudited (T-DOS-14, issue 27 finding 5): after more harmless reads than an
// access record lists, the hosting audit log still has the call's write and its refused read
// (with how many times it was refused) and counts the reads it left out; the refusal metric
// counts every repeat.
func TestRecordFloodIsAudited(t *testing.T) {
	token := filepath.Join(t.TempDir(), "metrics-token")
	secret := "metrics-token-" + strings.Repeat("f", 40)
	write(t, token, secret)
	w := newAttackWorld(t, "MCPBASH_METRICS_TOKEN_FILE="+token)
	// The harmless reads: 12,000 files, more than the record lists, made here so that the call
	// makes no writes but one.
	root := filepath.Join(w.tenants, "a")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 12000 {
		write(t, filepath.Join(root, fmt.Sprintf("f%d", i)), "x")
	}
	a := w.client(t, "a")
	a.open()
	script := `r="${MCP_ROOTS_PATHS%%$'\n'*}"; cat "$r"/f* > /dev/null; ` +
		`echo w > "$r/written"; for i in 1 2 3; do cat /etc/passwd; done; echo done`
	if r := a.call("tools/call", map[string]any{"name": "eval", "arguments": map[string]any{"script": script}}); r.Msg.Error != nil {
		t.Fatalf("call: %s", r.Body)
	}
	data, err := os.ReadFile(w.audit)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Tenant, Name string
			Files        []string `json:"files_written"`
			Refusals     []struct {
				Op, Path string
				Count    int
			}
			ReadsNotRecorded int `json:"reads_not_recorded"`
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Tenant != "a" || rec.Name != "eval" {
			continue
		}
		found = true
		wrote, refused := false, 0
		for _, f := range rec.Files {
			wrote = wrote || strings.HasSuffix(f, "/written")
		}
		for _, r := range rec.Refusals {
			if strings.HasSuffix(r.Path, "/etc/passwd") {
				refused = r.Count
			}
		}
		if !wrote || refused != 3 || rec.ReadsNotRecorded == 0 {
			t.Errorf("audit record: the write %v, the refused read ×%d, reads not recorded %d; want true, 3, > 0\n%.2000s",
				wrote, refused, rec.ReadsNotRecorded, line)
		}
	}
	if !found {
		t.Fatalf("no audit record of the call:\n%.2000s", data)
	}
	body := scrape(t, w, w.srv.Base+"/metrics", secret)
	var counted float64
	for _, l := range strings.Split(grepLines(body, "mcpbash_refusals_total{"), "\n") {
		if strings.Contains(l, `tenant="a"`) {
			var n float64
			fmt.Sscan(l[strings.LastIndexByte(l, ' ')+1:], &n)
			counted += n
		}
	}
	if counted != 3 {
		t.Errorf("the refusal metric counts %v of tenant a's refusals, want 3:\n%s", counted, grepLines(body, "mcpbash_refusals_total"))
	}
}
