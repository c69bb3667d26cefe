package auth_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/auth"
	"github.com/mcp-bash/mcp-bash/host/internal/config"
)

const secret = "0123456789abcdef0123456789abcdef-remote"

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// remoteToken is the verifier the server builds from an environment: its settings parsed by
// host/internal/config, then NewRemoteToken.
func remoteToken(t testing.TB, m map[string]string) (*auth.RemoteToken, error) {
	t.Helper()
	set, err := config.Load(env(m))
	if err != nil {
		t.Fatal(err)
	}
	return auth.NewRemoteToken(set.RemoteToken, set.RemoteTokenKey, set.RemoteTokenFallbackKey, set.RemoteTokenMaxFailures)
}

func TestNewRemoteToken(t *testing.T) {
	if r, err := remoteToken(t, nil); r != nil || err != nil {
		t.Fatalf("unset: %v %v", r, err)
	}
	if _, err := remoteToken(t, map[string]string{"MCPBASH_REMOTE_TOKEN": strings.Repeat("x", 31)}); !errors.Is(err, auth.ErrRemoteTokenWeak) {
		t.Fatalf("31 chars: err = %v, want ErrRemoteTokenWeak", err)
	}
	r, err := remoteToken(t, map[string]string{"MCPBASH_REMOTE_TOKEN": strings.Repeat("é", 32)})
	if err != nil || r.Verify(strings.Repeat("é", 32)) != nil {
		t.Fatalf("32 multibyte characters: %v", err)
	}
}

func TestRemoteTokenVerifyAndThrottle(t *testing.T) {
	clk := newClock()
	r, err := remoteToken(t, map[string]string{"MCPBASH_REMOTE_TOKEN": secret, "MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN": "3"})
	if err != nil {
		t.Fatal(err)
	}
	auth.SetRemoteTokenClock(r, clk.Now)
	for i, bad := range []string{"", "wrong", secret + "x"} {
		if err := r.Verify(bad); !errors.Is(err, auth.ErrRemoteTokenInvalid) {
			t.Fatalf("failure %d: %v, want invalid", i, err)
		}
	}
	if err := r.Verify("again"); !errors.Is(err, auth.ErrRemoteTokenThrottled) {
		t.Fatalf("4th failure in a minute: %v, want throttled", err)
	}
	if auth.WireMessage(auth.ErrRemoteTokenThrottled) != "Remote token missing or invalid (throttled)" || auth.WireMessage(auth.ErrRemoteTokenInvalid) != "Remote token missing or invalid" {
		t.Fatal("wire messages differ from the original's")
	}
	// The right token is never locked out.
	if err := r.Verify(secret); err != nil {
		t.Fatalf("right token while throttled: %v", err)
	}
	clk.Advance(60_000_000_000)
	if err := r.Verify("bad"); !errors.Is(err, auth.ErrRemoteTokenInvalid) {
		t.Fatalf("after the window slid: %v, want invalid (not throttled)", err)
	}
}

