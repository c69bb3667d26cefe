package registry

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestScanFailureKeepsTheRegistry: a rescan that cannot read the project keeps what was listed,
// announces nothing and tries again later; a first scan that cannot read it fails instead of
// listing nothing.
func TestScanFailureKeepsTheRegistry(t *testing.T) {
	f := open(t, map[string]string{
		"tools/a/tool.sh": "echo", "tools/a/tool.meta.json": `{"name":"a","description":"A"}`,
		"tools/b/tool.sh": "echo", "tools/b/tool.meta.json": `{"name":"b","description":"B"}`,
	}, nil)
	ctx := context.Background()
	if got := names(f.items(t, KindTools)); got != "a,b" {
		t.Fatalf("tools %s", got)
	}
	// A change on disk makes the next check rescan.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(f.dir, "tools", "b", "tool.meta.json"), later, later); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(time.Minute)
	release := exhaustDescriptors(t)
	changed, err := f.r.Refresh(ctx)
	page, lerr := f.r.List(ctx, KindTools, "", MaxPageSize)
	release()
	if err != nil || len(changed) != 0 {
		t.Fatalf("a failed rescan was announced: changed %v, err %v", changed, err)
	}
	if lerr != nil || page.Total != 2 {
		t.Fatalf("after a failed rescan: %d tools, err %v", page.Total, lerr)
	}
	found := false
	for _, w := range f.warnings {
		found = found || strings.Contains(w.Message, "keeping the previous list")
	}
	if !found {
		t.Errorf("no warning: %+v", f.warnings)
	}
	// Descriptors back: the next check rescans and finds the same two tools (no change).
	f.now = f.now.Add(time.Minute)
	if changed, err := f.r.Refresh(ctx); err != nil || len(changed) != 0 {
		t.Fatalf("after recovery: changed %v err %v", changed, err)
	}
	if got := names(f.items(t, KindTools)); got != "a,b" {
		t.Fatalf("tools %s", got)
	}

	// A first scan without descriptors is an error, not an empty list.
	g := open(t, map[string]string{"prompts/p.txt": "hi", "prompts/p.meta.json": `{"name":"p"}`}, nil)
	release = exhaustDescriptors(t)
	_, err = g.r.List(ctx, KindPrompts, "", MaxPageSize)
	release()
	if !errors.Is(err, ErrLoad) {
		t.Fatalf("first scan without descriptors: %v", err)
	}
	g.now = g.now.Add(time.Minute)
	if got := names(g.items(t, KindPrompts)); got != "p" {
		t.Fatalf("prompts after recovery: %q", got)
	}
}
