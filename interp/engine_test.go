package interp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// run executes script in a fresh project dir (a read-write root) and returns the outcome.
func run(t *testing.T, script string, limits sandbox.Limits) (*engine.Outcome, string) {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	p := filepath.Join(dir, "tool.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	scratchBase := scratchFor(t, e)
	out := e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t", Args: json.RawMessage(`{"a":1}`)}, Script: p, Dir: dir,
		ScratchBase: scratchBase, Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir, Limits: limits}})
	return out, scratchBase
}

// scratchFor is a temporary scratch base for e's calls. Its cleanup first waits for e to
// remove the calls' trees, which e does after answering: that removal racing the temporary
// directory's own failed the test on Windows ("Directory is not empty").
func scratchFor(t *testing.T, e *Engine) string {
	t.Helper()
	dir := t.TempDir()
	t.Cleanup(e.Wait)
	return dir
}

func TestRecursionIsBounded(t *testing.T) {
	for _, script := range []string{
		"f(){ f; }; f",
		"f(){ local x=$1; f $((x+1)); }; f 0",
		"f(){ if true; then while true; do f; done; fi; }; f",
		"f(){ echo \"$(f)\"; }; f",
		"f(){ g; }; g(){ f; }; f",
		"f(){ eval f; }; f",
	} {
		t.Run(script, func(t *testing.T) {
			// The timeout is a backstop: the depth limit must end the call however slowly the
			// machine gets there (more than 10 s under load).
			out, _ := run(t, script, sandbox.Limits{Timeout: 2 * time.Minute})
			if !strings.Contains(out.LimitHit, "depth limit") && !strings.Contains(string(out.Stderr), "depth limit") {
				t.Fatalf("limit not hit: %+v stderr=%s", out.LimitHit, out.Stderr)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		limits       sandbox.Limits
		check        func(*engine.Outcome) bool
	}{
		{"command limit", "while :; do :; done", sandbox.Limits{MaxCommands: 1000}, func(o *engine.Outcome) bool {
			return o.Limit == engine.LimitCommands && strings.Contains(o.LimitHit, "command limit")
		}},
		{"timeout", "sleep 5", sandbox.Limits{Timeout: 100 * time.Millisecond}, func(o *engine.Outcome) bool { return o.TimedOut }},
		{"stdout cap", "while :; do echo aaaaaaaaaa; done", sandbox.Limits{MaxStdoutBytes: 1000}, func(o *engine.Outcome) bool {
			return o.Limit == engine.LimitStdout && strings.Contains(o.LimitHit, "output exceeded 1000") && len(o.Stdout) == 1000
		}},
		{"stderr cap", "while :; do echo e >&2; done", sandbox.Limits{MaxStderrBytes: 500}, func(o *engine.Outcome) bool {
			return o.Limit == engine.LimitStderr && strings.Contains(o.LimitHit, "stderr exceeded 500")
		}},
		{"script size", "# " + strings.Repeat("x", 2000), sandbox.Limits{MaxScriptBytes: 1000}, func(o *engine.Outcome) bool {
			return o.Limit == engine.LimitScriptSize && strings.Contains(o.LimitHit, "script exceeds 1000")
		}},
		{"background jobs", "for i in $(seq 50); do sleep 5 & done; wait", sandbox.Limits{MaxJobs: 10},
			func(o *engine.Outcome) bool {
				return o.Limit == engine.LimitJobs && o.LimitHit == "Tool exceeded the background job limit (10 jobs)"
			}},
		{"background jobs in eval", "eval 'for i in $(seq 50); do (sleep 5) & done'; wait", sandbox.Limits{MaxJobs: 10},
			func(o *engine.Outcome) bool {
				return o.Limit == engine.LimitJobs && strings.Contains(o.LimitHit, "background job limit")
			}},
		{"background jobs behind a function of the counter's name", "__mcpbash_job(){ :; }; for i in $(seq 50); do sleep 5 & done; wait",
			sandbox.Limits{MaxJobs: 10}, func(o *engine.Outcome) bool {
				return o.Limit == engine.LimitJobs && strings.Contains(o.LimitHit, "background job limit")
			}},
		{"jobs under the limit", "for i in 1 2 3; do echo $i & done; wait", sandbox.Limits{MaxJobs: 3},
			func(o *engine.Outcome) bool {
				return o.Limit == engine.LimitNone && o.LimitHit == "" && o.ExitCode == 0 && len(o.Stdout) == 6
			}},
		// The limit counts the jobs running, as bash has none: many short jobs run, and the
		// shell remembers the last 4,096 finished ones for wait.
		{"many short jobs", "for i in $(seq 200); do true & done; wait; echo ok", sandbox.Limits{MaxJobs: 10},
			func(o *engine.Outcome) bool { return o.LimitHit == "" && string(o.Stdout) == "ok\n" }},
		{"finished jobs remembered", "(exit 4) & first=$!; for i in $(seq 5000); do (exit 3) & done; wait $first; echo $?; kill $first; echo $?",
			sandbox.Limits{MaxJobs: 10}, func(o *engine.Outcome) bool {
				return o.LimitHit == "" && string(o.Stdout) == "4\n1\n" && strings.Contains(string(o.Stderr), "No such process")
			}},
		{"finished jobs forgotten", "(exit 4) & first=$!; for i in $(seq 35000); do (exit 3) & done; wait $!; echo $?; wait $first; echo $?",
			sandbox.Limits{MaxJobs: 10}, func(o *engine.Outcome) bool {
				return o.LimitHit == "" && string(o.Stdout) == "3\n127\n" && strings.Contains(string(o.Stderr), "is not a child of this shell")
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := run(t, tc.script, tc.limits)
			if !tc.check(out) {
				t.Fatalf("outcome %+v (stderr %s)", out, out.Stderr)
			}
		})
	}
}

// Background jobs do not outlive the call, and the scratch tree is removed.
func TestBackgroundJobsEndAndScratchIsRemoved(t *testing.T) {
	out, base := run(t, `echo x > "$TMPDIR/f"; (sleep 0.3; echo late > "$HOME/late") & echo started`, sandbox.Limits{})
	if strings.TrimSpace(string(out.Stdout)) != "started" {
		t.Fatalf("stdout %q stderr %q", out.Stdout, out.Stderr)
	}
	time.Sleep(600 * time.Millisecond)
	ents, _ := os.ReadDir(base)
	if len(ents) != 0 {
		t.Fatalf("scratch left behind: %v", ents)
	}
}

func TestScratchIsPrivateAndLazy(t *testing.T) {
	out, base := run(t, `echo no-scratch-use`, sandbox.Limits{})
	if out.ExitCode != 0 {
		t.Fatal(string(out.Stderr))
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Fatalf("scratch created without use: %v", ents)
	}
	out, _ = run(t, `d=${TMPDIR%/*}; [ "$d" = "$HOME" ] && echo home-is-scratch; echo x > "$TMPDIR/a" && cat "$TMPDIR/a"; case "$TMPDIR" in "$PWD"*) echo INSIDE-ROOT;; esac`, sandbox.Limits{})
	if got := string(out.Stdout); got != "home-is-scratch\nx\n" {
		t.Fatalf("stdout %q stderr %q", got, out.Stderr)
	}
}

func TestFifoDirCannotBeAbused(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("SECRET"), 0o644)
	out, _ := run(t, `cat <(echo via-procsubst); ln -s `+secret+` "$TMPDIR/sh-interp-x" 2>/dev/null; cat "$TMPDIR/sh-interp-x" 2>/dev/null; cat "$TMPDIR"/../../fifo/* 2>/dev/null; true`, sandbox.Limits{})
	_ = dir
	if strings.Contains(string(out.Stdout), "SECRET") || !strings.Contains(string(out.Stdout), "via-procsubst") {
		t.Fatalf("stdout %q stderr %q", out.Stdout, out.Stderr)
	}
}

func TestSDKExitSemantics(t *testing.T) {
	out, _ := run(t, `mcp_args_require .missing; echo not-reached`, sandbox.Limits{})
	if out.ExitCode != 1 || strings.Contains(string(out.Stdout), "not-reached") || out.Fail == nil || out.Fail.Code != -32602 {
		t.Fatalf("%+v stdout %q", out, out.Stdout)
	}
	out, _ = run(t, `x=$(mcp_fail -32001 inner); echo "after:$?"`, sandbox.Limits{})
	if string(out.Stdout) != "after:1\n" || out.Fail == nil || out.Fail.Message != "inner" {
		t.Fatalf("%+v stdout %q", out, out.Stdout)
	}
	out, _ = run(t, `trap 'echo trapped' EXIT; mcp_fail -32000 boom`, sandbox.Limits{})
	if !strings.Contains(string(out.Stdout), "trapped") {
		t.Fatalf("EXIT trap not run: %q", out.Stdout)
	}
}

// TestArrayArithmetic: assignments to array elements in arithmetic run as bash runs them (the
// former engine refused them: its interpreter panicked on them).
func TestArrayArithmetic(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"(( a[1] += 1 )); echo ${a[1]}", "1\n"},
		{"a=(1); (( a[0]++ )); echo ${a[0]}", "2\n"},
		{"x=$(( b[2] = 3 )); echo $x ${b[2]}", "3 3\n"},
		{"declare -A m; (( m[k] += 5 )); echo ${m[k]}", "5\n"},
		{"i=1; (( i += 2 )); a[i]=$(( i * 2 )); echo ${a[3]}", "6\n"},
	} {
		out, _ := run(t, tc.script, sandbox.Limits{})
		if string(out.Stdout) != tc.want || out.ExitCode != 0 {
			t.Errorf("%s: %q, want %q (exit %d, stderr %s)", tc.script, out.Stdout, tc.want, out.ExitCode, out.Stderr)
		}
	}
}

