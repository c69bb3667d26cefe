package registry

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
)

func generateTools(tb testing.TB, n int) string {
	dir := tb.TempDir()
	for i := range n {
		td := filepath.Join(dir, "tools", fmt.Sprintf("tool%04d", i))
		if err := os.MkdirAll(td, 0o755); err != nil {
			tb.Fatal(err)
		}
		os.WriteFile(filepath.Join(td, "tool.sh"), []byte("#!/usr/bin/env bash\necho hi\n"), 0o755)
		meta := fmt.Sprintf(`{"name":"tool-%04d","description":"Generated tool %d","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}},"timeoutSecs":10}`, i, i)
		os.WriteFile(filepath.Join(td, "tool.meta.json"), []byte(meta), 0o644)
	}
	return dir
}

// BenchmarkColdScan2000 is a full scan of a 2,000-tool project with no cache, up to the first
// page.
func BenchmarkColdScan2000(b *testing.B) {
	dir := generateTools(b, 2000)
	d := ResolveDirs(dir, config.Dirs{})
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.RemoveAll(d.Registry)
		b.StartTimer()
		r, err := Open(ctx, Options{Dirs: d})
		if err != nil {
			b.Fatal(err)
		}
		p, err := r.List(ctx, KindTools, "", 0)
		if err != nil || p.Total != 2000 {
			b.Fatalf("%v %d", err, p.Total)
		}
	}
}

// BenchmarkCachedFirstPage2000 is tools/list's first page once the registry is loaded.
func BenchmarkCachedFirstPage2000(b *testing.B) {
	dir := generateTools(b, 2000)
	ctx := context.Background()
	r, err := Open(ctx, envOptions(b, dir, noEnv))
	if err != nil {
		b.Fatal(err)
	}
	r.Warm(ctx)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.List(ctx, KindTools, "", 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRestartFromCache2000 is a fresh registry adopting a valid .registry cache.
func BenchmarkRestartFromCache2000(b *testing.B) {
	dir := generateTools(b, 2000)
	d := ResolveDirs(dir, config.Dirs{})
	ctx := context.Background()
	r, _ := Open(ctx, Options{Dirs: d})
	r.Warm(ctx)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(ctx, Options{Dirs: d})
		if err != nil {
			b.Fatal(err)
		}
		if p, err := r.List(ctx, KindTools, "", 0); err != nil || p.Total != 2000 {
			b.Fatal(err)
		}
	}
}
