package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcp-bash/mcp-bash/host/internal/auth"
	"github.com/mcp-bash/mcp-bash/host/internal/auth/authtest"
)

const resource = "https://mcp.example.test/mcp"

// clock is a test clock moved by hand.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	return c
}
func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// rig is an issuer, an authenticator trusting it, and a real HTTP server on loopback whose
// handler records what it was given.
type rig struct {
	iss   *authtest.Issuer
	clock *clock
	a     *auth.Authenticator
	srv   *httptest.Server

	mu       sync.Mutex
	seen     *auth.Principal
	sawAuthz bool
	body     string
}

func newRig(t *testing.T, cfg auth.Config, o auth.Options) *rig {
	t.Helper()
	r := &rig{iss: authtest.NewIssuer(t, jose.RS256), clock: newClock()}
	if cfg.Resource == "" {
		cfg.Resource = resource
	}
	if cfg.JWT == nil {
		cfg.JWT = &auth.JWTConfig{}
	}
	cfg.JWT.Issuer = r.iss.URL
	o.Client = r.iss.Client()
	o.Now = r.clock.Now
	a, err := auth.New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	r.a = a
	r.srv = httptest.NewServer(a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.seen = auth.FromContext(req.Context())
		r.sawAuthz = req.Header.Get("Authorization") != ""
		r.body = string(b)
		r.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	})))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *rig) claims(sub, scopes string) map[string]any {
	return r.iss.Claims(resource, sub, r.clock.Now(), scopes)
}

type result struct {
	status    int
	challenge string
	retry     string
	body      map[string]string
}

func (r *rig) do(t *testing.T, header, body string) result {
	t.Helper()
	method := http.MethodGet
	var rd io.Reader
	if body != "" {
		method = http.MethodPost
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, r.srv.URL+"/mcp", rd)
	if err != nil {
		t.Fatal(err)
	}
	if header != "" {
		req.Header.Set("Authorization", header)
	}
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	res := result{status: resp.StatusCode, challenge: resp.Header.Get("WWW-Authenticate"), retry: resp.Header.Get("Retry-After")}
	if resp.StatusCode != http.StatusOK {
		_ = json.NewDecoder(resp.Body).Decode(&res.body)
	}
	return res
}

func bearer(tok string) string { return "Bearer " + tok }

