package providers

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseGitURI(t *testing.T) {
	valid := []struct {
		uri  string
		want gitURI
	}{
		{"git+https://github.com/o/r.git#main:README.md", gitURI{"github.com", "443", "https://github.com/o/r.git", "main", "README.md"}},
		{"git+https://github.com/o/r.git#docs/a.md", gitURI{"github.com", "443", "https://github.com/o/r.git", "HEAD", "docs/a.md"}},
		{"git+https://github.com/o/r.git#:docs/a.md", gitURI{"github.com", "443", "https://github.com/o/r.git", "HEAD", "docs/a.md"}},
		{"GIT+HTTPS://github.com/o/r#v1.2.3:x", gitURI{"github.com", "443", "https://github.com/o/r", "v1.2.3", "x"}},
		{"git+https://git.example.com:8443/g/s/r.git#refs/heads/feature/x-1:a/b.txt", gitURI{"git.example.com", "8443", "https://git.example.com:8443/g/s/r.git", "refs/heads/feature/x-1", "a/b.txt"}},
		{"git+https://h.example/o/r.git#0123456789abcdef0123456789abcdef01234567:f", gitURI{"h.example", "443", "https://h.example/o/r.git", "0123456789abcdef0123456789abcdef01234567", "f"}},
		{"git+https://h.example/o/r.git#main:a/b%20c.txt", gitURI{"h.example", "443", "https://h.example/o/r.git", "main", "a/b c.txt"}},
		{"git+https://h.example/o/r.git#main:a:b.txt", gitURI{"h.example", "443", "https://h.example/o/r.git", "main", "a:b.txt"}},
		{"git+https://h.example/o/r.git#main:.github/workflows/ci.yml", gitURI{"h.example", "443", "https://h.example/o/r.git", "main", ".github/workflows/ci.yml"}},
		{"git+https://h.example/o/r.git#feat+x:f..g", gitURI{"h.example", "443", "https://h.example/o/r.git", "feat+x", "f..g"}},
		{"git+https://[2606:4700::1]/o/r.git#x", gitURI{"2606:4700::1", "443", "https://[2606:4700::1]/o/r.git", "HEAD", "x"}},
	}
	for _, c := range valid {
		got, err := parseGitURI(c.uri)
		if err != nil {
			t.Errorf("parseGitURI(%q): %v", c.uri, err)
			continue
		}
		if got != c.want {
			t.Errorf("parseGitURI(%q) = %+v, want %+v", c.uri, got, c.want)
		}
	}

	invalid := []struct{ uri, msg string }{
		{"https://github.com/o/r.git#main:x", "git+https"},
		{"git+http://github.com/o/r.git#main:x", "git+https"},
		{"git+ssh://github.com/o/r.git#main:x", "git+https"},
		{"git+file:///tmp/r.git#main:x", "git+https"},
		{"git+https://u:p@github.com/o/r.git#main:x", "credentials"},
		{"git+https://u@github.com/o/r.git#main:x", "credentials"},
		{"git+https:///o/r.git#main:x", "no host"},
		{"git+https://127.1/o/r.git#main:x", "malformed host"},
		{"git+https://h.example:0/o/r.git#main:x", "bad port"},
		{"git+https://h.example/o/r.git?x=1#main:x", "query"},
		{"git+https://h.example/#main:x", "no repository"},
		{"git+https://h.example#main:x", "no repository"},
		{"git+https://h.example/o/r.git", "no file"},
		{"git+https://h.example/o/r.git#", "no file"},
		{"git+https://h.example/o/r.git#main\x00:x", "control"},
		{"git+https://h.example/o/r.git\n#main:x", "control"},
		// refs
		{"git+https://h.example/o/r.git#-upload-pack=touch%20x:f", "bad ref"},
		{"git+https://h.example/o/r.git#--output=x:f", "bad ref"},
		{"git+https://h.example/o/r.git#+main:f", "bad ref"},
		{"git+https://h.example/o/r.git#a..b:f", "bad ref"},
		{"git+https://h.example/o/r.git#main@{1}:f", "bad ref"},
		{"git+https://h.example/o/r.git#@:f", "bad ref"},
		{"git+https://h.example/o/r.git#ma%20in:f", "bad ref"},
		{"git+https://h.example/o/r.git#main~1:f", "bad ref"},
		{"git+https://h.example/o/r.git#main%5E:f", "bad ref"},
		{"git+https://h.example/o/r.git#ma*:f", "bad ref"},
		{"git+https://h.example/o/r.git#ma?n:f", "bad ref"},
		{"git+https://h.example/o/r.git#a%5Bb:f", "bad ref"},
		{"git+https://h.example/o/r.git#a%5Cb:f", "bad ref"},
		{"git+https://h.example/o/r.git#/main:f", "bad ref"},
		{"git+https://h.example/o/r.git#main/:f", "bad ref"},
		{"git+https://h.example/o/r.git#a//b:f", "bad ref"},
		{"git+https://h.example/o/r.git#main.lock:f", "bad ref"},
		{"git+https://h.example/o/r.git#main.:f", "bad ref"},
		{"git+https://h.example/o/r.git#.hidden:f", "bad ref"},
		{"git+https://h.example/o/r.git#a/.b:f", "bad ref"},
		{"git+https://h.example/o/r.git#a%00b:f", "bad ref"},
		{"git+https://h.example/o/r.git#a%0Ab:f", "bad ref"},
		{"git+https://h.example/o/r.git#a%7Fb:f", "bad ref"},
		{"git+https://h.example/o/r.git#" + strings.Repeat("a", 256) + ":f", "bad ref"},
		// paths
		{"git+https://h.example/o/r.git#main:", "bad path"},
		{"git+https://h.example/o/r.git#main:../etc/passwd", "bad path"},
		{"git+https://h.example/o/r.git#main:a/../../b", "bad path"},
		{"git+https://h.example/o/r.git#main:..", "bad path"},
		{"git+https://h.example/o/r.git#main:/etc/passwd", "bad path"},
		{"git+https://h.example/o/r.git#main:-x", "bad path"},
		{"git+https://h.example/o/r.git#main:./a", "bad path"},
		{"git+https://h.example/o/r.git#main:a/./b", "bad path"},
		{"git+https://h.example/o/r.git#main:a//b", "bad path"},
		{"git+https://h.example/o/r.git#main:a/", "bad path"},
		{"git+https://h.example/o/r.git#main:a%00b", "bad path"},
		{"git+https://h.example/o/r.git#main:a%0Ab", "bad path"},
		{"git+https://h.example/o/r.git#main:a%0Db", "bad path"},
		{"git+https://h.example/o/r.git#main:" + strings.Repeat("a", 4097), "bad path"},
	}
	for _, c := range invalid {
		_, err := parseGitURI(c.uri)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("parseGitURI(%q) error = %v, want ErrInvalid", c.uri, err)
			continue
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("parseGitURI(%q) error %q does not mention %q", c.uri, err, c.msg)
		}
	}
}

