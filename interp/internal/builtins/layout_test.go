package builtins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayoutMatchesGNU compares cat's options, fold and column -t with the host's tools.
func TestLayoutMatchesGNU(t *testing.T) {
	ctl := "tab\there\r\n\x01\x7f\x80\xff\xe9t\xc3\xa9\n\n\n\nlast no newline"
	long := "the quick brown fox jumps over the lazy dog\n\tindented\ttabs\tare\there\nab\bc\rdefghijklmnopqrstuvwxyz0123456789\n"
	table := "name age  city\nalice 30 paris\n\n  bob 4\nx\n"
	csv := "id,name,,role\n1,ann,admin\n22,bo,\n\nzed\n"
	var cases []gnuCase
	for _, c := range []struct {
		stdin string
		argv  []string
	}{
		{ctl, []string{"cat", "-n"}}, {ctl, []string{"cat", "-b"}}, {ctl, []string{"cat", "-s"}}, {ctl, []string{"cat", "-E"}},
		{ctl, []string{"cat", "-A"}}, {ctl, []string{"cat", "-T"}}, {ctl, []string{"cat", "-v"}}, {ctl, []string{"cat", "-e"}},
		{ctl, []string{"cat", "-t"}}, {ctl, []string{"cat", "-sn"}}, {ctl, []string{"cat", "-bs"}}, {ctl, []string{"cat", "-nb"}},
		{ctl, []string{"cat", "-u"}}, {"", []string{"cat", "-n", "nonl.txt", "a.txt"}}, {"x\n", []string{"cat", "-n", "a.txt", "-", "nonl.txt"}},
		{"", []string{"cat", "--number", "--show-ends", "words.txt"}}, {"", []string{"cat", "-n", "missing", "a.txt"}},
		{long, []string{"fold"}}, {long, []string{"fold", "-w", "10"}}, {long, []string{"fold", "-w10", "-s"}}, {long, []string{"fold", "-b", "-w", "7"}},
		{long, []string{"fold", "-sw", "1"}}, {long, []string{"fold", "-5"}}, {long, []string{"fold", "-s", "-w", "3"}}, {"", []string{"fold", "-w", "4", "nonl.txt"}},
		{long, []string{"fold", "-w", "0"}}, {long, []string{"fold", "-w", "x"}}, {"", []string{"fold", "-w3", "missing", "a.txt"}},
		{table, []string{"column", "-t"}}, {csv, []string{"column", "-t", "-s", ","}}, {csv, []string{"column", "-t", "-s,", "-o", "|"}},
		{table, []string{"column", "-t", "-o", " : "}}, {csv, []string{"column", "-t", "-s", ",e"}}, {"", []string{"column", "-t", "csv.txt", "-s,"}},
		{"", []string{"column", "-t", "tab.tsv"}}, {"", []string{"column", "-t"}},
	} {
		cases = append(cases, gnuCase{c.stdin, c.argv})
	}
	compareGNU(t, cases)
}

func TestLayoutRefusals(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		stdin string
		argv  []string
		want  string
	}{
		{"a b\n", []string{"column"}, "only the table mode"},
		{"a b\n", []string{"column", "-x"}, "unsupported option -x"},
		{"a\u0301 b\nc d\n", []string{"column", "-t"}, "not available in the sandbox"},
		{"a\x01 b\nc d\n", []string{"column", "-t"}, "not available in the sandbox"},
		{"h\u00e9llo b\nc d\n", []string{"column", "-t"}, "outside a UTF-8 locale"},
	} {
		out, errOut, rc := te.run(t, tc.stdin, tc.argv...)
		if rc == 0 || out != "" || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: rc %d out %q err %q; want a failure saying %q", tc.argv, rc, out, errOut, tc.want)
		}
	}
}

