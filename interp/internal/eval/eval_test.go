package eval_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval/internal/osfs"
)

// pureExec is an Exec hook with a few Go commands and no host processes.
func pureExec(ctx context.Context, c *eval.Command) (int, error) {
	switch c.Args[0] {
	case "cat":
		if len(c.Args) > 1 {
			for _, a := range c.Args[1:] {
				if strings.HasPrefix(a, "/dev/fd/") && c.OpenFD != nil {
					var n int
					for _, ch := range a[len("/dev/fd/"):] {
						n = n*10 + int(ch-'0')
					}
					f, err := c.OpenFD(n)
					if err != nil {
						return 1, nil
					}
					_, _ = io.Copy(c.Stdout, f)
					f.Close()
				}
			}
			return 0, nil
		}
		_, err := io.Copy(c.Stdout, c.Stdin)
		if err != nil {
			return 1, nil
		}
		return 0, nil
	case "sleep":
		// 50 ms, or until the run ends for "sleep forever" (a job that stays running).
		d := 50 * time.Millisecond
		if len(c.Args) > 1 && c.Args[1] == "forever" {
			d = time.Hour
		}
		select {
		case <-ctx.Done():
			return 130, nil
		case <-time.After(d):
			return 0, nil
		}
	case "yes":
		for {
			if _, err := io.WriteString(c.Stdout, "y\n"); err != nil {
				return 141, nil
			}
			if ctx.Err() != nil {
				return 130, nil
			}
		}
	}
	return 127, eval.ErrNotFound
}

type runOpts struct {
	limits  eval.Limits
	ctx     context.Context
	builtin func(string) eval.BuiltinFunc
	pure    func(string) bool
}

func runScript(t testing.TB, script string, o runOpts) (string, string, int, error) {
	t.Helper()
	ctx := o.ctx
	if ctx == nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
	}
	var stdout, stderr bytes.Buffer
	cfg := &eval.Config{FS: osfs.FS{}, Exec: pureExec, Builtin: o.builtin, Pure: o.pure, Environ: testEnv, Dir: t.TempDir(),
		Name: "t.sh", Stdout: &stdout, Stderr: &stderr, Limits: o.limits,
		Identity: eval.Identity{PID: 100, PPID: 99}}
	prog, err := eval.Parse("t.sh", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	st, err := eval.New(cfg).Run(ctx, prog)
	return stdout.String(), stderr.String(), st, err
}

