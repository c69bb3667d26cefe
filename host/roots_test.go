package host

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/wasm"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestVetRoot (issue 21, finding 8): every root, from any source, is canonicalised and refused
// when it is a system directory, the whole filesystem, the scratch base or above it, or inside
// the compilation cache; a root above the cache turns the cache off (and removes its key).
func TestVetRoot(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	scratch := filepath.Join(base, "state", "scratch")
	cache := filepath.Join(base, "home", "cache", "wazero")
	data := filepath.Join(base, "data")
	for _, d := range []string{scratch, data, filepath.Join(scratch, "inside"), filepath.Join(base, "home", "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "to-proc")
	if err := os.Symlink("/proc", link); err != nil {
		t.Fatal(err)
	}
	dataLink := filepath.Join(base, "to-data")
	if err := os.Symlink(data, dataLink); err != nil {
		t.Fatal(err)
	}
	// The cache is configured through a symlink and does not exist yet: it is still found
	// where it really is.
	if err := os.Symlink(filepath.Join(base, "home"), filepath.Join(base, "homelink")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MCPBASH_TMP_ROOT": scratch, "MCPBASH_WASM_CACHE_DIR": filepath.Join(base, "homelink", "cache", "wazero")}
	var log syncBuf
	srv, err := NewServer(context.Background(), Config{Dirs: registry.ResolveDirs(t.TempDir(), config.Dirs{}),
		Meta: registry.ServerMeta{Name: "t", Version: "1"}, Getenv: func(k string) string { return env[k] }, Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	if dir, _ := srv.wasmCachePaths(); dir != cache {
		t.Fatalf("cache %q, want %q (resolved physically)", dir, cache)
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wasm.CacheKeyPath(cache), make([]byte, 32), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string // want "" = refused
	}{
		{data, data},
		{dataLink, data},
		{data + "/../data/.", data},
		{"/", ""},
		{"/proc", ""},
		{"/proc/self", ""},
		{data + "/../../../../../../../proc", ""},
		{link, ""},
		{"/sys/kernel", ""},
		{"/dev", ""},
		{"/dev/shm", ""},
		{scratch, ""},
		{filepath.Dir(scratch), ""},
		{filepath.Join(scratch, "inside"), filepath.Join(scratch, "inside")},
		{cache, ""},
		{filepath.Join(base, "home", "other"), filepath.Join(base, "home", "other")},
		{"relative/path", ""},
		{filepath.Join(base, "missing"), ""},
	} {
		got, ok := srv.vetRoot(tc.path, "client")
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("vetRoot(%q) = %q, %v; want %q", tc.path, got, ok, tc.want)
		}
	}
	if dir, _ := srv.wasmCachePaths(); dir != cache {
		t.Fatal("the cache was turned off by a root beside it")
	}
	// A root above the cache and its key: accepted, the cache off, the key gone.
	home := filepath.Join(base, "home")
	if got, ok := srv.vetRoot(home, "client"); !ok || got != home {
		t.Fatalf("vetRoot(%q) = %q, %v", home, got, ok)
	}
	if dir, _ := srv.wasmCachePaths(); dir != "" {
		t.Errorf("the cache is still on under a root: %q", dir)
	}
	if _, err := os.Stat(wasm.CacheKeyPath(cache)); err == nil {
		t.Error("the key a root reached was kept")
	}
	for _, want := range []string{"client root /proc refused", "contains the wasm compilation cache", "scratch directory"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}