func TestRemoteTokenNoLimit(t *testing.T) {
	// 0 disables the throttle.
	r, _ := remoteToken(t, map[string]string{"MCPBASH_REMOTE_TOKEN": secret, "MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN": "0"})
	for range 50 {
		if err := r.Verify("bad"); !errors.Is(err, auth.ErrRemoteTokenInvalid) {
			t.Fatalf("limit 0: %v", err)
		}
	}
	// A malformed limit refuses to start (the original fell back to the default); unset is 10.
	if _, err := config.Load(env(map[string]string{"MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN": "ten"})); err == nil {
		t.Fatal("a malformed limit was accepted")
	}
	r, _ = remoteToken(t, map[string]string{"MCPBASH_REMOTE_TOKEN": secret})
	for i := range 10 {
		if err := r.Verify("bad"); !errors.Is(err, auth.ErrRemoteTokenInvalid) {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	if err := r.Verify("bad"); !errors.Is(err, auth.ErrRemoteTokenThrottled) {
		t.Fatalf("11th: %v, want throttled", err)
	}
}

func TestRemoteTokenFromParams(t *testing.T) {
	r, _ := remoteToken(t, map[string]string{"MCPBASH_REMOTE_TOKEN": secret, "MCPBASH_REMOTE_TOKEN_KEY": "acme/token"})
	for _, c := range []struct{ params, want string }{
		{`{"_meta":{"acme/token":"a"}}`, "a"},
		{`{"_meta":{"remoteToken":"b"}}`, "b"},
		{`{"_meta":{"acme/token":"a","remoteToken":"b"}}`, "a"},
		{`{"_meta":{"mcpbash/remoteToken":"c"}}`, ""},
		{`{"_meta":{"acme/token":5}}`, ""},
		{`{}`, ""},
		{`[1]`, ""},
		{``, ""},
	} {
		if got := r.FromParams([]byte(c.params)); got != c.want {
			t.Errorf("FromParams(%s) = %q, want %q", c.params, got, c.want)
		}
	}
}

func TestAPIKeys(t *testing.T) {
	plain := "acme-key-0123456789abcdef0123456789"
	hashedKey := "beta-key-0123456789abcdef0123456789"
	file := "# tenants' keys\n\nacme " + plain + " mcp mcp:admin\n" + auth.DigestLine("beta", hashedKey) + "\n"
	keys, err := auth.ParseAPIKeys([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if p := keys.Verify(plain); p == nil || p.Tenant != "acme" || p.Method != auth.MethodAPIKey || !p.HasScopes([]string{"mcp", "mcp:admin"}) || strings.Contains(p.Subject, plain) {
		t.Fatalf("plain key: %+v", p)
	}
	if p := keys.Verify(hashedKey); p == nil || p.Tenant != "beta" || len(p.Scopes) != 0 {
		t.Fatalf("hashed key: %+v", p)
	}
	if p := keys.Verify(plain[:len(plain)-1]); p != nil {
		t.Fatalf("prefix of a key accepted: %+v", p)
	}
	for _, c := range []struct{ file, want string }{
		{"acme\n", "line 1: want TENANT KEY"},
		{"acme short-key\n", "line 1: a plain key must be at least 32"},
		{"acme sha256:abcd\n", "line 1: sha256: must be followed by 64 hex"},
		{"acme " + plain + "\nbeta " + plain + "\n", "line 2: the same key as line 1"},
		{"acme " + plain + " bad\"scope\n", "not a valid scope"},
	} {
		_, err := auth.ParseAPIKeys([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.file, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), plain) {
			t.Errorf("error repeats the key: %v", err)
		}
	}
}

// TestOpaqueCredentialsOverHTTP: API keys and the remote token as bearer tokens, with the
// remote token's throttle answering 401 + Retry-After.
func TestOpaqueCredentialsOverHTTP(t *testing.T) {
	keys, err := auth.ParseAPIKeys([]byte("acme acme-key-0123456789abcdef0123456789 mcp\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := remoteToken(t, map[string]string{"MCPBASH_REMOTE_TOKEN": secret, "MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN": "2"})
	var decisions []string
	a, err := auth.New(auth.Config{RemoteTokenTenant: "ops", Scopes: auth.ScopePolicy{Required: []string{"mcp"}, Tools: map[string][]string{"admin_*": {"mcp:admin"}}}},
		auth.Options{APIKeys: keys, RemoteToken: rt, OnDecision: func(p *auth.Principal, e *auth.Error) {
			if e != nil {
				decisions = append(decisions, string(e.Reason))
			} else {
				decisions = append(decisions, p.Tenant)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	var got *auth.Principal
	srv := httptest.NewServer(a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = auth.FromContext(r.Context())
	})))
	defer srv.Close()
	do := func(tok, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	admin := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin_x"}}`
	if resp := do("acme-key-0123456789abcdef0123456789", "{}"); resp.StatusCode != 200 || got.Tenant != "acme" {
		t.Fatalf("api key: %d %+v", resp.StatusCode, got)
	}
	// The tool's scope is the transport's to check (Authorize), on its own decode.
	if resp := do("acme-key-0123456789abcdef0123456789", admin); resp.StatusCode != 200 || a.Authorize(got, "tools/call", "admin_x") == nil {
		t.Fatalf("api key without the admin scope: %d, Authorize(admin_x) passed", resp.StatusCode)
	}
	if resp := do(secret, admin); resp.StatusCode != 200 || got.Tenant != "ops" || got.Method != auth.MethodRemoteToken || a.Authorize(got, "tools/call", "admin_x") != nil {
		t.Fatalf("remote token (granted every scope): %d %+v", resp.StatusCode, got)
	}
	for range 2 {
		if resp := do("wrong", "{}"); resp.StatusCode != 401 || resp.Header.Get("Retry-After") != "" {
			t.Fatalf("bad token: %d retry=%q", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	resp := do("wrong", "{}")
	if resp.StatusCode != 401 || resp.Header.Get("Retry-After") == "" || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("throttled: %d %v", resp.StatusCode, resp.Header)
	}
	want := "acme acme ops invalid invalid throttled"
	if strings.Join(decisions, " ") != want {
		t.Fatalf("decisions %v, want %s", decisions, want)
	}
}
