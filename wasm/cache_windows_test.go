package wasm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestNoDiskCacheOnWindows: a configured cache directory is refused loudly on Windows (the
// runtime compiles in memory and says why), and there is no default one.
func TestNoDiskCacheOnWindows(t *testing.T) {
	if d := DefaultCacheDir(func(string) string { return `C:\Users\me` }); d != "" {
		t.Errorf("default cache dir %q on Windows", d)
	}
	if _, err := openCache(t.TempDir(), false, t.TempDir(), nil); !errors.Is(err, ErrCacheUnsafe) || !strings.Contains(err.Error(), "Windows") {
		t.Fatalf("openCache: %v", err)
	}
	var logged []string
	r, err := New(context.Background(), Options{CacheDir: t.TempDir(), Logf: func(f string, a ...any) { logged = append(logged, f) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	if r.CacheDir() != "" || len(logged) == 0 {
		t.Fatalf("cache dir %q, log %q", r.CacheDir(), logged)
	}
}
