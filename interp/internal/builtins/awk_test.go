package builtins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAwkMatchesGNU(t *testing.T) {
	in := "x 1\ny 2\nz 3\n"
	var cases []gnuCase
	for _, argv := range [][]string{
		{"awk", "{print $1}", "a.txt"}, {"awk", "-F,", "{print $2}", "csv.txt"}, {"awk", "-F", ",", "NR>1{s+=$2} END{print s}", "csv.txt"},
		{"awk", "-v", "n=2", "NR==n", "a.txt"}, {"awk", "{print NR\": \"$0}", "a.txt", "csv.txt"}, {"awk", "FNR==1{print FILENAME}", "a.txt", "csv.txt"},
		{"awk", "NR==FNR{a[$1];next} ($1 in a)", "dup.txt", "a.txt"}, {"awk", "{n[$1]++} END{for(k in n) c++; print c}", "dup.txt"},
		{"awk", "BEGIN{printf \"%05.2f|%-4s|%d\\n\", 3.14159, \"ab\", 42}"}, {"awk", "{print length($0)}", "a.txt"},
		{"awk", "{sub(/a/,\"A\"); print}", "a.txt"}, {"awk", "{gsub(/[aeiou]/,\"_\"); print}", "a.txt"}, {"awk", "{print toupper($0)}"},
		{"awk", "{$2=$2*10; print}"}, {"awk", "BEGIN{OFS=\"-\"}{$1=$1; print}"}, {"awk", "{print $NF}"}, {"awk", "END{print NR}"},
		{"awk", "{print substr($0,2,3)}", "a.txt"}, {"awk", "{split($0,p,\",\"); print p[3]}", "csv.txt"}, {"awk", "/apple/,/10/", "a.txt"},
		{"awk", "BEGIN{print ENVIRON[\"NOPE\"] \"|\"}"}, {"awk", "{print > \"/dev/stderr\"}"}, {"awk", "-F\\t", "{print $2}", "tab.tsv"},
		{"awk", "BEGIN{while ((getline line < \"csv.txt\") > 0) n++; print n}"},
		{"awk", "BEGIN{getline < \"csv.txt\"; print $2}"}, {"awk", "BEGIN{exit 3}"},
		{"awk", "{print $1 > \"/dev/stdout\"}"}, {"awk", "NR==2{next} {print}"}, {"awk", "{printf \"%s;\", $1} END{print \"\"}"},
		{"awk", "BEGIN{x = 10 / 4; print x, int(x), x % 3}"}, {"awk", "{print $1}", "missing.txt"}, {"awk", "{print $2}", "words.txt"},
		{"awk", "BEGIN{n=split(\"a:b:c\",arr,\":\"); print n, arr[1] arr[3]}"}, {"awk", "match($0,/[0-9]+/){print RSTART, RLENGTH}"},
		{"awk", "{print $1}", "-", "a.txt"}, {"awk", "{print v, $1}", "v=1", "a.txt", "v=2", "csv.txt"},
		// Dynamic regular expressions pass through __mcp_re (awk_rewrite.go): the same results.
		{"awk", "-v", "r=[xy]", `{print ($0 ~ r), ($1 !~ r ""), match($0, r), RSTART; n = split($0, p, r); print n; sub(r, "<&>"); print; gsub("[0-9]", "#"); print}`},
		{"awk", "-v", "r=y", `$1 ~ r || $2 ~ 1 + 1 {print "m", $0} $0 !~ r "|z" {print "n", $0}`},
		{"awk", "-v", "r=x", `{x = $0 ~ r ? "yes" : "no"; print x, ($0 ~ (r "|" "z")), $0 ~ /1/}`},
		// Formats pass through __mcp_fmt, their values through __mcp_arg or __mcp_w: the same output.
		{"awk", "-v", "f=%c|%*d|%.*f|%s|%-*s|\n", `{printf f, 65, 4, NR, 2, 3.14159, "65", 3, $1; s = sprintf(f, "65", -4, $2, 1, 2.5, 1e6, -2, "x"); printf "%s", s}`},
		{"awk", `{printf "%*d|%.*s|%c\n", NR + 2, $2, 1, $1, $2 + 64; printf("[%s]\n", sprintf("%*s", 3, $1)) > "/dev/stdout"}`},
		{"awk", "-v", "f=%s=%d\n", `{printf f, $1, sprintf(f, $2, $2) + 1; n = 0; printf f, n++, n++; print n}`},
	} {
		cases = append(cases, gnuCase{in, argv})
	}
	compareGNU(t, cases)
}

