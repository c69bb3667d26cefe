package shquote

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/interp/internal/bashtest"
)

// hexLit writes s as a $'\xHH…' literal, independent of the code under test.
func hexLit(s string) string {
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\x%02x", s[i])
	}
	b.WriteString("'")
	return b.String()
}

var values = []string{"", "a", "a b", "it's", `"q"`, `$x`, "`c`", `back\slash`, "tab\there", "nl\n", "é", "日本",
	"\x01", "\x7f", "\xff", "a\xc3", "#a", "a#", "~x", "x~", "a=~b", "a:~", "*", "?", "[", "]", "{a,b}", "a,b", "!",
	"^", "%", "+", "@", "-", "--x", "=", ":", ";", "&", "|", "<>", "()", "\x1b[0m", "\u00a0", "\u200b", "\u2028",
	"a\tb\nc", "'", "''", `\`, "$'x'", "\r", "\a\b\f\v", "x\x00y"[:1], "🙂", "\u0301", "\ufeff",
}

func randValue(r *rand.Rand) string {
	alphabet := []string{"a", "b", " ", "'", "\"", "\\", "$", "`", "#", "~", "=", ":", "*", "?", "[", "]", "{", "}",
		",", "!", "\t", "\n", "\x01", "\xff", "é", "日", "\x1b", "\u00a0", "(", "|", ";", "&", "^", "%", "-"}
	var b strings.Builder
	for i := 0; i < r.Intn(8); i++ {
		b.WriteString(alphabet[r.Intn(len(alphabet))])
	}
	return b.String()
}

func TestDifferentialScalars(t *testing.T) {
	bashtest.Require(t)
	r := rand.New(rand.NewSource(7))
	vals := append([]string{}, values...)
	for i := 0; i < 400; i++ {
		vals = append(vals, randValue(r))
	}
	snips := make([]string, len(vals))
	for i, v := range vals {
		snips[i] = "v=" + hexLit(v) + `; printf '%q\n' "$v"; echo "${v@Q}"; declare -p v; echo "${v@A}"; declare -ix w=$i; w=` + hexLit(v) + `; declare -p w 2>&1; echo "${w@A}"`
	}
	got := bashtest.Batch(t, "", snips)
	bad := 0
	for i, v := range vals {
		w := fmt.Sprint(i)
		if v != "" {
			w = "0" // declare -i turns most values into 0 or an error; compared below only when numeric
		}
		_ = w
		have := Printf(v) + "\n" + Single(v) + "\n" + DeclareP(Var{Name: "v", Set: true, Value: v}) + "\n" +
			AtA(Var{Name: "v", Set: true, Value: v}, false) + "\n"
		// the declare -ix lines depend on arithmetic: compare only the first four lines
		lines := strings.SplitAfter(got[i], "\n")
		if len(lines) < 4 || strings.Join(lines[:4], "") != have {
			bad++
			if bad < 15 {
				t.Errorf("%q:\nbash: %q\nours: %q", v, got[i], have)
			}
		}
	}
	t.Logf("%d values x 4 forms", len(vals))
}

func TestDifferentialArrays(t *testing.T) {
	bashtest.Require(t)
	r := rand.New(rand.NewSource(8))
	type arr struct {
		assoc bool
		elems []Elem
		attrs string
	}
	var list []arr
	for i := 0; i < 150; i++ {
		a := arr{assoc: i%2 == 1}
		n := r.Intn(4)
		if a.assoc {
			n = r.Intn(2) // one key: Bash's hash order is the caller's business
		}
		idx := 0
		for k := 0; k < n; k++ {
			idx += 1 + r.Intn(3)
			key := fmt.Sprint(idx)
			if a.assoc {
				key = randValue(r)
				if key == "" {
					key = "k"
				}
			}
			a.elems = append(a.elems, Elem{key, randValue(r)})
		}
		a.attrs = []string{"", "r", "x", "rx", "t"}[r.Intn(5)]
		list = append(list, a)
	}
	snips := make([]string, len(list))
	for i, a := range list {
		var b strings.Builder
		flag := "-a"
		if a.assoc {
			flag = "-A"
		}
		fmt.Fprintf(&b, "declare %s v; ", flag)
		for _, e := range a.elems {
			k := e.Key
			if a.assoc {
				k = hexLit(k)
			}
			fmt.Fprintf(&b, "v[%s]=%s; ", k, hexLit(e.Value))
		}
		if a.attrs != "" {
			fmt.Fprintf(&b, "declare -%s v; ", a.attrs)
		}
		b.WriteString(`declare -p v; echo "${v[@]@A}"; set | grep -a '^v='`)
		snips[i] = b.String()
	}
	got := bashtest.Batch(t, "", snips)
	for i, a := range list {
		v := Var{Name: "v", Elems: a.elems, Attrs: Attrs{Indexed: !a.assoc, Assoc: a.assoc,
			Readonly: strings.Contains(a.attrs, "r"), Export: strings.Contains(a.attrs, "x"), Trace: strings.Contains(a.attrs, "t")}}
		have := DeclareP(v) + "\n" + AtA(v, true) + "\n"
		rc := "rc=1\n" // grep finds no line
		if l := SetLine(v); l != "" {
			have += l + "\n"
			rc = "rc=0\n"
		}
		if !strings.Contains(SetLine(v), "\n") && got[i] != have+rc {
			t.Errorf("%+v:\nbash: %q\nours: %q", a, got[i], have+rc)
		}
	}
	t.Logf("%d arrays x 3 forms", len(list))
}

