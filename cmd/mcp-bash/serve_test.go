package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: a serving process collects at serverGCPercent unless the operator set GOGC.
func TestTuneGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		gogc string
		want int
	}{{"", serverGCPercent}, {"50", 100}, {"off", 100}} {
		debug.SetGCPercent(100)
		tuneGC(func(k string) string {
			if k == "GOGC" {
				return tc.gogc
			}
			return ""
		})
		if got := debug.SetGCPercent(100); got != tc.want {
			t.Errorf("GOGC=%q: GC percent %d, want %d", tc.gogc, got, tc.want)
		}
	}
}
