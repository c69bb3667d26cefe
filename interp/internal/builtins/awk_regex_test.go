package builtins

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benhoyt/goawk/interp"
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
		out, errOut, rc := te.run(t, in, append(argv, tc.prog)...)
		if rc != 0 || out != want {
			t.Errorf("%s\nrewritten: %s\n got rc %d %q %s\nwant %q", tc.prog, rewriteAwk(tc.prog), rc, out, errOut, want)
		}
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
	} {
		te := fixture(t)
		// The deadline falls in the search (reading the input takes far less): GoAWK's own would
		// run for hours, so a run that ends at all was stopped.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, errOut, rc := te.runCtx(ctx, t, long+"\n", "awk", prog)
		cancel()
		if rc != 130 {
			t.Errorf("%s ran to its end after the call ended (rc 0, %q)", prog, errOut)
		}
	}
}
