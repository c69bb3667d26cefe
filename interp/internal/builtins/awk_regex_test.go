package builtins

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benhoyt/goawk/interp"
	"github.com/benhoyt/goawk/lexer"
	"github.com/benhoyt/goawk/parser"
)

// plainGoAWK runs prog over stdin with GoAWK as it comes, without the sandbox's rewrite.
func plainGoAWK(t *testing.T, prog, stdin string, vars []string) (string, bool) {
	t.Helper()
	p, err := parser.ParseProgram([]byte(prog), nil)
	if err != nil {
		t.Fatalf("plain GoAWK cannot parse %s: %v", prog, err)
	}
	vars = slices.Clone(vars)
	for i := 1; i < len(vars); i += 2 {
		vars[i] = awkUnescape(vars[i]) // as -v does
	}
	var out bytes.Buffer
	_, err = interp.ExecProgram(p, &interp.Config{Stdin: strings.NewReader(stdin), Output: &out, Error: &out, Vars: vars,
		NoExec: true, NoFileWrites: true, NoFileReads: true, Environ: []string{}})
	return out.String(), err == nil
}

// TestAwkRegexLikeGoAWK: every regular expression operation routed to the stoppable matchers
// (awk_route.go, awk_regex.go) gives what GoAWK's own gives.
func TestAwkRegexLikeGoAWK(t *testing.T) {
	for _, all := range []bool{false, true} {
		t.Run(map[bool]string{false: "short-on-GoAWK", true: "all-routed"}[all], func(t *testing.T) {
			testAwkRegexLikeGoAWK(t, awkOptions{routeAll: all})
		})
	}
}

// runAwkOpts runs awk (argv) over stdin with the rewrite's options opt.
func (te *testEnv) runAwkOpts(t *testing.T, opt awkOptions, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	te.Stdin = strings.NewReader(stdin)
	te.out.Reset()
	te.errb.Reset()
	te.Stdout, te.Stderr = te.out, te.errb
	rc := awkCommand(context.Background(), te.Env, argv, opt)
	return te.out.String(), te.errb.String(), rc
}

