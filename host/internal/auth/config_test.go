package auth_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/auth"
)

func TestCanonicalResource(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{"https://mcp.example.com/mcp", "https://mcp.example.com/mcp", ""},
		{"HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp", ""},
		{"https://mcp.example.com/", "https://mcp.example.com", ""},
		{"https://mcp.example.com:443/mcp/", "https://mcp.example.com/mcp", ""},
		{"https://mcp.example.com:8443", "https://mcp.example.com:8443", ""},
		{"http://[::1]:80/mcp", "http://[::1]/mcp", ""},
		{"mcp.example.com", "", "absolute"},
		{"https://mcp.example.com#frag", "", "fragment"},
		{"https://mcp.example.com/?a=b", "", "query"},
		{"https://user@mcp.example.com", "", "user info"},
		{"", "", "required"},
	} {
		got, err := auth.CanonicalResource(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestParseConfig(t *testing.T) {
	for _, c := range []struct{ doc, field, msg string }{
		{`{"resource":"https://m.example/mcp","jwt":{"issuer":"https://a.example","audience":["x"]}}`, "", "unknown field"},
		{`{"resource":"https://m.example/mcp","jwt":{"issuer":"http://a.example"}}`, "jwt.issuer", "https"},
		{`{"jwt":{"issuer":"https://a.example"}}`, "resource", "required"},
		{`{"resource":"https://m.example/mcp","jwt":{"issuer":"https://a.example","algorithms":["HS256"]}}`, "jwt.algorithms[0]", "asymmetric only"},
		{`{"resource":"https://m.example/mcp","jwt":{"issuer":"https://a.example","algorithms":["none"]}}`, "jwt.algorithms[0]", "not an allowed"},
		{`{"resource":"https://m.example/mcp","jwt":{"issuer":"https://a.example","leewaySeconds":900}}`, "jwt.leewaySeconds", "between 0 and 300"},
		{`{"scopes":{"required":["a b"]}}`, "scopes.required", "not a valid scope"},
		{`{} {}`, "", "trailing data"},
	} {
		_, err := auth.ParseConfig([]byte(c.doc))
		var ce *auth.ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v, want field %q and %q", c.doc, err, c.field, c.msg)
		}
	}
	cfg, err := auth.ParseConfig([]byte(`{"resource":"https://M.example/mcp/","jwt":{"issuer":"https://a.example"},"scopes":{"required":["mcp"],"tools":{"x_*":["mcp:x"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Resource != "https://m.example/mcp" || cfg.JWT.TenantClaim != "sub" || strings.Join(cfg.JWT.Algorithms, ",") != "RS256,ES256" ||
		strings.Join(cfg.AuthorizationServers, ",") != "https://a.example" || strings.Join(cfg.Scopes.Supported, ",") != "mcp,mcp:x" {
		t.Fatalf("defaults: %+v %+v %+v", cfg, cfg.JWT, cfg.Scopes)
	}
}

func TestLoadConfigRelativeKeysFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "auth.json")
	if err := os.WriteFile(p, []byte(`{"apiKeysFile":"keys.txt"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := auth.LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIKeysFile != filepath.Join(dir, "keys.txt") {
		t.Fatalf("apiKeysFile %q", cfg.APIKeysFile)
	}
	if err := os.WriteFile(p, []byte(`{"bogus":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.LoadConfig(p); err == nil || !strings.HasPrefix(err.Error(), p+": ") {
		t.Fatalf("error %v does not name the file", err)
	}
}
