package sdk

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// bash4Only are constructs newer than Bash 3.2 (macOS's /bin/bash), which tool-sdk.sh must not
// use. Each entry is a pattern over a code line (comments stripped) and what it is.
var bash4Only = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\b(declare|local|typeset|readonly)\s+-[a-zA-Z]*A`), "associative arrays (4.0)"},
	{regexp.MustCompile(`\b(declare|local|typeset)\s+-[a-zA-Z]*n\b`), "namerefs (4.3)"},
	{regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?(,|\^)`), "case modification ${v,,} ${v^^} (4.0)"},
	{regexp.MustCompile(`\$\{[^}]*@[QEPAaKkUuL]\}`), "${v@op} transformations (4.4)"},
	{regexp.MustCompile(`\b(mapfile|readarray|coproc)\b`), "mapfile/readarray/coproc (4.0)"},
	{regexp.MustCompile(`\bwait\s+-n\b`), "wait -n (4.3)"},
	{regexp.MustCompile(`&>>|\|&`), "&>> and |& (4.0)"},
	{regexp.MustCompile(`;;&|;&\s*$`), "case fall-through ;& ;;& (4.0)"},
	{regexp.MustCompile(`\[\[\s+-v\b`), "[[ -v name ]] (4.2)"},
	{regexp.MustCompile(`\$\{?(BASHPID|EPOCHSECONDS|EPOCHREALTIME|BASH_ARGV0)\b`), "variables added after 3.2"},
	{regexp.MustCompile(`\[\s*-[0-9]+\s*\]`), "negative array subscripts (4.3)"},
	{regexp.MustCompile(`shopt\s+-s\s+(globstar|lastpipe|autocd|direxpand)`), "shopt options added in 4.x"},
	{regexp.MustCompile(`\bread\b[^|;&]*\s-[a-zA-Z]*i\b`), "read -i (4.0)"},
	{regexp.MustCompile(`\{[0-9a-z]+\.\.[0-9a-z]+\.\.[0-9]+\}`), "brace expansion with a step (4.0)"},
	{regexp.MustCompile(`printf\s+'%\(`), "printf %(fmt)T (4.2)"},
}

func TestBashSDKIsBash32(t *testing.T) {
	for i, line := range strings.Split(BashSDK, "\n") {
		code := line
		if j := strings.Index(code, "#"); j >= 0 && (j == 0 || code[j-1] == ' ' || code[j-1] == '\t') {
			code = code[:j]
		}
		for _, c := range bash4Only {
			if c.re.MatchString(code) {
				t.Errorf("tool-sdk.sh:%d uses %s: %s", i+1, c.what, strings.TrimSpace(line))
			}
		}
	}
}

// The checker itself must catch what it claims to (a checker that matches nothing passes any SDK).
func TestBash4CheckerCatches(t *testing.T) {
	for _, line := range []string{`declare -A m`, `local -A seen=()`, `x=${v,,}`, `y=${v^^}`, `mapfile -t a < f`,
		`wait -n`, `cmd &>> log`, `a |& b`, `[[ -v x ]]`, `echo $BASHPID`, `echo ${a[-1]}`, `shopt -s globstar`,
		`read -r -i def v`, `echo {1..9..2}`, `x=${v,}`, `x=${a[1]^}`, `local -n ref=x`, `echo ${v@Q}`, `printf '%(%F)T'`} {
		hit := false
		for _, c := range bash4Only {
			hit = hit || c.re.MatchString(line)
		}
		if !hit {
			t.Errorf("checker misses %q", line)
		}
	}
}

func TestBashSDKSyntaxAndShellcheck(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is required:", err)
	}
	if out, err := exec.Command(bash, "-n", "-c", BashSDK).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		// CI installs shellcheck and sets MCPBASH_REQUIRE_SHELLCHECK, so this cannot be skipped there.
		if os.Getenv("MCPBASH_REQUIRE_SHELLCHECK") != "" {
			t.Fatal("shellcheck is required:", err)
		}
		t.Skip("shellcheck not installed")
	}
	cmd := exec.Command(sc, "--shell=bash", "-")
	cmd.Stdin = strings.NewReader(BashSDK)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shellcheck: %v\n%s", err, out)
	}
}