func testAwkRegexLikeGoAWK(t *testing.T, opt awkOptions) {
	const in = "foo bar baz\naaa,bbb;;ccc\n  lead  trail  \n\nxyz 12 3.5\nhéllo wörld ünï\na&b\\c&d\n"
	for _, tc := range []struct {
		prog string
		vars []string
	}{
		{prog: `/a/ {print NR": "$0} !/o/ {print "no o", NR}`},
		{prog: `$1 ~ /^[a-z]+$/ {print $1} $2 !~ "[0-9]" {print "nd", $2}`},
		{prog: `{print ($0 ~ /a/), ($0 ~ "a" "b"), x = /z/, !/a/}`},
		{prog: `{n = match($0, /[a-z]+/); print n, RSTART, RLENGTH, substr($0, RSTART, RLENGTH)}`},
		{prog: `{print match($0, /QQQ/), RSTART, RLENGTH; print match($0, ""), RSTART, RLENGTH}`},
		{prog: `{print match($0, /ö|ü/), RSTART, RLENGTH}`},
		{prog: `{s = $0; n = gsub(/a/, "<&>", s); print n, s; m = sub(/o+/, "[\\&]", s); print m, s}`},
		{prog: `{n = gsub(//, "-"); print n, $0}`},
		{prog: `{n = gsub(/x*/, "-"); print n, $0, NF}`},
		{prog: `{n = gsub(/^ */, ">"); print n, $0; n = gsub(/ *$/, "<"); print n, $0}`},
		{prog: `{n = gsub(/\b/, "|"); print n, $0}`},
		{prog: `{n = gsub(/^a/, "A"); print n, $0}`},
		{prog: `{n = gsub(/[a-z]/, "\\\\&"); print n, $0}`},
		{prog: `{n = gsub(/&/, "and"); print n, $0}`},
		{prog: `{n = gsub(/\\/, "/"); print n, $0}`},
		{prog: `{n = gsub("\\.", "!"); print n, $0}`},
		{prog: `{n = gsub(/\//, "!"); print n, $0}`},
		{prog: `{n = gsub(/é|ö/, "E"); print n, $0, length($0)}`},
		{prog: `{n = gsub(/a/, "x", $2); print n, $0, NF, $2}`},
		{prog: `{i = 1; n = gsub(/[a-z]/, "#", $(i++)); print n, i, $0}`},
		{prog: `{n = gsub(/o/, "0", $(NF)); print n, $0}`},
		{prog: `{$5 = "new"; n = gsub(/n/, "N"); print n, NF, $0}`},
		{prog: `{n = gsub(/ +/, ","); print n, NF, $1; n = sub(/,/, " "); print n, NF, $1, $2}`},
		{prog: `{a[NR] = $0; k = NR; n = gsub(/[aeiou]/, "_", a[k]); print n, a[NR]}`},
		{prog: `{a[NR, 1] = $1; n = gsub(/[aeiou]/, "_", a[NR, 1]); print n, a[NR, 1]}`},
		{prog: `{a[NR] = $0; n = gsub(/[aeiou]/, "_", a[NR + 0]); print n, a[NR]}`},
		{prog: `{x = 5; n = sub(/z/, "", x); print n, (x == "5"), (x < 10)}`},
		{prog: `{n = sub(/a/, "A", y); print n, "[" y "]"}`},
		{prog: `{n = split($0, p, /[,;]+/); print n, p[1], p[n]; n = split($0, q, /;/); print n, q[2]}`},
		{prog: `{n = split($0, p, "[ ,;]"); printf "%d", n; for (i = 1; i <= n; i++) printf " [%s]", p[i]; print ""}`},
		{prog: `{n = split($0, p, /x*/); printf "%d", n; for (i = 1; i <= n; i++) printf " [%s]", p[i]; print ""}`},
		{prog: `{n = split($0, p, ""); print n, p[1]; n = split($0, p, "."); print n; n = split($0, p); print n, p[1]}`},
		{prog: `{n = split($0, p, /^./); print n, p[1], p[2]}`},
		{prog: `BEGIN {FS = ",|;+"} {print NF, $1, $NF; n = split($0, p); print n}`},
		{prog: `BEGIN {n = split("", p, /,/); print n; n = split("abc", p, /abc/); print n, "[" p[1] "]"}`},
		{prog: `{print ($0 ~ r), match($0, r), RSTART, RLENGTH; n = gsub(r, "<&>"); print n, $0}`, vars: []string{"r", "a|b"}},
		{prog: `{print ($0 ~ r)}`, vars: []string{"r", "\\."}},
		{prog: `{print $0 ~ 1, $0 ~ 1.5, $0 !~ 3}`},
		{prog: `function f(s) { return s ~ /o/ } {print f($1), f($2)}`},
		{prog: `{if ($1 ~ /a/ && $2 ~ /b/ || $0 ~ /z/) print "y"; else print "n"}`},
		{prog: `{x = $1 ~ /o/ ? "o" : "-"; print x, ($1 $2 ~ "ob"), (1 < 2 ~ 1)}`},
		{prog: `{if (NR > 1) x ~ /a/; print (length($0) ~ /^1/)}`},
		{prog: `{print (NR in seen) ~ 0; seen[NR]}`},
		{prog: `/a/, /x/ {print "range", NR}`},
		{prog: `{while (sub(/a/, "b")) n++; print n, $0}`},
		{prog: `{print gsub(/a/, "b") gsub(/b/, "c"), $0}`},
		{prog: `{s = $0; print gsub(/o/, "0", s) + match(s, /0+/) * 10, RSTART, RLENGTH, s}`},
		{prog: `{n = gsub(/o/, "&&"); if ($0 ~ /oo/) print n, $0}`},
		{prog: `{print match($0, /b+/) ? substr($0, RSTART) : "none"}`},
		{prog: `{NF = 2; n = gsub(/a/, "A"); print n, $0, NF; $0 = "p q r"; print NF, ($2 ~ /q/)}`},
		{prog: `function f(s) { gsub(/[ab]/, "#", s); return s } {print f($0), $0}`},
		{prog: `function g(a) { return gsub(/o/, "0", a[1]) } {t[1] = $0; print g(t), t[1]}`},
		{prog: `{n = gsub(/x/, "y", $(0)); print n, $0}`},
		{prog: `{print (match($0, /o/) ~ /^[0-9]+$/), (NR ~ (1 ? "1" : "2")), f(/a/)} function f(x) { return x + 1 }`},
		{prog: `{a[2] = "zaz"; n = gsub(/a/, "b", a[match($0, /o/) + 2]); print n, a[2], RSTART}`},
		{prog: `{printf "%d %d\n", /a/, !/a/; x += /o/; print x} /a/ && /b/ || NR == 1 {print "ab", NR}`},
		{prog: `{print ($0 ~ "\\."), ($0 ~ "a\/b"), ($0 ~ "\t"), ($0 ~ "[[:upper:]]"), ($0 ~ /[[:digit:]]+\.[0-9]/)}`},
		{prog: `{while ((getline line) > 0) if (line ~ /a/) n++; print n + 0}`},
		{prog: `{x[$1]; print ($1 in x) ~ 1}`},
		{prog: `{n = split($0, p, " "); m = split($0, q, /,/); print n, m, q[1]}`},
		{prog: `{s = $0; n = gsub(/[^a-z]+/, "", s); o = sub(/.*/, "[&]", s); print n, o, s}`},
		{prog: `{s = "aaa"; n = gsub(/a*/, "-", s); t = "baaac"; m = gsub(/a*/, "-", t); print n, s, m, t}`},
		{prog: `{s = "abc"; n = gsub(/$/, "!", s); m = gsub(/^/, "^", s); print n, m, s}`},
		{prog: `{s = "a.b.c"; n = gsub(".", "-", s); print n, s; t = "a.b"; m = split(t, p, "."); print m}`},
		{prog: `{r = "^[a-z]"; n = gsub(r, "&&"); print n, $0}`},
		{prog: `NR == 2 {FS = ";+"} NR == 4 {FS = "[ ,]"} {print NF, $1, $NF}`},
		{prog: `{print NF, $2; $0 = $0 " x,y"; print NF}`, vars: []string{"FS", ",|;+"}},
		// The separators and the record the program assigns (awk_sep.go).
		{prog: `{FS = " +|,"; print NF, $1}`},
		{prog: `BEGIN {FS = ",|;+"} {$0 = $0 ";" $0; print NF, $2; $0 = NR; print NF, ($0 < 9), $0 + 1}`},
		{prog: `BEGIN {FS = ",|;+"} {$(NF > 1 ? 0 : 1) = "x;y"; print NF, $0; $3 = "q"; print NF, $0}`},
		{prog: `BEGIN {FS = ",|;+"} {sub(/a/, "A"); print NF, $1; gsub(/;/, ",", $0); print NF, $0}`},
		{prog: `BEGIN {FS = ",|;+"} NR == 1 {while ((getline) > 0) print NF, $1; print "end", NR}`},
		{prog: `BEGIN {FS = ",|;+"} NR == 1 {getline $0; print NF, $1; getline x; print NF, x}`},
		{prog: `BEGIN {x = FS = ",|;"; y = RS = "\n"; print x, FS, y == RS} {print NF; FS = FS "|o"}`},
		{prog: `{if (NR == 3) FS = (NR > 2 ? " " : ","); print NF, $1}`},
		{prog: `BEGIN {RS = "[,;]+|\n"} {print NR ": " $0 "|" RT}`},
		{prog: `BEGIN {RS = "\n\n+|z"} {print NR ": " $0} END {print NR}`},
		{prog: `{print NR ": " $0; RS = "x"}`, vars: []string{"RS", "b+|\n"}},
		{prog: `BEGIN {RS = "l+"; FS = "o|\n"} {print NR, NF, $1}`},
	} {
		want, ok := plainGoAWK(t, tc.prog, in, tc.vars)
		if !ok {
			t.Errorf("plain GoAWK failed on %s: %s", tc.prog, want)
			continue
		}
		te := fixture(t)
		argv := []string{"awk"}
		for i := 0; i < len(tc.vars); i += 2 {
			argv = append(argv, "-v", tc.vars[i]+"="+tc.vars[i+1])
		}
		out, errOut, rc := te.runAwkOpts(t, opt, in, append(argv, tc.prog)...)
		if rc != 0 || out != want {
			t.Errorf("%s\nrewritten: %s\n got rc %d %q %s\nwant %q", tc.prog, rewriteAwkOpts(tc.prog, opt), rc, out, errOut, want)
		}
	}
}

