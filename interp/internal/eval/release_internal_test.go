package eval

import (
	"context"
	"io"
	"testing"
)

// TestReleaseKeepsOnlySmallMaps: Release keeps the global scope's map for the next run only when
// it never held more than maxKeptVars variables (none was deleted, and it holds at most that
// many), and keeps it empty; a script's big or shrunk map is not held by the pool.
func TestReleaseKeepsOnlySmallMaps(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		kept         bool
	}{
		{"small", "a=1; b=2", true},
		{"none set", ":", false},
		{"many", "for i in {1..40}; do declare v$i=x; done", false},
		{"grew then unset", "for i in {1..40}; do declare v$i=x; done; for i in {1..40}; do unset v$i; done", false},
		{"one unset", "a=1; unset a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(&Config{Name: "t.sh", Stdout: io.Discard, Stderr: io.Discard, Identity: Identity{PID: 100}})
			b := r.block
			b.global.vars = nil // as a new block (the pool may hand out one with a kept map)
			prog, err := Parse("t.sh", []byte(tc.script))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Run(context.Background(), prog); err != nil {
				t.Fatal(err)
			}
			r.Release()
			if got := b.keptVars != nil; got != tc.kept {
				t.Fatalf("kept %v, want %v", got, tc.kept)
			}
			if len(b.keptVars) != 0 {
				t.Fatalf("the kept map holds %d variables", len(b.keptVars))
			}
		})
	}
}
