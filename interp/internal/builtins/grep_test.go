package builtins

import (
	"strings"
	"testing"
)

func TestGrepMatchesGNU(t *testing.T) {
	in := "hello apple\npppp 123\nfoo-bar baz\n"
	var cases []gnuCase
	for _, argv := range [][]string{
		{"grep", "apple", "a.txt"}, {"grep", "-c", "apple", "a.txt"}, {"grep", "-n", "-i", "needle", "sub/b.txt"},
		{"grep", "-v", "apple", "a.txt"}, {"grep", "-E", "^(ap|ba)", "a.txt"}, {"grep", "-o", "an", "a.txt"},
		{"grep", "-w", "x", "a.txt"}, {"grep", "-x", "apple", "a.txt"}, {"grep", "-F", "a.", "a.txt"},
		{"grep", "-A", "1", "banana", "a.txt"}, {"grep", "-B", "1", "cherry", "a.txt"}, {"grep", "-C", "1", "-n", "cherry", "a.txt"},
		{"grep", "-A1", "apple", "a.txt"}, {"grep", "-1", "cherry", "a.txt"},
		{"grep", `\(ap\)\{1\}`, "a.txt"}, {"grep", `ap\|ch`, "a.txt"}, {"grep", `a\+`, "a.txt"}, {"grep", "a+", "a.txt"},
		{"grep", "-E", "a{2}|p{2}", "a.txt"}, {"grep", "[[:digit:]]", "a.txt"}, {"grep", `[\]`, "a.txt"},
		{"grep", "-e", "apple", "-e", "cherry", "a.txt"}, {"grep", "-l", "needle", "sub/b.txt", "sub/c.md", "a.txt"},
		{"grep", "-L", "needle", "sub/b.txt", "sub/c.md", "a.txt"}, {"grep", "-q", "apple", "a.txt"}, {"grep", "-q", "zzz", "a.txt"},
		{"grep", "-r", "needle", "sub"}, {"grep", "-rh", "needle", "sub"}, {"grep", "-rc", "needle", "sub"},
		{"grep", "-r", "--include=*.md", "needle", "."}, {"grep", "-r", "-l", "--exclude=*.md", "needle", "."},
		{"grep", "-H", "apple", "a.txt"}, {"grep", "-h", "apple", "a.txt", "dup.txt"}, {"grep", "-c", "a", "a.txt", "dup.txt"},
		{"grep", "missing", "nofile"}, {"grep", "-s", "apple", "nofile", "a.txt"}, {"grep", "-m", "1", "apple", "a.txt"},
		{"grep", "-on", "p\\+", "a.txt"}, {"grep", "-vc", "a", "a.txt"}, {"grep", "-ivn", "NEEDLE", "sub/b.txt"},
		{"grep", "", "a.txt"}, {"grep", "-E", "x|", "a.txt"}, {"grep", "^", "nonl.txt"}, {"grep", "-E", "a|an", "-o", "a.txt"},
		{"grep", "-w", "foo"}, {"grep", "-ow", "[a-z]*"}, {"grep", "-x", "-e", "pppp 123", "-e", "zz"}, {"grep", "apple", "-"},
		{"grep", "-n", "e", "-", "a.txt"}, {"grep", "-c", ""}, {"grep", "apple", "a.txt", "--count"}, {"grep", "--line-number", "apple", "a.txt"},
		{"grep", "-A", "1", "-B", "1", "a", "dup.txt"}, {"grep", "-E", "^$", "words.txt"}, {"grep", "-c", "^$", "words.txt"},
		{"grep", "-i", "[A-C]", "dup.txt"}, {"grep", "-ni", "b", "dup.txt"}, {"grep", `\<the\>`, "words.txt"}, {"grep", `o\b`, "words.txt"},
		{"grep", "-E", `(ab|a)(c|bcd)`, "-o"}, {"grep", "-F", "-x", "-f", "dup.txt", "a.txt"},
		{"grep", "-P", `\d+`, "a.txt"}, {"grep", "-oP", `\d+`}, {"grep", "-oP", `p|pp`}, {"grep", "-oP", `p+?`}, {"grep", "-cP", `\s`},
		{"grep", "-P", `^\w+\s\d{3}$`}, {"grep", "-oP", `[\s]\S+`}, {"grep", "-iP", `APPLE`, "a.txt"}, {"grep", "-xP", `apple`, "a.txt"},
		{"grep", "-wP", `foo`}, {"grep", "-oP", `(?:ap)+`}, {"grep", "-oP", `(?i)HELLO`}, {"grep", "-oP", `\Qfoo-\E\w`}, {"grep", "-P", `x{,2}`},
		{"grep", "-P", "-e", "a", "-e", "b", "a.txt"}, {"grep", "-oP", `[[:digit:]]+`}, {"grep", "-oP", `[^\s]+`},
		{"grep", "-oP", `(?<=p)p`}, {"grep", "-oP", `(?<=hello )\w+`}, {"grep", "-oP", `\w+(?= baz)`}, {"grep", "-oP", `(?<=o)[a-z](?=[a-z])`},
		{"grep", "-oP", `(?<!p)p`}, {"grep", "-oP", `foo-\K\w+`}, {"grep", "-oP", `\Kp+`}, {"grep", "-cP", `(?<=x)y`}, {"grep", "-P", `(?<=a|bc)p`},
		{"grep", "-oP", `(?<=\d)\d`}, {"grep", "-oiP", `(?<=HELLO )A\w+`}, {"grep", "-vP", `(?<=pp)p`}, {"grep", "-oP", `\d(?=\d)`},
		{"grep", "-oP", `(?<=[a-z]{2})[a-z]`}, {"grep", "-P", `(?<=^)h`}, {"grep", "-oP", `a(?=p|$)`},
	} {
		cases = append(cases, gnuCase{in, argv})
	}
	compareGNU(t, cases)
}