// TestAwkRegexLongSubjects: past 1 MiB every operation is routed (a bare /re/ and x ~ e too):
// the same results, with the anchors and word boundaries of searches from inside the subject.
func TestAwkRegexLongSubjects(t *testing.T) {
	line := strings.Repeat("ab cd bb éa ", 100_000)
	for _, prog := range []string{
		`{n = gsub(/^a|b\b|\Bd/, "X"); print n, length($0), match($0, /é+a $/), RSTART, RLENGTH, ($0 ~ /zz/), /cd bb/}`,
		`{s = $0; n = gsub(/ /, "", s); m = split($0, p, / +|é/); print n, m, p[1], p[m - 1], length(s)}`,
		`BEGIN {FS = " b+ "} {print NF, $1, length($2)}`,
		`{n = split($0, p, /b+/); for (i = 1; i <= 3; i++) printf "[%s]", p[i]; print n}`,
	} {
		want, ok := plainGoAWK(t, prog, line+"\n", nil)
		if !ok {
			t.Fatalf("plain GoAWK failed on %s: %s", prog, want)
		}
		te := fixture(t)
		out, errOut, rc := te.run(t, line+"\n", "awk", prog)
		if rc != 0 || out != want {
			t.Errorf("%s\n got rc %d %q %s\nwant %q", prog, rc, out, errOut, want)
		}
	}
}