// TestRefusedBeforeRun: a construct the evaluator refuses fails the call before anything of
// the script runs, naming the file, line, construct and fix.
func TestRefusedBeforeRun(t *testing.T) {
	out, _ := run(t, "echo first\necho ${x@P}\n", sandbox.Limits{})
	if out.ExitCode != 2 || len(out.Stdout) != 0 || !strings.Contains(string(out.Stderr), "tool.sh:2:6: ${var@P} (prompt expansion) is not supported in the sandbox") ||
		!strings.Contains(string(out.Stderr), `"exec": "native"`) {
		t.Fatalf("exit %d stdout %q stderr %s", out.ExitCode, out.Stdout, out.Stderr)
	}
	// Reached at run time through eval: refused there, before it runs.
	out, _ = run(t, "echo first\neval 'echo ${x@P}'\necho not-reached", sandbox.Limits{})
	if out.ExitCode == 0 || strings.Contains(string(out.Stdout), "not-reached") || !strings.Contains(string(out.Stderr), "(prompt expansion) is not supported") {
		t.Fatalf("exit %d stdout %q stderr %s", out.ExitCode, out.Stdout, out.Stderr)
	}
}

// TestHostFactsRefused: a script that asks the sandbox for a host fact it hides (the host's
// name, /proc, /etc/os-release) fails before it runs, naming the fix, instead of reporting the
// sandbox's virtual machine as the host; a probe ([ -f /proc/x ]) and a function of the script's
// own are not such a request.
func TestHostFactsRefused(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"echo first\nh=$(hostname)\necho $h", "tool.sh:2:5: hostname reporting the host (the sandbox answers with its virtual name)"},
		{"uname -a", "uname reporting the host (the sandbox answers with its virtual machine for -a)"},
		{"grep PRETTY_NAME /etc/os-release", "grep reporting the host (the sandbox hides /etc/os-release)"},
		{"free() { cat /proc/meminfo; }\nfree", "cat reporting the host (the sandbox hides /proc/meminfo)"},
	} {
		out, _ := run(t, tc.script, sandbox.Limits{})
		if out.ExitCode != 2 || len(out.Stdout) != 0 || !strings.Contains(string(out.Stderr), tc.want) || !strings.Contains(string(out.Stderr), `"exec": "native"`) {
			t.Errorf("%q: exit %d stdout %q stderr %s", tc.script, out.ExitCode, out.Stdout, out.Stderr)
		}
	}
	// Named at run time (a variable, eval): refused when it runs, ending the call.
	for _, script := range []string{"U=uname; echo first; x=$(\"$U\" -a 2>/dev/null || echo unknown); echo \"$x\"", "eval hostname", "/bin/hostname -s"} {
		out, _ := run(t, script, sandbox.Limits{})
		if out.ExitCode == 0 || strings.Contains(string(out.Stdout), "mcp-sandbox") || strings.Contains(string(out.Stdout), "unknown") ||
			!strings.Contains(string(out.Stderr), "reporting the host") {
			t.Errorf("%q: exit %d stdout %q stderr %s", script, out.ExitCode, out.Stdout, out.Stderr)
		}
	}
	for _, script := range []string{
		"if [ -f /etc/os-release ]; then echo linux; else echo other; fi",
		"hostname() { echo mine; }\nhostname",
		"uname -s",
	} {
		if out, _ := run(t, script, sandbox.Limits{}); out.ExitCode != 0 {
			t.Errorf("%q: exit %d stderr %s", script, out.ExitCode, out.Stderr)
		}
	}
}

