package builtins

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDate(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		tz   string
		argv []string
		want string
		rc   int
	}{
		{argv: []string{"date"}, want: "Mon Nov 23 07:08:09 UTC 2026\n"},
		{argv: []string{"date", "+%Y-%m-%dT%H:%M:%S"}, want: "2026-11-23T07:08:09\n"},
		{argv: []string{"date", "-u", "-d", "@0", "+%s %F"}, want: "0 1970-01-01\n"},
		{argv: []string{"date", "-d", "@1700000000.5", "+%s.%3N"}, want: "1700000000.500\n"},
		// GNU pads %N past nine digits on the right (the sandbox printed nine digits).
		{argv: []string{"date", "-d", "@1.123456789", "+[%12N][%_12N][%-12N][%012N][%10N][%-3N][%_N]"}, want: "[123456789000][123456789   ][123456789][123456789000][1234567890][123][123456789]\n"},
		{argv: []string{"date", "-Iseconds"}, want: "2026-11-23T07:08:09+00:00\n"},
		{argv: []string{"date", "-I"}, want: "2026-11-23\n"},
		{argv: []string{"date", "-Ins"}, want: "2026-11-23T07:08:09,000000000+00:00\n"},
		{argv: []string{"date", "--iso-8601=minutes"}, want: "2026-11-23T07:08+00:00\n"},
		{argv: []string{"date", "-R"}, want: "Mon, 23 Nov 2026 07:08:09 +0000\n"},
		{argv: []string{"date", "--rfc-3339=seconds"}, want: "2026-11-23 07:08:09+00:00\n"},
		{argv: []string{"date", "-d", "2024-02-29", "+%j %a %A %b %B %u %w %V %U %W %q"}, want: "060 Thu Thursday Feb February 4 4 09 08 09 1\n"},
		{argv: []string{"date", "-d", "2024-01-05T13:04:05Z", "+%I %l %p %P %k %e %-d %_m %y %C %G %g %D %T %R %r"}, want: "01  1 PM pm 13  5 5  1 24 20 2024 24 01/05/24 13:04:05 13:04 01:04:05 PM\n"},
		{argv: []string{"date", "-d", "2024-01-05 10:00:00 +0200", "+%H:%M %z"}, want: "08:00 +0000\n"},
		{argv: []string{"date", "-d", "yesterday", "+%F"}, want: "2026-11-22\n"},
		{argv: []string{"date", "-d", "2 days ago", "+%F"}, want: "2026-11-21\n"},
		{argv: []string{"date", "-d", "2024-01-31 +1 month", "+%F"}, want: "2024-03-02\n"},
		{argv: []string{"date", "-d", "next week", "+%F"}, want: "2026-11-30\n"},
		// Days of the week, on a Monday (GNU's rules: the day's midnight; this or bare is today
		// or the next one, next after today, last before it, an ordinal that many on).
		{argv: []string{"date", "-d", "monday", "+%F %T"}, want: "2026-11-23 00:00:00\n"},
		{argv: []string{"date", "-d", "next monday", "+%F %T"}, want: "2026-11-30 00:00:00\n"},
		{argv: []string{"date", "-d", "last Mon", "+%F"}, want: "2026-11-16\n"},
		{argv: []string{"date", "-d", "this monday", "+%F"}, want: "2026-11-23\n"},
		{argv: []string{"date", "-d", "friday", "+%F"}, want: "2026-11-27\n"},
		{argv: []string{"date", "-d", "next fri", "+%F"}, want: "2026-11-27\n"},
		{argv: []string{"date", "-d", "last friday,", "+%F"}, want: "2026-11-20\n"},
		{argv: []string{"date", "-d", "third sat", "+%F"}, want: "2026-12-12\n"},
		{argv: []string{"date", "-d", "tomorrow monday", "+%F %T"}, want: "2026-11-24 00:00:00\n"},
		{argv: []string{"date", "-d", "wed +1 week", "+%F"}, want: "2026-12-02\n"},
		{argv: []string{"date", "-d", "2024-01-05 monday", "+%F"}, want: "2024-01-05\n"},
		{argv: []string{"date", "-d", "monday friday"}, rc: 1},
		{argv: []string{"date", "+%%|%n|%t|%^a|%#Z|%:z|%10N"}, want: "%|\n|\t|MON|utc|+00:00|0000000000\n"},
		{argv: []string{"date", "+%010a|%_10Y|%-10Y|%10a|%^10a|%12Y|x%"}, want: "0000000Mon|      2026|2026|       Mon|       MON|000000002026|x%\n"},
		{tz: "Asia/Tokyo", argv: []string{"date", "+%H %Z %z"}, want: "16 JST +0900\n"},
		{tz: "Asia/Tokyo", argv: []string{"date", "-u", "+%H %Z"}, want: "07 UTC\n"},
		{tz: "America/New_York", argv: []string{"date", "-d", "2024-07-01 12:00", "-u", "+%H"}, want: "12\n"},
		{tz: "America/New_York", argv: []string{"date", "-d", "2024-07-01 12:00", "+%H %Z"}, want: "12 EDT\n"},
		{tz: "America/New_York", argv: []string{"date", "-d", "2024-07-01T12:00:00Z", "+%H %Z"}, want: "08 EDT\n"},
		{argv: []string{"date", "-d", "not a date"}, rc: 1},
		{argv: []string{"date", "-s", "2020-01-01"}, rc: 1},
		{argv: []string{"date", "-x"}, rc: 1},
		{argv: []string{"date", "-r", "a.txt", "+%F %T"}, want: "2026-11-23 06:08:09\n"},
	} {
		te.Getenv = func(k string) string {
			if k == "TZ" {
				return tc.tz
			}
			return ""
		}
		out, errOut, rc := te.run(t, "", tc.argv...)
		if out != tc.want || rc != tc.rc {
			t.Errorf("TZ=%s %q = %q rc %d (%s), want %q rc %d", tc.tz, tc.argv, out, rc, errOut, tc.want, tc.rc)
		}
	}
}

