package interp

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// TestUnquotedCarriageReturnIsRefused: a CR outside quotes (a CRLF script on Linux or macOS)
// is read by bash as part of its word and by the parser as a blank, so the script is refused
// where the first one is; quoted, in a here-document or a comment it is kept, as bash keeps it.
func TestUnquotedCarriageReturnIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Git-Bash's igncr: CR LF is a line end there")
	}
	for _, c := range []struct {
		src  string
		line int
	}{
		{"echo hi\r\necho there\r\n", 1},
		{"echo ok\necho\rTEST\n", 2},
		{"x='a\rb'; y=\"c\rd\" # e\r\ncat <<EOF\nf\rg\nEOF\n", 0},
	} {
		pf, err := parseScript(context.Background(), "t.sh", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.line == 0 && pf.refused != nil:
			t.Errorf("%q refused: %v", c.src, pf.refused)
		case c.line > 0 && (pf.refused == nil || pf.refused.Line != c.line || !strings.Contains(pf.refused.Construct, "carriage return")):
			t.Errorf("%q: %v, want a refusal at line %d", c.src, pf.refused, c.line)
		}
	}
}

// TestManyQuotedCarriageReturnsAreLinear: a script of the largest size made of quoted CRs is
// checked in one sweep (a check per CR over every span was 10^11 steps for a megabyte).
func TestManyQuotedCarriageReturnsAreLinear(t *testing.T) {
	src := []byte(": " + strings.Repeat("'\r' ", 200000) + "\n")
	pf, err := parseScript(context.Background(), "t.sh", src)
	if err != nil || pf.refused != nil {
		t.Fatalf("%v %v", err, pf.refused)
	}
	if _, _, ok := eval.UnquotedCR(pf.prog.File(), append(src, "x\r\n"...)); !ok {
		t.Error("the unquoted CR after them was not found")
	}
}

// TestCarriageReturnInRunTimeText: text parsed while running (eval, source, a trap) is read as
// a script file is: an unquoted CR is refused where bash would keep it in its word, and a
// quoted one is kept.
func TestCarriageReturnInRunTimeText(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Git-Bash's igncr")
	}
	for _, c := range []struct {
		script, want string
		refused      bool
	}{
		{`x=$'\r'; eval "echo \"a${x}b\""; eval "y='c${x}d'"; echo "$y"`, "a\rb\nc\rd\n", false},
		{`x=$'\r'; eval "echo a$x"; echo after`, "", true},
		{`printf 'echo c\r\n' > s.sh; . ./s.sh; echo after`, "", true},
		{`x=$'\r'; trap "echo t$x" EXIT; echo before`, "before\n", true},
	} {
		out, _ := run(t, c.script, sandbox.Limits{})
		refused := strings.Contains(string(out.Stderr), "carriage return outside quotes")
		if string(out.Stdout) != c.want || refused != c.refused {
			t.Errorf("%s: stdout %q, stderr %s; want %q, refused %v", c.script, out.Stdout, out.Stderr, c.want, c.refused)
		}
	}
}
