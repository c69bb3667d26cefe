package printf

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/bashtest"
	"github.com/mcp-bash/mcp-bash/interp/internal/shquote"
)

// odHex renders b as `od -An -v -tx1` does.
func odHex(b []byte) string {
	var sb strings.Builder
	for i := 0; i < len(b); i += 16 {
		for _, c := range b[i:min(i+16, len(b))] {
			fmt.Fprintf(&sb, " %02x", c)
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

type pcase struct {
	format string
	args   []string
}

func c(format string, args ...string) pcase { return pcase{format, args} }

// Long mantissas (shortMantissa keeps 1000 significant digits and a sticky one): a power of
// ten, a long fraction, a tail far below half an ulp, and 1 + 2^-64 (exactly halfway between
// two long doubles) with and without a non-zero digit far past the kept ones.
var (
	halfway   = "1.0000000000000000000542101086242752217003726400434970855712890625"
	longZeros = strings.Repeat("0", 1500)
)

var cases = []pcase{
	c("%.20e|%a\n", "1"+longZeros, "1"+longZeros),
	c("%.20e|%a\n", "0."+longZeros+"123456789", "0."+longZeros+"123456789"),
	c("%a|%a|%a\n", "1."+longZeros+"1", halfway+longZeros, halfway+longZeros+"1"),
	c("%a|%.3e|%f\n", "0x1."+longZeros+"1p0", strings.Repeat("7", 3000)+".5e-2990", "-"+strings.Repeat("1", 1200)+"e-1195"),
	c("%d|%i|%u|%o|%x|%X\n", "42", "-42", "-1", "8", "255", "255"),
	c("%d\n", "abc", "12abc", "", " 12", "12 ", "0x1f", "010", "'A", "\"é", "9223372036854775808",
		"-9223372036854775809", "3.5", "+5", "-", "'", "08", "0x", "0xg", "0x10g", "1e3", "'ab", "\"", " ", "-0", "  +7",
		"\t9", "\v9", "0X1F", "0x1F", "-0x10", "  -0x10", "+010", "'é", "'€", "'\xff", "'\xc3"),
	c("%u %x %o\n", "-1", "-1", "-1"),
	c("%u %x\n", "18446744073709551616", "-18446744073709551616", "-1x", "18446744073709551615", "-9223372036854775808"),
	c("%s|%5s|%-5s|%.2s|%*s|%-*s|%.*s|%5.2s|%.0s|\n", "abc", "ab", "ab", "abcdef", "4", "x", "4", "y", "2", "abcdef", "abc", "abc"),
	c("%c|%c|%c|%5c|%-3c|%.1c|%lc\n", "abc", "", "é", "a", "b", "c", "é"),
	c("%q|%q|%q|%q|%q|%q\n", "", "a b", "\t", "é", "a'b", "\x01\xff a\n"),
	c("%Q|%.2Q|%5Q|%10q|%-8q|%.2q|\n", "a b", "a b c", "x", "a b", "x", "abc"),
	c("%n%s|", "x", "y"), c("abc%n|%s\n", "v", "w"), c("abc%n|\n", "1x"), c("%n|\n", ""),
	c("%z\n", "x"), c("%ld %lld %hd %hhd %jd %zd %td %Ld %qd\n", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
	c("%5%|\n"), c("%"), c("abc%"), c("%5"), c("%-"), c("%.3"), c("%s %s\n", "a", "b", "c"), c("%s %d|\n", "a"),
	c("x\n", "a", "b"), c("%%\n", "a", "b"), c("\\c%s\n", "a"), c("%b|\n", "a\\cb", "c"),
	c("%b\n", "\\0101 \\101 \\x41 \\u00e9 \\e[0m \\q \\\\ \\c"),
	c("\\101 \\0101 \\x41 \\x4142 \\u00e9 \\U0001F600 \\q \\% x"),
	c("\\\"\\'\\?\\a\\b\\e\\E\\f\\r\\v\\t\\\\|\\n"), c("\\x|\\xg|\\u|\\u12|\\U|\\777|\\400\\n"),
	c("%b", "\\x|\\u|\\0|\\00|\\08|\\1|\\0777|\\c"), c("%b", "\\E\\e\\a\\\"\\?\\x27\\t\\'|\\U|\\u0000|"),
	c("\\ud800|\\U110000|\\U7fffffff|\\U0|\\u41\n"), c("%5b|%.2b|%-6b|\n", "a\\tb", "abc", "\\n"),
	c("%e %E %f %F %g %G %a %A\n", "1.5", "1.5", "1.5", "1.5", "1.5", "1.5", "1", "1"),
	c("%.20f %.3e %g %g %g %#g %g\n", "0.1", "12345", "0.0001", "0.00001", "123456789", "1", "100000"),
	c("%f %f %f %e %F %E\n", "inf", "-inf", "nan", "1e4000", "infinity", "-NaN"),
	c("%f\n", "1e-4940", "0x1p3", "abc", "1.5x", "1e", ".5", " 1.5", "0x1.8p1", "1e4933", "nan(123)", "nan(", "0x", "0x.8", "1e+", "-.e1", "'a"),
	c("%5d|%-5d|%05d|%+d|% d|%.3d|%5.3d|%#o|%#x|%#X|%'d|%+ d|%-05d|%.0d|%#.0o|%#x\n", "1", "1", "1", "1", "1", "1", "1", "8", "255", "255", "1234567", "5", "5", "0", "0", "0"),
	c("%08.3f|%-08d|%+05d|% 05d|%+ d|%#.0f|%#.3g|%#x|%#o|%#.0e\n", "3.14159", "5", "5", "5", "5", "3", "1", "0", "0", "2"),
	c("%x %o %X\n", "-255", "-8", "0x7fffffffffffffff"),
	c("%e %g %g %g %a %.0e\n", "0", "0", "-0", "1e-300", "-0", "0"),
	c("%.3a %a %a %A %a %.0a %.1a %.0a %#a %.20a\n", "1", "3", "0.1", "255", "0", "255", "1.96875", "1.5", "1", "0.1"),
	c("%010.2f|%-10.2e|%+.1f|% .0f|%010f|%-010f|%010a|%+a\n", "-3.14159", "2.5", "2.5", "2.5", "inf", "-inf", "1", "1"),
	c("%.0f %.0f %.0f %.0f %.1f %.2f %.1e\n", "0.5", "1.5", "2.5", "-0.5", "0.25", "1.005", "2.25"),
	c("%g %g %g %.0g %#.0g %g %G %g %g %#g %.3g\n", "0.0001234", "123456", "1234567", "5", "5", "1e100", "1e-10", "100", "0.5", "0.5", "99950"),
	c("%.30g|%.25e|%.40f\n", "0.1", "1e300", "1e-5"),
	c("%1$s\n", "a"), c("%ls %hs|%Lf\n", "a", "b", "1.5"), c("%hhx %hx %lc\n", "300", "70000", "é"),
	c("%*d|%*d|%.*d|%.*f|%*.*f|\n", "-5", "1", "abc", "2", "-1", "5", "-2", "1.5", "8", "2", "3.14159"),
	c("%(%Y-%m-%d %H:%M:%S)T|%(%s)T|%()T|%5.3(%H%M)T|%(%s)T|\n", "0", "86400", "0", "0", ""),
	c("%(%s)T|\n", "abc"), c("%(%s)x|\n", "1"), c("%(%s|\n", "1"), c("%5(%s)|\n", "1"),
	c("%s\n"), c(""), c("%d %s %f %c|\n"), c("%s", "a", "b", "c"), c("%s-%s\n", "a", "b", "c"),
	c("-%s-\n", "--"), c("%-s|%0s|%#s|%+s|% s\n", "a", "b", "c", "d", "e"),
	c("%05s|%-05s|%.3s\n", "ab", "ab", "é€"), c("%i\n", "1_000"), c("%d %d\n", "1", "2", "3"),
	c("\\0\\00\\000\\0000|\n"), c("a\\"), c("%s\\", "x"), c("%#s %#c %+c\n", "a", "b", "c"),
	c("%.1000000000000d\n", "1"),
}

func bashSnippet(p pcase) string {
	var sb strings.Builder
	sb.WriteString("export TZ=UTC; printf -- ")
	sb.WriteString(shquote.Printf(p.format))
	for _, a := range p.args {
		sb.WriteByte(' ')
		sb.WriteString(shquote.Printf(a))
	}
	sb.WriteString(` 2>"$E"; r=$?; echo; echo "rc=$r"; while IFS= read -r l; do echo "$l"; done <"$E"`)
	return sb.String()
}

func run(p pcase) string {
	vars := map[string]int64{}
	out, diags, status := Format(p.format, p.args, Options{Loc: time.UTC, Now: func() time.Time { return time.Unix(5, 0) },
		SetVar: func(n string, v int64) error { vars[n] = v; return nil }, MaxOutput: 1 << 20})
	var sb strings.Builder
	sb.Write(out)
	fmt.Fprintf(&sb, "\nrc=%d\n", status)
	for _, d := range diags {
		if d.Kind == DiagLimit {
			return "LIMIT"
		}
		sb.WriteString("printf: " + d.Text + "\n")
	}
	return sb.String() + "rc=0\n"
}

func compare(t *testing.T, list []pcase) int {
	snips := make([]string, len(list))
	for i, p := range list {
		snips[i] = bashSnippet(p)
	}
	got := bashtest.Batch(t, "E="+shquote.Printf(t.TempDir()+"/err"), snips)
	bad := 0
	for i, p := range list {
		have := run(p)
		if have == "LIMIT" {
			continue
		}
		if got[i] != have {
			bad++
			if bad <= 25 {
				t.Errorf("printf %q %q:\nbash:\n%s\nours:\n%s", p.format, p.args, got[i], have)
			}
		}
	}
	return bad
}

func TestDifferential(t *testing.T) {
	bashtest.Require(t)
	compare(t, cases)
	t.Logf("%d differential cases", len(cases))
}

func TestDifferentialRandom(t *testing.T) {
	bashtest.Require(t)
	r := rand.New(rand.NewSource(5))
	n := 600
	if s := os.Getenv("PRINTF_RANDOM"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		n = 200
	}
	flags := []string{"", "", "-", "+", " ", "#", "0", "-0", "+0", "# ", "0#", "+-"}
	widths := []string{"", "", "1", "5", "12", "*"}
	precs := []string{"", "", ".", ".0", ".1", ".3", ".10", ".*"}
	convs := "diouxXeEfFgGaAcsbqQ"
	nums := []string{"0", "1", "-1", "7", "255", "-255", "3.14159", "2.5", "0.000123456", "123456789.5",
		"1e10", "-0", "1e-5", "9.9999", "0.5", "99.95", "0x1f", "010", "'A", "1e300", "5e-324", "0.1", "1.7976931348623157e308",
		"18446744073709551615", "-9223372036854775808", "abc", "", "3x", "1e1000"}
	list := make([]pcase, n)
	for k := range list {
		var f strings.Builder
		var args []string
		for j := 0; j < 1+r.Intn(3); j++ {
			f.WriteString("%" + flags[r.Intn(len(flags))])
			w := widths[r.Intn(len(widths))]
			if w == "*" {
				args = append(args, strconv.Itoa(r.Intn(30)-10))
			}
			p := precs[r.Intn(len(precs))]
			if p == ".*" {
				args = append(args, strconv.Itoa(r.Intn(25)-3))
			}
			f.WriteString(w + p)
			f.WriteByte(convs[r.Intn(len(convs))])
			f.WriteByte('|')
			args = append(args, nums[r.Intn(len(nums))])
		}
		list[k] = pcase{f.String(), args}
	}
	bad := compare(t, list)
	t.Logf("%d random differential cases, %d differ", n, bad)
}

func TestEcho(t *testing.T) {
	bashtest.Require(t)
	lists := [][]string{
		{"a", "b"}, {"-n", "a"}, {"-e", "a\\tb"}, {"-E", "a\\tb"}, {"-ne", "x\\n"}, {"-en", "z"}, {"-nE", "\\n"},
		{"-e", "-n"}, {"-x"}, {"--"}, {"-"}, {"-n-"}, {"-n", "-e", "a\\c", "b"}, {"a", "-n"}, {"-e", "\\101|\\0101|\\x41|\\u00e9|\\c|b"},
		{"-e", "\\q\\\\|\\e|\\x|\\u|\\08|\\'|\\\"|\\?|\\a\\b\\f\\r\\v"}, {"-e", "\\0777|\\01|\\x4g|\\U1F600"}, {},
		{"-e"}, {"-n"}, {"-neE", "\\t"}, {"-eE", "\\t"}, {"-Ee", "\\t"}, {"-nn", "x"}, {"-e", "a\\", "b"}, {"", "x"},
	}
	snips := make([]string, len(lists))
	for i, l := range lists {
		var sb strings.Builder
		sb.WriteString("echo")
		for _, a := range l {
			sb.WriteString(" " + shquote.Printf(a))
		}
		sb.WriteString(" | od -An -v -tx1")
		snips[i] = sb.String()
	}
	got := bashtest.Batch(t, "", snips)
	for i, l := range lists {
		if have := odHex(Echo(l)) + "rc=0\n"; have != got[i] {
			t.Errorf("echo %q:\nbash:\n%s\nours:\n%s", l, got[i], have)
		}
	}
}

func TestTimeHooks(t *testing.T) {
	start := time.Unix(1000, 0)
	out, _, _ := Format("%(%s)T %(%s)T %(%s)T", []string{"-1", "-2"}, Options{Now: func() time.Time { return time.Unix(77, 0) }, Start: start})
	if string(out) != "77 1000 77" {
		t.Errorf("got %q", out)
	}
}

func TestLimit(t *testing.T) {
	_, diags, status := Format("%*d", []string{"100000", "1"}, Options{MaxOutput: 1000})
	if status != 1 || len(diags) != 1 || diags[0].Kind != DiagLimit {
		t.Errorf("got %v %d", diags, status)
	}
	_, diags, _ = Format("%s%s%s%s", []string{strings.Repeat("x", 600), "y", strings.Repeat("z", 600)}, Options{MaxOutput: 1000})
	if len(diags) != 1 || diags[0].Kind != DiagLimit {
		t.Errorf("got %v", diags)
	}
}

func TestStrftime(t *testing.T) {
	bashtest.Require(t)
	formats := []string{"%10Y", "%_5m", "%-d", "%05e", "%^a", "%#a", "%#p", "%#Z", "%^B", "%10A", "%-10A", "%010A", "%:z",
		"%q", "%+", "%Ec", "%Oy", "%3d", "%-3d", "%_3d", "%1d", "%P", "%#P", "%^p", "%5n", "%5%", "%k", "%l", "%G-%V %g",
		"%C", "%10s", "%x %X %c", "%D %r %R %T %F", "%h %j %U %W %u %w", "%e", "%z %Z", "%I %p", "%-j %_j %-m %_H",
		"%a %A %b %B", "%^c", "%_10c", "%%%t%n", "%", "%5", "%-H%M", "%S"}
	times := []int64{0, 1700000000, 1690000000, 951782400, 1230768000, -86400 * 400}
	zones := []string{"UTC", "America/New_York", "Asia/Kolkata"}
	var snips, want []string
	for _, z := range zones {
		loc, err := time.LoadLocation(z)
		if err != nil {
			t.Skipf("no zoneinfo: %v", err)
		}
		for _, f := range formats {
			for _, tm := range times {
				snips = append(snips, fmt.Sprintf("export TZ=%s; printf %s %d", z, shquote.Printf("%("+f+")T"), tm))
				want = append(want, Strftime(time.Unix(tm, 0).In(loc), f)+"rc=0\n")
			}
		}
	}
	got := bashtest.Batch(t, "", snips)
	bad := 0
	for i := range snips {
		if got[i] != want[i] {
			bad++
			if bad < 20 {
				t.Errorf("%s:\nbash: %q\nours: %q", snips[i], got[i], want[i])
			}
		}
	}
	t.Logf("%d strftime cases", len(snips))
}

func FuzzFormat(f *testing.F) {
	for _, p := range cases {
		f.Add(p.format, strings.Join(p.args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, format, args string) {
		out, _, status := Format(format, strings.Split(args, "\x00"), Options{MaxOutput: 1 << 16})
		if len(out) > 1<<16 || status < 0 || status > 1 {
			t.Fatalf("out %d status %d", len(out), status)
		}
	})
}

func FuzzEcho(f *testing.F) {
	f.Add("-e", "a\\tb\\c")
	f.Add("-n", "\\x41\\0101\\u00e9")
	f.Fuzz(func(t *testing.T, a, b string) { Echo([]string{a, b}) })
}

// Bash formats %(fmt)T into a 128-byte buffer: a longer result prints nothing.
func TestStrftimeBuffer(t *testing.T) {
	bashtest.Require(t)
	var snips, want []string
	for _, n := range []int{125, 126, 127, 128, 200} {
		f := "%Y" + strings.Repeat("x", n-4) // %Y gives four bytes for t=0 in UTC
		spec := "[%(" + f + ")T]"
		out, _, _ := Format(spec, []string{"0"}, Options{})
		snips = append(snips, "export TZ=UTC; printf "+shquote.Printf(spec)+" 0")
		want = append(want, string(out)+"rc=0\n")
	}
	got := bashtest.Batch(t, "", snips)
	for i := range snips {
		if got[i] != want[i] {
			t.Errorf("%s:\nbash: %q\nours: %q", snips[i], got[i], want[i])
		}
	}
}
