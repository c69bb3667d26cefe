package signum

import "testing"

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"TERM", 15, true}, {"sigterm", 15, true}, {"SIGKILL", 9, true}, {"9", 9, true}, {"0", 0, true},
		{"int", 2, true}, {"SYS", 31, true}, {"32", 32, false}, {"-1", -1, false}, {"BOGUS", 0, false},
		{"SIG", 0, false}, {"", 0, false}, {"EXIT", 0, false},
	} {
		got, ok := Number(tc.in)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("Number(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if Name(15) != "TERM" || Name(0) != "" || Name(32) != "" || len(List()) != 32 {
		t.Errorf("Name(15) %q, Name(0) %q, Name(32) %q, %d names", Name(15), Name(0), Name(32), len(List()))
	}
}
