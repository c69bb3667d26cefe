package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSedMatchesGNU(t *testing.T) {
	in := "hello apple\npppp 123\nfoo bar baz\n"
	var cases []gnuCase
	for _, argv := range [][]string{
		{"sed", "s/apple/APPLE/", "a.txt"}, {"sed", "-n", "2,3p", "a.txt"}, {"sed", "/apple/d", "a.txt"},
		{"sed", "-E", `s/([a-z]+),([0-9]+)/\2:\1/`, "csv.txt"}, {"sed", "s/a/A/g", "a.txt"}, {"sed", "s/a/A/2", "a.txt"},
		{"sed", "s/a/A/2g", "a.txt"}, {"sed", "3q", "a.txt"}, {"sed", "3q5", "a.txt"}, {"sed", "3Q", "a.txt"},
		{"sed", "-n", "$p", "a.txt"}, {"sed", "1~2d", "a.txt"}, {"sed", "0~3d", "a.txt"}, {"sed", "y/abc/xyz/", "a.txt"},
		{"sed", "-n", "/banana/,/cherry/p", "a.txt"}, {"sed", "2i\\inserted", "a.txt"}, {"sed", "=", "csv.txt"},
		{"sed", "2a appended line", "a.txt"}, {"sed", "2a\\\nmulti\\\nline", "a.txt"}, {"sed", "/apple/c\\changed", "a.txt"},
		{"sed", "2,4c\\range changed", "a.txt"}, {"sed", "$a\\END", "a.txt"}, {"sed", "1i\\START", "a.txt"},
		{"sed", "-n", "/apple/{p;=}", "a.txt"}, {"sed", "/apple/!d", "a.txt"}, {"sed", "2,+2d", "a.txt"}, {"sed", "2,~4d", "a.txt"},
		{"sed", "0,/apple/s//APPLE/", "a.txt"}, {"sed", "1,/apple/s/apple/X/", "a.txt"}, {"sed", "-n", "2,1p", "a.txt"},
		{"sed", ":a;N;$!ba;s/\\n/,/g", "a.txt"}, {"sed", "$!N;P;D", "a.txt"}, {"sed", "N;s/\\n/ /", "a.txt"},
		{"sed", "-n", "h;n;G;p", "a.txt"}, {"sed", "1!G;h;$!d", "a.txt"}, {"sed", "n;d", "a.txt"}, {"sed", "s/p*/X/g", "a.txt"},
		{"sed", "s/\\(an\\)\\+/<&>/", "a.txt"}, {"sed", "s/[aeiou]/\\U&/g", "a.txt"}, {"sed", `s/\(.\)\(.*\)/\u\1\U\2\E!/`, "a.txt"},
		{"sed", "-E", "s/(a|an)+/[&]/g", "a.txt"}, {"sed", "s/x*/-/g"}, {"sed", "s/a/\\n/"}, {"sed", "s|/|_|g"}, {"sed", "s,a,b,"},
		{"sed", "-e", "s/a/b/", "-e", "s/b/c/"}, {"sed", "s/A/x/I"}, {"sed", "/APPLE/Id"}, {"sed", "-n", "/p\\{4\\}/p"},
		{"sed", "p", "nonl.txt"}, {"sed", "-n", "p", "nonl.txt"}, {"sed", "$d", "nonl.txt"}, {"sed", "s/last/LAST/", "nonl.txt"},
		{"sed", "a x", "nonl.txt"}, {"sed", "-n", "$=", "a.txt", "csv.txt"}, {"sed", "-s", "-n", "$=", "a.txt", "csv.txt"},
		{"sed", "1d", "a.txt", "csv.txt"}, {"sed", "-s", "1d", "a.txt", "csv.txt"}, {"sed", "-n", "l"}, {"sed", "s/o/0/3"},
		{"sed", `s/\x2e/X/g`}, {"sed", `s/\x5e/X/`}, {"sed", `s/a/\x5c/`}, {"sed", `s/a/\x26/`}, {"sed", `s/a/\d065\o102\cA\r\v\f\a/`},
		{"sed", `s/\d112\{2\}/Y/`}, {"sed", `y/ab/\x41\t/`}, {"sed", `1a\  foo\tbar`}, {"sed", `1a foo\tbar\nbaz`}, {"sed", "1i\\\nx\\ty"},
		{"sed", `s/\x/Q/`}, {"sed", `s/o/\xZ/`}, {"sed", `s/\o160\o160/PP/`}, {"sed", `s/[\x61]/A/g`},
		{"sed", "/foo/{s/bar/BAR/;s/baz/BAZ/}"}, {"sed", "2{h;d};${G}"}, {"sed", "-n", "/apple/{n;p}", "a.txt"},
		{"sed", "s/a/b/;tx;s/$/ no/;b;:x;s/$/ yes/"}, {"sed", "s/a/b/;Tx;s/$/ changed/;:x"}, {"sed", "-n", "2{p;q}", "a.txt"},
		{"sed", "y/\\n/x/"}, {"sed", "s/[/]/X/g"}, {"sed", "-E", `s/(\w+) (\w+)/\2 \1/`}, {"sed", `s/\s\+/_/g`},
		{"sed", "#n\n/apple/p"}, {"sed", "-n", "-e", "/apple/ {", "-e", "p", "-e", "}"}, {"sed", "s/.*/[&]/;s/^\\[//"},
		{"sed", "-z", "s/\\n/,/g"}, {"sed", "$!d"}, {"sed", "2!d"}, {"sed", "F"}, {"sed", "z;s/^$/empty/"},
		{"sed", "-n", "/hello/,+1p"}, {"sed", "-E", "s/(p+)|(a)/[\\1\\2]/g"}, {"sed", "missing-file-cmd", "a.txt"},
		{"sed", "p", "nofile", "a.txt"}, {"sed", "s/a/b/x"}, {"sed", "k"}, {"sed", "s/a/b"}, {"sed", "{p"}, {"sed", "p}"},
	} {
		cases = append(cases, gnuCase{in, argv})
	}
	compareGNU(t, cases)
}

