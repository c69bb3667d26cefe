package interp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

const fuzzCanary = "CANARY-FUZZ-2b7e15-host-secret"

// fuzzWorld is shared by every input of one fuzzing process: an engine, a read-write root, a
// host dir outside it with a canary file, a fake host HOME and a canary in the environment.
type fuzzWorld struct {
	e                         *Engine
	root, outside, home, base string
	scripts                   string
	n                         atomic.Int64
}

func newFuzzWorld(f *testing.F) *fuzzWorld {
	var b [6]byte
	_, _ = rand.Read(b[:])
	top, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	tag := hex.EncodeToString(b[:])
	w := &fuzzWorld{root: filepath.Join(top, "root"), outside: filepath.Join(top, "outside-"+tag),
		home: filepath.Join(top, "home-"+tag), base: filepath.Join(top, "scratch"), scripts: filepath.Join(top, "scripts")}
	for _, d := range []string{w.root, w.outside, w.home, w.base, w.scripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.outside, "secret.txt"), []byte(fuzzCanary+"\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	w.fillRoot()
	if w.e, err = NewEngine(512 << 20); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(w.e.Wait) // before the temporary directory's removal (scratchFor)
	f.Setenv("MCPBASH_FUZZ_CANARY", fuzzCanary)
	f.Setenv("HOME", w.home)
	return w
}

// fillRoot makes the root's first content: a file, and a link planted towards the canary.
func (w *fuzzWorld) fillRoot() {
	_ = os.WriteFile(filepath.Join(w.root, "inside.txt"), []byte("inside\n"), 0o644)
	// Relative, so that listing it shows no absolute host path (its target is root content).
	_ = os.Symlink(filepath.Join("..", filepath.Base(w.outside), "secret.txt"), filepath.Join(w.root, "planted"))
}

// resetRoot gives the inputs after one that was handed a host path a fresh root: that input
// may have left the path in a file (echo @OUT@/w > 0), which a later one printing the file
// did not find out (a CI run's fuzzing reported "sed b 0" so).
func (w *fuzzWorld) resetRoot(t *testing.T) {
	ents, err := os.ReadDir(w.root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(w.root, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	w.fillRoot()
}

// FuzzRun (T-FS-1, T-FS-2, T-ID-1, T-DOS-1) runs arbitrary scripts in the sandbox. @OUT@ in a script is replaced by the host dir
// outside the root. Oracles: Run returns within its time limit, nothing the script produced
// holds the canary (file or environment) or a host path it was not given, and no Go panic text
// shows.
func FuzzRun(f *testing.F) {
	for _, s := range []string{
		"echo hi", "cat inside.txt", "cat @OUT@/secret.txt", "cat planted; ls -la; ls ..; ls /",
		"cat ../../../../etc/passwd", "cd ..; cd ..; pwd; ls", "echo $HOME ~ ~root; env; set", "printenv; declare -p",
		"ln -s @OUT@ x; cat x/secret.txt", "echo x > @OUT@/w; echo $?", "source @OUT@/secret.txt",
		"x=$(<@OUT@/secret.txt); echo $x", "cat <(cat @OUT@/secret.txt)", "eval \"$(printf 'c%st @OUT@/secret.txt' a)\"",
		"c=ca; d=t; $c$d @OUT@/secret.txt", "echo @OUT@/secret.txt | xargs cat", "trap 'cat @OUT@/secret.txt' EXIT",
		"f(){ f; }; f", "while :; do :; done", "x=a; for i in {1..30}; do x=$x$x; done", "echo {1..99999}",
		"printf '%200000s' x | wc -c", "read x; echo $x", "(( a[1] += 10 )) & wait", "declare -A m; m[k]=v; echo ${m[k]}",
		"find . -name '*.txt' | sort; grep -r inside .", "jq -n '$ENV'; awk 'BEGIN{print ENVIRON[\"HOME\"]}'",
		"for i in 1 2 3; do sleep 0.01 & done; wait", "set -e; false; echo no", "case x in x) echo y;; esac",
		"echo ${x:-${y:=z}} ${#y} ${y^^} ${y/z/q}", "a=(1 2 3); echo ${a[@]:1} ${!a[@]}", "exec 3>/tmp/x", "mcp_emit_text hi",
		"mcp_args_get '.a'; mcp_result_success '{}'", "type ls; command -v bash; hash -r", "/bin/sh -c id; bash -c id",
		"$(( ((((((1)))))) ))", "builtin eval '(( a[1] += 1 ))' & wait", "command eval 'echo $$ $PPID'",
		"s=$(printf '%20000s' ''); eval \"${s// /(}\"", "trap '((((1' EXIT; alias x='$((('", "echo $((1/0)); echo $((2**63))", "shopt -s globstar; echo **", "sed -n p inside.txt | tr a-z A-Z",
	} {
		f.Add(s)
	}
	w := newFuzzWorld(f)
	f.Fuzz(func(t *testing.T, script string) {
		script = strings.ReplaceAll(script, "@OUT@", w.outside)
		if strings.Contains(script, w.outside) || strings.Contains(script, w.home) {
			defer w.resetRoot(t)
		}
		p := filepath.Join(w.scripts, "s"+itoa(w.n.Add(1))+".sh")
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		limits := sandbox.Limits{Timeout: 500 * time.Millisecond, MaxCommands: 200_000, MaxStdoutBytes: 1 << 20, MaxStderrBytes: 256 << 10}
		done := make(chan *engine.Outcome, 1)
		go func() {
			done <- w.e.Run(context.Background(), Job{Call: &engine.Call{Tool: "fuzz", Args: json.RawMessage(`{"a":1}`)}, Script: p,
				Dir: w.root, ScratchBase: w.base, Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: w.root, Mode: sandbox.ReadWrite}},
					ToolDir: w.scripts, Limits: limits}})
		}()
		out := awaitRun(t, done, script)
		all := string(out.Stdout) + "\x00" + string(out.Stderr) + "\x00" + string(out.Access) + "\x00" + out.LimitHit
		if out.Fail != nil {
			b, _ := json.Marshal(out.Fail)
			all += string(b)
		}
		for _, r := range out.Resources {
			b, _ := json.Marshal(r)
			all += string(b)
		}
		if strings.Contains(all, "CANARY") && !strings.Contains(script, "CANARY") {
			t.Fatalf("canary leaked for %q:\n%.2000s", script, all)
		}
		for _, hp := range []string{w.outside, w.home} {
			if strings.Contains(all, hp) && !strings.Contains(script, hp) {
				t.Fatalf("host path %s revealed for %q:\n%.2000s", hp, script, all)
			}
		}
		if strings.Contains(all, "goroutine ") || strings.Contains(all, "panic:") {
			if !strings.Contains(script, "goroutine ") && !strings.Contains(script, "panic:") {
				t.Fatalf("Go crash text for %q:\n%.2000s", script, all)
			}
		}
		if ents, _ := os.ReadDir(w.outside); len(ents) != 1 {
			t.Fatalf("the outside dir changed (%d entries) after %q", len(ents), script)
		}
	})
}

// awaitRun waits for a FuzzRun input's outcome. The oracle "Run ends with its 500 ms timeout"
// is measured in this process's CPU time (at most 10 s, whatever else the machine runs): in
// wall-clock time a loaded machine made a legitimate input (doubling a string to 512 MiB, whose
// copies no deadline can interrupt) take 14 s. A run blocked without using CPU is caught by
// the wall-clock backstop.
func awaitRun(t *testing.T, done <-chan *engine.Outcome, script string) *engine.Outcome {
	t.Helper()
	const cpuBudget, backstop = 10 * time.Second, 2 * time.Minute
	cpu0, measured := processCPU()
	hung := time.NewTimer(backstop)
	defer hung.Stop()
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case out := <-done:
			return out
		case <-poll.C:
			if cpu, _ := processCPU(); measured && cpu-cpu0 > cpuBudget {
				t.Fatalf("Run used more than %v of CPU time (timeout 500ms) for %q", cpuBudget, script)
			}
		case <-hung.C:
			t.Fatalf("Run did not return within %v (timeout 500ms) for %q", backstop, script)
		}
	}
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for n >= 10 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	b[i] = byte('0' + n)
	return string(b[i:])
}
