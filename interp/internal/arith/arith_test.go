package arith

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/interp/internal/bashtest"
)

// testEnv is a small model of Bash's variables: scalars are element 0 of an
// indexed array, as in Bash.
type testEnv struct {
	idx     map[string]map[int64]string
	assoc   map[string]map[string]string
	ro      map[string]bool
	nounset bool
	out     strings.Builder
}

var errReadonly = errors.New("readonly")

func newEnv(setup string) *testEnv {
	e := &testEnv{idx: map[string]map[int64]string{}, assoc: map[string]map[string]string{}, ro: map[string]bool{}}
	for _, st := range strings.Split(setup, "; ") {
		st = strings.TrimSpace(st)
		switch {
		case st == "":
		case st == "set -u":
			e.nounset = true
		case strings.HasPrefix(st, "declare -A "):
			name, rest, _ := strings.Cut(strings.TrimPrefix(st, "declare -A "), "=")
			m := map[string]string{}
			e.assoc[name] = m
			rest = strings.TrimSuffix(strings.TrimPrefix(rest, "("), ")")
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "]=")
				m[strings.TrimPrefix(k, "[")] = unq(v)
			}
		case strings.HasPrefix(st, "readonly "):
			name, v, _ := strings.Cut(strings.TrimPrefix(st, "readonly "), "=")
			e.idx[name] = map[int64]string{0: unq(v)}
			e.ro[name] = true
		default:
			name, v, ok := strings.Cut(st, "=")
			if !ok {
				panic("bad setup " + st)
			}
			a := map[int64]string{}
			if strings.HasPrefix(v, "(") {
				for i, f := range strings.Fields(strings.Trim(v, "()")) {
					a[int64(i)] = unq(f)
				}
			} else {
				a[0] = unq(v)
			}
			e.idx[name] = a
		}
	}
	return e
}

func unq(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return s[1 : len(s)-1]
	}
	return s
}

func (e *testEnv) IsAssoc(name string) bool { _, ok := e.assoc[name]; return ok }
func (e *testEnv) Nounset() bool            { return e.nounset }

func maxIndex(a map[int64]string) int64 {
	m := int64(-1)
	for k := range a {
		if k > m {
			m = k
		}
	}
	return m
}

func (e *testEnv) Get(r Ref) (string, bool, error) {
	if m, ok := e.assoc[r.Name]; ok {
		k := "0"
		if r.HasSub {
			k = r.Sub
		}
		return m[k], true, nil
	}
	a, ok := e.idx[r.Name]
	if !ok {
		return "", false, nil
	}
	i := int64(0)
	if r.HasSub {
		if !r.IndexValid() {
			fmt.Fprintf(&e.out, "%s: bad array subscript\n", r)
			return "", true, nil
		}
		i = r.Index
		if i < 0 {
			i += maxIndex(a) + 1
			if i < 0 {
				fmt.Fprintf(&e.out, "%s: bad array subscript\n", r.Name)
				return "", true, nil
			}
		}
	}
	return a[i], true, nil
}

func (e *testEnv) Set(r Ref, v int64) error {
	if e.ro[r.Name] {
		fmt.Fprintf(&e.out, "%s: readonly variable\n", r.Name)
		return errReadonly
	}
	s := strconv.FormatInt(v, 10)
	if m, ok := e.assoc[r.Name]; ok {
		k := "0"
		if r.HasSub {
			k = r.Sub
		}
		m[k] = s
		return nil
	}
	a, ok := e.idx[r.Name]
	if !ok {
		a = map[int64]string{}
		e.idx[r.Name] = a
	}
	i := int64(0)
	if r.HasSub {
		if !r.IndexValid() {
			fmt.Fprintf(&e.out, "%s: bad array subscript\n", r)
			return nil
		}
		i = r.Index
		if i < 0 {
			i += maxIndex(a) + 1
			if i < 0 {
				fmt.Fprintf(&e.out, "%s: bad array subscript\n", r)
				return nil
			}
		}
	}
	a[i] = s
	return nil
}

// dumpNames are the variables the differential tests compare after evaluation.
const dumpNames = "a b c i j k m n r s x y z"

