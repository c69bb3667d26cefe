package eval_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval/internal/osfs"
)

// releasedRun runs script in a runner from New, releases it, and returns its stdout.
func releasedRun(t *testing.T, dir, script string, vars []eval.Var) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	r := eval.New(&eval.Config{FS: osfs.FS{}, Exec: pureExec, Environ: testEnv, Dir: dir, Name: "t.sh", Vars: vars,
		Stdout: &stdout, Stderr: &stderr, Identity: eval.Identity{PID: 100, PPID: 99}})
	prog, err := eval.Parse("t.sh", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), prog); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	r.Release()
	return stdout.String() + stderr.String()
}

// TestReleasedRunnerStartsFresh: a runner's memory goes back to a pool when its run is over
// (Runner.Release) and the next New reuses it; whatever the last run changed (variables,
// functions, options, traps, aliases, directory and its stack, umask, descriptors, positional
// parameters, status, the last background job, $RANDOM's seed) the next run starts as a new one,
// and runs in parallel never share one.
func TestReleasedRunnerStartsFresh(t *testing.T) {
	dir := t.TempDir()
	probe := `echo "v=${MINE-unset} x=${X-unset} f=$(type -t f || echo none) opts=$- al=$(alias)"; trap -p
echo "pwd=$PWD dirs=$(dirs) um=$(umask) fd3=$( { : >&3; } 2>/dev/null && echo open || echo closed) n=$# st=$? bg=$! call=${CALLVAR-unset}"`
	dirty := `MINE=1; export X=2; f() { :; }; set -euo pipefail; set -- a b c; trap 'echo bye' EXIT; shopt -s expand_aliases; alias ll=ls
mkdir -p sub; pushd sub >/dev/null; umask 077; exec 3>/dev/null; RANDOM=7; CALLVAR=changed; { :; } & false || true`
	want := releasedRun(t, dir, probe, []eval.Var{{Name: "CALLVAR", Value: "given"}})
	if !strings.Contains(want, "v=unset x=unset f=none") || !strings.Contains(want, "fd3=closed n=0") || !strings.Contains(want, "call=given") {
		t.Fatalf("fresh runner:\n%s", want)
	}
	for range 3 {
		releasedRun(t, dir, dirty+"\n"+probe, []eval.Var{{Name: "CALLVAR", Value: "given"}})
		if got := releasedRun(t, dir, probe, []eval.Var{{Name: "CALLVAR", Value: "given"}}); got != want {
			t.Fatalf("a run after a released one that changed its state:\n%s\nwant\n%s", got, want)
		}
	}
	// Two released runs with the same seed draw the same $RANDOM sequence: the generator is
	// the run's own, never one left by the last run.
	seeded := func() string {
		var out bytes.Buffer
		r := eval.New(&eval.Config{FS: osfs.FS{}, Exec: pureExec, Environ: testEnv, Dir: dir, Name: "t.sh", Seed: 42,
			Stdout: &out, Stderr: &out, Identity: eval.Identity{PID: 100}})
		prog, _ := eval.Parse("t.sh", []byte(`echo $RANDOM $RANDOM; RANDOM=1`))
		if _, err := r.Run(context.Background(), prog); err != nil {
			t.Fatal(err)
		}
		r.Release()
		return out.String()
	}
	if a, b := seeded(), seeded(); a != b {
		t.Fatalf("same seed, different sequence after a release: %q, %q", a, b)
	}
	// In parallel (with -race: no memory shared between the runs).
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if i%2 == 0 {
					releasedRun(t, dir, dirty, nil)
				} else if got := releasedRun(t, dir, probe, []eval.Var{{Name: "CALLVAR", Value: "given"}}); got != want {
					errs <- got
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Fatalf("a parallel run began with another's state:\n%s\nwant\n%s", got, want)
	}
}

// TestReleaseBeforeRunIgnored: a runner released before its run is never reused while it may
// still run, and one released twice is handed out once.
func TestReleaseBeforeRunIgnored(t *testing.T) {
	var out bytes.Buffer
	r := eval.New(&eval.Config{FS: osfs.FS{}, Exec: pureExec, Environ: testEnv, Dir: t.TempDir(), Name: "t.sh",
		Stdout: &out, Stderr: &out, Identity: eval.Identity{PID: 100}})
	r.Release() // not run: ignored
	other := eval.New(&eval.Config{FS: osfs.FS{}, Exec: pureExec, Environ: testEnv, Dir: t.TempDir(), Name: "t.sh",
		Stdout: &bytes.Buffer{}, Identity: eval.Identity{PID: 100}})
	if other == r {
		t.Fatal("a runner released before its run was handed out again")
	}
	prog, _ := eval.Parse("t.sh", []byte(`X=1; echo "x=$X"`))
	if _, err := r.Run(context.Background(), prog); err != nil || out.String() != "x=1\n" {
		t.Fatalf("%v %q", err, out.String())
	}
	r.Release()
	r.Release() // twice: the second is ignored, so one block is never handed out twice
	a := eval.New(&eval.Config{FS: osfs.FS{}, Name: "a", Identity: eval.Identity{PID: 100}})
	b := eval.New(&eval.Config{FS: osfs.FS{}, Name: "b", Identity: eval.Identity{PID: 100}})
	if a == b {
		t.Fatal("a released runner was handed out twice")
	}
}