// TestPrintfUtility runs printf as xargs and find -exec do; what GNU printf does differently
// from the shell's builtin is refused.
func TestPrintfUtility(t *testing.T) {
	var cases []gnuCase
	for _, argv := range [][]string{
		{"printf", "%s-%d\n", "a", "1", "b"}, {"printf", "%05.2f|%x|%o|%e\n", "3.14159", "255", "8", "1234.5"},
		{"printf", "%b", "a\\tb\\n"}, {"printf", "--", "%s\n", "x"}, {"printf", "%d\n", "x"}, {"printf", "%c%c\n", "hello", "w"},
		{"printf", "%-6s|\n", "ab"}, {"printf", "%i %u\n", "'A", "42"}, {"printf", "no newline"},
	} {
		cases = append(cases, gnuCase{"", argv})
	}
	compareGNU(t, cases)
	te := fixture(t)
	// \%q too: GNU printf reads \% as a literal percent (it prints \%q) where the shared
	// formatter follows bash (\ then %q), so the program refuses it rather than differ.
	for _, f := range []string{"%q\n", "%(%F)T\n", "%n", "a %-5q b", "\\%q"} {
		out, errOut, rc := te.run(t, "", "printf", f, "x")
		if rc != 1 || out != "" || !strings.Contains(errOut, "not supported by the sandbox's printf program") {
			t.Errorf("printf %q: rc %d out %q err %q", f, rc, out, errOut)
		}
	}
	for _, f := range []string{"%%q", "%5s"} {
		if _, errOut, rc := te.run(t, "", "printf", f, "x"); rc != 0 {
			t.Errorf("printf %q refused: %s", f, errOut)
		}
	}
}

// TestFindExec: -exec runs commands through env.Exec, -delete removes.
func TestFindExec(t *testing.T) {
	for _, tc := range []struct {
		argv      []string
		want      string
		rc        int
		remaining []string // files that must still exist
		gone      []string
	}{
		{argv: []string{"find", "sub", "-type", "f", "-exec", "echo", "file:{}", ";"}, want: "file:sub/b.txt\nfile:sub/c.md\n"},
		{argv: []string{"find", "sub", "-type", "f", "-exec", "echo", "{}", "+"}, want: "sub/b.txt sub/c.md\n"},
		{argv: []string{"find", "sub", "-type", "f", "-exec", "grep", "-q", "markdown", "{}", ";", "-print"}, want: "sub/c.md\n"},
		{argv: []string{"find", "sub", "-type", "f", "-exec", "false", ";", "-o", "-print"}, want: "sub\nsub/b.txt\nsub/c.md\n"},
		{argv: []string{"find", "sub", "-type", "f", "-exec", "false", "{}", "+"}, rc: 1},
		{argv: []string{"find", ".", "-name", "*.md", "-delete"}, gone: []string{"sub/c.md"}, remaining: []string{"sub/b.txt"}},
		{argv: []string{"find", "sub", "-delete"}, gone: []string{"sub"}, remaining: []string{"a.txt"}},
		{argv: []string{"find", "sub", "-name", "b.txt", "-delete", "-print"}, want: "sub/b.txt\n", gone: []string{"sub/b.txt"}},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			te := fixture(t)
			out, errOut, rc := te.run(t, "", tc.argv...)
			if out != tc.want || rc != tc.rc {
				t.Errorf("got rc %d %q (%s), want rc %d %q", rc, out, errOut, tc.rc, tc.want)
			}
			for _, p := range tc.remaining {
				if _, err := os.Stat(filepath.Join(te.dir, p)); err != nil {
					t.Errorf("%s was removed", p)
				}
			}
			for _, p := range tc.gone {
				if _, err := os.Stat(filepath.Join(te.dir, p)); err == nil {
					t.Errorf("%s is still there", p)
				}
			}
		})
	}
}

// TestDevices: /dev/zero and /dev/urandom read as the host's.
func TestDevices(t *testing.T) {
	te := fixture(t)
	if out, errOut, rc := te.run(t, "", "head", "-c", "5", "/dev/zero"); out != "\x00\x00\x00\x00\x00" || rc != 0 {
		t.Errorf("head -c 5 /dev/zero: %q rc %d %s", out, rc, errOut)
	}
	a, _, _ := te.run(t, "", "head", "-c", "16", "/dev/urandom")
	b, _, _ := te.run(t, "", "head", "-c", "16", "/dev/urandom")
	if len(a) != 16 || len(b) != 16 || a == b {
		t.Errorf("/dev/urandom: %q %q", a, b)
	}
}

