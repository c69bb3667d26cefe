package udiff

import (
	"bufio"
	"context"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, want string
	}{
		{"same", "x\ny\n", "x\ny\n", "--- a\n+++ b\n"},
		{"one changed", "a\nb\nc\n", "a\nB\nc\n", "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"added at end", "a\n", "a\nb\n", "--- a\n+++ b\n@@ -1 +1,2 @@\n a\n+b\n"},
		{"from nothing", "", "new\n", "--- a\n+++ b\n@@ -0,0 +1 @@\n+new\n"},
		{"no final newline", "a\nb", "a\nb\n", "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"far apart", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "0\n2\n3\n4\n5\n6\n7\n8\n9\n11\n",
			"--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+0\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+11\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := text("a", tc.a), text("b", tc.b)
			ia, ib := IDs(a.Lines, b.Lines, func(l string, noEOL bool) string {
				if noEOL {
					return l + "\x00"
				}
				return l
			}, a.NoEOL, b.NoEOL)
			hunks, err := Lines(context.Background(), ia, ib, nil)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			w := bufio.NewWriter(&sb)
			WriteUnified(w, a, b, hunks, 3)
			w.Flush()
			if sb.String() != tc.want {
				t.Fatalf("got\n%s\nwant\n%s", sb.String(), tc.want)
			}
		})
	}
}

func text(header, s string) *Text {
	t := &Text{Header: header}
	if s == "" {
		return t
	}
	t.NoEOL = !strings.HasSuffix(s, "\n")
	t.Lines = strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return t
}

// TestCancelled: a cancelled comparison of texts far apart stops with the context's error.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a, b := make([]int, 5000), make([]int, 5000)
	for i := range a {
		a[i], b[i] = i%100, (i*7)%100
	}
	if _, err := Lines(ctx, a, b, nil); err == nil {
		t.Fatal("want the context's error")
	}
}
