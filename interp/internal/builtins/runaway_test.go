package builtins

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// repeating reads as an infinite repetition of its text (what `yes` or `cat /dev/zero` feeds).
type repeating struct {
	text string
	off  int
}

func (e *repeating) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], e.text[e.off:])
		n += k
		e.off = (e.off + k) % len(e.text)
	}
	return n, nil
}

// line1k is a 1000-byte line: inputs that fill the budget in few lines.
var line1k = strings.Repeat("y", 999) + "\n"

// How a runaway run must end.
const (
	byBudget  = "budget"  // the memory budget refuses a charge and ends the call
	byCancel  = "timeout" // the call's context ends (its timeout) and the utility notices
	byRefusal = "refusal" // the utility refuses the input up front, with a message
)

// TestRunawayUtilitiesEnd (T-DOS-7): every in-process utility driven into a loop, an repeating
// input or unbounded growth ends, either at the call's memory budget (the call is then ended
// with ErrMemoryBudget) or when the call's context ends. The test waits for each run to return;
// the deadline below only catches a run that never does.
func TestRunawayUtilitiesEnd(t *testing.T) {
	for _, tc := range []struct {
		argv  []string
		stdin io.Reader // nil: empty
		how   string
		setup func(t *testing.T, dir string)
	}{
		// sed: a branch loop that reads nothing, growing hold and pattern spaces, an repeating N.
		{[]string{"sed", ":a;ba"}, strings.NewReader("x\n"), byCancel, nil},
		{[]string{"sed", ":a;G;h;ba"}, strings.NewReader("x\n"), byBudget, nil},
		{[]string{"sed", ":a;s/a/aa/g;ba"}, strings.NewReader("a\n"), byBudget, nil},
		{[]string{"sed", ":a;s/a*/&&&&&&&&/;ba"}, strings.NewReader("a\n"), byBudget, nil},
		// A global substitution whose every search reads to the end of a long line: quadratic,
		// and each search as the loop over them stops with the call (issue 27).
		{[]string{"sed", `s/\(a.*z\)*a/b/g`}, strings.NewReader(strings.Repeat("a", 3<<20) + "\n"), byCancel, nil},
		// The same with an expression that looks behind its match (\B, ^, \b).
		{[]string{"sed", `s/\B\(a.*z\)*a/b/g`}, strings.NewReader(strings.Repeat("a", 3<<20) + "\n"), byCancel, nil},
		{[]string{"sed", `s/\(^\|a\)\(a.*z\)*/b/g`}, strings.NewReader(strings.Repeat("a", 3<<20) + "\n"), byCancel, nil},
		// H and N copy the space they grow (strings): quadratic time, so the timeout comes first.
		{[]string{"sed", "-n", "H;$p"}, &repeating{text: line1k}, byCancel, nil},
		{[]string{"sed", ":a;N;ba"}, &repeating{text: line1k}, byCancel, nil},
		{[]string{"sed", "s/x/y/"}, &repeating{text: "xxxx"}, byBudget, nil}, // one repeating line
		// awk (GoAWK: cancellation inside the VM, heap watch for memory).
		{[]string{"awk", "BEGIN { while (1) ; }"}, nil, byCancel, nil},
		// Growth by gsub: sixteenfold per pass, so the budget comes after ~2 million matches
		// (doubling took ~30 million, a minute on a loaded machine, past the timeout).
		{[]string{"awk", `BEGIN { s = "a"; while (1) gsub(/a/, "aaaaaaaaaaaaaaaa", s) }`}, nil, byBudget, nil},
		{[]string{"awk", `{ a[NR] = $0 }`}, &repeating{text: line1k}, byBudget, nil},
		// Padding a format asks for is charged before GoAWK makes it (40 MB here).
		{[]string{"awk", `BEGIN { printf "` + strings.Repeat("%1000000s", 40) + `"` + strings.Repeat(`, ""`, 40) + ` }`}, nil, byBudget, nil},
		// A program of four million newlines is as many tokens for each pass of the rewrite:
		// their slices are charged before they are allocated (a million took a second and
		// 40 MB a pass, unchecked, past a hostile call's timeout).
		{[]string{"awk", "-f", "nl.awk"}, nil, byBudget, func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "nl.awk"), []byte(strings.Repeat("\n", 4<<20)), 0o644)
		}},
		// jq (gojq: cancellation per step, heap watch for memory).
		{[]string{"jq", "-n", "repeat(1)"}, nil, byCancel, nil},
		{[]string{"jq", "-n", `"a" | until(false; . + .)`}, nil, byBudget, nil},
		{[]string{"jq", "-n", "[range(1e12)]"}, nil, byBudget, nil},
		{[]string{"jq", "-Rs", "."}, &repeating{text: line1k}, byBudget, nil},
		// Utilities that must see all their input.
		{[]string{"sort"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"tac"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"tail", "-n", "1000000000"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"tail", "-c", "100G"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"head", "-n", "-1000000000"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"head", "-c", "-100G"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"uniq", "-D"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"grep", "-B", "1000000000", "nomatch"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"grep", "-o", "."}, &repeating{text: "y"}, byBudget, nil},
		{[]string{"grep", "-f", "-", "a.txt"}, &repeating{text: line1k}, byBudget, nil},
		{[]string{"cut", "-c1"}, &repeating{text: "y"}, byBudget, nil},
		{[]string{"rev"}, &repeating{text: "y"}, byBudget, nil},
		{[]string{"od", "-w100000000", "-tx1"}, &repeating{text: "y"}, byBudget, nil},
		{[]string{"diff", "-", "a.txt"}, &repeating{text: line1k}, byBudget, nil},
		// Streaming utilities on repeating input end with the call.
		{[]string{"cat"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"tr", "a-z", "A-Z"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"wc"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"od", "-c"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"od", "-v", "-tx1z"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"base64"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"sha256sum"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"uniq", "-c"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"paste", "-s", "-"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"nl"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"grep", "y"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"head", "-n", "1000000000000"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"tee"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"gzip", "-c"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"comm", "-", "a.txt"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"xargs", "true"}, &repeating{text: "y\n"}, byCancel, nil},
		{[]string{"xargs", "-d", "\\n", "true"}, &repeating{text: "y"}, byRefusal, nil},
		{[]string{"xargs", "-I{}", "echo", strings.Repeat("{}", 1000)}, &repeating{text: strings.Repeat("y", 1000) + "\n"}, byRefusal, nil},
		{[]string{"tr", "a", "[b*999999999]"}, &repeating{text: "y\n"}, byRefusal, nil},
		{[]string{"od", "-w99999999999"}, &repeating{text: "y\n"}, byRefusal, nil},
		{[]string{"seq", "1", "1000000000000000"}, nil, byCancel, nil},
		{[]string{"yes"}, nil, byCancel, nil},
		{[]string{"sleep", "1000"}, nil, byCancel, nil},
		// diff of two orders of the same lines: Myers costs O(N*D), seconds at this size.
		{[]string{"diff", "up.txt", "down.txt"}, nil, byCancel, func(t *testing.T, dir string) {
			var up, down strings.Builder
			for i := range 20000 {
				fmt.Fprintf(&up, "%d\n", i)
				fmt.Fprintf(&down, "%d\n", 19999-i)
			}
			os.WriteFile(filepath.Join(dir, "up.txt"), []byte(up.String()), 0o644)
			os.WriteFile(filepath.Join(dir, "down.txt"), []byte(down.String()), 0o644)
		}},
		// Output without end from finite input (red-team round 3): a join whose one key pairs
		// 50,000 lines with 50,000 (2.5e9 lines) wrote on after its call had ended.
		{[]string{"join", "k.txt", "k.txt"}, nil, byCancel, func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "k.txt"), []byte(strings.Repeat("k x\n", 50000)), 0o644)
		}},
		{[]string{"fold", "-w", "1"}, &repeating{text: "yy\n"}, byCancel, nil},
		{[]string{"numfmt", "--to=si"}, &repeating{text: "1000\n"}, byCancel, nil},
		{[]string{"envsubst"}, &repeating{text: "${HOME}\n"}, byCancel, nil},
		{[]string{"column", "-t"}, &repeating{text: "a b\n"}, byBudget, nil},
		{[]string{"bc"}, strings.NewReader("x = 2; while (1) x = x * x\n"), byRefusal, nil},
		{[]string{"bc"}, strings.NewReader("while (1) { }\n"), byCancel, nil},
		{[]string{"expand"}, &repeating{text: "\ty\n"}, byCancel, nil},
		// Widths taken from the arguments (issue 27): written in chunks until the call ends,
		// never one allocation of their size (expand -t 1e14 was a fatal out-of-memory error,
		// date +%1000000000Y a quadratic loop that outlived its call by minutes).
		{[]string{"expand", "-t", "100000000000000"}, strings.NewReader("a\tb\n"), byCancel, nil},
		{[]string{"expand", "-t", "18446744073709551615"}, strings.NewReader("a\tb\n"), byCancel, nil},
		{[]string{"date", "+%1000000000000000Y"}, nil, byCancel, nil}, // 1e15: 1e12 bytes into io.Discard took only 0.28 s
		{[]string{"date", "+%99999999999999999999a"}, nil, byCancel, nil},
		{[]string{"paste", "-", "-"}, &repeating{text: "y\n"}, byCancel, nil},
		// Trees that never end: links back to the top, followed by -R, -L.
		{[]string{"grep", "-R", "needle", "."}, nil, byCancel, loops},
		{[]string{"find", "-L", ".", "-name", "x"}, nil, byCancel, loops},
		{[]string{"ls", "-RL", "."}, nil, byCancel, loops},
		{[]string{"du", "-L", "."}, nil, byCancel, loops},
	} {
		t.Run(strings.Join(tc.argv, " "), func(t *testing.T) {
			te := fixture(t)
			if tc.setup != nil {
				tc.setup(t, te.dir)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var exceeded atomic.Bool
			te.Budget = sandbox.NewBudget(32<<20, func() {
				exceeded.Store(true)
				cancel(sandbox.ErrMemoryBudget)
			})
			// The call's timeout: short where it is what ends the run; where the budget must end
			// it, long enough that the budget always comes first (the run still ends either way).
			timeout := 300 * time.Millisecond
			if tc.how != byCancel {
				timeout = time.Minute
			}
			ctx, stop := context.WithTimeout(ctx, timeout)
			defer stop()
			te.Stdin = tc.stdin
			if te.Stdin == nil {
				te.Stdin = strings.NewReader("")
			}
			errb := &lockedBuilder{}
			te.Stdout, te.Stderr = io.Discard, errb
			f, _ := Lookup(tc.argv[0])
			done := make(chan int, 1)
			go func() { done <- f(ctx, te.Env, tc.argv) }()
			var rc int
			select {
			case rc = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatalf("%s did not return after its call ended", tc.argv)
			}
			switch tc.how {
			case byBudget:
				if !exceeded.Load() || !errors.Is(context.Cause(ctx), sandbox.ErrMemoryBudget) {
					t.Errorf("rc %d: ended without hitting the budget (cause %v); stderr: %s", rc, context.Cause(ctx), errb.String())
				}
				if !strings.Contains(errb.String(), "memory budget exceeded") {
					t.Errorf("rc %d: no budget message on stderr: %q", rc, errb.String())
				}
			case byCancel:
				if ctx.Err() == nil {
					t.Errorf("rc %d: returned before its call ended (stderr %q)", rc, errb.String())
				}
			case byRefusal:
				if ctx.Err() != nil || errb.String() == "" {
					t.Errorf("rc %d: not refused up front (ctx %v, stderr %q)", rc, ctx.Err(), errb.String())
				}
			}
			if rc == 0 {
				t.Errorf("status 0 for a run that was ended")
			}
		})
	}
}