func TestExpandEnvsubstMatchGNU(t *testing.T) {
	tabs := "ab\tc\td\n\te\n\t a\tb\nx\by\tz\nno newline\t"
	var cases []gnuCase
	for _, argv := range [][]string{
		{"expand"}, {"expand", "-t", "3"}, {"expand", "-t", "2,5"}, {"expand", "-t2,5"}, {"expand", "-i"}, {"expand", "-4"},
		{"expand", "-t", "x"}, {"expand", "tab.tsv"}, {"expand", "-t", "1"},
	} {
		cases = append(cases, gnuCase{tabs, argv})
	}
	tmpl := "$A ${B} $C ${A:-x} $ $1 ${A \\$A $$A ${ ${}x $TMPDIR_X\nlast $B"
	for _, argv := range [][]string{{"envsubst"}, {"envsubst", "$B"}, {"envsubst", "-v", "x $A ${B} $A"}, {"envsubst", "${A} and $C"}} {
		cases = append(cases, gnuCase{tmpl, argv})
	}
	// The host's envsubst sees gnu()'s environment; give the sandbox's the same.
	for _, c := range cases {
		t.Run(strings.Join(c.argv, " "), func(t *testing.T) {
			want := fixture(t)
			wantOut, wantRC, ok := gnu(t, want.dir, c.stdin, c.argv...)
			if !ok {
				t.Skip("no " + c.argv[0])
			}
			te := fixture(t)
			te.Environ = func() []string { return []string{"LC_ALL=C", "TZ=UTC", "PATH=/usr/bin:/bin"} }
			got, errOut, rc := te.run(t, c.stdin, c.argv...)
			if got != wantOut || rc != wantRC {
				t.Errorf("got (rc %d):\n%q\nwant (rc %d):\n%q\nstderr: %s", rc, got, wantRC, wantOut, errOut)
			}
		})
	}
	te := fixture(t)
	te.Environ = func() []string { return []string{"A=1", "B=two"} }
	if out, _, _ := te.run(t, "$A-${B}-$C\n", "envsubst"); out != "1-two-\n" {
		t.Errorf("envsubst = %q", out)
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		size int64 // of a.txt (35 bytes) afterwards; -1: must not exist
		file string
		rc   int
	}{
		{[]string{"truncate", "-s", "0", "a.txt"}, 0, "a.txt", 0},
		{[]string{"truncate", "-s", "5", "a.txt"}, 5, "a.txt", 0},
		{[]string{"truncate", "-s", "+3", "a.txt"}, 38, "a.txt", 0},
		{[]string{"truncate", "-s", "-4", "a.txt"}, 31, "a.txt", 0},
		{[]string{"truncate", "-s", "1K", "a.txt"}, 1024, "a.txt", 0},
		{[]string{"truncate", "-s", "1KB", "a.txt"}, 1000, "a.txt", 0},
		{[]string{"truncate", "-s", "%8", "a.txt"}, 40, "a.txt", 0},
		{[]string{"truncate", "-s", "/8", "a.txt"}, 32, "a.txt", 0},
		{[]string{"truncate", "-s", "<10", "a.txt"}, 10, "a.txt", 0},
		{[]string{"truncate", "-s", ">10", "a.txt"}, 35, "a.txt", 0},
		{[]string{"truncate", "-s", "7", "new.txt"}, 7, "new.txt", 0},
		{[]string{"truncate", "-c", "-s", "7", "new.txt"}, -1, "new.txt", 0},
		{[]string{"truncate", "-s", "x", "a.txt"}, 35, "a.txt", 1},
		{[]string{"truncate", "a.txt"}, 35, "a.txt", 1},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			te := fixture(t)
			_, errOut, rc := te.run(t, "", tc.argv...)
			fi, err := os.Stat(filepath.Join(te.dir, tc.file))
			switch {
			case rc != tc.rc:
				t.Errorf("rc %d (%s), want %d", rc, errOut, tc.rc)
			case tc.size < 0 && err == nil:
				t.Errorf("%s was created", tc.file)
			case tc.size >= 0 && (err != nil || fi.Size() != tc.size):
				t.Errorf("size %v (%v), want %d", fi, err, tc.size)
			}
		})
	}
}

