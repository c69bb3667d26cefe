package eval_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// condEndCases are [[ ]] expressions that end at a `]]` bash reads as the end where mvdan's
// parser reads an operand, with bash 5.2's messages (one per line; none: bash prints nothing).
var condEndCases = []struct{ src, want string }{
	{"[[ -z ]]", "unexpected argument `]]' to conditional unary operator"},
	{"[[ -n ]]", "unexpected argument `]]' to conditional unary operator"},
	{"[[ ! -f ]]", "unexpected argument `]]' to conditional unary operator"},
	{"[[ a == ]]", "unexpected argument `]]' to conditional binary operator"},
	{"[[ \"a b\" != ]]", "unexpected argument `]]' to conditional binary operator"},
	{"[[ $x -eq ]]", "unexpected argument `]]' to conditional binary operator"},
	{"[[ a =~ ]]", "unexpected argument `]]' to conditional binary operator"},
	{"[[ a < ]]", "unexpected argument `]]' to conditional binary operator"},
	{"[[ a > ]]", "unexpected argument `]]' to conditional binary operator"},
	{"[[ -z \"$x\" ]] || [[ a == ]]", "unexpected argument `]]' to conditional binary operator"},
	{"[[ ( a ]]", "unexpected token `]]', expected `)'"},
	{"[[ ( ]]", "expected `)'"},
	{"[[ ( -z ) ]]", "unexpected argument `)' to conditional unary operator\nexpected `)'"},
	{"[[ -z ( ]]", "unexpected argument `(' to conditional unary operator"},
	{"[[ -z a == ]]", "syntax error in conditional expression"},
	{"[[ ! ]]", ""},
	{"[[ a && ]]", ""},
	{"[[ a || ! ]]", ""},
}

// condShapes puts a case at the top of a script, in a function and in eval, each on line 2,
// with what bash then prints, its status and its stdout. In a script and a function bash ends
// the script with the last command's status; eval prints the error as eval's, returns 2, and
// the script goes on.
func condShapes(src, want string) []struct {
	name, script, stdout, stderr string
	status                       int
} {
	lines := func(prefix string) string {
		if want == "" {
			return ""
		}
		return prefix + strings.ReplaceAll(want, "\n", "\n"+prefix) + "\n"
	}
	return []struct {
		name, script, stdout, stderr string
		status                       int
	}{
		{"top", "false\n" + src + "\necho after $?\n", "", lines("t.sh: line 2: "), 1},
		{"function", "f() {\n  " + src + "\n}\necho mid\nf\n", "", lines("t.sh: line 2: "), 0},
		{"eval", "false\neval '" + strings.ReplaceAll(src, "'", `'\''`) + "'\necho \"after $?\"\n", "after 2\n", lines("t.sh: eval: line 2: "), 0},
	}
}

// TestCondEndInBashWords: a [[ ]] that ends too early is reported as bash 5.2 reports it, on
// its own line (the parser read `]]` as an operand and failed on the next line, in other
// words), and eval goes on after it with status 2 as bash's does. Where bash 5.2 is
// installed the expectations are checked against it too.
func TestCondEndInBashWords(t *testing.T) {
	bash := bash52(t)
	for _, tc := range condEndCases {
		for _, sh := range condShapes(tc.src, tc.want) {
			out, errOut, st, err := runScript(t, sh.script, runOpts{})
			if err != nil || out != sh.stdout || errOut != sh.stderr || st != sh.status {
				t.Errorf("%s in %s: stdout %q, stderr %q, status %d, err %v; want %q, %q, %d", tc.src, sh.name, out, errOut, st, err, sh.stdout, sh.stderr, sh.status)
			}
			checkBash(t, bash, sh.script, sh.stdout, sh.stderr, sh.status)
		}
	}
}

// TestEvalCondErrorThenCond: after a [[ ]] syntax error in eval, bash 5.2's parser fails the
// next [[ it reads whatever it holds; the engine refuses such a [[ (loudly) instead of running
// it, and runs a [[ read before the error (a function defined earlier).
func TestEvalCondErrorThenCond(t *testing.T) {
	out, _, _, err := runScript(t, "f() { [[ a == a ]] && echo f; }\neval '[[ -z ]]'\nf\n[[ a == a ]] && echo after\n", runOpts{})
	if out != "f\n" || err == nil || !strings.HasPrefix(err.Error(), "t.sh:4:") || !strings.Contains(err.Error(), "after a [[ ]] syntax error in eval text") {
		t.Errorf("a [[ after an eval's [[ ]] error: stdout %q, err %v; want f, then the refusal at line 4", out, err)
	}
	for _, script := range []string{"eval '[[ -z ]]'\neval '[[ a == a ]]'\n", "eval '[[ -z ]]'\nif false; then [[ a ]]; fi\necho done\n",
		"eval '[[ -z ]]'\ng() { [[ a ]]; }\necho done\n"} {
		// bash fails the [[ it reads, run or not.
		if out, _, _, err := runScript(t, script, runOpts{}); err == nil || out != "" {
			t.Errorf("%q: stdout %q, err %v; want the refusal", script, out, err)
		}
	}
}