// TestTokens is the table of the authorization cases, over real HTTP: each token is
// either accepted with the right principal or refused with the status and challenge the MCP
// spec requires.
func TestTokens(t *testing.T) {
	r := newRig(t, auth.Config{}, auth.Options{})
	meta := `resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"`
	now := r.clock.Now()
	with := func(mod func(c map[string]any)) map[string]any {
		c := r.claims("acme", "mcp")
		mod(c)
		return c
	}
	stranger := r.iss.NewKey(t, jose.RS256)
	for _, c := range []struct {
		name      string
		header    string
		status    int
		errCode   string // OAuth error code in the challenge ("" = none)
		wantAudit string // error_description must contain this
	}{
		{"valid", bearer(r.iss.Mint(t, r.claims("acme", "mcp"))), 200, "", ""},
		{"missing", "", 401, "", ""},
		{"not bearer", "Basic dXNlcjpwYXNz", 400, "invalid_request", "Bearer"},
		{"empty bearer", "Bearer ", 400, "invalid_request", "Bearer"},
		{"garbage", bearer("not-a-token"), 401, "invalid_token", "invalid token"},
		{"expired", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["exp"] = now.Add(-time.Minute).Unix() }))), 401, "invalid_token", "expired"},
		{"expired within leeway", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["exp"] = now.Add(-10 * time.Second).Unix() }))), 200, "", ""},
		{"not yet valid", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["nbf"] = now.Add(5 * time.Minute).Unix() }))), 401, "invalid_token", "not valid yet"},
		{"issued in the future", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["iat"] = now.Add(5 * time.Minute).Unix() }))), 401, "invalid_token", "not valid yet"},
		{"no exp", bearer(r.iss.Mint(t, with(func(c map[string]any) { delete(c, "exp") }))), 401, "invalid_token", "exp"},
		{"wrong audience", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["aud"] = "https://other.example.test/mcp" }))), 401, "invalid_token", "not issued for this resource"},
		{"audience list", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["aud"] = []string{"https://other.example.test", resource} }))), 200, "", ""},
		{"audience uppercase host", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["aud"] = "HTTPS://MCP.EXAMPLE.TEST/mcp" }))), 200, "", ""},
		{"audience path differs", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["aud"] = "https://mcp.example.test/other" }))), 401, "invalid_token", "not issued for this resource"},
		{"no audience", bearer(r.iss.Mint(t, with(func(c map[string]any) { delete(c, "aud") }))), 401, "invalid_token", "not issued for this resource"},
		{"wrong issuer", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["iss"] = "https://evil.example.test" }))), 401, "invalid_token", "not issued by"},
		{"forged signature", bearer(authtest.SignWithHeader(t, stranger, map[string]any{"kid": r.iss.SigningKey().ID}, r.claims("acme", "mcp"))), 401, "invalid_token", "signature"},
		{"tampered payload", bearer(tamper(t, r.iss.Mint(t, r.claims("acme", "mcp")), r.claims("other-tenant", "mcp"))), 401, "invalid_token", "signature"},
		{"alg none", bearer(authtest.Unsigned(r.claims("acme", "mcp"), r.iss.SigningKey().ID)), 401, "invalid_token", "algorithm"},
		{"HS256 with the public key", bearer(authtest.HMACWithPublicKey(t, r.iss.SigningKey(), r.claims("acme", "mcp"))), 401, "invalid_token", "algorithm"},
		{"unknown kid", bearer(authtest.Sign(t, stranger, r.claims("acme", "mcp"))), 401, "invalid_token", "does not publish"},
		{"embedded jwk header", bearer(authtest.SignWithHeader(t, stranger, map[string]any{"jwk": jose.JSONWebKey{Key: stranger.Public()}}, r.claims("acme", "mcp"))), 401, "invalid_token", ""},
		{"no tenant claim", bearer(r.iss.Mint(t, with(func(c map[string]any) { delete(c, "sub") }))), 401, "invalid_token", "tenant"},
		{"bad scope claim", bearer(r.iss.Mint(t, with(func(c map[string]any) { c["scope"] = 42 }))), 401, "invalid_token", "scope"},
		// A claim given twice is refused for its claims, not as a forgery: the signature holds.
		{"duplicate tenant claim", bearer(authtest.SignPayload(t, r.iss.SigningKey(), nil, duplicateClaim(t, r.claims("acme", "mcp"), "sub", "other"))), 401, "invalid_token", "claim given twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := r.do(t, c.header, "")
			if res.status != c.status {
				t.Fatalf("status %d, want %d (body %v)", res.status, c.status, res.body)
			}
			if c.status == 200 {
				r.mu.Lock()
				defer r.mu.Unlock()
				if r.seen == nil || r.seen.Tenant != "acme" || r.seen.Method != auth.MethodJWT || r.seen.ClientID != "test-client" {
					t.Fatalf("principal %+v", r.seen)
				}
				if r.sawAuthz {
					t.Fatal("the Authorization header reached the handler")
				}
				return
			}
			if !strings.HasPrefix(res.challenge, "Bearer") || !strings.Contains(res.challenge, meta) {
				t.Fatalf("WWW-Authenticate %q lacks %s", res.challenge, meta)
			}
			if c.errCode == "" && strings.Contains(res.challenge, "error=") {
				t.Fatalf("challenge %q has an error code; a request without credentials gets none", res.challenge)
			}
			if c.errCode != "" && !strings.Contains(res.challenge, `error="`+c.errCode+`"`) {
				t.Fatalf("challenge %q, want error=%q", res.challenge, c.errCode)
			}
			if !strings.Contains(res.body["error_description"], c.wantAudit) {
				t.Fatalf("error_description %q, want it to mention %q", res.body["error_description"], c.wantAudit)
			}
		})
	}
}

// tamper replaces a token's payload, keeping its header and signature.
// duplicateClaim is the JSON of claims with name given a second time, as value.
func duplicateClaim(t *testing.T, claims map[string]any, name, value string) []byte {
	t.Helper()
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	extra, _ := json.Marshal(map[string]string{name: value})
	return append(append(extra[:len(extra)-1:len(extra)-1], ','), b[1:]...)
}

func tamper(t *testing.T, tok string, claims map[string]any) string {
	t.Helper()
	parts := strings.Split(tok, ".")
	forged := authtest.Unsigned(claims, "")
	parts[1] = strings.Split(forged, ".")[1]
	return strings.Join(parts, ".")
}

func TestES256AndTenantClaim(t *testing.T) {
	cfg := auth.Config{JWT: &auth.JWTConfig{TenantClaim: "org", Algorithms: []string{"ES256"}}}
	r := newRig(t, cfg, auth.Options{})
	k := r.iss.AddKey(t, jose.ES256)
	c := r.claims("user-1", "")
	c["org"] = "globex"
	if res := r.do(t, bearer(authtest.Sign(t, k, c)), ""); res.status != 200 {
		t.Fatalf("ES256 token: %d %v", res.status, res.body)
	}
	r.mu.Lock()
	if r.seen.Tenant != "globex" || r.seen.Subject != "user-1" {
		t.Fatalf("principal %+v", r.seen)
	}
	r.mu.Unlock()
	// RS256 is not in this server's list, even with a published key.
	rsKey := r.iss.NewKey(t, jose.RS256)
	res := r.do(t, bearer(authtest.Sign(t, rsKey, c)), "")
	if res.status != 401 || !strings.Contains(res.body["error_description"], "algorithm") {
		t.Fatalf("RS256 against an ES256-only server: %d %v", res.status, res.body)
	}
}