// TestGitRefusals covers everything decided before git runs. GitBin points nowhere, so a
// case that wrongly got past the checks fails with "not installed" (ErrFetch) instead.
func TestGitRefusals(t *testing.T) {
	dns := map[string][]netip.Addr{
		"git.example.com":     {publicAddr},
		"private.example.com": {netip.MustParseAddr("10.0.0.1")},
		"mixed.example.com":   {publicAddr, netip.MustParseAddr("192.168.1.1")},
		"loop.example.com":    {netip.MustParseAddr("::1")},
	}
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if a, ok := dns[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	base := Git{Enabled: true, GitBin: filepath.Join(t.TempDir(), "no-git-here"), CacheDir: t.TempDir(), resolve: resolve}
	with := func(f func(*Git)) Git { g := base; f(&g); return g }
	cases := []struct {
		name    string
		g       Git
		uri     string
		wantErr error
		wantMsg string
	}{
		{"disabled", Git{}, "git+https://git.example.com/o/r.git#main:f", ErrDenied, "git provider disabled; set MCPBASH_ENABLE_GIT_PROVIDER=true"},
		{"disabled even with an allowlist", with(func(g *Git) { g.Enabled, g.AllowHosts = false, []string{"git.example.com"} }), "git+https://git.example.com/o/r.git#main:f", ErrDenied, "disabled"},
		{"invalid uri", base, "git+https://git.example.com/o/r.git#main:../x", ErrInvalid, "bad path"},
		{"wrong scheme", base, "https://git.example.com/o/r.git#main:f", ErrInvalid, "git+https"},
		{"denied host", with(func(g *Git) { g.DenyHosts = []string{"git.example.com"} }), "git+https://git.example.com/o/r.git#main:f", ErrDenied, "deny list"},
		{"deny wins over allow", with(func(g *Git) { g.AllowHosts, g.DenyHosts = []string{"*.example.com"}, []string{"git.example.com"} }), "git+https://git.example.com/o/r.git#main:f", ErrDenied, "deny list"},
		{"not on the allowlist", with(func(g *Git) { g.AllowHosts = []string{"github.com"} }), "git+https://git.example.com/o/r.git#main:f", ErrDenied, "MCPBASH_GIT_ALLOW_HOSTS"},
		{"loopback literal", base, "git+https://127.0.0.1/o/r.git#main:f", ErrDenied, "loopback"},
		{"v6 loopback literal", base, "git+https://[::1]/o/r.git#main:f", ErrDenied, "loopback"},
		{"private literal", base, "git+https://10.0.0.1/o/r.git#main:f", ErrDenied, "private"},
		{"metadata literal", base, "git+https://169.254.169.254/o/r.git#main:f", ErrDenied, "metadata"},
		{"v6 metadata literal", base, "git+https://[fd00:ec2::254]/o/r.git#main:f", ErrDenied, "metadata"},
		{"name resolving to private", base, "git+https://private.example.com/o/r.git#main:f", ErrDenied, "private"},
		{"name resolving to public and private", base, "git+https://mixed.example.com/o/r.git#main:f", ErrDenied, "192.168.1.1"},
		{"name resolving to loopback", with(func(g *Git) { g.AllowHosts = []string{"loop.example.com"} }), "git+https://loop.example.com/o/r.git#main:f", ErrDenied, "loopback"},
		{"unresolvable", base, "git+https://nx.example.com/o/r.git#main:f", ErrFetch, "resolve"},
		{"relative cache dir", with(func(g *Git) { g.CacheDir = "cache" }), "git+https://git.example.com/o/r.git#main:f", ErrFetch, "must be absolute"},
		// Positive controls: these pass every check and only fail for want of git.
		{"no allowlist allows a public host", base, "git+https://git.example.com/o/r.git#main:f", ErrFetch, "not installed"},
		{"wildcard allowlist", with(func(g *Git) { g.AllowHosts = []string{"*.example.com"} }), "git+https://git.example.com/o/r.git#main:f", ErrFetch, "not installed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := c.g.Fetch(context.Background(), c.uri)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("error = %v, want %v", err, c.wantErr)
			}
			if !strings.Contains(err.Error(), c.wantMsg) {
				t.Errorf("error %q does not mention %q", err, c.wantMsg)
			}
			if data != nil {
				t.Errorf("data returned with an error")
			}
		})
	}
}