func TestDateMatchesGNU(t *testing.T) {
	var cases []gnuCase
	for _, argv := range [][]string{
		{"date", "-u", "-d", "@86399", "+%c|%x|%X|%D|%e|%j"}, {"date", "-u", "-d", "2024-12-30", "+%G-W%V-%u %U %W"},
		{"date", "-u", "-d", "2021-01-03", "+%G %V %U %W %a"}, {"date", "-u", "-d", "@1700000000", "-R"},
		{"date", "-u", "-d", "2024-03-10 14:30:00", "+%s"}, {"date", "-u", "-d", "2024-03-10T14:30:00Z", "-Iseconds"},
		{"date", "-u", "+%Y", "-d", "@0"},
	} {
		cases = append(cases, gnuCase{"", argv})
	}
	// A signed number after a time of day without a zone is the zone's offset.
	for _, d := range []string{"2024-01-02 10:00 +1 day", "2024-01-02 +1 day", "2024-01-02 10:00:00 -2 hours", "2024-01-02T10:00 +1 day",
		"2024-01-02 10:00 1 day", "2024-01-02 10:00 +0530 +1 day", "2024-01-02 10:00 UTC +1 day", "2024-01-02 10:00 + 1 day",
		"2024-01-02 10:00 next day", "2024-01-02 10:00 1 day ago", "2024-01-02 10:00 +10 days", "2024-01-02 10:00 +100 minutes",
		"2024-01-02 10:00Z +1 hour", "2024-12-31 23:59:59 +1 second", "2024-01-02 10:00 -3"} {
		argv := []string{"date", "-u", "-d", d, "+%F %T"}
		cases = append(cases, gnuCase{"", argv})
	}
	// Past the years GNU keeps in a C int, and relative items summed as GNU sums them (years,
	// months and days added to the date at once, then the seconds): invalid or out of range,
	// never a wrapped-around year.
	for _, d := range []string{"2024-01-02 +100000000000 days", "2024-01-02 +800000000 days", "2024-01-02 +2147483600 days",
		"2024-01-02 +2147483646 days", "2024-01-02 +2147482000 months", "2024-01-02 +2147483647 months",
		"2024-01-02 +2147481748 years", "2024-01-02 +2147483647 years", "2024-01-02 +1 year +2147481747 years",
		"2024-01-02 +1000000000 days +1200000000 days", "2024-01-02 +9223372036854775807 hours",
		"2024-01-02 +99999999999999999999 sec", "2024-01-02 +1000000000000000 sec", "2024-01-02 +100000000000000000 sec",
		"2024-01-31 +1 day +1 month", "2024-01-31 23:30 +1 hour +1 month", "2024-01-31 +1 month -1 day", "2024-02-29 +1 year",
		"@67767976233316799", "@67767976233316800", "@-67768040609740800", "@-67768040609740801", "@99999999999999999",
		"@9223372036854775807", "@99999999999999999999", "@1e30", "@nan", "@0x10", "@1.", "@.5", "@1,5", "@ 5", "@+5",
		"@-5.25", "@5 +1 day"} {
		cases = append(cases, gnuCase{"", []string{"date", "-u", "-d", d, "+%Y-%m-%d %T %s"}})
	}
	compareGNU(t, cases)
}