// TestKeyRotation: a token signed with a key the issuer published after our fetch makes us
// refetch once; afterwards tokens of the withdrawn key are refused.
func TestKeyRotation(t *testing.T) {
	r := newRig(t, auth.Config{}, auth.Options{})
	oldTok := r.iss.Mint(t, r.claims("acme", ""))
	if res := r.do(t, bearer(oldTok), ""); res.status != 200 {
		t.Fatalf("before rotation: %d", res.status)
	}
	if n := r.iss.Fetches(); n != 1 {
		t.Fatalf("%d JWKS fetches, want 1", n)
	}
	r.clock.Advance(auth.DefaultMinRefresh)
	r.iss.Rotate(t, jose.ES256)
	newTok := r.iss.Mint(t, r.claims("acme", ""))
	if res := r.do(t, bearer(newTok), ""); res.status != 200 {
		t.Fatalf("token of the rotated-in key: %d %v", res.status, res.body)
	}
	if n := r.iss.Fetches(); n != 2 {
		t.Fatalf("%d JWKS fetches, want 2", n)
	}
	if res := r.do(t, bearer(oldTok), ""); res.status != 401 {
		t.Fatalf("token of the withdrawn key: %d", res.status)
	}
}

// TestUnknownKidRateLimited: tokens with made-up kids cause at most one JWKS fetch per
// refresh interval, however many arrive (concurrently, too).
func TestUnknownKidRateLimited(t *testing.T) {
	r := newRig(t, auth.Config{}, auth.Options{})
	if err := r.a.JWT().Prefetch(context.Background()); err != nil {
		t.Fatal(err)
	}
	base := r.iss.Fetches()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := r.iss.NewKey(t, jose.ES256)
			if res := r.do(t, bearer(authtest.Sign(t, k, r.claims(fmt.Sprint("t", i), ""))), ""); res.status != 401 {
				t.Errorf("unknown kid accepted: %d", res.status)
			}
		}()
	}
	wg.Wait()
	if n := r.iss.Fetches() - base; n != 0 {
		t.Fatalf("%d refetches within the refresh interval, want 0 (prefetch just happened)", n)
	}
	r.clock.Advance(auth.DefaultMinRefresh)
	for range 5 {
		k := r.iss.NewKey(t, jose.ES256)
		r.do(t, bearer(authtest.Sign(t, k, r.claims("x", ""))), "")
	}
	if n := r.iss.Fetches() - base; n != 1 {
		t.Fatalf("%d refetches after the interval, want exactly 1", n)
	}
}

// TestIssuerOutage: without keys the server answers 503 with Retry-After (not 401: the client
// is not at fault); keys already held keep working through an outage.
func TestIssuerOutage(t *testing.T) {
	r := newRig(t, auth.Config{}, auth.Options{})
	r.iss.SetFailing(true)
	tok := r.iss.Mint(t, r.claims("acme", ""))
	res := r.do(t, bearer(tok), "")
	if res.status != http.StatusServiceUnavailable || res.retry == "" {
		t.Fatalf("outage before any fetch: %d retry=%q", res.status, res.retry)
	}
	if err := r.a.Ready(); err == nil {
		t.Fatal("Ready with no keys")
	}
	r.iss.SetFailing(false)
	r.clock.Advance(auth.DefaultMinRefresh)
	if res := r.do(t, bearer(tok), ""); res.status != 200 {
		t.Fatalf("after recovery: %d %v", res.status, res.body)
	}
	if err := r.a.Ready(); err != nil {
		t.Fatal(err)
	}
	// The set goes stale during a new outage: the held keys still verify.
	r.clock.Advance(auth.DefaultMaxKeyAge)
	r.iss.SetFailing(true)
	tok = r.iss.Mint(t, r.claims("acme", ""))
	if res := r.do(t, bearer(tok), ""); res.status != 200 {
		t.Fatalf("stale keys during an outage: %d %v", res.status, res.body)
	}
}

func TestDiscoveryIssuerMismatch(t *testing.T) {
	iss := authtest.NewIssuer(t, jose.RS256)
	v, err := auth.NewJWTVerifier(auth.JWTConfig{Issuer: iss.URL + "/tenant1", Algorithms: []string{"RS256"}}, resource,
		auth.JWTOptions{Client: iss.Client()})
	if err != nil {
		t.Fatal(err)
	}
	// The metadata found at the inserted paths names another issuer: refused.
	err = v.Prefetch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("Prefetch = %v, want an issuer mismatch", err)
	}
}