func TestJoinMatchesGNU(t *testing.T) {
	j1 := "a 1\nb 2\nb 3\nd 4\n"
	var cases []gnuCase
	for _, argv := range [][]string{
		{"join", "-", "j2"}, {"join", "-a1", "-", "j2"}, {"join", "-v2", "-", "j2"}, {"join", "-v1", "-", "j2"}, {"join", "-o", "1.2,2.2,0", "-", "j2"},
		{"join", "-a2", "-e", "NA", "-o", "0,1.2,2.2", "-", "j2"}, {"join", "-o", "auto", "-a1", "-e", "X", "-", "j2"},
		{"join", "-a1", "-a2", "-", "j2"}, {"join", "-1", "2", "-2", "1", "-", "j2"}, {"join", "-j", "1", "-", "j2"}, {"join", "-i", "-", "j2"},
		{"join", "-t,", "c1", "c2"}, {"join", "--header", "-", "j2"}, {"join", "-", "j2", "--nocheck-order"}, {"join", "-", "unsorted"},
		{"join", "--check-order", "-", "unsorted"}, {"join", "-", "missing"}, {"join", "-o", "1.9", "-", "j2"}, {"join", "-1", "0", "-", "j2"},
		// -e fills empty fields as well as missing ones, the join field included.
		{"join", "-t,", "-e", "X", "c1", "c2"}, {"join", "-t,", "-e", "X", "-o", "auto", "c1", "c2"}, {"join", "-t,", "-e", "X", "-a1", "-j", "3", "c1", "c2"},
	} {
		cases = append(cases, gnuCase{j1, argv})
	}
	for _, c := range cases {
		t.Run(strings.Join(c.argv, " "), func(t *testing.T) {
			want := fixture(t)
			te := fixture(t)
			for _, dir := range []string{want.dir, te.dir} {
				for name, body := range map[string]string{"j2": "b x\nb y\nc z\nd w\n", "c1": "k,1,,x\nm,2\n", "c2": "k,2\nm,\n", "unsorted": "d q\nb x\nc z\n"} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			wantOut, wantRC, ok := gnu(t, want.dir, c.stdin, c.argv...)
			if !ok {
				t.Skip("no join")
			}
			got, errOut, rc := te.run(t, c.stdin, c.argv...)
			if got != wantOut || rc != wantRC {
				t.Errorf("got (rc %d):\n%q\nwant (rc %d):\n%q\nstderr: %s", rc, got, wantRC, wantOut, errOut)
			}
		})
	}
}

func TestNumfmtMatchesGNU(t *testing.T) {
	var cases []gnuCase
	for _, argv := range [][]string{
		{"numfmt", "--to=iec", "0", "1", "999", "1000", "1023", "1024", "1025", "1536", "2048", "10239", "10240", "10241", "102400", "1048575", "1048576", "1073741824", "1.5", "2.5", "1500.7", "123456789"},
		{"numfmt", "--to=si", "999", "1000", "1023", "1536", "10240", "1048575", "123456789", "999999"},
		{"numfmt", "--to=iec-i", "--suffix=B", "0", "1023", "1024", "1536", "10241"},
		{"numfmt", "--from=iec", "1K", "1.5M", "2G", "1.5", "7"}, {"numfmt", "--from=si", "1K", "1.5M", "1.5555K"}, {"numfmt", "--from=auto", "1Ki", "1K"},
		{"numfmt", "--to=iec", "--round=down", "1536", "1025"}, {"numfmt", "--to=iec", "--round=nearest", "1075", "1076"},
		{"numfmt", "--to=iec", "--round=up", "1025"}, {"numfmt", "--to=iec", "--round=towards-zero", "1025"},
		{"numfmt", "--to=iec", "1e3"}, {"numfmt", "--from=iec", "1k"}, {"numfmt", "--to=iec", "x"}, {"numfmt", "--from=iec", "--to=si", "1M"},
		{"numfmt", "--to=iec", "--", "-2048"}, {"numfmt", "--to=iec"}, {"numfmt", "--to=bogus", "1"},
	} {
		cases = append(cases, gnuCase{"1024 x\n  2048\tb c\n5\n1024\t\tx  y\n\t1024\n1024 \n  1048576000000 x\n", argv})
	}
	compareGNU(t, cases)
}