// loops makes a tree no run can finish: six links to the top directory. Following links ends
// only at the sandbox's limit on links in one path (ELOOP, nine deep), so two links made a tree
// of ~1,000 paths that a fast run could walk before its call ended; six make ~10 million.
func loops(t *testing.T, dir string) {
	for _, n := range []string{"l1", "l2", "l3", "l4", "l5", "l6"} {
		if err := os.Symlink(".", filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
}

// lockedBuilder is a strings.Builder safe to read while a run may still write.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestJQAsksBeforeBuilding (issue 27): a jq filter that builds a value in one step (a sum of
// a string or array with itself, an add of one string many times, a repeated string) asks the
// call's budget before gojq allocates it, so the run ends at the budget having allocated no
// more than about twice the budget in all; the heap watch alone sees such a step only once
// made (a doubling past 512 MiB grew the server past 1 GB).
func TestJQAsksBeforeBuilding(t *testing.T) {
	const budget = 32 << 20
	for _, filter := range []string{
		`reduce range(40) as $i ("x"; . + .) | length`,
		`"x" | until(length > 1e9; . + .) | length`,
		`[1] | until(length > 1e9; . + .) | length`,
		`{s: "x"} | until(.s | length > 1e9; .s += .s) | .s | length`,
		`("x" * 1000000) as $s | [range(1000) | $s] | add | length`,
		`"x" * 1e9 | length`,
		// What printing and joining make of a value held many times (tojson's walk, join's separators).
		`("x" * 1000000) as $s | [range(1000) | $s] | tojson | length`,
		`"x" * 1000000 as $s | [range(1000) | $s] | "\(.)" | length`,
		`reduce range(40) as $i ("x" * 1000; [., .]) | tostring | length`,
		`[range(1000000)] | join("y" * 1000000) | length`,
	} {
		t.Run(filter, func(t *testing.T) {
			te := fixture(t)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			te.Budget = sandbox.NewBudget(budget, func() { cancel(sandbox.ErrMemoryBudget) })
			errb := &lockedBuilder{}
			te.Stdin, te.Stdout, te.Stderr = strings.NewReader(""), io.Discard, errb
			f, _ := Lookup("jq")
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rc := f(ctx, te.Env, []string{"jq", "-n", filter})
			runtime.ReadMemStats(&after)
			if rc == 0 || !strings.Contains(errb.String(), "memory budget exceeded") {
				t.Errorf("rc %d, stderr %q: want the budget's error", rc, errb.String())
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*budget {
				t.Errorf("allocated %d MiB on a budget of %d MiB", grew>>20, budget>>20)
			}
		})
	}
}
