package builtins

import "testing"

// TestPrograms checks the GNU programs that share a name with shell builtins (what xargs, env
// and timeout run): printf's output and statuses, the directives GNU does not share refused,
// test and [ over the sandbox's files with GNU's failure for the shell-only operators, and
// pwd's physical default.
func TestPrograms(t *testing.T) {
	te := fixture(t)
	te.FS.ShowPrograms([]string{"env", "ls", "sed"}, nil)
	// The shell's command search, as interp gives it: utilities in /usr/bin, then /bin.
	te.LookPath = func(name string, all bool) []string {
		if _, ok := Lookup(name); !ok {
			return nil
		}
		if all {
			return []string{"/usr/bin/" + name, "/bin/" + name}
		}
		return []string{"/usr/bin/" + name}
	}
	for _, tc := range []struct {
		argv         []string
		out, errText string
		rc           int
	}{
		{[]string{"printf", "%s=%d|%5.2f|%x\n", "a", "42", "3.14159", "255"}, "a=42| 3.14|ff\n", "", 0},
		{[]string{"printf", "<%s>", "x", "y"}, "<x><y>", "", 0},
		{[]string{"printf", "--", "%s-", "x"}, "x-", "", 0},
		{[]string{"printf", "-v", "x", "hi"}, "-v", "printf: warning: ignoring excess arguments, starting with 'x'\n", 0},
		{[]string{"printf", "%d\n", "zz"}, "0\n", "printf: zz: invalid number\n", 1},
		{[]string{"printf", "%b", `a\tb\c`, "ignored"}, "a\tb", "", 0},
		{[]string{"printf"}, "", "printf: missing operand\n", 1},
		{[]string{"printf", "%q\n", "a b"}, "", "printf: %q: not supported by the sandbox's printf program (GNU printf differs from the shell's printf here; use the shell's printf)\n", 1},
		{[]string{"printf", "%-5Q|", "a b"}, "", "printf: %-5Q: not supported by the sandbox's printf program (GNU printf differs from the shell's printf here; use the shell's printf)\n", 1},
		{[]string{"printf", "%(%Y)T\n", "1"}, "", "printf: %(: not supported by the sandbox's printf program (GNU printf differs from the shell's printf here; use the shell's printf)\n", 1},
		{[]string{"printf", "%%q %s\n", "x"}, "%q x\n", "", 0},
		{[]string{"printf", "%qd\n", "x"}, "", "printf: %q: not supported by the sandbox's printf program (GNU printf differs from the shell's printf here; use the shell's printf)\n", 1},
		{[]string{"printf", "%ld|%5.1Lf\n", "7", "2.25"}, "7|  2.2\n", "", 0},
		{[]string{"test", "-f", "a.txt"}, "", "", 0},
		{[]string{"test", "-d", "a.txt"}, "", "", 1},
		{[]string{"test", "-c", "/dev/zero", "-a", "-w", "/dev/null"}, "", "", 0},
		{[]string{"test", "-s", "sub/b.txt", "-a", "!", "-e", "missing"}, "", "", 0},
		{[]string{"test", "1", "-lt", "x"}, "", "test: x: integer expression expected\n", 2},
		{[]string{"test", "-v", "HOME"}, "", "test: '-v': unary operator expected\n", 2},
		{[]string{"test", "-o", "errexit"}, "", "test: '-o': unary operator expected\n", 2},
		{[]string{"[", "abc", "=", "abc", "]"}, "", "", 0},
		{[]string{"[", "abc", "=", "abc"}, "", "[: missing `]'\n", 2},
		{[]string{"which", "sed", "nosuch"}, "/usr/bin/sed\n", "", 1},
		{[]string{"which", "-a", "ls"}, "/usr/bin/ls\n/bin/ls\n", "", 0},
		{[]string{"which", "./a.txt", "/usr/bin/env"}, "/usr/bin/env\n", "", 1},
		{[]string{"which", "-s", "ls"}, "", "which: unsupported option -s\n", 2},
		{[]string{"pwd"}, te.dir + "\n", "", 0},
		{[]string{"pwd", "-L", "-P"}, te.dir + "\n", "", 0},
	} {
		out, errText, rc := te.run(t, "", tc.argv...)
		if out != tc.out || errText != tc.errText || rc != tc.rc {
			t.Errorf("%q: out %q err %q rc %d, want %q %q %d", tc.argv, out, errText, rc, tc.out, tc.errText, tc.rc)
		}
	}
}