func TestLimits(t *testing.T) {
	cases := []struct {
		name   string
		script string
		limits eval.Limits
		kind   eval.LimitKind
	}{
		{"function recursion", `f() { f; }; f`, eval.Limits{MaxCallDepth: 200}, eval.LimitDepth},
		{"eval recursion", `x='eval "$x"'; eval "$x"`, eval.Limits{MaxCallDepth: 200}, eval.LimitDepth},
		{"subshell nesting", `f() { ( f ); }; f`, eval.Limits{MaxCallDepth: 100}, eval.LimitDepth},
		{"command substitution nesting", `f() { echo $(f); }; f`, eval.Limits{MaxCallDepth: 100}, eval.LimitDepth},
		{"source recursion", `echo 'source ./s.sh' > s.sh; source ./s.sh`, eval.Limits{MaxCallDepth: 50}, eval.LimitDepth},
		// bash overflows its stack here; every level held memory until the call's timeout.
		{"trap signalling its own shell", `trap 'kill -USR1 $$' USR1; kill -USR1 $$`, eval.Limits{MaxCallDepth: 50}, eval.LimitDepth},
		{"deep recursion default limit", `f() { f; }; f`, eval.Limits{}, eval.LimitDepth},
		{"commands", `while :; do :; done`, eval.Limits{MaxCommands: 1000}, eval.LimitCommands},
		{"commands in trap", `trap 'while :; do :; done' EXIT`, eval.Limits{MaxCommands: 1000}, eval.LimitCommands},
		{"jobs", `for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep forever & done`, eval.Limits{MaxJobs: 10}, eval.LimitJobs},
		{"jobs from exit trap", `trap 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep forever & done' EXIT`, eval.Limits{MaxJobs: 10}, eval.LimitJobs},
		{"jobs through eval and alias", "shopt -s expand_aliases; alias bgjob='sleep forever &'\nfor i in 1 2 3 4 5 6 7 8 9 10 11 12; do eval bgjob; done", eval.Limits{MaxJobs: 10}, eval.LimitJobs},
		{"jobs in subshell", `( for i in 1 2 3 4 5 6 7 8 9 10 11 12; do sleep forever & done )`, eval.Limits{MaxJobs: 10}, eval.LimitJobs},
		{"fds", `for i in {1..100}; do exec {fd}>/dev/null; done`, eval.Limits{MaxFDs: 20}, eval.LimitFDs},
		{"memory doubling", `x=a; while :; do x=$x$x; done`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		{"memory array", `a=(); while :; do a+=(xxxxxxxxxxxxxxxx); done`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		{"memory brace", `echo {1..100000000}`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		{"memory capture", `x=$(yes)`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		{"memory split", `set -- $(yes)`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		{"memory heredoc", "x=a; for i in {1..25}; do x=$x$x; done; cat <<E\n$x$x$x\nE", eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		{"memory assoc", `declare -A m; i=0; while :; do m[$i]=xxxxxxxxxxxxxxxxxxxxxxxx; ((i++)); done`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		{"memory in pipeline stage", `{ x=a; while :; do x=$x$x; done; } | cat`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		{"memory in background job", `{ x=a; while :; do x=$x$x; done; } & wait`, eval.Limits{MaxMemory: 1 << 20}, eval.LimitMemory},
		// Text parsed at run time is a script: bounded as the script is (issue 27: eval of
		// 4 MiB grew the server by 800 MiB).
		{"eval text", `x=$(printf '%2000s' :); eval "$x"`, eval.Limits{MaxScriptBytes: 1000}, eval.LimitScript},
		{"source text", `printf '%2000s' : > s.sh; source ./s.sh`, eval.Limits{MaxScriptBytes: 1000}, eval.LimitScript},
		{"source of a descriptor", `source <(printf '%2000s' :)`, eval.Limits{MaxScriptBytes: 1000}, eval.LimitScript},
		{"trap text", `trap "$(printf '%2000s' :)" EXIT`, eval.Limits{MaxScriptBytes: 1000}, eval.LimitScript},
		{"alias text", "shopt -s expand_aliases; alias a=\"$(printf '%2000s' :)\"\na", eval.Limits{MaxScriptBytes: 1000}, eval.LimitScript},
		{"declare compound text", `v="($(printf '%2000s' ''))"; declare -a "a=$v"`, eval.Limits{MaxScriptBytes: 1000}, eval.LimitScript},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, _, err := runScript(t, c.script, runOpts{limits: c.limits})
			var le *eval.LimitError
			if !errors.As(err, &le) || le.Kind != c.kind {
				t.Fatalf("got %v, want limit %v", err, c.kind)
			}
		})
	}
}

func TestPanicInGoroutineIsContained(t *testing.T) {
	boom := func(name string) eval.BuiltinFunc {
		if name != "boom" {
			return nil
		}
		return func(context.Context, *eval.Shell, []string) (int, error) { panic("boom") }
	}
	for _, script := range []string{"boom", "{ boom; } | cat", "echo x | boom", "x=$(boom)", "boom & wait", "cat <(boom)", "(boom)"} {
		_, _, _, err := runScript(t, script, runOpts{builtin: boom})
		var ie *eval.InternalError
		if !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want an InternalError", script, err)
		}
	}
}

func TestCancelEndsLoops(t *testing.T) {
	for _, script := range []string{
		`while :; do :; done`,
		`while :; do :; done | cat`,
		`x=$(while :; do :; done)`,
		`{ while :; do :; done; } & wait`,
		`cat <(while :; do :; done)`,
		`yes | cat > /dev/null`,
		`read x < <(while :; do :; done)`,
	} {
		ctx, cancel := context.WithCancel(context.Background())
		started := make(chan struct{})
		hook := func(name string) eval.BuiltinFunc {
			if name != "started" {
				return nil
			}
			return func(context.Context, *eval.Shell, []string) (int, error) {
				close(started)
				return 0, nil
			}
		}
		done := make(chan error, 1)
		go func() {
			_, _, _, err := runScript(t, "started; "+script, runOpts{ctx: ctx, builtin: hook})
			done <- err
		}()
		<-started
		cancel()
		err := <-done
		var ce *eval.CancelError
		if !errors.As(err, &ce) {
			t.Errorf("%s: got %v, want a CancelError", script, err)
		}
	}
}

// TestNoGoroutineSurvives runs many scripts that start goroutines and checks that the
// goroutine count comes back to where it was.
func TestNoGoroutineSurvives(t *testing.T) {
	scripts := []string{
		`echo a | cat | cat > /dev/null`,
		`: <(true)`,
		`cat <(echo x) > /dev/null`,
		`sleep 1 &`,
		`(echo x | cat) > /dev/null`,
		`x=$( { echo a; sleep 1; } & )`,
		`yes | { read x; }`,
		`exec 3< <(yes); read -u 3 x`,
	}
	run := func() {
		for _, s := range scripts {
			if _, _, _, err := runScript(t, s, runOpts{}); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	run()
	runtime.GC()
	base := runtime.NumGoroutine()
	for range 1000 / len(scripts) {
		run()
	}
	// Goroutines that already returned can still be counted until the scheduler runs their
	// exit (on a loaded machine that can take a while): poll until the count settles, with a
	// minute as the backstop of a real leak.
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Minute); n > base && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > base {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines: %d before, %d after\n%s", base, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestSandboxIdentity(t *testing.T) {
	out, _, _, err := runScript(t, `echo $$ $PPID $BASHPID $((PPID)) $(echo $BASHPID); let x=PPID; echo $x; y='$'; echo ${!y}; (echo $BASHPID); trap 'echo $$' EXIT`, runOpts{})
	if err != nil {
		t.Fatal(err)
	}
	want := "100 99 100 99 101\n99\n100\n102\n100\n"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
}

// TestBraceChargesRealBytes: brace expansion charges the bytes its words really take, not a
// count of words (issue 27: `: {1..2000000}` grew the server by 1.4 GB against a 256 MiB
// limit). The bytes the run allocates are measured; the expansion must fail at half of them and
// succeed with twice as much.
func TestBraceChargesRealBytes(t *testing.T) {
	for _, script := range []string{
		`: {1..100000}`,
		`: x{1..300}y{1..300}`,
		`: {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}{s,t}{u,v}{w,x}{y,z}{1,2}{3,4}{5,6}`,
		`: {0001..100000}`,
	} {
		t.Run(script, func(t *testing.T) { checkChargesRealBytes(t, "", script) })
	}
}

// TestSplitChargesRealBytes: word splitting charges the fields it makes, not only the text it
// splits (a 14 MB value of 7 million fields grew the server by a gigabyte against a 128 MiB
// budget, and split to its end after the call's timeout).
func TestSplitChargesRealBytes(t *testing.T) {
	const setup = `x=$(printf '%0200000d' 0); x=${x//0/a }; `
	// (What a loop over the fields allocates per iteration is garbage, not held: not charged.)
	for _, script := range []string{`set -- $x`, `a=($x)`, `: $x`, `a=(); a+=($x)`} {
		t.Run(script, func(t *testing.T) { checkChargesRealBytes(t, setup, script) })
	}
}

// checkChargesRealBytes measures the bytes script allocates (after setup) and runs it with a
// memory limit of half of them, which it must reach, and of twice as many, which must do.
func checkChargesRealBytes(t *testing.T, setup, script string) {
	t.Helper()
	var before, after runtime.MemStats
	if _, _, _, err := runScript(t, setup, runOpts{}); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, _, _, err := runScript(t, setup+script, runOpts{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	real := int64(after.TotalAlloc - before.TotalAlloc)
	runtime.ReadMemStats(&before)
	if _, _, _, err := runScript(t, setup, runOpts{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	real -= int64(after.TotalAlloc - before.TotalAlloc) // what setup alone allocates
	_, _, _, err := runScript(t, setup+script, runOpts{limits: eval.Limits{MaxMemory: real / 2}})
	var le *eval.LimitError
	if !errors.As(err, &le) || le.Kind != eval.LimitMemory {
		t.Errorf("with a limit of half the %d bytes it allocates: %v, want the memory limit", real, err)
	}
	if _, _, _, err := runScript(t, setup+script, runOpts{limits: eval.Limits{MaxMemory: 2*real + 4<<20}}); err != nil {
		t.Errorf("with a limit of twice the %d bytes it allocates: %v", real, err)
	}
}

// TestReplacementChargedBeforeBuilt (issue 27): what ${x/p/r} adds past its subject is charged
// before it is built: `${s// /$s}` of a 100,000-byte s would make 10 GB, a fatal out-of-memory
// error no recover catches. Each form, with the literal fast path, the matcher and the anchors,
// ends at the memory limit; the same forms of a small size still give bash's result.
func TestReplacementChargedBeforeBuilt(t *testing.T) {
	// s: 100,000 spaces; r: 100,000 & (each stands for the match: r after a 100,000-byte match
	// is 10 GB).
	// (The matcher's forms take a shorter subject, t: each of its searches reads the rest.)
	const setup = `s=$(printf "%100000s" ""); t=${s:0:2000}; shopt -s patsub_replacement; r=${s// /\&}; `
	for _, expr := range []string{`${s// /$s}`, `${t//[ ]/$s}`, `${t//?/$s}`, `${s// /"$s"}`, `${s/#*/$r}`, `${s/%*/$r}`, `${s/*/$r}`} {
		t.Run(expr, func(t *testing.T) {
			_, _, _, err := runScript(t, setup+`x=`+expr+`; echo ${#x}`, runOpts{limits: eval.Limits{MaxMemory: 64 << 20}})
			var le *eval.LimitError
			if !errors.As(err, &le) || le.Kind != eval.LimitMemory {
				t.Errorf("got %v, want the memory limit", err)
			}
		})
	}
	out, _, _, err := runScript(t, `s="a b c"; shopt -s patsub_replacement; echo "${s// /__}" "${s//[ ]/-}" "${s/#a/<&&>}" "${s/%c/[&]}" "${s/#/^}"`,
		runOpts{limits: eval.Limits{MaxMemory: 64 << 20}})
	if want := "a__b__c a-b-c <aa> b c a b [c] ^a b c\n"; err != nil || out != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}
}

// TestNestingIsBoundedBeforeParsing (issue 27): text that could nest the parser and the walks
// of what it builds past the sandbox's bound is refused before it is parsed, whatever nests it
// (`:|:|...` of 800 KB overflowed the Go stack in the static check's walk); long flat scripts
// run.
func TestNestingIsBoundedBeforeParsing(t *testing.T) {
	rep := strings.Repeat
	for _, src := range []string{
		rep("(", 20000) + ":" + rep(")", 20000), rep(":|", 20000) + ":", rep(":&&", 20000) + ":", rep(": ||\n", 20000) + ":",
		rep("if :; then ", 20000) + ":" + rep("; fi", 20000), rep("while false; do ", 20000) + ":" + rep("; done", 20000),
		rep("{ ", 20000) + ":" + rep("; }", 20000), "echo " + rep("$(", 20000) + rep(")", 20000),
	} {
		_, err := eval.Parse("t.sh", []byte(src))
		var ne *eval.NestingError
		if !errors.As(err, &ne) {
			t.Errorf("%.30q...: %v, want a nesting refusal", src, err)
		}
	}
	// The refusal names the file, the line where the text nests too deep, and the fix.
	_, err := eval.Parse("t.sh", []byte("echo a\necho b\n"+rep("(", 20000)+":"+rep(")", 20000)))
	if err == nil || !strings.HasPrefix(err.Error(), "t.sh: line 3: nested ") || !strings.Contains(err.Error(), `run the tool with "exec": "native"`) {
		t.Errorf("nesting refusal: %v; want file, line 3 and the fix", err)
	}
	flat := rep("echo a | cat && echo b || echo c; if :; then :; fi\n", 20000)
	if out, _, st, err := runScript(t, flat+"echo done", runOpts{}); err != nil || st != 0 || !strings.HasSuffix(out, "done\n") {
		t.Errorf("a long flat script: %v %d %.100q", err, st, out)
	}
}

// TestParseEndsWithTheCall: parsing a megabyte takes seconds on a loaded machine, so the
// parser reads through the call's context and stops when it ends (issue 27).
func TestParseEndsWithTheCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := []byte(strings.Repeat(":; ", 300000))
	if _, err := eval.ParseContext(ctx, "t.sh", src); !errors.Is(err, context.Canceled) {
		t.Errorf("ParseContext of a cancelled call: %v, want the cancellation", err)
	}
}

// TestCondSyntaxErrorsInBashWords: a syntax error inside [[ ]] is reported in bash's words
// (bash 5.2's conditional parser), never in the parser's token names (`[[ a 3< b ]]` said
// "not a valid test operator: LitRedir"); the status is the last command's, as bash's; eval
// prints the same words, returns 2 and the script goes on (checked against bash 5.2 where it
// is installed).
func TestCondSyntaxErrorsInBashWords(t *testing.T) {
	bash := bash52(t)
	var out, errOut string
	var st int
	var err error
	for _, tc := range []struct{ src, want string }{
		{"[[ a 3< b ]]", "t.sh: line 1: conditional binary operator expected\n"},
		{"[[ a 2>&1 b ]]", "t.sh: line 1: conditional binary operator expected\n"},
		{"[[ a -foo b ]]", "t.sh: line 1: conditional binary operator expected\n"},
		{"[[ a b ]]", "t.sh: line 1: conditional binary operator expected\n"},
		{"[[ ! a b ]]", "t.sh: line 1: conditional binary operator expected\n"},
		{"[[ a && b c ]]", "t.sh: line 1: conditional binary operator expected\n"},
		{"[[ a <3 b ]]", "t.sh: line 1: syntax error in conditional expression\n"},
		{"[[ a == b c ]]", "t.sh: line 1: syntax error in conditional expression\n"},
		{"[[ -n a b ]]", "t.sh: line 1: syntax error in conditional expression\n"},
		{"[[ a &> b ]]", "t.sh: line 1: unexpected token `&>', conditional binary operator expected\n"},
		{"[[ a | b ]]", "t.sh: line 1: unexpected token `|', conditional binary operator expected\n"},
		{"[[ a ;; b ]]", "t.sh: line 1: unexpected token `;;', conditional binary operator expected\n"},
		{"[[ ( a b ) ]]", "t.sh: line 1: conditional binary operator expected\nt.sh: line 1: expected `)'\n"},
		{"[[ ( a & b ) ]]", "t.sh: line 1: unexpected token `&', conditional binary operator expected\nt.sh: line 1: expected `)'\n"},
		{"[[ ( a == b c ) ]]", "t.sh: line 1: expected `)'\n"},
		{"[[ ( ( a b ) ) ]]", "t.sh: line 1: conditional binary operator expected\nt.sh: line 1: expected `)'\nt.sh: line 1: expected `)'\n"},
	} {
		out, errOut, st, err = runScript(t, "false\n"+strings.Replace(tc.src, "t.sh: line 1", "t.sh: line 2", -1)+"\necho after\n", runOpts{})
		want := strings.ReplaceAll(tc.want, "line 1", "line 2")
		if err != nil || out != "" || st != 1 || errOut != want {
			t.Errorf("%s: out %q, status %d, err %v, stderr %q; want stderr %q and status 1", tc.src, out, st, err, errOut, want)
		}
		// In eval bash prints the same words as eval's, eval returns 2 and the script goes on.
		script := "false\neval '" + tc.src + "'\necho \"after $?\"\n"
		want = strings.ReplaceAll(tc.want, "t.sh: line 1", "t.sh: eval: line 2")
		out, errOut, st, err = runScript(t, script, runOpts{})
		if err != nil || out != "after 2\n" || st != 0 || errOut != want {
			t.Errorf("eval %s: out %q, status %d, err %v, stderr %q; want stderr %q and after 2", tc.src, out, st, err, errOut, want)
		}
		checkBash(t, bash, script, "after 2\n", want, 0)
	}
	// Past the eval text's first line, the lines before it run first (TestCondErrorPastFirstLine).
	script := "eval $'echo a\\n[[ a 3< b ]]'\n"
	const want = "t.sh: eval: line 2: conditional binary operator expected\n"
	out, errOut, st, err = runScript(t, script, runOpts{})
	if err != nil || out != "a\n" || errOut != want || st != 2 {
		t.Errorf("eval of a [[ ]] syntax error on its second line: out %q, stderr %q, status %d, err %v; want a, %q, 2", out, errOut, st, err, want)
	}
	checkBash(t, bash, script, "a\n", want, 2)
}

// TestPatternSubjectCharged: a pattern match decodes its subject into characters and their
// offsets (17 bytes a byte), charged before it runs: [[ $x == *a*b* ]] over 20 MB held 400 MB.
func TestPatternSubjectCharged(t *testing.T) {
	const setup = `x=$(printf '%01000000d' 0); `
	for _, script := range []string{`[[ $x == *1* ]]`, `case $x in *1*) ;; esac`, `: ${x#*1}`, `: ${x%%1*}`, `: ${x/#*1/}`, `: ${x/%1*/}`} {
		_, _, _, err := runScript(t, setup+script, runOpts{limits: eval.Limits{MaxMemory: 8 << 20}})
		var le *eval.LimitError
		if !errors.As(err, &le) || le.Kind != eval.LimitMemory {
			t.Errorf("%s over 1 MB with 8 MiB: %v, want the memory limit", script, err)
		}
		if _, _, _, err := runScript(t, setup+script, runOpts{limits: eval.Limits{MaxMemory: 32 << 20}}); err != nil {
			t.Errorf("%s over 1 MB with 32 MiB: %v", script, err)
		}
	}
}