// TestDateRange: GNU's words for a date past its years.
func TestDateRange(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct{ d, want string }{
		{"@99999999999999999", "date: time '99999999999999999' is out of range"},
		{"2024-01-02 +100000000000000000 sec", "date: time '100000001704153600' is out of range"},
		{"2024-01-02 +100000000000 days", "date: invalid date '2024-01-02 +100000000000 days'"},
		{"@99999999999999999999", "date: invalid date '@99999999999999999999'"},
	} {
		_, errOut, rc := te.run(t, "", "date", "-u", "-d", tc.d)
		if rc != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("date -d %q: rc %d, stderr %q, want rc 1 and %q", tc.d, rc, errOut, tc.want)
		}
	}
}

func TestIdentityAndEnvironment(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		argv []string
		want string
		rc   int
	}{
		{[]string{"whoami"}, "mcp\n", 0}, {[]string{"hostname"}, "mcp-sandbox\n", 0}, {[]string{"hostname", "evil"}, "", 1},
		{[]string{"id"}, "uid=1000(mcp) gid=1000(mcp) groups=1000(mcp)\n", 0}, {[]string{"id", "-u"}, "1000\n", 0},
		{[]string{"id", "-un"}, "mcp\n", 0}, {[]string{"id", "-g"}, "1000\n", 0}, {[]string{"id", "-gn"}, "mcp\n", 0},
		{[]string{"id", "root"}, "", 1}, {[]string{"uname"}, "Linux\n", 0}, {[]string{"uname", "-s"}, "Linux\n", 0},
		{[]string{"uname", "-a"}, "Linux mcp-sandbox 6.0.0-mcp #1 SMP x86_64 GNU/Linux\n", 0},
		{[]string{"uname", "-nrm"}, "mcp-sandbox 6.0.0-mcp x86_64\n", 0}, {[]string{"uname", "-z"}, "", 1},
		{[]string{"printenv", "A"}, "1\n", 0}, {[]string{"printenv", "NOPE"}, "", 1}, {[]string{"printenv", "A", "B"}, "1\n2\n", 0},
		{[]string{"env"}, "A=1\nB=2\nTMPDIR=" + te.dir + "\n", 0}, {[]string{"env", "-i", "X=1"}, "X=1\n", 0},
		{[]string{"env", "-u", "A", "-u", "TMPDIR"}, "B=2\n", 0}, {[]string{"env", "C=3", "printenv", "C"}, "3\n", 0},
		{[]string{"env", "-i", "printenv", "A"}, "", 1}, {[]string{"env", "TZ=Asia/Tokyo", "date", "+%H"}, "16\n", 0},
		{[]string{"env", "echo", "hi"}, "hi\n", 0}, {[]string{"env", "nosuchcmd"}, "", 127},
		// echo -e as GNU echo: \xHH, \0NNN, \c stops, unknown escapes stay.
		{[]string{"echo", "-e", `x\x41y q\0101r`}, "xAy qAr\n", 0}, {[]string{"echo", "-e", `o\c never`}, "o", 0},
		{[]string{"echo", "-e", `k\x k\xg z\\w m\qn`}, "k\\x k\\xg z\\w m\\qn\n", 0},
		{[]string{"echo", "-e", `n\07 e\e.`}, "n\a e\x1b.\n", 0}, {[]string{"echo", "-E", `a\nb`}, "a\\nb\n", 0},
		{[]string{"env", "--", "C=3", "printenv", "C"}, "3\n", 0}, {[]string{"env", "-i", "--", "-"}, "", 127},
	} {
		out, errOut, rc := te.run(t, "", tc.argv...)
		if out != tc.want || rc != tc.rc {
			t.Errorf("%q = %q rc %d (%s), want %q rc %d", tc.argv, out, rc, errOut, tc.want, tc.rc)
		}
	}
}

