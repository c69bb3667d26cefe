package e2e

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// TestHTTPSProviderAgainstLocalServer drives the https provider and mcp_download_safe against
// a local TLS server, through a binary built with the test-only hooks: "public.example.com" resolves
// to a public-looking address (so it passes vetting) and the vetted connection is redirected to
// the loopback server. "evil.example.com" resolves to loopback and must be refused.
func TestHTTPSProviderAgainstLocalServer(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("remote content\n"))
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(strings.Repeat("x", 300000))) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("start"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/missing", http.NotFound)
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)

	p := newSecProject(t, nil)
	c := harness.Start(t, harness.Options{Dir: p.root, Binary: harness.TestHooksBinary(t), Env: []string{
		"MCPBASH_HTTPS_ALLOW_HOSTS=public.example.com,evil.example.com",
		"MCPBASH_TEST_HTTPS_RESOLVE=public.example.com=93.184.216.34,evil.example.com=127.0.0.1",
		"MCPBASH_TEST_HTTPS_DIAL=" + strings.TrimPrefix(srv.URL, "https://"),
		"MCPBASH_TEST_HTTPS_CA=" + caFile,
		"MCPBASH_HTTPS_TIMEOUT=2", "MCPBASH_HTTPS_MAX_BYTES=100000",
		"MCPBASH_PROJECT_ROOT_WRITABLE=true", // the download lands in data/
	}})
	c.Initialize("2025-11-25", nil)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	url := func(host, path string) string { return "https://" + host + port + path }

	m := c.Call("resources/read", map[string]any{"uri": url("public.example.com", "/ok")})
	if !strings.Contains(string(m.Raw), `"text":"remote content"`) {
		t.Fatalf("allowed fetch: %s", m.Raw)
	}
	for _, tc := range []struct{ path, host, want string }{
		{"/redirect", "public.example.com", "redirects are not followed"},
		{"/big", "public.example.com", "Resource too large"},
		{"/slow", "public.example.com", "Resource fetch failed"},
		{"/missing", "public.example.com", "Resource not found"},
		{"/ok", "evil.example.com", "Resource fetch refused"},
		{"/ok", "other.example.com", "Resource fetch refused"},
	} {
		start := time.Now()
		m := c.Call("resources/read", map[string]any{"uri": url(tc.host, tc.path)})
		if m.Error == nil || !strings.Contains(string(m.Raw), tc.want) {
			t.Errorf("%s%s: %s", tc.host, tc.path, m.Raw)
		}
		if d := time.Since(start); d > harness.Backstop { // a hang: /slow would answer after 10 s
			t.Errorf("%s took %v", tc.path, d)
		}
	}
	// Downloads land only inside the roots.
	out := text(sh(t, c, "mcp_download_safe --url '"+url("public.example.com", "/ok")+"' --out data/got.txt; cat data/got.txt"))
	if !strings.Contains(out, `"success":true`) || !strings.Contains(out, "remote content") {
		t.Errorf("download: %s", out)
	}
	out = text(sh(t, c, "mcp_download_safe --url '"+url("public.example.com", "/ok")+"' --out "+p.outside+"/stolen.txt"))
	if !strings.Contains(out, `"success":false`) {
		t.Errorf("download outside the roots: %s", out)
	}
	if _, err := os.Stat(filepath.Join(p.outside, "stolen.txt")); err == nil {
		t.Error("download wrote outside the roots")
	}
	out = text(sh(t, c, "mcp_download_safe --url '"+url("public.example.com", "/ok")+"' --out data/x --allow other.example.com"))
	if !strings.Contains(out, "host_denied") {
		t.Errorf("--allow must narrow: %s", out)
	}
}

// The git provider, enabled, reads a file at a ref through the system git (the repository is
// served from a local bare repo by the test-hooks build).
func TestGitProvider(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	work, bare := t.TempDir(), filepath.Join(t.TempDir(), "r.git")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", work}, {"-C", work, "config", "user.email", "t@example.com"}, {"-C", work, "config", "user.name", "t"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(work, "README.md"), []byte("from git\n"), 0o644)
	for _, args := range [][]string{{"-C", work, "add", "."}, {"-C", work, "commit", "-qm", "init"}, {"clone", "-q", "--bare", work, bare}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	p := newSecProject(t, nil)
	c := harness.Start(t, harness.Options{Dir: p.root, Binary: harness.TestHooksBinary(t), Env: []string{
		"MCPBASH_ENABLE_GIT_PROVIDER=true", "MCPBASH_TEST_GIT_LOCAL_REMOTE=" + bare, "XDG_CACHE_HOME=" + t.TempDir()}})
	c.Initialize("2025-11-25", nil)
	m := c.Call("resources/read", map[string]any{"uri": "git+https://example.com/owner/r.git#main:README.md"})
	if !strings.Contains(string(m.Raw), `"text":"from git"`) {
		t.Fatalf("git read: %s", m.Raw)
	}
	for _, u := range []string{"git+https://example.com/owner/r.git#main:nope.md", "git+https://example.com/owner/r.git#main:../etc/passwd"} {
		if m := c.Call("resources/read", map[string]any{"uri": u}); m.Error == nil {
			t.Errorf("%s: %s", u, m.Raw)
		}
	}
}
