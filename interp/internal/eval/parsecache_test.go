package eval

import (
	"context"
	"strings"
	"testing"
)

// TestParseCacheBounds: the cache returns the same parse for the same name and text, parses a
// text above maxCachedText every time, and starts over at its count and byte bounds.
func TestParseCacheBounds(t *testing.T) {
	p := NewParseCache()
	a, _, clean, _ := p.parse(context.Background(), "f.sh", "echo a\n")
	b, _, _, _ := p.parse(context.Background(), "f.sh", "echo a\n")
	if a != b {
		t.Fatal("same name and text parsed twice")
	}
	if !clean {
		t.Fatal("plain text not marked clean: every use would run the static check again")
	}
	// A refused construct is never marked clean, from the cache or not: the caller's check must run.
	for range 2 {
		if _, _, clean, _ := p.parse(context.Background(), "r.sh", "echo ${x@P}\n"); clean {
			t.Fatal("text with a refused construct (${x@P}) marked clean")
		}
	}
	if c, _, _, _ := p.parse(context.Background(), "g.sh", "echo a\n"); c == a {
		t.Fatal("another name shares a parse (its messages would name the wrong file)")
	}
	big := "echo " + strings.Repeat("x", maxCachedText) + "\n"
	p.parse(context.Background(), "big.sh", big)
	if _, ok := p.m[parseKey{"big.sh", big}]; ok {
		t.Fatalf("a text above %d bytes was kept", maxCachedText)
	}
	for i := 0; len(p.m) < maxCacheTexts; i++ {
		p.parse(context.Background(), "n.sh", "echo "+strings.Repeat("y", i%50)+string(rune('a'+i%26))+strings.Repeat("z", i/1300)+"\n"+strings.Repeat(" ", i))
	}
	p.parse(context.Background(), "last.sh", "echo last\n")
	if len(p.m) != 1 || p.bytes != len("last.sh")+len("echo last\n") {
		t.Fatalf("after %d texts the cache holds %d (%d bytes), want it started over", maxCacheTexts, len(p.m), p.bytes)
	}
	p = NewParseCache()
	chunk := strings.Repeat("w", maxCachedText/2)
	for i := 0; p.bytes+len(chunk) <= maxCacheBytes; i++ {
		p.parse(context.Background(), "b.sh", "echo "+chunk+strings.Repeat("\n", i+1))
	}
	held := len(p.m)
	p.parse(context.Background(), "b.sh", "echo "+chunk+" over\n")
	if len(p.m) != 1 || held < 2 {
		t.Fatalf("byte bound: held %d texts, then %d; want a start over past %d bytes", held, len(p.m), maxCacheBytes)
	}
}