// TestEnvExecEnviron checks that a command env runs through Exec (bash, a script) gets env's
// variables, not the shell's exported ones.
func TestEnvExecEnviron(t *testing.T) {
	te := fixture(t)
	var got []string
	te.Exec = func(ctx context.Context, argv []string, environ func() []string, stdin io.Reader, stdout, stderr io.Writer) int {
		got = environ()
		return 0
	}
	for _, tc := range []struct {
		argv []string
		want []string
	}{
		{[]string{"env", "X=1", "bash"}, []string{"A=1", "B=2", "TMPDIR=" + te.dir, "X=1"}},
		{[]string{"env", "-i", "bash"}, nil},
		{[]string{"env", "-i", "Y=2", "bash"}, []string{"Y=2"}},
		{[]string{"env", "-u", "A", "-uB", "bash"}, []string{"TMPDIR=" + te.dir}},
		{[]string{"env", "-u", "A", "--", "./s.sh"}, []string{"B=2", "TMPDIR=" + te.dir}},
	} {
		got = []string{"not run"}
		if _, errOut, rc := te.run(t, "", tc.argv...); rc != 0 || !slices.Equal(got, tc.want) {
			t.Errorf("%q: rc %d (%s), environ %q, want %q", tc.argv, rc, errOut, got, tc.want)
		}
	}
}

func TestXargs(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		stdin string
		argv  []string
		want  string
		rc    int
	}{
		{"a b\nc\n", []string{"xargs"}, "a b c\n", 0},
		{"a b\nc\n", []string{"xargs", "-n", "1"}, "a\nb\nc\n", 0},
		{"a b\nc d\n", []string{"xargs", "-n2", "echo", "x"}, "x a b\nx c d\n", 0},
		{"a b\nc\n", []string{"xargs", "-L", "1", "echo"}, "a b\nc\n", 0},
		{"one\ntwo\n", []string{"xargs", "-I", "{}", "echo", "<{}>"}, "<one>\n<two>\n", 0},
		{"  one\n", []string{"xargs", "-I{}", "echo", "[{}]"}, "[one]\n", 0},
		{"a\x00b c\x00", []string{"xargs", "-0", "-n1", "echo"}, "a\nb c\n", 0},
		{"a,b,c", []string{"xargs", "-d", ",", "echo"}, "a b c\n", 0},
		{"'a b' \"c d\" e\\ f\n", []string{"xargs", "-n1"}, "a b\nc d\ne f\n", 0},
		{"", []string{"xargs", "echo", "empty"}, "empty\n", 0},
		{"", []string{"xargs", "-r", "echo", "empty"}, "", 0},
		{"x\n", []string{"xargs", "false"}, "", 123},
		{"x\n", []string{"xargs", "nosuch"}, "", 127},
		{"csv.txt\nversion.txt\n", []string{"xargs", "head", "-n1"}, "==> csv.txt <==\nname,age,city\n\n==> version.txt <==\n1.10\n", 0},
		{"'unterminated\n", []string{"xargs"}, "", 1},
		{"a\n", []string{"xargs", "-p"}, "", 1},
		{"a b c\n", []string{"xargs", "-P", "4", "-n", "1"}, "a\nb\nc\n", 0},
		// The last of -n, -L and -I wins (GNU warns about the one it overrides).
		{"1\n2\n3\n", []string{"xargs", "-n1", "-I{}", "echo", "n={}"}, "n=1\nn=2\nn=3\n", 0},
		{"1\n2\n3\n4\n", []string{"xargs", "-I{}", "-n2", "echo", "n={}"}, "n={} 1 2\nn={} 3 4\n", 0},
		{"1\n2\n3\n4\n", []string{"xargs", "-I{}", "-L2", "echo", "n={}"}, "n={} 1 2\nn={} 3 4\n", 0},
	} {
		out, errOut, rc := te.run(t, tc.stdin, tc.argv...)
		if out != tc.want || rc != tc.rc {
			t.Errorf("%q <<< %q = %q rc %d (%s), want %q rc %d", tc.argv, tc.stdin, out, rc, errOut, tc.want, tc.rc)
		}
	}
	te.Exec = nil
	if _, errOut, rc := te.run(t, "a\n", "xargs", "echo"); rc == 0 || !strings.Contains(errOut, "not available") {
		t.Errorf("xargs without Exec: %d %q", rc, errOut)
	}
}