func TestSedInPlace(t *testing.T) {
	te := fixture(t)
	if _, errOut, rc := te.run(t, "", "sed", "-i.bak", "s/apple/APPLE/;2d", "a.txt"); rc != 0 {
		t.Fatalf("sed -i: %d %s", rc, errOut)
	}
	got, _ := os.ReadFile(filepath.Join(te.dir, "a.txt"))
	bak, _ := os.ReadFile(filepath.Join(te.dir, "a.txt.bak"))
	if string(got) != "banana\ncherry\nAPPLE\n10 x\n9 y\n" || string(bak) != fixtureFiles["a.txt"] {
		t.Errorf("sed -i: %q, backup %q", got, bak)
	}
	if _, _, rc := te.run(t, "", "sed", "-i", "1d", "a.txt", "csv.txt"); rc != 0 {
		t.Fatal("sed -i on two files failed")
	}
	got, _ = os.ReadFile(filepath.Join(te.dir, "csv.txt"))
	if string(got) != "ada,36,london\nalan,41,wilmslow\n" {
		t.Errorf("sed -i restarts line numbers per file: %q", got)
	}
	if _, errOut, rc := te.run(t, "", "sed", "-i", "p", "/etc/passwd"); rc == 0 || !strings.Contains(errOut, "No such file") {
		t.Errorf("sed -i outside the root: %d %q", rc, errOut)
	}
}

func TestSedRefusals(t *testing.T) {
	te := fixture(t)
	for _, argv := range [][]string{
		{"sed", "s/a/b/e"}, {"sed", "w /tmp/x"}, {"sed", "r /etc/passwd"}, {"sed", "s/a/b/w out"}, {"sed", "e ls"},
		{"sed", "R x"}, {"sed", "W x"}, {"sed", "--debug-unknown", "p"}, {"sed", "bnolabel"}, {"sed", `s/\(a\)\1/x/`},
	} {
		_, errOut, rc := te.run(t, "apple\n", argv...)
		if rc == 0 || !strings.HasPrefix(errOut, "sed: ") {
			t.Errorf("%q accepted: rc %d, %q", argv, rc, errOut)
		}
	}
}