func TestAttrs(t *testing.T) {
	bashtest.Require(t)
	cases := []struct {
		decl string
		a    Attrs
	}{
		{"declare -i v=1", Attrs{Integer: true}}, {"declare -r v=1", Attrs{Readonly: true}},
		{"declare -irx v=1", Attrs{Integer: true, Readonly: true, Export: true}},
		{"declare -l v=1", Attrs{Lower: true}}, {"declare -u v=1", Attrs{Upper: true}},
		{"declare -c v=1", Attrs{Capcase: true}}, {"declare -t v=1", Attrs{Trace: true}},
		{"declare -n v=x", Attrs{Nameref: true}}, {"declare -x v=1", Attrs{Export: true}},
		{"declare -ltx v=1", Attrs{Lower: true, Trace: true, Export: true}}, {"declare v=1", Attrs{}},
		{"declare -aixr v=(1)", Attrs{Indexed: true, Integer: true, Readonly: true, Export: true}},
		{"declare -Ar v=([k]=1)", Attrs{Assoc: true, Readonly: true}}, {"declare -x v", Attrs{Export: true}},
		{"declare v", Attrs{}}, {"declare -a v", Attrs{Indexed: true}}, {"declare -A v", Attrs{Assoc: true}},
		{"declare -i v", Attrs{Integer: true}},
	}
	snips := make([]string, len(cases))
	for i, c := range cases {
		snips[i] = c.decl + `; declare -p v; echo "${v@A}"`
	}
	got := bashtest.Batch(t, "", snips)
	for i, c := range cases {
		v := Var{Name: "v", Attrs: c.a}
		if _, val, ok := strings.Cut(c.decl, "="); ok {
			v.Set = true
			v.Value = strings.Trim(val, "()")
			if k, e, ok := strings.Cut(v.Value, "]="); ok {
				v.Value = e
				_ = k
			}
			if c.a.Indexed {
				v.Elems = []Elem{{"0", v.Value}}
			}
			if c.a.Assoc {
				v.Elems = []Elem{{"k", v.Value}}
			}
		}
		// ${v@A} of an array without [@] is element 0 as a scalar
		scalar := v
		scalar.Elems = nil
		if c.a.Assoc {
			scalar.Set = false
		}
		at := AtA(scalar, false)
		if c.a.Nameref {
			at = "" // ${v@A} follows the reference to x, which is unset
		}
		want := DeclareP(v) + "\n" + at + "\nrc=0\n"
		if got[i] != want {
			t.Errorf("%s:\nbash: %q\nours: %q", c.decl, got[i], want)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, v := range values {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, q := range []string{Printf(s), Single(s), Double(s), Reusable(s)} {
			if q == "" {
				t.Fatal("empty quoting")
			}
		}
	})
}

// The bounded quotings give the unbounded ones' results, ask Room for exactly their size
// before making them, and end with Limits' errors.
func TestLimits(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	vals := append([]string{}, values...)
	for range 300 {
		vals = append(vals, randValue(r))
	}
	long := strings.Repeat("ab'c\"d$\n\x01é", stopEvery/4) // several stops long, every branch
	vals = append(vals, long, strings.Repeat("'", 3*stopEvery+5))
	arr := Var{Name: "a", Attrs: Attrs{Assoc: true}, Elems: []Elem{{"k y", long}, {"'", "v"}}}
	for _, v := range vals {
		sv := Var{Name: "v", Set: true, Value: v}
		for _, tc := range []struct {
			name  string
			plain string
			f     func(Limits) (string, error)
		}{
			{"Printf", Printf(v), func(l Limits) (string, error) { return l.Printf(v) }},
			{"Single", Single(v), func(l Limits) (string, error) { return l.Single(v) }},
			{"Double", Double(v), func(l Limits) (string, error) { return l.Double(v) }},
			{"ANSI", ANSI(v), func(l Limits) (string, error) { return l.ANSI(v) }},
			{"DeclareP", DeclareP(sv), func(l Limits) (string, error) { return l.DeclareP(sv) }},
			{"SetLine", SetLine(sv), func(l Limits) (string, error) { return l.SetLine(sv) }},
			{"AtA", AtA(sv, false), func(l Limits) (string, error) { return l.AtA(sv, false) }},
			{"array", DeclareP(arr), func(l Limits) (string, error) { return l.DeclareP(arr) }},
		} {
			var asked int64 = -1
			stops := 0
			got, err := tc.f(Limits{Room: func(n int64) error { asked = n; return nil }, Stop: func() error { stops++; return nil }})
			if err != nil || got != tc.plain || asked != int64(len(got)) {
				t.Fatalf("%s(%.40q): %.60q, %v, asked %d; want %.60q, asked %d", tc.name, v, got, err, asked, tc.plain, len(tc.plain))
			}
			if len(v) >= 2*stopEvery && stops == 0 {
				t.Errorf("%s of %d bytes never asked Stop", tc.name, len(v))
			}
			full := errors.New("no room")
			if _, err := tc.f(Limits{Room: func(int64) error { return full }}); err != full {
				t.Errorf("%s: Room refused, err %v", tc.name, err)
			}
			if len(v) < 2*stopEvery {
				continue
			}
			// The call ended: the first Stop fails, nothing more is made and Room is never asked.
			ended := errors.New("ended")
			roomAsked := false
			if _, err := tc.f(Limits{Room: func(int64) error { roomAsked = true; return nil }, Stop: func() error { return ended }}); err != ended || roomAsked {
				t.Errorf("%s: Stop failed, err %v, Room asked %v", tc.name, err, roomAsked)
			}
		}
	}
}