func TestAwkFilesGoThroughTheSandbox(t *testing.T) {
	te := fixture(t)
	out, errOut, rc := te.run(t, "", "awk", `{print $1 > "out.txt"; print "x" >> "app.txt"} END{close("out.txt"); while ((getline l < "out.txt") > 0) n++; print n}`, "a.txt")
	if rc != 0 || out != "6\n" {
		t.Fatalf("awk file I/O: rc %d out %q err %q", rc, out, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(te.dir, "out.txt"))
	if string(b) != "banana\napple\ncherry\napple\n10\n9\n" {
		t.Errorf("out.txt = %q", b)
	}
	for _, tc := range []struct {
		prog, want string
	}{
		{`BEGIN{system("id")}`, "NoExec"},
		{`BEGIN{"id" | getline x; print x}`, "NoExec"},
		{`BEGIN{print "x" | "cat"}`, "NoExec"},
		{`BEGIN{print "x" > "/etc/awk-escape"}`, "can't redirect to /etc/awk-escape"},
		{`BEGIN{if ((getline l < "/etc/passwd") < 0) print "refused"; else print l}`, ""},
	} {
		out, errOut, rc := te.run(t, "", "awk", tc.prog)
		if tc.want != "" && (rc == 0 || !strings.Contains(errOut, tc.want)) {
			t.Errorf("%s: rc %d err %q, want error containing %q", tc.prog, rc, errOut, tc.want)
		}
		if strings.Contains(out, "root:") {
			t.Errorf("%s leaked %q", tc.prog, out)
		}
	}
	if _, err := os.Stat("/etc/awk-escape"); err == nil {
		t.Error("awk wrote outside the root")
	}
	out, _, _ = te.run(t, "", "awk", `BEGIN{if ((getline l < "/etc/passwd") < 0) print "refused"}`)
	if out != "refused\n" {
		t.Errorf("getline outside the root: %q", out)
	}
	if _, errOut, rc := te.run(t, "", "awk", "{print}", "/etc/passwd"); rc != 2 || !strings.Contains(errOut, "No such file") {
		t.Errorf("awk /etc/passwd: rc %d %q", rc, errOut)
	}
	out, _, _ = te.run(t, "", "awk", `BEGIN{print ENVIRON["A"]}`)
	if out != "1\n" {
		t.Errorf("ENVIRON comes from env.Environ: %q", out)
	}
}

func TestAwkRewrite(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{print FILENAME}`, `{print __mcp_filename()}`},
		{`{print "FILENAME" > "f"}`, `{__mcp_out(("f"), ">", ("FILENAME") ORS)}`},
		{`{print a, b >> out; x=1}`, `{__mcp_out((out), ">>", (a) OFS (b) ORS); x=1}`},
		{`{printf("%s\n", $1) > "/dev/stderr"}`, `{__mcp_out(("/dev/stderr"), ">", sprintf("%s\n", $1))}`},
		{`{print (a > b) ? "y" : "n"}`, `{print (a > b) ? "y" : "n"}`},
		{`{print $1 | "sort"}`, `{print $1 | "sort"}`},
		{`{n = a / b / c}`, `{n = a / b / c}`},
		{`/x/ { close("f") }`, `(length($0) < 1048576 ? /x/ : __mcp_m($0, "x")) { __mcp_close("f") }`},
		{`{while ((getline line < f) > 0) n++}`, `{while (__mcp_tick() && (((__mcp_getline(f) > 0 ? __mcp_one(line = __mcp_line()) : __mcp_status()) ) > 0)) n++}`},
		// Every loop test and function entry ticks (T-DOS-7).
		{`BEGIN { while (1) gsub(/a/, "aa", s) }`, `BEGIN { while (__mcp_tick() && (1)) (length(s) <= 147 ? gsub(/a/, "aa", s) : (s = __mcp_gsub("a", "aa", s))) }`},
		{`BEGIN { do x++; while (x < 3) }`, `BEGIN { do x++; while (__mcp_tick() && (x < 3)) }`},
		{`BEGIN { for (i = 0; i < n; i++) s = s s }`, `BEGIN { for (i = 0; __mcp_tick() && (i < n); i++) s = s s }`},
		{`BEGIN { for (;;) x++ }`, `BEGIN { for (; __mcp_tick() ;) x++ }`},
		{`{ for (k in a) n++ }`, `{ for (k in a) n++ }`},
		{`function f(x) { return f(x x) }`, `function f(x) { __mcp_tick();  return f(x x) }`},
		// Regular expression operations go to the stoppable matchers (awk_route.go).
		{`BEGIN { x = $1 ~ /a"b/; y = $1 $2 !~ r }`, `BEGIN { x = (length($1) < 1048576 ? $1 ~ /a"b/ : __mcp_m($1, "a\"b")) ; y = (!__mcp_m($1 $2, (r))) }`},
		{`BEGIN { n = gsub(/\./, "&", a[i+1]) }`, `BEGIN { n = (__mcp_pk((i+1)) ? (((a[__mcp_k()] = __mcp_gsub("\\.", "&", a[__mcp_k()])) ? __mcp_pop() : __mcp_pop()) ? __mcp_n() : __mcp_n()) : 0) }`},
		{`BEGIN { if (sub(/x/, "y")) n++ }`, `BEGIN { if ((length($0) <= 147 ? sub(/x/, "y") : (($0 = __mcp_sub("x", "y", $0)) ? __mcp_n() : __mcp_n())) ) n++ }`},
		{`BEGIN { if (sub(r, "y")) n++; gsub(r, "z", a[1]) }`, `BEGIN { if ((($0 = __mcp_sub((r), "y", $0)) ? __mcp_n() : __mcp_n()) ) n++; (a[1] = __mcp_gsub((r), "z", a[1])) }`},
		{`BEGIN { print match(s, e) }`, `BEGIN { print (length(s) < 1048576 ? match(s, __mcp_re(e)) : (RSTART = __mcp_mt(s, (e))) + (RLENGTH = __mcp_rl()) * 0) }`},
		{`BEGIN { n = split(s t, a) }`, `BEGIN { n = split(__mcp_sp(s t, FS), a, __mcp_sep()) }`},
		{`BEGIN { FS = "[,;]" } { print $1 }`, awkFSRule + `BEGIN { FS = (__mcp_fsset(__mcp_t0 = ("[,;]" ), $0) ? __mcp_t0 : __mcp_t0)} { print $1 }`},
		{`BEGIN { FS = "[,;]"; print "x" }`, `BEGIN { FS = (__mcp_fsset(__mcp_t0 = ("[,;]"), $0) ? __mcp_t0 : __mcp_t0); print "x" }`},
		// The separators' and the record's assignments are checked (awk_sep.go).
		{`BEGIN { RS = FS = x ? "a" : "b"; print RS }`, `BEGIN { RS = (__mcp_rsset(__mcp_t0 = (FS = (__mcp_fsset(__mcp_t0 = (x ? "a" : "b"), $0) ? __mcp_t0 : __mcp_t0))) ? __mcp_t0 : __mcp_t0); print RS }`},
		{`BEGIN { $0 = "a b" }`, `BEGIN { $0 = "a b" }`},
		{"BEGIN { FS = \",+\" } { $0 = $0 &&\n 1; $1 = 2; $(i) = 3 }", awkFSRule + "BEGIN { FS = (__mcp_fsset(__mcp_t0 = (\",+\" ), $0) ? __mcp_t0 : __mcp_t0)} { $0 = ((length(__mcp_t0 = ($0 &&\n 1)) <= " + awkFSLimit + " || __mcp_rec(__mcp_t0, FS)) ? __mcp_t0 : __mcp_t0); $1 = 2; $(i) = ((length(__mcp_t0 = (3 )) <= " + awkFSLimit + " || __mcp_rec(__mcp_t0, FS)) ? __mcp_t0 : __mcp_t0)}"},
		{`{ FS = ","; while (getline > 0) n++; getline x; getline $0 }`, awkFSRule + `{ FS = (__mcp_fsset(__mcp_t0 = (","), $0) ? __mcp_t0 : __mcp_t0); while (__mcp_tick() && (__mcp_gl(getline , $0, FS)> 0)) n++; getline x; __mcp_gl(getline $0 , $0, FS)}`},
		{`{ FS = ","; sub(/a/, "b") }`, awkFSRule + `{ FS = (__mcp_fsset(__mcp_t0 = (","), $0) ? __mcp_t0 : __mcp_t0); ($0 = ((length(__mcp_t0 = (__mcp_sub("a", "b", $0))) <= ` + awkFSLimit + ` || __mcp_rec(__mcp_t0, FS)) ? __mcp_t0 : __mcp_t0)) }`},
		// Formats that could print Go's %!(BADWIDTH) are checked (awk_format.go).
		{`{printf "%s %d\n", $1, 2}`, `{printf "%s %d\n", $1, 2}`},
		{`{printf("%*d", w, x); s = sprintf("%.*f", p, x)}`, `{printf("%*d", __mcp_w(w), x); s = sprintf("%.*f", __mcp_w(p), x)}`},
		{`{printf "%9999999d", 1}`, `{printf __mcp_fmt("%9999999d", 0), 1}`},
		{`{printf f, a}`, `{printf __mcp_fmt(f, 1), (__mcp_arg(0, __mcp_t = (a)) ? __mcp_t : __mcp_t)}`},
		{`{s = sprintf(f)}`, `{s = sprintf(__mcp_fmt(f, 0))}`},
	} {
		if got := rewriteAwk(tc.in); got != tc.want {
			t.Errorf("rewriteAwk(%s)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	// -F, -v FS= or an FS= operand of more than one character: the FS rule whatever the program.
	if got := rewriteAwkOpts(`END { print NR }`, awkOptions{regexFS: true}); got != awkFSRule+`END { print NR }` {
		t.Errorf("rewriteAwkOpts with a regex FS: %s", got)
	}
	if !awkRegexFS([]string{"FS", "[,;]"}, nil) || !awkRegexFS(nil, []string{"FS=ab"}) || awkRegexFS([]string{"FS", ","}, []string{"x=ab"}) {
		t.Error("awkRegexFS")
	}
}

// TestAwkSubstrPOSIX: substr counts positions as POSIX and gawk do, also below 1 (the host's
// awk may be mawk, which does not, so this is not a comparison).
func TestAwkSubstrPOSIX(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct{ expr, want string }{
		{`substr("hello", 2, 3)`, "ell"}, {`substr("hello", 0, 2)`, "h"}, {`substr("hello", -1, 3)`, "h"}, {`substr("hello", 0)`, "hello"},
		{`substr("hello", 3)`, "llo"}, {`substr("hello", 5, 10)`, "o"}, {`substr("hello", 6)`, ""}, {`substr("hello", 2, 0)`, ""},
		{`substr("hello", 2, -1)`, ""}, {`substr("hello", 1.6, 1)`, "e"}, {`substr("hello", 1, 2.4)`, "he"}, {`substr("", 1, 1)`, ""},
		{`substr("hello", -5, 5)`, ""},
	} {
		out, errOut, rc := te.run(t, "", "awk", "BEGIN { printf \"[%s]\", "+tc.expr+" }")
		if out != "["+tc.want+"]" || rc != 0 {
			t.Errorf("%s = %q (rc %d, %s), want %q", tc.expr, out, rc, errOut, tc.want)
		}
	}
}

// TestAwkNesting (issue 27): a program that could make GoAWK's parser recurse past the sandbox's
// nesting bound is refused before GoAWK parses it, whatever makes it deep; long programs whose
// statements are shallow run.
func TestAwkNesting(t *testing.T) {
	te := fixture(t)
	const n = 20000
	rep := func(s string, k int) string { return strings.Repeat(s, k) }
	for _, prog := range []string{
		"BEGIN { x = " + rep("(", n) + "1" + rep(")", n) + " }",
		"BEGIN { x = " + rep("(", n),
		"BEGIN { x = " + rep("!", n) + "1 }",
		"BEGIN { x = " + rep("- ", n) + "1 }",
		"BEGIN { x = " + rep("$", n) + "0 }",
		"BEGIN { " + rep("x = ", n) + "1 }",
		"BEGIN { x = " + rep("1 ? 2 : ", n) + "3 }",
		"BEGIN { x = " + rep("a ", n) + "}",
		"BEGIN { x = " + rep("a &&\n", n) + "b }",
		"BEGIN { " + rep("if (1)\n", n) + "x = 1 }",
		"BEGIN { if (0) x = 0\n" + rep("else if (0) x = 1\n", n) + "}",
		"BEGIN " + rep("{", n) + rep("}", n),
		"BEGIN { x = a" + rep("[a", n) + rep("]", n) + " }",
	} {
		_, errOut, rc := te.run(t, "", "awk", prog)
		if rc != 2 || !strings.Contains(errOut, "nests deeper than") {
			t.Errorf("%.60q...: rc %d, stderr %.200q; want the nesting refusal", prog, rc, errOut)
		}
	}
	// A regular expression that would compile for seconds: refused, literal or built at run time.
	for _, argv := range [][]string{
		{"awk", "-v", "r=" + rep("x{1,100}", 8000), "BEGIN { print \"x\" ~ r }"},
		{"awk", "-v", "r=" + rep("x", 100000), "BEGIN { print match(\"x\", r) }"},
		{"awk", "BEGIN { r = \"x\"; for (i = 0; i < 17; i++) r = r r; gsub(r, \"y\", s) }"},
		{"awk", "BEGIN { print \"x\" ~ /" + rep("x", 100000) + "/ }"},
	} {
		_, errOut, rc := te.run(t, "", argv...)
		if rc != 2 || !strings.Contains(errOut, "too large for the sandbox") {
			t.Errorf("%.60q...: rc %d, stderr %.200q; want the regular expression refused", argv, rc, errOut)
		}
	}
	var many, ifs strings.Builder
	for i := range 50000 {
		fmt.Fprintf(&many, "x = x + %d; y = y \"a\"\n", i)
		fmt.Fprintf(&ifs, "if (x > %d) z++\nelse w++\n", i)
	}
	for _, c := range []struct{ prog, want string }{
		{"BEGIN {\n" + many.String() + "print x, length(y) }", "1249975000 50000\n"},
		{"BEGIN { x = 1e9\n" + ifs.String() + "print z, w }", "50000 \n"},
		{"BEGIN { print " + rep("(", 5000) + "7" + rep(")", 5000) + " }", "7\n"},
		{rep("NR == 1 { n++ }\n", 20000) + "END { print n }", "20000\n"},
	} {
		out, errOut, rc := te.run(t, "a\n", "awk", c.prog)
		if rc != 0 || out != c.want {
			t.Errorf("%.60q...: rc %d, out %q, stderr %.200q; want %q", c.prog, rc, out, errOut, c.want)
		}
	}
}

// TestAwkFormatBounds (issue 27): a printf/sprintf width or precision over what Go's fmt prints
// (it wrote %!(BADWIDTH), %!(BADPREC) or %!(NOVERB) as success) is refused, however it is given:
// in a literal, built at run time, or by *; padding past the budget is refused before it is made.
func TestAwkFormatBounds(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct{ prog, want string }{
		{`BEGIN { printf "%2000000d\n", 1 }`, "width or precision of 2000000"},
		{`BEGIN { printf "%.20000000f\n", 1 }`, "width or precision of 20000000"},
		{`BEGIN { printf "%*d\n", 2000000, 1 }`, "* width or precision of 2000000"},
		{`BEGIN { printf "%-*d\n", -2000000, 1 }`, "* width or precision of -2000000"},
		{`BEGIN { s = sprintf("%.*f", 3000000, 1); print length(s) }`, "* width or precision of 3000000"},
		{`BEGIN { w = 2000000; s = sprintf("%" w "d", 1); print length(s) }`, "width or precision of 2000000"},
		{`BEGIN { f = "%*d\n"; printf f, 4000000, 1 }`, "* width or precision of 4000000"},
		{`BEGIN { f = "%s%*d\n"; printf f, sprintf(f, "", 1, 2), 1e300, 1 }`, "* width or precision of"},
		{`BEGIN { f = "%s|%.*s\n"; x = sprintf(f, "a", 5000000, "b") }`, "* width or precision of 5000000"},
		{`BEGIN { printf("%*d", 1e7, 1) > "out.txt" }`, "* width or precision of 10000000"},
	} {
		out, errOut, rc := te.run(t, "", "awk", tc.prog)
		if rc != 2 || !strings.Contains(errOut, tc.want) || strings.Contains(out, "%!") {
			t.Errorf("%s: rc %d, out %.80q, stderr %q; want the refusal %q", tc.prog, rc, out, errOut, tc.want)
		}
	}
	out, errOut, rc := te.run(t, "", "awk", `BEGIN { printf "%1000000d|%*s|\n", 7, 1000000, "x" }`)
	if rc != 0 || len(out) != 2000003 || !strings.HasSuffix(out, "7|"+strings.Repeat(" ", 999999)+"x|\n") {
		t.Errorf("widths of a million: rc %d, %d bytes, stderr %q", rc, len(out), errOut)
	}
}

// TestAwkLexerStops: lexing a run's program stops at the call's end (awkStopped), before
// GoAWK or the rewrite see the rest of it; without a run (tests) nothing is checked.
func TestAwkLexerStops(t *testing.T) {
	src := strings.Repeat("x = 1\n", 3*awkLexCheck)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		run  func()
	}{
		{"tokens", func() { newAwkLexer(ctx).tokens(src) }},
		{"nesting", func() { _ = awkNesting(ctx, src) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if _, ok := recover().(awkStopped); !ok {
					t.Errorf("lexing a cancelled call's program did not stop it")
				}
			}()
			tc.run()
		})
	}
	if toks, ok := awkTokens(src); !ok || len(toks) != 3*awkLexCheck*4+1 {
		t.Errorf("awkTokens: %d tokens, ok %v", len(toks), ok)
	}
}
