package builtins

import "testing"

// TestVirtualDevices checks what the utilities show of the sandbox's devices: character
// devices with Linux's numbers (ls -l "1, 5", stat %t %T %F), zero bytes from /dev/zero, and
// /dev/full's ENOSPC named by tee, which keeps writing its other outputs as GNU tee does.
func TestVirtualDevices(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		stdin        string
		argv         []string
		out, errText string
		rc           int
	}{
		{"", []string{"ls", "-l", "/dev/zero"}, "crw-rw-rw- 1 mcp mcp 1, 5 Jan  1  1970 /dev/zero\n", "", 0},
		{"", []string{"stat", "-c", "%F %t %T %a", "/dev/null", "/dev/urandom", "a.txt"},
			"character special file 1 3 666\ncharacter special file 1 9 666\nregular file 0 0 644\n", "", 0},
		{"", []string{"stat", "-c", "%q", "a.txt"}, "?\n", "", 0},
		{"", []string{"head", "-c", "3", "/dev/zero"}, "\x00\x00\x00", "", 0},
		{"", []string{"ls", "/dev"}, "full\nnull\nrandom\nurandom\nzero\n", "", 0},
		{"a\nb\n", []string{"tee", "/dev/full", "kept.txt"}, "a\nb\n", "tee: /dev/full: No space left on device\n", 1},
		{"", []string{"cat", "kept.txt"}, "a\nb\n", "", 0},
	} {
		out, errText, rc := te.run(t, tc.stdin, tc.argv...)
		if out != tc.out || errText != tc.errText || rc != tc.rc {
			t.Errorf("%q: out %q err %q rc %d, want %q %q %d", tc.argv, out, errText, rc, tc.out, tc.errText, tc.rc)
		}
	}
}