func TestMemoryLimit(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	p := filepath.Join(dir, "tool.sh")
	os.WriteFile(p, []byte(`x=aaaaaaaaaaaaaaaa; while :; do x=$x$x; done`), 0o755)
	e, _ := NewEngine(256 << 20)
	start := time.Now()
	// The timeout is a backstop: doubling to 256 MiB took more than 20 s on a loaded machine.
	out := e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t"}, Script: p, Dir: dir, ScratchBase: scratchFor(t, e),
		Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir, Limits: sandbox.Limits{Timeout: 2 * time.Minute}}})
	// Either memory bound may end it first: the heap limit, or the byte budget the doubling is
	// charged to (which of the two comes first depends on when the heap is sampled).
	if out.Limit != engine.LimitMemory || !strings.Contains(out.LimitHit, "memory limit") && !strings.Contains(out.LimitHit, "memory budget") {
		t.Fatalf("outcome %+v after %v", out, time.Since(start))
	}
}

// Garbage (what a finished call leaves until the next GC) does not cancel the next call: not
// garbage above the limit, nor garbage below it that a call's own churn carries past it (a
// heap that grew since the last sample is no runaway when a GC leaves it under the limit).
func TestMemoryLimitIgnoresGarbage(t *testing.T) {
	for _, tc := range []struct {
		limitMiB, garbageMiB int
		script               string
		want                 string
	}{
		{128, 256, `sleep 0.1; echo ok`, "ok\n"},
		// Its own live data peaks near 70 MiB (the capture's buffer and the value).
		{128, 100, `x=$(head -c 24000000 /dev/zero | tr '\0' a); echo ${#x}`, "24000000\n"},
	} {
		dir, _ := filepath.EvalSymlinks(t.TempDir())
		p := filepath.Join(dir, "tool.sh")
		os.WriteFile(p, []byte(tc.script), 0o755)
		e, _ := NewEngine(uint64(tc.limitMiB) << 20)
		garbage := make([]byte, tc.garbageMiB<<20)
		for i := 0; i < len(garbage); i += 4096 {
			garbage[i] = 1
		}
		runtime.KeepAlive(garbage)
		garbage = nil
		out := e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t"}, Script: p, Dir: dir, ScratchBase: scratchFor(t, e),
			Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir, Limits: sandbox.Limits{Timeout: 20 * time.Second}}})
		if out.LimitHit != "" || out.ExitCode != 0 || string(out.Stdout) != tc.want {
			t.Errorf("%d MiB of garbage, %s: outcome %+v", tc.garbageMiB, tc.script, out)
		}
		_ = garbage
	}
}

