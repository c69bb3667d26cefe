package builtins

import (
	"context"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestBcMatchesGNU runs bc programs under the host's bc and the sandbox's.
func TestBcMatchesGNU(t *testing.T) {
	var cases []gnuCase
	for _, prog := range []string{
		"1+2", "scale=2; 10/3", "-0.5; 0.50; 1.50*2; 0/1", "7 % 3; 7.5 % 2; scale=2; 7.5 % 2", "2^10; 2^-1; 1.5^3; scale=3; 2^-2",
		"sqrt(2); scale=5; sqrt(2); sqrt(16); sqrt(0.25)", "x=3; x++; x; ++x; x--; --x", "a[1]=5; a[1]+1; a[2]", "obase=16; 255; -255; 0",
		"ibase=16; FF; A", "A; 1A; 99", "\"str\"; 5", "print 1, \"x\\n\"", "3 > 2; 2 == 3; !0; 1 && 0; 0 || 2; 2 <= 2; 1 != 1",
		"define f(x) { return (x*2); }; f(4)", "length(123.45); scale(1.230); length(0.005); length(0); length(.50); length(-12.5)",
		"if (1 > 0) 5 else 6", "5\nquit\n6", "1.999 * 1", "10/3", "2^0.5", "last; 5; last; .", "scale=50; 1/7", "2^300",
		"scale=3; -7/2; -7%2", "scale=2; 1/3*3", "-2^2; 2^3^2", "x=5; x-=2; x; x*=4; x; x/=3; x; x%=3; x; x^=3; x", "a=2;b=3;a*b+1",
		".5+.5; 1==1.0", "scale=5; 3.14159 * 2 / 1", "obase=2; 10; 255", "ibase=2; 1010", "scale=4; 22/7", "012; 1.", "-.5 * 2",
		"x", "(1+2)*3", "scale=2; x=10/3; x*3", "5 /* c */ + 1 # c", "define f() { print \"f\"; return 1; }; 0 && f(); 1 || f(); 1 && f()",
		"scale=2; 0.001*1", "ibase=1; 5", "obase=1; 3", "scale=-1; 1/3", "x[0]=1; x", "define f(a) { auto b; b = a; return b*2 }; f(3); b",
		"print \"a\\qb\\tc\\\\d\\n\"", "i=0; while (i < 3) { i; i += 1 }", "for (i=0; i<3; i++) i", "for (i=0; ; i++) { if (i>2) break; i }",
		"x=-5; -x; x^2", "3 == 3 == 1", "a = 3 < 5; a", "!1 == 0", "1; halt; 2", "print 1/3, \"\\n\"", "scale=3; print 2/3; print \"\\n\"",
		"\"x\ny\"", "if (1) { 1 } else { 2 }", "\"a\"; 2", "define f(x) { x = 5 }; x = 1; f(2); x", "1/0; 5\n6", "f(1)\n2",
		"define f(n) { if (n < 2) return (n); return (f(n-1) + f(n-2)); }\nf(15)", "scale=20; 1/3", "99999999999 * 99999999999",
		"-1 % 3; 1 % -3; -7 / 2", "0.1 + 0.2 == 0.3", "scale = 4\nx = 1.23456\nx\nx * 1", "1 \\\n+ 2", "scale=10; sqrt(1000000)",
		"for (i = 1; i <= 5; i++) { s += i }; s", "x = 2\ny = x ^ 64\ny", "obase=8; 64", "define p(x) { return x + 1 }\np(1)",
		"i = 0\nwhile (1) { if (++i == 3) break }\ni", "for (i = 0; i < 4; i++) { if (i % 2) continue; i }",
	} {
		cases = append(cases, gnuCase{prog + "\n", []string{"bc"}})
	}
	// A long left-associative chain (seq | paste -sd+ | bc) is evaluated without recursion.
	var terms []string
	for i := range 200000 {
		terms = append(terms, strconv.Itoa(i))
	}
	cases = append(cases, gnuCase{strings.Join(terms, "+") + "\n", []string{"bc"}},
		gnuCase{strings.Join(terms, " - ") + "\n", []string{"bc"}})
	cases = append(cases, gnuCase{"10/3\n", []string{"bc", "-l"}}, gnuCase{"scale\n", []string{"bc", "-l"}},
		gnuCase{"1+1\n", []string{"bc", "-q"}})
	compareGNU(t, cases)
}

func TestBcRefusals(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct{ prog, want string }{
		{"s(1)", "math library function s()"}, {"obase=16; 1.5", "output base other than 10"}, {"ibase=16; 1.8", "input base other than 10"},
		{"obase=20", "obase above 16"}, {"read()", "read()"}, {"1 +\n2", "syntax error"}, {"2^100000000", "sandbox's bc"},
		{"define f(x) { return f(x) }; f(1)", "recursion deeper"}, {"print \"\\e\"", "escape"}, {"define f(a[]) { }", "array parameter"},
		{"x = 10^50000; while (1) x = x * x", "product of about"},
		{strings.Repeat("9", bcMaxDigits+1), "a number of more than 1000000 digits"},
		{"1." + strings.Repeat("0", bcMaxDigits), "a number of more than 1000000 digits"},
		// Nesting from the input is bounded before the Go stack is (issue 27: a million nested
		// parentheses ended the server): parentheses, prefix and right-associative operators,
		// blocks, and evaluation nested through recursive calls.
		{strings.Repeat("(", 20000) + "1" + strings.Repeat(")", 20000), "nesting deeper than 10000"},
		{strings.Repeat("- ", 20000) + "1", "nesting deeper than 10000"},
		{strings.Repeat("!", 20000) + "1", "nesting deeper than 10000"},
		{strings.Repeat("2^", 20000) + "1", "nesting deeper than 10000"},
		{strings.Repeat("x=", 20000) + "1", "nesting deeper than 10000"},
		{strings.Repeat("{", 20000) + strings.Repeat("}", 20000), "nesting deeper than 10000"},
		{"define f(n) { if (n == 0) return (0); return (" + strings.Repeat("- ", 500) + "f(n-1)) }; f(900)", "evaluation nested deeper"},
	} {
		args := []string{"bc"}
		if strings.HasPrefix(tc.prog, "s(") {
			args = append(args, "-l")
		}
		_, errOut, rc := te.run(t, tc.prog+"\n", args...)
		if rc != 1 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "sandbox") {
			t.Errorf("%q: rc %d, stderr %q; want a refusal naming %q", tc.prog, rc, errOut, tc.want)
		}
	}
}

// TestBigFromDigits: the halving conversion gives SetString's value in every base bc reads,
// for lengths around its leaves, and stops with the context.
func TestBigFromDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, base := range []int{2, 8, 10, 16} {
		for _, n := range []int{1, 4095, 4096, 4097, 9000, 40000} {
			b := make([]byte, n)
			for i := range b {
				b[i] = "0123456789abcdef"[rng.IntN(base)]
			}
			want, _ := new(big.Int).SetString(string(b), base)
			got, err := bigFromDigits(context.Background(), string(b), base)
			if err != nil || got.Cmp(want) != 0 {
				t.Errorf("base %d, %d digits: %v", base, n, err)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := bigFromDigits(ctx, strings.Repeat("9", 100000), 10); err == nil {
		t.Error("a cancelled conversion went on")
	}
}