// TestGrepPerlRefusals: what RE2 cannot match is refused, never matched differently.
func TestGrepPerlRefusals(t *testing.T) {
	te := fixture(t)
	for _, p := range []string{`(a)\1`, `(?>a+)`, `a++`, `[\S]`, `\h`, `(?<=a+)b`, `a(?!b)`, `(?<=a)\bb`, `x(?<=a)b`, `(?<=a)b(?=c)d`} {
		out, errOut, rc := te.run(t, "ab\n", "grep", "-P", p)
		if rc != 2 || out != "" || !strings.Contains(errOut, "not available in the sandbox") {
			t.Errorf("grep -P %q: rc %d out %q err %q", p, rc, out, errOut)
		}
	}
}

func TestGrepBehaviour(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		argv       []string
		stdin      string
		want       string
		rc         int
		errContain string
	}{
		{argv: []string{"grep", `\(a\)\1`}, rc: 2, errContain: "backreferences are not supported"},
		{argv: []string{"grep", "-E", "(a"}, rc: 2, errContain: "missing closing )"},
		{argv: []string{"grep", "x"}, stdin: "a\x00x\n", want: "Binary file (standard input) matches\n"},
		{argv: []string{"grep", "-a", "x"}, stdin: "a\x00x\n", want: "a\x00x\n"},
		{argv: []string{"grep", "-rZl", "needle", "sub"}, want: "sub/b.txt\x00sub/c.md\x00"},
		{argv: []string{"grep", "-c", "x"}, stdin: "x\nx", want: "2\n"},
		{argv: []string{"grep"}, rc: 2, errContain: "usage"},
	} {
		out, errOut, rc := te.run(t, tc.stdin, tc.argv...)
		if out != tc.want || rc != tc.rc || !strings.Contains(errOut, tc.errContain) {
			t.Errorf("%q: got %q rc %d err %q; want %q rc %d err containing %q", tc.argv, out, rc, errOut, tc.want, tc.rc, tc.errContain)
		}
	}
}

func TestToRE2(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ere  bool
		want string
	}{
		{`a\(b\)*`, false, `a(b)*`}, {`a(b)`, false, `a\(b\)`}, {`x\{2,3\}`, false, `x{2,3}`}, {`a{`, true, `a\{`},
		{`*a`, false, `\*a`}, {`^*a`, false, `^\*a`}, {`[\n]`, false, `[\\n]`}, {`[]a]`, true, `[\]a]`},
		{`\<w\>`, true, `\bw\b`}, {`a\|b`, false, `a|b`}, {`a|b`, false, `a\|b`}, {`[[:alpha:]_]`, true, `[[:alpha:]_]`},
		{`\.`, false, `\.`}, {`\/`, false, `/`},
	} {
		got, err := toRE2(tc.in, tc.ere)
		if err != nil || got != tc.want {
			t.Errorf("toRE2(%q, %v) = %q, %v; want %q", tc.in, tc.ere, got, err, tc.want)
		}
	}
}

// TestClassesFollowTheLocale: in a UTF-8 locale [:alpha:] and friends, and \w, take in
// non-ASCII letters as glibc's classes do (GNU grep and sed in C.UTF-8); in C they are ASCII.
func TestClassesFollowTheLocale(t *testing.T) {
	in := "café ÉTÉ x1 ٣\n"
	for _, tc := range []struct {
		locale string
		argv   []string
		want   string
	}{
		{"C.UTF-8", []string{"grep", "-o", "[[:alpha:]]*"}, "café\nÉTÉ\nx\n٣\n"},
		{"C.UTF-8", []string{"grep", "-o", `[[:upper:]]\+`}, "ÉTÉ\n"},
		{"C.UTF-8", []string{"grep", "-oE", `\w+`}, "café\nÉTÉ\nx1\n٣\n"},
		{"C.UTF-8", []string{"grep", "-o", "[^[:alnum:] ]"}, ""},
		{"C.UTF-8", []string{"sed", "s/[[:lower:]]*/<&>/"}, "<café> ÉTÉ x1 ٣\n"},
		{"C", []string{"grep", "-o", "[[:alpha:]]*"}, "caf\nT\nx\n"},
		{"C", []string{"sed", "-E", `s/\w+/W/g`}, "Wé ÉWÉ W ٣\n"},
		{"", []string{"grep", "-c", "[[:alpha:]]é"}, "1\n"},
	} {
		te := fixture(t)
		te.Getenv = func(k string) string {
			if k == "LANG" {
				return tc.locale
			}
			return ""
		}
		out, errOut, _ := te.run(t, in, tc.argv...)
		if out != tc.want {
			t.Errorf("LANG=%s %q = %q (%s), want %q", tc.locale, tc.argv, out, errOut, tc.want)
		}
	}
}