func TestTimeout(t *testing.T) {
	te := fixture(t)
	start := time.Now()
	_, _, rc := te.run(t, "", "timeout", "0.1", "sleep", "5")
	if rc != 124 || time.Since(start) > hung {
		t.Errorf("timeout 0.1 sleep 5: rc %d after %v", rc, time.Since(start))
	}
	if out, _, rc := te.run(t, "", "timeout", "5", "echo", "fast"); rc != 0 || out != "fast\n" {
		t.Errorf("timeout 5 echo: %d %q", rc, out)
	}
	if _, _, rc := te.run(t, "", "timeout", "1m", "false"); rc != 1 {
		t.Errorf("timeout keeps the command's status: %d", rc)
	}
	if _, _, rc := te.run(t, "", "timeout", "x", "true"); rc != 125 {
		t.Errorf("timeout with a bad duration: %d", rc)
	}
	// The call's own cancellation is not reported as a timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, rc := te.runCtx(ctx, t, "", "timeout", "10", "sleep", "5"); rc == 124 || rc == 0 {
		t.Errorf("cancelled timeout: %d", rc)
	}
}

// TestTimeoutSignal: -s names the signal the end of the time sends (the status with
// --preserve-status, -v's message); one GNU's timeout cannot send as the engine ends its
// command (KILL, which ends timeout too, and those that end nothing) is refused when the time
// runs out, never before.
func TestTimeoutSignal(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		argv    []string
		rc      int
		errOut  string // a part of stderr
		refused string // a part of the refused construct ("": none)
	}{
		{[]string{"timeout", "-s", "INT", "0.05", "sleep", "5"}, 124, "", ""},
		{[]string{"timeout", "--preserve-status", "-s", "USR1", "0.05", "sleep", "5"}, 138, "", ""},
		{[]string{"timeout", "--preserve-status", "--signal=sighup", "0.05", "sleep", "5"}, 129, "", ""},
		{[]string{"timeout", "-v", "-s", "2", "0.05", "sleep", "5"}, 124, "sending signal INT to command 'sleep'", ""},
		{[]string{"timeout", "-s", "BOGUS", "1", "true"}, 125, "'BOGUS': invalid signal", ""},
		{[]string{"timeout", "-s", "KILL", "5", "true"}, 0, "", ""},
		{[]string{"timeout", "-s", "KILL", "0.05", "sleep", "5"}, 1, "", "-s KILL"},
		{[]string{"timeout", "-s", "CONT", "0.05", "sleep", "5"}, 1, "", "-s CONT"},
		{[]string{"timeout", "-s", "0", "0.05", "sleep", "5"}, 1, "", "-s 0"},
		{[]string{"timeout", "-s", "STOP", "0.05", "sleep", "5"}, 1, "", "-s STOP"},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			var refused string
			te.Refuse = func(construct, fix string) { refused = construct }
			_, errOut, rc := te.run(t, "", tc.argv...)
			if rc != tc.rc || !strings.Contains(errOut, tc.errOut) {
				t.Errorf("rc %d, stderr %q; want %d and %q", rc, errOut, tc.rc, tc.errOut)
			}
			if tc.refused == "" && refused != "" || !strings.Contains(refused, tc.refused) {
				t.Errorf("refused %q, want %q", refused, tc.refused)
			}
		})
	}
}