// The heap sampler outlives a call (back-to-back calls share it) and then ends by itself.
func TestMemGuardWatcherEnds(t *testing.T) {
	g := &memGuard{limit: 1 << 40}
	watching := func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.watching
	}
	for range 3 {
		c := &call{}
		g.enter(c, func(error) {})
		g.leave(c)
	}
	if !watching() {
		t.Fatal("no sampler after a call")
	}
	deadline := time.Now().Add(2 * time.Minute) // a backstop: it ends after 50 idle samples
	for watching() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if watching() {
		t.Fatal("sampler still running long after the last call")
	}
}

// TestProcessSubstitutionLoops (T-DOS-6): process substitutions nobody reads end with their
// command; a loop of thousands stays within the job limit (which counts those running), and
// diff reads two of them as files.
func TestProcessSubstitutionLoops(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{`for i in $(seq 5000); do : <(true); done; echo done`, "done\n"},
		{`for i in $(seq 3000); do : >(cat); done; echo done`, "done\n"},
		{`diff <(printf 'a\nb\n') <(printf 'a\nc\n'); echo rc=$?`, "2c2\n< b\n---\n> c\nrc=1\n"},
		{`while IFS= read -r -d '' f; do echo "[$f]"; done < <(printf 'a b\0c\0')`, "[a b]\n[c]\n"},
		{`echo hi | tee >(cat >&2) >/dev/null; wait`, ""},
	} {
		out, _ := run(t, tc.script, sandbox.Limits{Timeout: 2 * time.Minute})
		if string(out.Stdout) != tc.want || out.LimitHit != "" {
			t.Errorf("%s: %q, want %q (limit %q, stderr %s)", tc.script, out.Stdout, tc.want, out.LimitHit, out.Stderr)
		}
	}
}