func (e *testEnv) dump() string {
	var lines []string
	for _, n := range strings.Fields(dumpNames) {
		for k, v := range e.idx[n] {
			lines = append(lines, fmt.Sprintf("D %s[%d]=%s", n, k, v))
		}
		for k, v := range e.assoc[n] {
			lines = append(lines, fmt.Sprintf("D %s[%s]=%s", n, k, v))
		}
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// run evaluates like the bash side of the differential test prints.
func run(setup, expr string) string {
	env := newEnv(setup)
	v, err := Eval(expr, env)
	out := env.out.String()
	rc := 0
	if err != nil {
		rc = 1
		if !errors.Is(err, errReadonly) {
			out += err.Error() + "\n"
		}
	} else {
		out += fmt.Sprintf("v=%d\n", v)
	}
	return out + env.dump() + fmt.Sprintf("rc=%d\n", rc)
}

const bashDump = `dump() { set +u; for _n in ` + dumpNames + `; do eval "for _k in \"\${!$_n[@]}\"; do printf 'D %s[%s]=%s\n' $_n \"\$_k\" \"\${$_n[\$_k]}\"; done"; done; }`

// normalize sorts the dump lines ("D ...") and puts them before the status line.
func normalize(s string) string {
	var keep, dump []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.HasPrefix(l, "D ") {
			dump = append(dump, l)
		} else {
			keep = append(keep, l)
		}
	}
	sort.Strings(dump)
	if n := len(keep); n > 0 && keep[n-1] == "" {
		keep = keep[:n-1]
	}
	if n := len(keep); n > 0 && strings.HasPrefix(keep[n-1], "rc=") {
		return strings.Join(keep[:n-1], "") + strings.Join(dump, "") + keep[n-1]
	}
	return strings.Join(keep, "") + strings.Join(dump, "")
}

func bashSnippet(setup, expr string) string {
	return setup + "\ntrap dump EXIT\ne=" + shq(expr) + "\nv=$(($e)); echo \"v=$v\""
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

type tcase struct{ setup, expr string }

// cases are compared with Bash; each is also a fuzz seed.
var cases = []tcase{
	// constants
	{"", "0"}, {"", "42"}, {"", " 7 "}, {"", "\n5\n"}, {"", "010"}, {"", "0x1f"}, {"", "0X1F"}, {"", "0x"},
	{"", "09"}, {"", "08#1"}, {"", "0#1"}, {"", "1#1"}, {"", "65#1"}, {"", "2#101"}, {"", "2#12"}, {"", "2#2"},
	{"", "16#ff"}, {"", "16#FF"}, {"", "36#zz"}, {"", "37#Z"}, {"", "64#@_"}, {"", "64#A"}, {"", "63#_"},
	{"", "10#"}, {"", "10#+1"}, {"", "2#-1"}, {"", "0x#1"}, {"", "1a"}, {"", "1_0"}, {"", "99999999999999999999"},
	{"", "9223372036854775807"}, {"", "9223372036854775808"}, {"", "-9223372036854775808"}, {"", "1.5"},
	{"", "'a'"}, {"", "\"1\""}, {"", "$x"}, {"", "1\r+2"}, {"", "1\v+2"}, {"", "1\t+\n2"}, {"", ""}, {"", "   "},
	// operators and precedence
	{"", "1+2*3"}, {"", "(1+2)*3"}, {"", "2**3**2"}, {"", "-2**2"}, {"", "2**0"}, {"", "0**0"}, {"", "-3**3"},
	{"", "2**63"}, {"", "2**64"}, {"", "3**40"}, {"", "2**-1"}, {"", "0 && 2**-1"}, {"", "7%-3"}, {"", "-7%3"},
	{"", "-7/2"}, {"", "1/0"}, {"", "1%0"}, {"", "1 / (2-2) + 3"}, {"", "1 % 0 "}, {"", "0 && 1/0"},
	{"", "1 || 1/0"}, {"", "0 ? 1/0 : 2"}, {"", "1 ? 2 : 1/0"}, {"", "-9223372036854775808/-1"},
	{"", "-9223372036854775808%-1"}, {"", "9223372036854775807+1"}, {"", "9223372036854775807*2"},
	{"", "1<<63"}, {"", "1<<64"}, {"", "1<<65"}, {"", "1<<-1"}, {"", "-8>>1"}, {"", "-1>>63"}, {"", "5&3"},
	{"", "5|3"}, {"", "5^3"}, {"", "~5"}, {"", "!5"}, {"", "!!5"}, {"", "!0"}, {"", "- -5"}, {"", "+-5"},
	{"", "++5"}, {"", "--5"}, {"", "1 ++ 2"}, {"", "1 -- 2"}, {"", "1 - - 1"}, {"", "1--1"}, {"", "1<2"},
	{"", "2<=2"}, {"", "3>2"}, {"", "3>=4"}, {"", "1==1"}, {"", "1!=1"}, {"", "1 < 2 < 3"}, {"", "3 > 2 > 1"},
	{"", "1==1==1"}, {"", "1 << 2 + 1"}, {"", "1 + 2 << 1"}, {"", "6 & 3 == 3"}, {"", "1 | 2 ^ 3 & 4"},
	{"", "16/4/2"}, {"", "2*3%4"}, {"", "1,2,3"}, {"", "(1,2)"}, {"", "1?2:3"}, {"", "0?2:3"},
	{"", "1?0?4:5:6"}, {"", "1 ? 2 : 3 , 4"}, {"", "0 ? 1 : 0 ? 2 : 3"}, {"", "1 == 1 ? 2 : 3"},
	{"", "1 && 2"}, {"", "0 || 0"}, {"", "3 && 0 || 4"}, {"", "(((((1)))))"}, {"", "-(-(-1))"},
	// syntax errors
	{"", "1+"}, {"", " 1 + "}, {"", "1 2"}, {"", "x y"}, {"", "1 @ 2"}, {"", "x @ 2"}, {"", "x y @"},
	{"", "x y 09"}, {"", "1?2"}, {"", "1?2:"}, {"", "1 ? : 2"}, {"", "? 2 : 3"}, {"", "1 | | 2"},
	{"", "1 || "}, {"", ","}, {"", "1,"}, {"", "!"}, {"", "(1"}, {"", "(1 2)"}, {"", "1)"}, {"", ")"},
	{"", "3 ]"}, {"", "x ] "}, {"", "x.y"}, {"", "++"}, {"", "5++"}, {"", "x++2"}, {"", "x+++"},
	{"", "(x)++"}, {"", "(x)=1"}, {"", "1 = 1"}, {"", "1 +=2"}, {"", "1+x=5"}, {"", "-x=5"},
	{"", "x=1?2:3=4"}, {"", "5 ? x=1 : y=2"}, {"", "1 ? 2 : y = 4"}, {"", "x**=2"}, {"", "a[1"},
	{"", "a[1]]"}, {"", "a [1]"}, {"", "x=1=2"}, {"", "=1"}, {"", "x =="}, {"", "$"}, {"", "1 ; 2"},
	{"", "é"}, {"", "1 é"},
	// variables
	{"x=5", "x"}, {"x=5", "x+1"}, {"x='1+2'", "x*3"}, {"x='1+'", "x"}, {"x='1+'", "x+2"}, {"x=x", "x"},
	{"x=y; y=x", "x"}, {"x='y+1'; y='z*2'; z=3", "x*x"}, {"x=' 12 '", "x"}, {"x='3 4'", "x"},
	{"x=abc; abc=7", "x"}, {"x=08", "x"}, {"x=08", "x+1"}, {"x=' '", "x"}, {"x=", "x"}, {"", "x"},
	{"x=0x10", "x"}, {"x='(1'", "x"}, {"x='a[1'", "x"}, {"x='1/0'; y=1", "y x"}, {"y='1/0'", "0 ? y : 1"},
	{"y='1/0'", "1 ? 1 : y"}, {"y='1/0'", "1 || y"}, {"y='1/0'", "0 && y"}, {"x=hello", "x"},
	{"x='$i'", "x"}, {"x='y'; y='z'; z='w'; w=9", "x"}, {"x='-1'", "-x"}, {"x='!0'", "x"},
	// assignment
	{"", "x=1"}, {"", "x = 1 ? 2 : 3"}, {"", "y = 0 || 5"}, {"x=1", "x == 1 ? y = 4 : 5"},
	{"", "0 ? x=1 : 2"}, {"", "x=y=3"}, {"x=5", "x+=y=3"}, {"x=3", "x<<=2"}, {"x=3", "x>>=1"},
	{"x=3", "x%=5"}, {"x=3", "x|=8"}, {"x=3", "x&=9"}, {"x=3", "x^=3"}, {"x=3", "x-=1"}, {"x=3", "x*=3"},
	{"x=3", "x/=2"}, {"x=3", "x/=0"}, {"x=3", "x%=0"}, {"x=3", "x /= 0 + 0 "}, {"x=1", "x+="},
	{"", "x="}, {"x=-9223372036854775808", "x/=-1"}, {"x=-9223372036854775808", "x%=-1"},
	{"x=-9223372036854775808; y=-1", "x % y = 3"}, {"x=5", "x+= 2, x"}, {"x='1+2'", "x=x*2"},
	{"x='1+2'", "x+=1"}, {"", "x=1,y=2,x+y"}, {"x=0", "1?1:(x=5)"}, {"x=0", "0&&(x=5)"},
	{"x=0", "1||(x=5)"}, {"x=0", "0||(x=5)"}, {"x=9", "1 && (x=0) && (y=1)"},
	// increments
	{"x=1", "x++ + ++x"}, {"x=1; y=2", "x+++y"}, {"x=1; y=2", "x---y"}, {"x=5", "--x"}, {"x=5", "-- x"},
	{"x=5", "x --"}, {"x=5", "x ++"}, {"x=5", "++x++"}, {"x=1", "--x++"}, {"x=5", "++(x)"},
	{"x=5", "+x++"}, {"x=5", "++x = 4"}, {"x=1", "x++ ++"}, {"", "x++"}, {"", "++x"}, {"x='1+1'", "x++"},
	{"x='1+1'", "++x"}, {"x=5", "x++=7"}, {"x=5", "--x=7"}, {"x=5", "x++ - x--"}, {"x=5", "++x * ++x"},
	// arrays
	{"a=(1 2 3)", "a[0]+a[1]"}, {"a=(1 2 3)", "a"}, {"a=(1 2 3)", "a[ 1 ]"}, {"a=(1 2 3)", "a[-1]"},
	{"a=(1 2 3)", "a[-5]"}, {"a=(1 2 3)", "a[-5]=1"}, {"a=(1 2 3)", "a[5]"}, {"a=(1 2 3); i=0", "a[i++]++"},
	{"a=(1 2 3); i=0", "a[i++]+=10"}, {"i=0", "b[i++] += 1"}, {"i=0", "b[i++] = 1"}, {"a=(0 0 0); i=0", "a[i]=i++"},
	{"i=0", "b[i++]++"}, {"", "a[1/0]"}, {"", "a[1+]"}, {"", "a[1]=3"}, {"b=(0 2); a=(5 6 7)", "a[b[1]]"},
	{"", "a[b[1]]"}, {"a=(5 6 7)", "a[a[0]-4]*2"}, {"a=(1 2 3)", "a[-1]+=5"}, {"x=1", "x[0]"}, {"x=1", "x[1]"},
	{"x=1", "x[1]=4"}, {"a=('1+1' 2)", "a[0]*3"}, {"a=(1 2)", "a[2**2]=9"}, {"a=(1 2)", "a[1]--"},
	{"a=(4 5)", "--a[1]"}, {"i=1; a=(5 6)", "a[i]=a[i-1]+a[i]"}, {"a=(5)", "a[0]=a[0]**2"},
	// associative arrays
	{"declare -A m=([a]=3)", "m[a]+1"}, {"declare -A m=([a]=3); k=a", "m[k]"}, {"declare -A m", "m[a b]=4"},
	{"declare -A m", "m[ a ]=4"}, {"declare -A m", "m[x]+=1, m[x]++"}, {"declare -A m=([0]=5 [x]=6)", "m"},
	{"declare -A m=([k]=1+1)", "m[k]*5"}, {"declare -A m", "m[1+1]=2"}, {"declare -A m=([i]=7)", "++m[i]"},
	// set -u
	{"set -u", "x=1"}, {"set -u", "x+1"}, {"set -u", "1||x"}, {"set -u", "0&&x"}, {"set -u", "0?x:1"},
	{"set -u", "x+=1"}, {"set -u", "x++"}, {"set -u; a=(1)", "a[5]"}, {"set -u", "b[5]"}, {"set -u", "b[0]=1"},
	{"set -u; x=", "x"}, {"set -u; x=y", "x"},
	// readonly
	{"readonly r=1", "r=2"}, {"readonly r=1", "r++"}, {"readonly r=1", "x=1, r=2, y=3"}, {"readonly r=1", "r+1"},
	{"readonly r=1", "0 && (r=2)"},
}

func TestDifferential(t *testing.T) {
	bashtest.Require(t)
	snips := make([]string, len(cases))
	for i, c := range cases {
		snips[i] = bashSnippet(c.setup, c.expr)
	}
	got := bashtest.Batch(t, bashDump, snips)
	for i, c := range cases {
		if want, have := normalize(got[i]), run(c.setup, c.expr); want != have {
			t.Errorf("setup %q expr %q:\nbash:\n%s\nours:\n%s", c.setup, c.expr, want, have)
		}
	}
	t.Logf("%d differential cases", len(cases))
}

// randExpr builds a random expression from Bash's arithmetic vocabulary.
func randExpr(r *rand.Rand, depth int) string {
	atoms := []string{"0", "1", "2", "7", "-3", "x", "y", "a[0]", "a[i]", "a[-1]", "m[k]", "i", "010", "0x1f",
		"2#101", "64#z", "z", "9223372036854775807"}
	bin := []string{"+", "-", "*", "/", "%", "**", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "|", "^", "&&", "||", ","}
	asg := []string{"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
	lv := []string{"x", "y", "i", "a[i]", "a[1]", "m[k]", "z"}
	if depth <= 0 {
		return atoms[r.Intn(len(atoms))]
	}
	switch r.Intn(9) {
	case 0, 1, 2:
		sp := []string{" ", "", "\n"}[r.Intn(3)]
		return randExpr(r, depth-1) + sp + bin[r.Intn(len(bin))] + sp + randExpr(r, depth-1)
	case 3:
		return "(" + randExpr(r, depth-1) + ")"
	case 4:
		return []string{"-", "+", "!", "~"}[r.Intn(4)] + randExpr(r, depth-1)
	case 5:
		return randExpr(r, depth-1) + " ? " + randExpr(r, depth-1) + " : " + randExpr(r, depth-1)
	case 6:
		sp := []string{" ", ""}[r.Intn(2)]
		return lv[r.Intn(len(lv))] + sp + asg[r.Intn(len(asg))] + sp + randExpr(r, depth-1)
	case 7:
		l := lv[r.Intn(len(lv))]
		return []string{l + "++", l + "--", "++" + l, "--" + l}[r.Intn(4)]
	default:
		return atoms[r.Intn(len(atoms))] + []string{"", "", " ", "+", "++", "=", ")", "?"}[r.Intn(8)]
	}
}

func TestDifferentialRandom(t *testing.T) {
	bashtest.Require(t)
	r := rand.New(rand.NewSource(19))
	const setup = "x=3; y='x+1'; i=1; a=(5 -2 9); declare -A m=([k]=4); z='y*2'"
	n := 800
	if s := os.Getenv("ARITH_RANDOM"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		n = 100
	}
	exprs := make([]string, n)
	snips := make([]string, n)
	for k := range exprs {
		exprs[k] = randExpr(r, 1+r.Intn(4))
		snips[k] = bashSnippet(setup, exprs[k])
	}
	got := bashtest.Batch(t, bashDump, snips)
	bad := 0
	for k, e := range exprs {
		if want, have := normalize(got[k]), run(setup, e); want != have {
			bad++
			if bad < 20 {
				t.Errorf("expr %q:\nbash:\n%s\nours:\n%s", e, want, have)
			}
		}
	}
	t.Logf("%d random differential cases, %d differ", n, bad)
}

func TestErrorFields(t *testing.T) {
	tests := []struct {
		expr, msg, tok string
		kind           Kind
		sub            bool
	}{
		{"1 +", "syntax error: operand expected", "+", ErrSyntax, false},
		{"1/0", "division by 0", "0", ErrDivZero, false},
		{"09", "value too great for base", "09", ErrNumber, false},
		{"1 = 1", "attempted assignment to non-variable", "= 1", ErrNonVariable, false},
		{"a[1/0]", "division by 0", "0", ErrDivZero, true},
		{"2**-1", "exponent less than 0", "1", ErrExponent, false},
		{"(1", "missing `)'", "1", ErrMissingParen, false},
	}
	for _, tt := range tests {
		_, err := Eval(tt.expr, newEnv(""))
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%q: %v", tt.expr, err)
		}
		if e.Msg != tt.msg || e.Token != tt.tok || e.Kind != tt.kind || e.NoCommandName != tt.sub || !Is(err, tt.kind) {
			t.Errorf("%q: got %+v", tt.expr, e)
		}
	}
}

func TestUnbound(t *testing.T) {
	_, err := Eval("q+1", newEnv("set -u"))
	var u *UnboundError
	if !errors.As(err, &u) || u.Name != "q" || err.Error() != "q: unbound variable" {
		t.Fatalf("got %v", err)
	}
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("(", MaxNest+10) + "1" + strings.Repeat(")", MaxNest+10)
	var le *LimitError
	if _, err := Eval(deep, newEnv("")); !errors.As(err, &le) {
		t.Errorf("deep parens: %v", err)
	}
	if _, err := Eval(strings.Repeat("-", 3*MaxNest)+"1", newEnv("")); !errors.As(err, &le) {
		t.Errorf("deep unary: %v", err)
	}
	if v, err := Eval(strings.Repeat("(", 4000)+"1"+strings.Repeat(")", 4000), newEnv("")); err != nil || v != 1 {
		t.Errorf("4000 parens: %v %v", v, err)
	}
	// x60 doubles x59 ...: 2^60 evaluations in Bash; a step budget here.
	var sb strings.Builder
	sb.WriteString("x0=1")
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&sb, "; x%d='x%d+x%d'", i, i-1, i-1)
	}
	if _, err := Eval("x60", newEnv(sb.String())); !errors.As(err, &le) {
		t.Errorf("exponential: %v", err)
	}
	// Bash's recursion limit: 1024 nested contexts.
	chain := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "x%d=x%d; ", i, i+1)
		}
		fmt.Fprintf(&b, "x%d=7", n+1)
		return b.String()
	}
	if v, err := Eval("x1", newEnv(chain(1022))); err != nil || v != 7 {
		t.Errorf("1022 chain: %v %v", v, err)
	}
	_, err := Eval("x1", newEnv(chain(1023)))
	if err == nil || err.Error() != `x1024: expression recursion level exceeded (error token is "x1024")` {
		t.Errorf("1023 chain: %v", err)
	}
}

func TestUnsupported(t *testing.T) {
	var u *UnsupportedError
	if _, err := Eval("x", newEnv("x='a[$i]'")); !errors.As(err, &u) {
		t.Errorf("got %v", err)
	}
}

func FuzzEval(f *testing.F) {
	for _, c := range cases {
		f.Add(c.setup, c.expr)
	}
	f.Fuzz(func(t *testing.T, setup, expr string) {
		env := newEnv("x=3; y='x+1'; i=1; a=(5 -2 9); declare -A m=([k]=4); z='y*2'")
		if len(setup) < 200 {
			// setup is used as one more variable's value (an expression).
			env.idx["s"] = map[int64]string{0: setup}
		}
		_, err := Eval(expr, env)
		if err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}