// TestAwkRegexErrors: an invalid dynamic expression is GoAWK's error; one that would compile for
// long is refused.
func TestAwkRegexErrors(t *testing.T) {
	te := fixture(t)
	for _, prog := range []string{`{print $0 ~ r}`, `{print match($0, r)}`, `{gsub(r, "x")}`, `{split($0, a, r)}`} {
		_, errOut, rc := te.run(t, "x\n", "awk", "-v", "r=a(", prog)
		if rc != 2 || !strings.Contains(errOut, "invalid regex") {
			t.Errorf("%s with r=a(: rc %d %q", prog, rc, errOut)
		}
		_, errOut, rc = te.run(t, "x\n", "awk", "-v", "r="+strings.Repeat("x{1,100}", 8000), prog)
		if rc != 2 || !strings.Contains(errOut, "too large") {
			t.Errorf("%s with a huge r: rc %d %q", prog, rc, errOut)
		}
	}
	// The separators are bounded wherever they are set: the command line, an operand, the
	// program; getline and for-in into them are refused (FS and RS are checked where = sets them).
	huge := strings.Repeat("x{1,100}", 8000)
	for _, argv := range [][]string{
		{"awk", "-F", huge, "{print}"},
		{"awk", "-v", "FS=" + huge, "{print}"},
		{"awk", "-v", "RS=" + huge, "{print}"},
		{"awk", "{print}", "RS=" + huge, "-"},
		{"awk", "{print}", "FS=" + huge, "-"},
		{"awk", "-v", "r=" + huge, "BEGIN {FS = r} {print $1}"},
		{"awk", "-v", "r=" + huge, "{RS = r}"},
		{"awk", "-v", "r=" + huge, "{s = \"x\"; gsub(/x/, r, s); FS = s}"},
		{"awk", "-v", "r=" + huge, "{FS = \"ab\"; gsub(/ab/, r, FS)}"},
	} {
		_, errOut, rc := te.run(t, "x\n", argv...)
		if rc != 2 || !strings.Contains(errOut, "too large") || !strings.Contains(errOut, "separator") {
			t.Errorf("%.60q: rc %d %.300q", argv, rc, errOut)
		}
	}
	for _, prog := range []string{`{getline FS; print}`, `{getline RS < "a.txt"}`, `{for (FS in a) n++}`} {
		_, errOut, rc := te.run(t, "x\n", "awk", prog)
		if rc != 2 || !strings.Contains(errOut, "not available in the sandbox") || !strings.Contains(errOut, "exec") {
			t.Errorf("%s: rc %d %q", prog, rc, errOut)
		}
	}
}