func TestSeqAndExprMatchGNU(t *testing.T) {
	var cases []gnuCase
	for _, argv := range [][]string{
		{"seq", "5"}, {"seq", "2", "3", "11"}, {"seq", "-s", ",", "3"}, {"seq", "-w", "8", "10"}, {"seq", "5", "1"},
		{"seq", "5", "-1", "1"}, {"seq", "0.5", "0.25", "1.5"}, {"seq", "1", "0.5", "3"}, {"seq", "-f", "%03g", "3"},
		{"seq", "-w", "-3", "2"}, {"seq", "-s", "", "3"}, {"seq", "1", "0", "3"}, {"seq", "x"}, {"seq"}, {"seq", "-1", "1"},
		{"seq", "10", "-3", "1"}, {"seq", "-f", "n%.1f", "1", "0.5", "2"},
		// Formats GNU refuses (Go's fmt printed %!d(float64=1) for them) and ones it prints.
		{"seq", "-f", "%d", "1", "2"}, {"seq", "-f", "%s", "1"}, {"seq", "-f", "%g %g", "1"}, {"seq", "-f", "%x", "3"},
		{"seq", "-f", "x", "3"}, {"seq", "-f", "a%%b%g", "1"}, {"seq", "-f", "%e", "1"}, {"seq", "-f", "x%5.2fy", "1", "2"},
		{"seq", "-f", "%-5gX", "3"}, {"seq", "-f", "%+.3E", "2"}, {"seq", "-f", "%", "2"},
		{"expr", "1", "+", "2"}, {"expr", "7", "/", "2"}, {"expr", "7", "%", "3"}, {"expr", "2", "*", "3", "+", "1"},
		{"expr", "(", "1", "+", "2", ")", "*", "3"}, {"expr", "5", ">", "3"}, {"expr", "abc", "<", "abd"}, {"expr", "10", "<", "9"},
		{"expr", "length", "hello"}, {"expr", "substr", "hello", "2", "3"}, {"expr", "index", "hello", "lo"}, {"expr", "hello", ":", "hel"},
		{"expr", "hello", ":", `\(h.*\)o`}, {"expr", "abc", ":", "x"}, {"expr", "match", "abc", "a.c"}, {"expr", "0", "|", "5"},
		{"expr", "3", "&", "0"}, {"expr", "1", "/", "0"}, {"expr", "a", "+", "1"}, {"expr", "0"}, {"expr", ""}, {"expr", "1", "="},
		{"expr", "99999999999999999999", "+", "1"}, {"expr", "-5", "+", "3"}, {"expr", "a", "=", "a"},
		// Integers past exprMaxDigits are compared and tested as text, as GMP compares them.
		{"expr", longA, "<", longB}, {"expr", longB, "<", longA}, {"expr", longA, "=", "0" + longA}, {"expr", "-" + longA, "<", "5"},
		{"expr", "-" + longA, ">", "-" + longB}, {"expr", longZero, "|", "7"}, {"expr", "-" + longZero, "=", "0"},
		{"expr", longA, "<", "x"}, {"expr", "length", longA}, {"expr", longZero},
	} {
		cases = append(cases, gnuCase{"", argv})
	}
	compareGNU(t, cases)
}

func TestYesStopsOnWriteError(t *testing.T) {
	te := fixture(t)
	te.Stdout = &failingWriter{left: 3}
	f, _ := Lookup("yes")
	if rc := f(context.Background(), te.Env, []string{"yes", "hi"}); rc != 1 {
		t.Errorf("yes on a failing writer: %d", rc)
	}
}