// TestScopes: the middleware checks the scopes every request needs and never reads the body;
// the scopes of methods and tools are Authorize's, which the transport calls on its own parse.
func TestScopes(t *testing.T) {
	cfg := auth.Config{Scopes: auth.ScopePolicy{
		Required: []string{"mcp"},
		Methods:  map[string][]string{"resources/read": {"mcp:read"}},
		Tools:    map[string][]string{"admin_*": {"mcp:admin"}},
	}}
	r := newRig(t, cfg, auth.Options{})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin_x"}}`
	for _, c := range []struct {
		name, scopes string
		status       int
		wantScope    string
	}{
		{"required present", "mcp", 200, ""},
		{"required missing", "other", 403, "mcp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := r.do(t, bearer(r.iss.Mint(t, r.claims("acme", c.scopes))), body)
			if res.status != c.status {
				t.Fatalf("status %d, want %d (%v)", res.status, c.status, res.body)
			}
			if c.status == 403 {
				for _, part := range []string{`error="insufficient_scope"`, `scope="` + c.wantScope + `"`, `resource_metadata="`} {
					if !strings.Contains(res.challenge, part) {
						t.Fatalf("challenge %q lacks %s", res.challenge, part)
					}
				}
				return
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.body != body {
				t.Fatalf("handler got body %q, want it unread and unchanged", r.body)
			}
		})
	}
	p := &auth.Principal{Scopes: []string{"mcp"}}
	for _, c := range []struct {
		method, tool string
		scopes       []string
		wantScope    string
	}{
		{"tools/call", "hello", nil, ""},
		{"tools/call", "admin_reset", nil, "mcp mcp:admin"},
		{"tools/call", "admin_reset", []string{"mcp:admin"}, ""},
		{"resources/read", "", nil, "mcp mcp:read"},
		{"ping", "", nil, ""},
	} {
		p.Scopes = append([]string{"mcp"}, c.scopes...)
		err := r.a.Authorize(p, c.method, c.tool)
		e := auth.AsError(err)
		switch {
		case c.wantScope == "" && err != nil:
			t.Errorf("%s %s: %v", c.method, c.tool, err)
		case c.wantScope != "" && (e == nil || e.Status() != 403 || strings.Join(e.Scopes, " ") != c.wantScope):
			t.Errorf("%s %s: %v, want 403 for %q", c.method, c.tool, err, c.wantScope)
		}
	}
	// A 401 advises the required scopes.
	if res := r.do(t, "", ""); !strings.Contains(res.challenge, `scope="mcp"`) {
		t.Fatalf("401 challenge %q lacks the required scope", res.challenge)
	}
}

func TestRequestShape(t *testing.T) {
	r := newRig(t, auth.Config{}, auth.Options{})
	tok := r.iss.Mint(t, r.claims("acme", ""))
	// A token in the query string is refused loudly (the MCP spec forbids it).
	resp, err := http.Get(r.srv.URL + "/mcp?access_token=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("token in URL: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, r.srv.URL+"/mcp", nil)
	req.Header.Add("Authorization", bearer(tok))
	req.Header.Add("Authorization", bearer(tok))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("two Authorization headers: %d", resp.StatusCode)
	}
	// The scheme is case-insensitive (RFC 7235).
	if res := r.do(t, "bearer "+tok, ""); res.status != 200 {
		t.Fatalf("lowercase scheme: %d", res.status)
	}
}

func TestMetadata(t *testing.T) {
	r := newRig(t, auth.Config{ResourceName: "Test", Scopes: auth.ScopePolicy{Required: []string{"mcp"}, Supported: []string{"mcp", "mcp:admin"}}}, auth.Options{})
	mux := http.NewServeMux()
	for _, p := range r.a.MetadataPaths() {
		mux.Handle(p, r.a.MetadataHandler())
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	if got, want := r.a.MetadataPaths(), []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("paths %v, want %v", got, want)
	}
	for _, p := range r.a.MetadataPaths() {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var md auth.ResourceMetadata
		err = json.NewDecoder(resp.Body).Decode(&md)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", p, resp.StatusCode, err)
		}
		if md.Resource != resource || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != r.iss.URL ||
			fmt.Sprint(md.ScopesSupported) != "[mcp mcp:admin]" || fmt.Sprint(md.BearerMethodsSupported) != "[header]" || md.ResourceName != "Test" {
			t.Fatalf("%s: %+v", p, md)
		}
	}
	resp, err := http.Post(srv.URL+auth.WellKnownPath, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("POST metadata: %d", resp.StatusCode)
	}
}

func TestNoMethodConfigured(t *testing.T) {
	_, err := auth.New(auth.Config{}, auth.Options{})
	var ce *auth.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a ConfigError", err)
	}
}
