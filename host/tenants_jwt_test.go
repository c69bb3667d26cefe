package host_test

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcp-bash/mcp-bash/host/internal/auth/authtest"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestTenantsFromJWT: the real binary over real HTTP, tokens from an in-process issuer (its
// JWKS over TLS on loopback), the tenant taken from the "tenant" claim. Each tenant's calls see
// only its own root, a session of one tenant is a 404 to the other, a token whose tenant is
// not served is refused, and no token reaches a tool's environment. (test/security holds the
// full cross-tenant suite, with API keys: it cannot import this issuer.)
func TestTenantsFromJWT(t *testing.T) {
	bin := harness.Binary(t)
	iss := authtest.NewIssuer(t, jose.RS256)
	dir := t.TempDir()
	certFile := filepath.Join(dir, "issuer.pem")
	writeFile(t, certFile, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: iss.Server.Certificate().Raw})))
	cmd := exec.Command(bin, "new", "proj")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("new: %v\n%s", err, out)
	}
	project, tenants := filepath.Join(dir, "proj"), filepath.Join(dir, "tenants")
	if err := os.MkdirAll(filepath.Join(project, "tools", "eval"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(tenants, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(project, "tools", "eval", "tool.meta.json"), `{"name":"eval","description":"x","inputSchema":{"type":"object","properties":{"script":{"type":"string"}}}}`)
	writeFile(t, filepath.Join(project, "tools", "eval", "tool.sh"), "#!/usr/bin/env bash\nsource \"${MCP_SDK:?}/tool-sdk.sh\"\n"+
		`out="$(eval "$(mcp_args_get '.script')" 2>&1)" || true; mcp_result_success "$(mcp_json_obj out "$out")"`)
	const resource = "https://mcp.example.test/mcp"
	authJSON, _ := json.Marshal(map[string]any{"resource": resource, "jwt": map[string]any{"issuer": iss.URL, "tenantClaim": "tenant"}})
	writeFile(t, filepath.Join(project, "server.d", "auth.json"), string(authJSON))
	writeFile(t, filepath.Join(project, "server.d", "tenants.json"),
		`{"version":1,"default":{"roots":[{"path":"`+tenants+`/{tenant}","create":true}]},"tenants":{"banned":{"disabled":true}}}`)
	srv := harness.StartHTTP(t, harness.Options{Dir: project, Env: []string{"SSL_CERT_FILE=" + certFile}})

	token := func(tenant string) string {
		c := iss.Claims(resource, "user-of-"+tenant, time.Now(), "")
		c["tenant"] = tenant
		return iss.Mint(t, c)
	}
	post := func(tok, sid string, msg map[string]any) (int, string, []byte) {
		t.Helper()
		b, _ := json.Marshal(msg)
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body
	}
	open := func(tok string) string {
		t.Helper()
		st, sid, body := post(tok, "", map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
			"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}})
		if st != 200 || sid == "" {
			t.Fatalf("initialize: %d %s", st, body)
		}
		post(tok, sid, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		return sid
	}
	eval := func(tok, sid, script string) string {
		t.Helper()
		_, _, body := post(tok, sid, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "eval", "arguments": map[string]any{"script": script}}})
		return string(body)
	}
	ta, tb := token("a"), token("b")
	sa, sb := open(ta), open(tb)
	if out := eval(tb, sb, `printf SECRET-B > `+tenants+`/b/s; cat `+tenants+`/b/s`); !strings.Contains(out, "SECRET-B") {
		t.Fatalf("b in its own root: %s", out)
	}
	if out := eval(ta, sa, `cat `+tenants+`/b/s; env`); strings.Contains(out, "SECRET-B") || strings.Contains(out, ta) || strings.Contains(out, "Bearer") {
		t.Fatalf("a read b's file or saw its token: %s", out)
	}
	if st, _, body := post(ta, sb, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}); st != http.StatusNotFound {
		t.Fatalf("b's session with a's token: %d %s", st, body)
	}
	if st, _, body := post(token("banned"), "", map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}}}); st != http.StatusForbidden {
		t.Fatalf("a disabled tenant's token: %d %s", st, body)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
		t.Fatal(err)
	}
}