// TestNotUTF8IsNoted checks that output MCP text cannot carry as is (it becomes U+FFFD) is
// named on the call's stderr, and that UTF-8 output, split or not by the stderr tail, is not.
func TestNotUTF8IsNoted(t *testing.T) {
	const fix = ": the result's text shows each as U+FFFD; to return bytes exactly, encode them (base64) or write them to a file and return it as a resource\n"
	for _, tc := range []struct {
		name, script, stderr string
	}{
		{"utf-8", `printf 'h\xc3\xa9\n'; printf '\xe2\x82\xac\n' >&2`, "€\n"},
		{"stdout byte", `printf 'a\xffb\n'`, "mcp-bash: stdout is not UTF-8 (1 invalid byte, the first at offset 1)" + fix},
		{"stdout truncated rune", `printf 'ok\xc3'`, "mcp-bash: stdout is not UTF-8 (1 invalid byte, the first at offset 2)" + fix},
		{"stdout latin-1", `printf 'caf\xe9 na\xefve\n'`, "mcp-bash: stdout is not UTF-8 (2 invalid bytes, the first at offset 3)" + fix},
		{"stderr", `printf 'x\xfe\n' >&2`, "x\xfe\nmcp-bash: stderr is not UTF-8 (1 invalid byte, the first at offset 1)" + fix},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _ := run(t, tc.script, sandbox.Limits{})
			if string(out.Stderr) != tc.stderr || out.ExitCode != 0 {
				t.Errorf("stderr %q (exit %d), want %q", out.Stderr, out.ExitCode, tc.stderr)
			}
		})
	}
}

// TestWaitWhileCallsAnswer: Wait may run while calls still answer and start their scratch
// trees' removal (a server's Close with a call in flight), and returns once those it saw end.
func TestWaitWhileCallsAnswer(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	p := filepath.Join(dir, "tool.sh")
	if err := os.WriteFile(p, []byte(`echo x > "$TMPDIR/f"`), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	base := scratchFor(t, e)
	var calls sync.WaitGroup
	for range 8 {
		calls.Go(func() {
			for range 5 {
				e.Run(context.Background(), Job{Call: &engine.Call{Tool: "t"}, Script: p, Dir: dir, ScratchBase: base,
					Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: dir}})
			}
		})
	}
	stop := make(chan struct{})
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		for {
			select {
			case <-stop:
				return
			default:
				e.Wait()
			}
		}
	}()
	calls.Wait()
	close(stop)
	<-waited
	e.Wait()
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Fatalf("%d scratch trees left after Wait", len(left))
	}
}