// bash52 is the path of bash when it is bash 5.2, else "".
func bash52(t *testing.T) string {
	p, err := exec.LookPath("bash")
	if err != nil {
		return ""
	}
	v, err := exec.Command(p, "-c", `echo "${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}"`).Output()
	if err != nil || strings.TrimSpace(string(v)) != "5.2" {
		t.Logf("no bash 5.2 here (%q): the expectations are not checked against bash", v)
		return ""
	}
	return p
}

// checkBash runs script as t.sh under bash (when bash is not "") and checks it prints and
// returns what the test expects of the engine.
func checkBash(t *testing.T, bash, script, stdout, stderr string, status int) {
	t.Helper()
	if bash == "" {
		return
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "t.sh")
	cmd.Dir, cmd.Env = dir, []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	var bout, berr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &bout, &berr
	st := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		st = ee.ExitCode()
	}
	if bout.String() != stdout || berr.String() != stderr || st != status {
		t.Errorf("bash on %q: stdout %q, stderr %q, status %d; the test wants %q, %q, %d", script, bout.String(), berr.String(), st, stdout, stderr, status)
	}
}

// TestCondErrorPastFirstLine: a [[ ]] syntax error on a later line of eval or sourced text is
// reported as bash 5.2 reports it, after the lines before it ran (nothing of the line, or of
// the compound command, that holds it), and the eval or source ends with status 2; the
// script goes on. Checked against bash 5.2 where it is installed.
func TestCondErrorPastFirstLine(t *testing.T) {
	bash := bash52(t)
	for _, c := range []struct{ script, stdout, stderr string }{
		{"false\neval 'echo a\n[[ -z ]]\necho b'\necho \"after $?\"\n", "a\nafter 2\n",
			"t.sh: eval: line 5: unexpected argument `]]' to conditional unary operator\n"},
		{"x='echo a\n\n[[ a b ]]\necho b'\n\neval \"$x\"\necho \"after $?\"\n", "a\nafter 2\n",
			"t.sh: eval: line 8: conditional binary operator expected\n"},
		{"eval 'echo a\nif true; then\n  echo b\n  [[ -z ]]\nfi\necho c'\necho \"after $?\"\n", "a\nafter 2\n",
			"t.sh: eval: line 9: unexpected argument `]]' to conditional unary operator\n"},
		{"eval 'echo a\necho b; [[ a == b c ]]'\necho \"after $?\"\n", "a\nafter 2\n",
			"t.sh: eval: line 3: syntax error in conditional expression\n"},
		{"eval 'echo a\n[[ ! ]]\necho b'\necho \"after $?\"\n", "a\nafter 2\n", ""},
		{"source /dev/stdin <<'EOF'\necho s1\n[[ a b ]]\necho s2\nEOF\necho \"after $?\"\n", "s1\nafter 2\n",
			"/dev/stdin: line 2: conditional binary operator expected\n"},
	} {
		out, errOut, st, err := runScript(t, c.script, runOpts{})
		if err != nil || out != c.stdout || errOut != c.stderr || st != 0 {
			t.Errorf("%q: stdout %q, stderr %q, status %d, err %v; want %q, %q, 0", c.script, out, errOut, st, err, c.stdout, c.stderr)
		}
		checkBash(t, bash, c.script, c.stdout, c.stderr, 0)
	}
}

// TestCondErrorInTrapRefused: a [[ ]] syntax error in trap or alias text, which bash reports
// in words that depend on the trap (or ends the script for an alias), is refused naming the
// construct and the fix.
func TestCondErrorInTrapRefused(t *testing.T) {
	for _, script := range []string{
		"trap 'echo t1\n[[ a b ]]\necho t2' EXIT\necho main\n",
		"trap '[[ -z ]]' USR1\nkill -USR1 $$\necho main\n",
	} {
		_, _, _, err := runScript(t, script, runOpts{})
		if err == nil || !strings.Contains(err.Error(), "a [[ ]] syntax error in trap text") || !strings.Contains(err.Error(), "fix the [[ ]] expression") {
			t.Errorf("%q: %v; want the refusal of a [[ ]] syntax error in trap text", script, err)
		}
	}
}