// TestAwkLongRecord: a record past GoAWK's 10 MiB is refused naming the bound and the fix, not
// with bufio's words alone (gawk reads it).
func TestAwkLongRecord(t *testing.T) {
	te := fixture(t)
	_, errOut, rc := te.run(t, strings.Repeat("a", 11<<20)+"\n", "awk", "{print length}")
	if rc != 2 || !strings.Contains(errOut, "longer than 10 MiB") || !strings.Contains(errOut, `"exec": "native"`) {
		t.Errorf("rc %d %q", rc, errOut)
	}
}

func TestAwkSplitChar(t *testing.T) {
	var all strings.Builder
	for c := 1; c < 128; c++ {
		all.WriteByte(byte(c))
	}
	for _, tc := range []struct {
		s, want string
		ok      bool
	}{
		{"abc", "\x01", true},
		{"\x01\x02", "\x03", true},
		{all.String(), "\ue000", true},
		{all.String() + "\ue000", "\ue001", true},
		{all.String() + "\xff", "", false},
	} {
		if got, ok := awkSplitChar(tc.s); got != tc.want || ok != tc.ok {
			t.Errorf("awkSplitChar(%q) = %q %v, want %q %v", tc.s, got, ok, tc.want, tc.ok)
		}
	}
	// The separator is in no part: a string with every ASCII character splits as GoAWK splits it.
	in := all.String()
	in = strings.ReplaceAll(in, "\n", "") + "\n"
	prog := `{n = split($0, p, /[0-9]+|Q/); print n, length(p[1]), length(p[2]), length(p[3])}`
	want, _ := plainGoAWK(t, prog, in, nil)
	te := fixture(t)
	if out, errOut, rc := te.run(t, in, "awk", prog); rc != 0 || out != want {
		t.Errorf("split with every ASCII character: rc %d %q %s, want %q", rc, out, errOut, want)
	}
}

// TestAwkRegexStopsWithTheCall: a quadratic search in every routed operation ends with the call.
func TestAwkRegexStopsWithTheCall(t *testing.T) {
	long := strings.Repeat("a", 200_000)
	for _, prog := range []string{
		`{n = gsub(/(a.*z)*a/, "b"); print n}`,
		`{n = gsub(/(a.*z)*a/, "b", $1); print n}`,
		`{a[NR] = $0; n = gsub(/(a.*z)*a/, "b", a[NR + 0]); print n}`,
		`{s = $0; n = gsub(/(a.*z)*a/, "b", s); print n}`,
		`{n = split($0, p, /(a.*z)*a/); print n}`,
		`BEGIN {FS = "(a.*z)*a"} {print NF}`,
		`-F(a.*z)*a {print $1}`,
		`-vFS=(a.*z)*a {print $1}`,
		// The record the program assigns, a FS set after the record was read, a getline, and
		// the input's records by a regular expression RS (awk_sep.go).
		`{s = $0; $0 = "x"; FS = "(a.*z)*a"; $0 = s; print NF}`,
		`{FS = "(a.*z)*a"; print NF}`,
		`BEGIN {FS = "(a.*z)*a"; getline; print NF}`,
		`{s = $0; $0 = "x"; FS = "(a.*z)*a"; sub(/x/, s); print NF}`,
		`BEGIN {RS = "(a.*z)*a"} END {print NR}`,
		`-vRS=(a.*z)*a END {print NR}`,
	} {
		te := fixture(t)
		// The deadline falls in the search (reading the input takes far less): GoAWK's own would
		// run for hours, so a run that ends at all was stopped.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		argv := []string{"awk", prog}
		if strings.HasPrefix(prog, "-") {
			opt, rest, _ := strings.Cut(prog, " ")
			argv = []string{"awk", opt, rest}
		}
		_, errOut, rc := te.runCtx(ctx, t, long+"\n", argv...)
		cancel()
		if rc != 130 {
			t.Errorf("%s ran to its end after the call ended (rc 0, %q)", prog, errOut)
		}
	}
}