func TestNewGit(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/tester")
	userCache, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache dir:", err)
	}
	def := filepath.Join(userCache, "mcp-bash", "git")
	cases := []struct {
		name string
		env  map[string]string
		want Git
	}{
		{"defaults", nil, Git{CacheDir: def, Timeout: 30 * time.Second, MaxBytes: 10 << 20, GitBin: "git"}},
		{"everything", map[string]string{
			"MCPBASH_ENABLE_GIT_PROVIDER": "true",
			"MCPBASH_GIT_ALLOW_HOSTS":     "github.com *.gitlab.com",
			"MCPBASH_GIT_DENY_HOSTS":      "evil.github.com",
			"MCPBASH_GIT_TIMEOUT":         "90",
			"MCPBASH_GIT_MAX_BYTES":       "4096",
			"XDG_CACHE_HOME":              "/var/cache/me",
		}, Git{Enabled: true, AllowHosts: []string{"github.com", "*.gitlab.com"}, DenyHosts: []string{"evil.github.com"},
			CacheDir: "/var/cache/me/mcp-bash/git", Timeout: 90 * time.Second, MaxBytes: 4096, GitBin: "git"}},
		{"enabled with 1", map[string]string{"MCPBASH_ENABLE_GIT_PROVIDER": "1"}, Git{Enabled: true, CacheDir: def, Timeout: 30 * time.Second, MaxBytes: 10 << 20, GitBin: "git"}},
		{"enabled with on", map[string]string{"MCPBASH_ENABLE_GIT_PROVIDER": "on"}, Git{Enabled: true, CacheDir: def, Timeout: 30 * time.Second, MaxBytes: 10 << 20, GitBin: "git"}},
		{"disabled with off", map[string]string{"MCPBASH_ENABLE_GIT_PROVIDER": "off"}, Git{CacheDir: def, Timeout: 30 * time.Second, MaxBytes: 10 << 20, GitBin: "git"}},
		{"relative XDG_CACHE_HOME ignored", map[string]string{"XDG_CACHE_HOME": "rel/cache"}, Git{CacheDir: def, Timeout: 30 * time.Second, MaxBytes: 10 << 20, GitBin: "git"}},
		{"malformed limits refused", map[string]string{"MCPBASH_GIT_TIMEOUT": "0", "MCPBASH_GIT_MAX_BYTES": "lots"}, Git{}},
		{"huge timeout refused", map[string]string{"MCPBASH_GIT_TIMEOUT": "9223372036854775807"}, Git{}},
		{"bad boolean refused", map[string]string{"MCPBASH_ENABLE_GIT_PROVIDER": "maybe"}, Git{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, getenv, ok := settingsFrom(t, c.name, c.env)
			if !ok {
				return
			}
			got := NewGit(set.Git, getenv)
			if strings.Join(got.AllowHosts, ",") != strings.Join(c.want.AllowHosts, ",") || strings.Join(got.DenyHosts, ",") != strings.Join(c.want.DenyHosts, ",") ||
				got.Enabled != c.want.Enabled || got.CacheDir != c.want.CacheDir || got.Timeout != c.want.Timeout ||
				got.MaxBytes != c.want.MaxBytes || got.GitBin != c.want.GitBin {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// testRepo is a bare repository with history:
//
//	v1 (annotated tag) → commit 1: README.md "hello v1\n", old.txt
//	main (HEAD)        → commit 2: README.md "hello v2\n", docs/guide.md, exact.txt (100 B), big.bin (101 B), "a file.txt"
type testRepo struct {
	bare, work string
	first      string // commit 1's id
	env        []string
}

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

func (r *testRepo) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *testRepo) commit(t *testing.T, files map[string]string, msg string) string {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(r.work, name)
		if body == "" {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.git(t, r.work, "add", "-A")
	r.git(t, r.work, "commit", "-q", "-m", msg)
	r.git(t, r.work, "push", "-q", r.bare, "HEAD:refs/heads/main", "--tags")
	return r.git(t, r.work, "rev-parse", "HEAD")
}

func newTestRepo(t *testing.T, dir string) *testRepo {
	t.Helper()
	needGit(t)
	home := t.TempDir()
	r := &testRepo{bare: filepath.Join(dir, "repo.git"), work: t.TempDir(), env: append(os.Environ(),
		"HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")}
	r.git(t, dir, "init", "-q", "--bare", r.bare)
	r.git(t, r.bare, "symbolic-ref", "HEAD", "refs/heads/main")
	r.git(t, r.work, "init", "-q")
	r.first = r.commit(t, map[string]string{"README.md": "hello v1\n", "old.txt": "old\n"}, "one")
	r.git(t, r.work, "tag", "-a", "-m", "v1", "v1")
	r.git(t, r.work, "push", "-q", r.bare, "refs/tags/v1")
	r.commit(t, map[string]string{
		"README.md":     "hello v2\n",
		"old.txt":       "",
		"docs/guide.md": "# Guide\n",
		"exact.txt":     strings.Repeat("e", 100),
		"big.bin":       strings.Repeat("b", 101),
		"a file.txt":    "spaced\n",
	}, "two")
	return r
}

// localGit is a provider whose remote is swapped for the file:// test repository.
func localGit(t *testing.T, r *testRepo, remotes *[]string) Git {
	var mu sync.Mutex
	return Git{Enabled: true, CacheDir: t.TempDir(), MaxBytes: 100, Timeout: 30 * time.Second,
		localRemote: func(https string) string {
			mu.Lock()
			defer mu.Unlock()
			if remotes != nil {
				*remotes = append(*remotes, https)
			}
			return "file://" + r.bare
		}}
}

func TestGitFetchLocal(t *testing.T) {
	r := newTestRepo(t, t.TempDir())
	var remotes []string
	g := localGit(t, r, &remotes)
	const repo = "git+https://git.example.com/o/r.git"
	cases := []struct {
		name, frag string
		want       string
		wantErr    error
		wantMsg    string
	}{
		{"branch", "#main:README.md", "hello v2\n", nil, ""},
		{"default HEAD", "#README.md", "hello v2\n", nil, ""},
		{"empty ref is HEAD", "#:docs/guide.md", "# Guide\n", nil, ""},
		{"full ref name", "#refs/heads/main:README.md", "hello v2\n", nil, ""},
		{"annotated tag", "#v1:README.md", "hello v1\n", nil, ""},
		{"file only at the tag", "#v1:old.txt", "old\n", nil, ""},
		{"commit id", "#" + r.first + ":README.md", "hello v1\n", nil, ""},
		{"space in path", "#main:a%20file.txt", "spaced\n", nil, ""},
		{"exactly MaxBytes", "#main:exact.txt", strings.Repeat("e", 100), nil, ""},
		{"over MaxBytes", "#main:big.bin", "", ErrTooLarge, "101 bytes"},
		{"missing path", "#main:nope.txt", "", ErrNotFound, "nope.txt not found"},
		{"deleted since the tag", "#main:old.txt", "", ErrNotFound, "not found"},
		{"directory", "#main:docs", "", ErrNotFound, "is a tree"},
		{"missing ref", "#no-such-branch:README.md", "", ErrNotFound, "no-such-branch"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := g.Fetch(context.Background(), repo+c.frag)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("error = %v, want %v", err, c.wantErr)
				}
				if !strings.Contains(err.Error(), c.wantMsg) {
					t.Errorf("error %q does not mention %q", err, c.wantMsg)
				}
				if data != nil {
					t.Errorf("data returned with an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != c.want {
				t.Errorf("got %q, want %q", data, c.want)
			}
		})
	}
	for _, got := range remotes {
		if got != "https://git.example.com/o/r.git" {
			t.Errorf("remote handed to the hook = %q", got)
		}
	}
}

func TestGitCache(t *testing.T) {
	r := newTestRepo(t, t.TempDir())
	g := localGit(t, r, nil)
	fetch := func(frag string) string {
		t.Helper()
		data, err := g.Fetch(context.Background(), "git+https://git.example.com/o/r.git"+frag)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	fetch("#main:README.md")
	fetch("#main:docs/guide.md")
	fetch("#v1:README.md")
	entries, err := os.ReadDir(g.CacheDir)
	if err != nil {
		t.Fatal(err)
	}
	var repos []string
	for _, e := range entries {
		if e.IsDir() && len(e.Name()) == 64 {
			repos = append(repos, e.Name())
		}
	}
	if len(repos) != 2 {
		t.Errorf("cache holds %v, want one repository per url#ref (2)", repos)
	}
	// A moving ref is fetched again, not served stale from the cache.
	r.commit(t, map[string]string{"README.md": "hello v3\n"}, "three")
	if got := fetch("#main:README.md"); got != "hello v3\n" {
		t.Errorf("after an update got %q, want the new content", got)
	}

	// A broken cache entry is rebuilt rather than failing forever.
	for _, d := range repos {
		if err := os.WriteFile(filepath.Join(g.CacheDir, d, "shallow.lock"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, err = g.Fetch(context.Background(), "git+https://git.example.com/o/r.git#main:README.md")
	if err == nil {
		t.Log("git tolerated the stale lock")
	}
	if got := fetch("#main:README.md"); got != "hello v3\n" {
		t.Errorf("after a failed fetch got %q", got)
	}
}

func TestGitConcurrentFetches(t *testing.T) {
	r := newTestRepo(t, t.TempDir())
	g := localGit(t, r, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := []string{"README.md", "docs/guide.md"}[i%2]
			if _, err := g.Fetch(context.Background(), "git+https://git.example.com/o/r.git#main:"+path); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestGitTemporaryCache(t *testing.T) {
	r := newTestRepo(t, t.TempDir())
	g := localGit(t, r, nil)
	g.CacheDir = ""
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	data, err := g.Fetch(context.Background(), "git+https://git.example.com/o/r.git#main:README.md")
	if err != nil || string(data) != "hello v2\n" {
		t.Fatalf("got %q, %v", data, err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary cache left behind: %v", left)
	}
}

// TestGitIgnoresCallerEnvironment: a user's git configuration must not steer the fetch;
// each of these would redirect or break it if it leaked through.
func TestGitIgnoresCallerEnvironment(t *testing.T) {
	r := newTestRepo(t, t.TempDir())
	g := localGit(t, r, nil)
	home := t.TempDir()
	bad := "[url \"file:///nonexistent/\"]\n\tinsteadOf = file://\n[core]\n\thooksPath = /nonexistent\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "url.file:///nonexistent/.insteadOf")
	t.Setenv("GIT_CONFIG_VALUE_0", "file://")
	t.Setenv("GIT_DIR", filepath.Join(home, "elsewhere.git"))
	t.Setenv("GIT_ALLOW_PROTOCOL", "ext")
	data, err := g.Fetch(context.Background(), "git+https://git.example.com/o/r.git#main:README.md")
	if err != nil || string(data) != "hello v2\n" {
		t.Fatalf("got %q, %v", data, err)
	}
}

// TestGitFileProtocolRefused: outside the test path file:// is never allowed, even if the
// remote were somehow rewritten to one.
func TestGitFileProtocolRefused(t *testing.T) {
	r := newTestRepo(t, t.TempDir())
	bin, _ := exec.LookPath("git")
	cache := t.TempDir()
	run := gitRunner{bin: bin, dir: cache, env: gitEnv(cache, false), config: gitHardening(false)}
	repo := filepath.Join(cache, "x")
	if _, stderr, err := run.run(context.Background(), "", "", 0, "init", "-q", "--bare", repo); err != nil {
		t.Fatal(stderr)
	}
	_, stderr, err := run.run(context.Background(), repo, "", 0, "fetch", "--depth", "1", "file://"+r.bare, "main")
	if err == nil || !strings.Contains(stderr, "transport 'file' not allowed") {
		t.Fatalf("file:// fetch was allowed: %v %s", err, stderr)
	}
}

func TestGitTimeout(t *testing.T) {
	needGit(t)
	// A "git" that hangs, and whose child keeps the output pipe open after the kill.
	fake := filepath.Join(t.TempDir(), "git")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	g := Git{Enabled: true, GitBin: fake, CacheDir: t.TempDir(), Timeout: 300 * time.Millisecond,
		localRemote: func(string) string { return "file:///nonexistent" }}
	start := time.Now()
	_, err := g.Fetch(context.Background(), "git+https://git.example.com/o/r.git#main:README.md")
	if !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("error = %v, want a timeout ErrFetch", err)
	}
	if el := time.Since(start); el > time.Minute { // a hang; "timed out" shows the timeout ended it
		t.Errorf("returned after %v", el)
	}
}

// TestGitOverHTTPS runs the production path end to end against git-http-backend behind a
// TLS test server: the address check, the https-only protocol list and the curl pinning.
// git.example.com does not resolve here, so the fetch only works if git honours the pin.
func TestGitOverHTTPS(t *testing.T) {
	needGit(t)
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skip("git --exec-path:", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skip("git-http-backend not available")
	}
	root := t.TempDir()
	newTestRepo(t, root)
	mux := http.NewServeMux()
	mux.Handle("/git/", &cgi.Handler{Path: backend, Root: "/git", Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}, Stderr: io.Discard})
	mux.HandleFunc("/moved/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/git/"+strings.TrimPrefix(r.URL.Path, "/moved/")+"?"+r.URL.RawQuery, http.StatusFound)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var pinned []netip.Addr
	g := Git{
		Enabled: true, AllowHosts: []string{"git.example.com"}, CacheDir: t.TempDir(), MaxBytes: 1000, Timeout: 30 * time.Second,
		resolve: func(_ context.Context, host string) ([]netip.Addr, error) {
			if host != "git.example.com" {
				return nil, errors.New("no such host")
			}
			return []netip.Addr{publicAddr}, nil
		},
		pin: func(a []netip.Addr) []netip.Addr {
			pinned = a
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}
		},
		config: []string{"http.sslCAInfo=" + ca},
	}
	base := "git+https://git.example.com:" + port

	data, err := g.Fetch(context.Background(), base+"/git/repo.git#main:docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "# Guide\n" {
		t.Errorf("got %q", data)
	}
	if len(pinned) != 1 || pinned[0] != publicAddr {
		t.Errorf("pinned %v, want the vetted address", pinned)
	}

	data, err = g.Fetch(context.Background(), base+"/moved/repo.git#main:docs/guide.md")
	if err == nil {
		t.Fatalf("redirect was followed: %q", data)
	}

	_, err = g.Fetch(context.Background(), base+"/git/missing.git#main:README.md")
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("missing repository: %v, want ErrNotFound", err)
	}
}

func TestCurlResolve(t *testing.T) {
	got := curlResolve("h.example", "443", []netip.Addr{publicAddr, netip.MustParseAddr("2606:4700::1")})
	if want := "h.example:443:93.184.216.34,[2606:4700::1]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseBatchCheck(t *testing.T) {
	cases := []struct {
		line string
		ok   bool
		size int64
	}{
		{"45b983be36b73c0788dc9cbcb76cbb80fc7bb057 blob 3\n", true, 3},
		{"FETCH_HEAD:nope missing\n", false, 0},
		{"FETCH_HEAD:a b missing\n", false, 0},
		{"FETCH_HEAD:x ambiguous\n", false, 0},
		{"zz blob 3", false, 0},
		{"45b983be36b73c0788dc9cbcb76cbb80fc7bb057 blob x", false, 0},
		{"", false, 0},
	}
	for _, c := range cases {
		_, _, size, ok := parseBatchCheck(c.line)
		if ok != c.ok || size != c.size {
			t.Errorf("parseBatchCheck(%q) = %d %v", c.line, size, ok)
		}
	}
}
