package engine

import (
	"maps"
	"testing"
)

// TestEachEnvPrecedence: each contract variable comes once, the job's own over the session's
// over the plan's, and AllEnv's map is never the shared session map (a caller may write it).
func TestEachEnvPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name string
		job  Job
		want map[string]string
	}{
		{"own only", Job{Env: map[string]string{"A": "own"}}, map[string]string{"A": "own"}},
		{"all three", Job{Env: map[string]string{"A": "own"}, Session: map[string]string{"A": "session", "B": "session"},
			Plan: &Plan{Env: map[string]string{"A": "plan", "B": "plan", "C": "plan"}}},
			map[string]string{"A": "own", "B": "session", "C": "plan"}},
		{"session and plan", Job{Session: map[string]string{"B": "session"}, Plan: &Plan{Env: map[string]string{"B": "plan", "C": "plan"}}},
			map[string]string{"B": "session", "C": "plan"}},
	} {
		seen := map[string]int{}
		got := map[string]string{}
		tc.job.EachEnv(func(k, v string) { seen[k]++; got[k] = v })
		for k, n := range seen {
			if n != 1 {
				t.Errorf("%s: %s given %d times", tc.name, k, n)
			}
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: EachEnv %v, want %v", tc.name, got, tc.want)
		}
		all := tc.job.AllEnv()
		if !maps.Equal(all, tc.want) {
			t.Errorf("%s: AllEnv %v, want %v", tc.name, all, tc.want)
		}
		if tc.job.Session != nil {
			all["B"] = "written"
			if tc.job.Session["B"] != "session" {
				t.Errorf("%s: AllEnv returned the shared session map", tc.name)
			}
		}
	}
}