type failingWriter struct{ left int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.left--; f.left < 0 {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

// TestUnsupportedOptions: anything outside the supported flags fails clearly.
func TestUnsupportedOptions(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		argv []string
		rc   int
	}{
		{[]string{"grep", "-X", "x"}, 2}, {[]string{"sort", "-R"}, 2}, {[]string{"sort", "--bogus"}, 2}, {[]string{"ls", "--bogus"}, 2},
		{[]string{"diff", "--bogus", "a", "b"}, 2}, {[]string{"sed", "--bogus", "p"}, 1}, {[]string{"head", "-Z"}, 1},
		{[]string{"tail", "-f", "a.txt"}, 1}, {[]string{"wc", "-X"}, 1}, {[]string{"cut", "-Q"}, 1}, {[]string{"tr", "-X", "a"}, 1},
		{[]string{"cp", "-Z", "a", "b"}, 1}, {[]string{"awk", "--bogus", "1"}, 2}, {[]string{"uniq", "-X"}, 1}, {[]string{"date", "-X"}, 1},
		{[]string{"xargs", "-X"}, 1}, {[]string{"env", "-X"}, 125}, {[]string{"timeout", "-X", "1", "true"}, 125}, {[]string{"mkdir", "-X", "d"}, 1},
		{[]string{"cat", "-X"}, 1}, {[]string{"gzip", "-X"}, 1}, {[]string{"base64", "-X"}, 1}, {[]string{"stat", "-X", "a.txt"}, 1},
		{[]string{"find", ".", "-X"}, 1}, {[]string{"file", "-X", "a.txt"}, 1}, {[]string{"seq", "-X", "1"}, 1},
		{[]string{"fold", "-X"}, 1}, {[]string{"column", "-t", "-X"}, 1},
	} {
		_, errOut, rc := te.run(t, "", tc.argv...)
		want := tc.argv[0] + ": unsupported option"
		if tc.argv[0] == "find" {
			want = "find: unknown predicate"
		}
		if rc != tc.rc || !strings.HasPrefix(errOut, want) {
			t.Errorf("%q: rc %d, stderr %q; want rc %d and %q", tc.argv, rc, errOut, tc.rc, want)
		}
	}
}

// TestFormatWidthsRefused (issue 27): a width Go's fmt cannot print (it writes %!(BADWIDTH) or
// %!(NOVERB) past 1,000,000) is refused with a message, never printed wrong.
func TestFormatWidthsRefused(t *testing.T) {
	te := fixture(t)
	for _, argv := range [][]string{
		{"seq", "-f", "%01000000000g", "1"},
		{"seq", "-f", "%.1000001f", "1"},
		{"seq", "-f", "%99999999999999999999g", "1"},
		{"nl", "-w", "1000000000", "a.txt"},
	} {
		out, errOut, rc := te.run(t, "", argv...)
		if rc != 1 || out != "" || !strings.Contains(errOut, "over 1000000") {
			t.Errorf("%q: rc %d, stdout %q, stderr %q; want a refusal", argv, rc, out, errOut)
		}
	}
}

// Integers longer than exprMaxDigits (TestSeqAndExprMatchGNU's expr cases, TestExprRefusesLongArithmetic).
var (
	longA    = "1" + strings.Repeat("0", exprMaxDigits)
	longB    = "2" + strings.Repeat("0", exprMaxDigits)
	longZero = strings.Repeat("0", exprMaxDigits+1)
)

// TestExprRefusesLongArithmetic: arithmetic on an integer past exprMaxDigits is refused in
// words (GMP's expr computes it; reading it took 17 s here for 3 million digits).
func TestExprRefusesLongArithmetic(t *testing.T) {
	te := fixture(t)
	var refused string
	te.Refuse = func(construct, fix string) { refused = construct + "; " + fix }
	f, _ := Lookup("expr")
	if rc := f(context.Background(), te.Env, []string{"expr", longA, "*", longA}); rc != 1 || !strings.Contains(refused, "more than 100000 digits") {
		t.Errorf("expr of a long product: rc %d, refused %q", rc, refused)
	}
}