// BenchmarkAwkRegex: the cost of routing, over a 10 MB file (docs/PERFORMANCE.md).
func BenchmarkAwkRegex(b *testing.B) {
	var in strings.Builder
	for i := 0; in.Len() < 10<<20; i++ {
		fmt.Fprintf(&in, "line %d foo%d bar,baz;qux %d alpha beta gamma\n", i, i%7, i*31)
	}
	te := fixture(&testing.T{})
	if err := os.WriteFile(filepath.Join(te.dir, "big.txt"), []byte(in.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, prog, fs string }{
		{"pattern", `/foo3/ {print $2}`, ""},
		{"field-match", `$3 ~ /o3$/ {n++} END {print n}`, ""},
		{"gsub", `{gsub(/a/, "b"); print}`, ""},
		{"split", `{n += split($0, p, /[ ,;]+/)} END {print n}`, ""},
		{"regex-FS", `{n += NF} END {print n}`, "[,;]"},
		// Plain programs, and the separators' and the record's checks (awk_sep.go).
		{"print-field", `{print $2}`, ""},
		{"pattern-print", `/foo3/ {print}`, ""},
		{"regex-RS", `BEGIN {RS = ";|\n"} {n++} END {print n}`, ""},
		{"FS-gsub", `BEGIN {FS = ","} {gsub(/a/, "b"); n += NF} END {print n}`, ""},
		{"FS-record", `BEGIN {FS = ",|;"} {$0 = $0 ";"; n += NF} END {print n}`, ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			argv := []string{"awk"}
			if bc.fs != "" {
				argv = append(argv, "-F", bc.fs)
			}
			argv = append(argv, bc.prog, "big.txt")
			b.SetBytes(int64(in.Len()))
			for b.Loop() {
				te.Stdout = io.Discard
				f, _ := Lookup("awk")
				if rc := f(context.Background(), te.Env, argv); rc != 0 {
					b.Fatalf("rc %d %s", rc, te.errb)
				}
			}
		})
	}
}

// FuzzAwkRegexLikeGoAWK: for any expression, subject and replacement, the routed operations
// give what plain GoAWK gives.
func FuzzAwkRegexLikeGoAWK(f *testing.F) {
	for _, s := range [][3]string{{"a*", "aaa baaa", "<&>"}, {`^|\b`, "ab cd", `\&`}, {"[é-ü]+", "héllo wörld", `\\&`},
		{"", "abc", "-"}, {"x*$", "xxyxx", "&&"}, {`\B.`, "a\xffb c", "\\"}, {"(?i)B", "abAB", "[&]"}} {
		f.Add(s[0], s[1], s[2])
	}
	prog := `{ s = $0; n = gsub(r, p, s); t = $0; o = sub(r, p, t); m = match($0, r); k = split($0, a, r)
		print n, s, o, t, m, RSTART, RLENGTH, k, a[1], a[k], ($0 ~ r), ($0 !~ r)
		FS = r; print NF, $1, $NF; $0 = s; print NF, $1; n = gsub(r, p); print n, NF, $NF }`
	// The records of the subject by RS = r (awkRecords follows GoAWK's reading of them).
	records := `{ print NR ": " $0 "|" RT "|" NF }`
	f.Fuzz(func(t *testing.T, re, subject, repl string) {
		if len(subject) > 200 || len(re) > 40 || strings.ContainsAny(subject+re+repl, "\n\r\x00") {
			return
		}
		vars := []string{"r", re, "p", repl}
		for _, v := range []string{re, repl} {
			if _, err := lexer.Unescape(v); err != nil {
				return
			}
		}
		if _, err := regexp.Compile("(?s:" + awkUnescape(re) + ")"); err != nil {
			return
		}
		want, ok := plainGoAWK(t, prog, subject+"\n", vars)
		if !ok {
			return
		}
		te := fixture(t)
		out, errOut, rc := te.runAwkOpts(t, awkOptions{routeAll: true}, subject+"\n", "awk", "-v", "r="+re, "-v", "p="+repl, prog)
		if rc != 0 || out != want {
			t.Errorf("r=%q p=%q over %q:\n got rc %d %q %s\nwant %q", re, repl, subject, rc, out, errOut, want)
		}
		if want, ok = plainGoAWK(t, records, subject, []string{"RS", re}); !ok {
			return
		}
		out, errOut, rc = te.runAwkOpts(t, awkOptions{routeAll: true}, subject, "awk", "-v", "RS="+re, records)
		if rc != 0 || out != want {
			t.Errorf("RS=%q over %q:\n got rc %d %q %s\nwant %q", re, subject, rc, out, errOut, want)
		}
	})
}
