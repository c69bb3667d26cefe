package interp

import "testing"

// TestWcWidthAsGNU: wc pads its counts to the digits of the regular files' total size, standard
// input included when it is a regular file (wc < f), and to at least 7 when an input is not
// one (a pipe, /dev/null); the sandbox padded a redirected file to 7 and /dev/null to 1.
func TestWcWidthAsGNU(t *testing.T) {
	out := runScript(t, `printf 'a b\nc\n' > f; wc < f; wc - < f; wc f; wc f /dev/null; wc /dev/null; echo x | wc; wc -l < f`, nil, nil)
	want := "2 3 6\n2 3 6 -\n2 3 6 f\n      2       3       6 f\n      0       0       0 /dev/null\n      2       3       6 total\n" +
		"      0       0       0 /dev/null\n      1       1       2\n2\n"
	if got := string(out.Stdout); got != want {
		t.Errorf("got\n%s\nwant (GNU wc)\n%s\nstderr: %s", got, want, out.Stderr)
	}
}
