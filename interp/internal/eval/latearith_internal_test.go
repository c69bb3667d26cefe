package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestLateArith pins which parse errors lateArith takes as an arithmetic expression bash only
// reports when it evaluates it, and the text it blanks.
func TestLateArith(t *testing.T) {
	cases := []struct {
		text string
		at   string // the error is at the first occurrence of this text
		want string // the expression's text; "" when not taken
	}{
		{"echo $(( 1 + ))\n", "))", " 1 + "},
		{"x=$[ 2 * ]\n", "]", " 2 * "},
		{"(( 7 - ))\n", "))", " 7 - "},
		{"echo $(( (1 + 2) * ))\n", "))", " (1 + 2) * "},
		{"echo $(( a b ))\n", "b", " a b "},
		{"echo $(( $x + ))\n", "))", " $x + "},        // a simple expansion is taken
		{"echo $(( 1 $op 2 ))\n", "$op", " 1 $op 2 "}, // an operator from a variable
		{"(( x = ${a}${b} $1 $# ))\n", "$1", " x = ${a}${b} $1 $# "},
		{"echo $(( 1 $(echo +) 2 ))\n", "$(", ""},          // a command substitution: not taken
		{"echo $(( 1 ${op:-+} 2 ))\n", "$", ""},            // nor an expansion with an operator
		{"echo $(( 1 $ 2 ))\n", "$", ""},                   // nor a lone $
		{"echo $(( \"1\" + ))\n", "))", ""},                // a quote
		{"for (( i=0; i< ; i++ )); do :; done\n", ";", ""}, // a for loop's (( is not taken
		{"((echo a); echo b)\n", "a", ""},                  // nested subshells: no matching ))
		{"echo $(( 1 +\n 2 ))\n", "+", ""},                 // the expression goes on past its line
		{"echo hi |\n", "\n", ""},                          // no arithmetic at all
	}
	for _, c := range cases {
		off := len(c.text)
		if i := strings.Index(c.text, c.at); i >= 0 {
			off = i
		}
		from, to, ok := lateArith([]byte(c.text), off)
		got := ""
		if ok {
			got = c.text[from:to]
		}
		if got != c.want {
			t.Errorf("lateArith(%q, at %q) = %q, want %q", c.text, c.at, got, c.want)
		}
	}
}

// TestBlankArith pins the text the parser reads in place of a late expression: same length,
// the expansions where they were, a + before each one after a gap.
func TestBlankArith(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{" 1 + ", "0    "},
		{" 1 $op 2 ", "   $op   "},
		{"1$op 2", " $op  "},
		{" $a $b", " $a+$b"},
		{"${a}${b} $1 $#", "${a}${b}+$1+$#"},
		{"$x", "$x"},
		{"", ""},
	} {
		b := []byte(c.in)
		blankArith(b)
		if string(b) != c.want {
			t.Errorf("blankArith(%q) = %q, want %q", c.in, b, c.want)
		}
	}
}

// TestLateArithLimit: past maxArithFixes late expressions the parser's error stands, and says
// why and what to do.
func TestLateArithLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString("op=+\n")
	for i := range maxArithFixes + 1 {
		fmt.Fprintf(&b, "echo $(( %d $op 1 ))\n", i)
	}
	_, _, err := parseString(context.Background(), "s.sh", b.String(), 0, true)
	if err == nil || !strings.Contains(err.Error(), "at most 16 arithmetic expressions per script") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("err %v", err)
	}
	if _, _, err := parseString(context.Background(), "s.sh", "op=+\n"+strings.Repeat("echo $(( 1 $op 1 ))\n", maxArithFixes), 0, true); err != nil {
		t.Fatalf("%d late expressions: %v", maxArithFixes, err)
	}
}
