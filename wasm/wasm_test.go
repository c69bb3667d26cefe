package wasm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/wasm"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

var (
	rtOnce sync.Once
	shared *wasm.Runtime
)

func TestMain(m *testing.M) { os.Exit(wasmtest.Main(m)) }

// runtimeForTest is one runtime for the whole test binary (as a server has one), with a file
// cache so that the probe compiles once.
func runtimeForTest(t *testing.T) *wasm.Runtime {
	t.Helper()
	rtOnce.Do(func() {
		var err error
		shared, err = wasm.New(context.Background(), wasm.Options{CacheDir: wasmtest.TempDir(t, "cache")})
		if err != nil {
			panic(err)
		}
	})
	return shared
}

func writeModule(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.wasm")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// project is a root with a file, a read-only root, and an outside dir with a secret.
type project struct {
	root, ro, outside string
}

func newProject(t *testing.T) project {
	t.Helper()
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	p := project{root: filepath.Join(base, "root"), ro: filepath.Join(base, "ro"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{p.root, p.ro, p.outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(p.root, "in.txt"), []byte("inside\n"), 0o644)
	os.WriteFile(filepath.Join(p.ro, "ro.txt"), []byte("read-only\n"), 0o644)
	os.WriteFile(filepath.Join(p.outside, "secret.txt"), []byte("SECRET\n"), 0o644)
	os.Symlink(filepath.Join(p.outside, "secret.txt"), filepath.Join(p.root, "planted"))
	os.Symlink("../outside", filepath.Join(p.root, "planted-dir"))
	return p
}

// policy's timeout is only a backstop against a hung guest: no test here asserts it (TestLimits
// sets its own deadlines), so it is long enough for any load.
func (p project) policy() sandbox.Policy {
	return sandbox.Policy{Roots: []sandbox.Root{{Path: p.root, Mode: sandbox.ReadWrite}, {Path: p.ro, Mode: sandbox.ReadOnly}},
		Limits: sandbox.Limits{Timeout: 2 * time.Minute}}
}

func (p project) fs(t *testing.T) *sandbox.FS {
	t.Helper()
	f, err := sandbox.NewFS(p.policy(), sandbox.Scratch{}, &sandbox.Record{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestMinimalModuleRuns(t *testing.T) {
	rt := runtimeForTest(t)
	mod := writeModule(t, wasmtest.Minimal())
	var out bytes.Buffer
	st, err := rt.Run(context.Background(), wasm.Program{Module: mod, Args: []string{"min"}, Stdout: &out, FS: newProject(t).fs(t)})
	if err != nil || st != 0 || out.String() != "ok\n" {
		t.Fatalf("status %d, err %v, stdout %q", st, err, out.String())
	}
}

func TestBrokenModuleIsStatus126(t *testing.T) {
	rt := runtimeForTest(t)
	mod := writeModule(t, []byte("\x00asm\x01\x00\x00\x00\x01\xff"))
	var errw bytes.Buffer
	st, err := rt.Run(context.Background(), wasm.Program{Module: mod, Args: []string{"bad"}, Stderr: &errw, FS: newProject(t).fs(t)})
	if st != 126 || err == nil || !strings.Contains(errw.String(), "malformed module") {
		t.Fatalf("status %d, err %v, stderr %q", st, err, errw.String())
	}
}

// probe builds the probe guest and compiles it once, with no deadline: a call's deadline also
// bounds the compile, and a cold compile of a Go guest on a loaded machine can take longer
// than the tests' timeouts.
func probe(t *testing.T) string {
	p := wasmtest.BuildGo(t, "wasm/testdata/probe")
	if _, err := runtimeForTest(t).Compile(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// runProbe runs the probe as a command with args over the project's FS.
func runProbe(t *testing.T, p project, ctx context.Context, stdin io.Reader, args ...string) (string, int, error) {
	t.Helper()
	var out, errw bytes.Buffer
	st, err := runtimeForTest(t).Run(ctx, wasm.Program{Module: probe(t), Args: append([]string{"probe"}, args...), Dir: p.root,
		Stdin: stdin, Stdout: &out, Stderr: &errw, FS: p.fs(t)})
	return out.String() + errw.String(), st, err
}

func TestGuestSeesOnlyRoots(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	ctx := context.Background()
	secret := filepath.Join(p.outside, "secret.txt")
	refused := []struct {
		name string
		args []string
	}{
		{"DotDot", []string{"read", "../outside/secret.txt"}},
		{"DotDotFromRoot", []string{"read", "../../../../../../../.." + secret}},
		{"Absolute", []string{"read", secret}},
		{"PlantedSymlink", []string{"read", "planted"}},
		{"PlantedSymlinkDir", []string{"read", "planted-dir/secret.txt"}},
		{"WriteThroughPlanted", []string{"write", "planted-dir/new.txt"}},
		{"WriteAbsolute", []string{"write", filepath.Join(p.outside, "new.txt")}},
		{"WriteReadOnlyRoot", []string{"write", filepath.Join(p.ro, "ro.txt")}},
		{"CreateInReadOnlyRoot", []string{"write", filepath.Join(p.ro, "new.txt")}},
		{"GuestSymlinkOut", []string{"symlink", "made", secret}},
		{"GuestSymlinkDotDot", []string{"symlink", "made2", "../outside/secret.txt"}},
		{"HardLink", []string{"link", "hard", "in.txt"}},
		{"ListOutside", []string{"list", p.outside}},
	}
	for _, tc := range refused {
		out, st, err := runProbe(t, p, ctx, nil, tc.args...)
		if err != nil || st != 0 {
			t.Errorf("%s: status %d err %v: %s", tc.name, st, err, out)
		}
		if !strings.HasPrefix(out, "ERR") || strings.Contains(out, "SECRET") {
			t.Errorf("%s: not refused: %s", tc.name, out)
		}
	}
	if _, err := os.Stat(filepath.Join(p.outside, "new.txt")); err == nil {
		t.Error("a file was written outside the roots")
	}
	if b, _ := os.ReadFile(filepath.Join(p.ro, "ro.txt")); string(b) != "read-only\n" {
		t.Errorf("read-only root changed: %q", b)
	}
	allowed := [][]string{{"read", "in.txt"}, {"read", filepath.Join(p.ro, "ro.txt")}, {"write", "out.txt"}, {"list", "/"}}
	if runtime.GOOS == "windows" {
		// The sandbox makes no links on Windows: a guest's symlink fails (EPERM).
		if out, st, err := runProbe(t, p, ctx, nil, "symlink", "ok-link", "in.txt"); err != nil || st != 0 || !strings.Contains(out, "not permitted") {
			t.Errorf("symlink on Windows: status %d err %v: %s", st, err, out)
		}
	} else {
		allowed = append(allowed, []string{"symlink", "ok-link", "in.txt"})
	}
	for _, a := range allowed {
		if out, st, err := runProbe(t, p, ctx, nil, a...); err != nil || st != 0 || !strings.HasPrefix(out, "OK") {
			t.Errorf("%v: status %d err %v: %s", a, st, err, out)
		}
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	// The guests below never end by themselves (an endless loop, an hour's sleep, a read of a
	// pipe nobody closes), so ending with DeadlineExceeded shows the deadline ended them; hung
	// only turns a run that ignores its deadline into a failure rather than a test timeout.
	const hung = time.Minute
	t.Run("Timeout", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, _, err := runProbe(t, p, ctx, nil, "loop")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > hung {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("StdinNeverClosed", func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, _, err := runProbe(t, p, ctx, pr, "stdin")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > hung {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("Sleep", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, _, err := runProbe(t, p, ctx, nil, "sleep")
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > hung {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
	})
	t.Run("Memory", func(t *testing.T) {
		out, st, err := runProbe(t, p, context.Background(), nil, "alloc")
		if !errors.Is(err, wasm.ErrMemoryLimit) || st == 0 {
			t.Fatalf("status %d err %v: %.300s", st, err, out)
		}
	})
}

func TestRunToolContract(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	rt := runtimeForTest(t)
	call := &engine.Call{Tool: "probe", Args: json.RawMessage(`{"mode":"args"}`)}
	out := rt.RunTool(context.Background(), engine.Job{Call: call, Script: probe(t), Dir: p.root, Policy: p.policy(),
		Env: map[string]string{"MCP_TOOL_NAME": "probe"}})
	if out.ExitCode != 0 || !strings.Contains(string(out.Stdout), `"args":{"mode":"args"}`) {
		t.Fatalf("exit %d timed out %v stdout %s stderr %s", out.ExitCode, out.TimedOut, out.Stdout, out.Stderr)
	}
	call.Args = json.RawMessage(`{"mode":"spew"}`)
	pol := p.policy()
	pol.Limits.MaxStdoutBytes = 64 << 10
	out = rt.RunTool(context.Background(), engine.Job{Call: call, Script: probe(t), Dir: p.root, Policy: pol})
	if out.Limit != engine.LimitStdout || !strings.Contains(out.LimitHit, "output exceeded") || len(out.Stdout) != 64<<10 {
		t.Fatalf("limit %q, %d bytes", out.LimitHit, len(out.Stdout))
	}
	call.Args = json.RawMessage(`{"mode":"alloc"}`)
	out = rt.RunTool(context.Background(), engine.Job{Call: call, Script: probe(t), Dir: p.root, Policy: p.policy(), MemoryMiB: 64})
	if out.Limit != engine.LimitMemory || !strings.Contains(out.LimitHit, "memory limit (64 MiB") {
		t.Fatalf("limit %q exit %d stderr %s", out.LimitHit, out.ExitCode, out.Stderr)
	}
	call.Args = json.RawMessage(`{"mode":"exit","code":3}`)
	out = rt.RunTool(context.Background(), engine.Job{Call: call, Script: probe(t), Dir: p.root, Policy: p.policy()})
	if out.ExitCode != 3 || !strings.Contains(string(out.Stderr), "exiting with 3") {
		t.Fatalf("exit %d stderr %q", out.ExitCode, out.Stderr)
	}
}

// TestRunToolUnderHeapGuard: a tool run registers with the server's heap guard
// (Options.WatchMemory) for exactly its duration, and a guard that stops it ends the run with
// the process-wide memory limit, not a timeout or a crash.
func TestRunToolUnderHeapGuard(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	var registered, done atomic.Int32
	rt, err := wasm.New(context.Background(), wasm.Options{CacheDir: wasmtest.TempDir(t, "cache"),
		WatchMemory: func(stop context.CancelCauseFunc) func() {
			registered.Add(1)
			stop(errors.New("heap guard: over MCPBASH_MAX_HEAP_MB")) // as memGuard does, with its own cause
			return func() { done.Add(1) }
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(context.Background())
	call := &engine.Call{Tool: "probe", Args: json.RawMessage(`{"mode":"loop"}`)}
	out := rt.RunTool(context.Background(), engine.Job{Call: call, Script: probe(t), Dir: p.root, Policy: p.policy()})
	if out.Limit != engine.LimitMemory || !strings.Contains(out.LimitHit, "MCPBASH_MAX_HEAP_MB") || out.TimedOut {
		t.Fatalf("limit %q %q timedOut %v exit %d stderr %s", out.Limit, out.LimitHit, out.TimedOut, out.ExitCode, out.Stderr)
	}
	if registered.Load() != 1 || done.Load() != 1 {
		t.Fatalf("registered %d times, unregistered %d times; want once each", registered.Load(), done.Load())
	}
}

// TestInspect: the static view of a module that validate and run-tool --dry-run show.
func TestInspect(t *testing.T) {
	rt := runtimeForTest(t)
	name := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	// (module (import "env" "foo" (func))): an import nothing provides, and no _start.
	foreign := []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00")
	imp := append([]byte{0x01}, name("env")...)
	imp = append(imp, name("foo")...)
	imp = append(imp, 0x00, 0x00)
	foreign = append(append(foreign, 0x02, byte(len(imp))), imp...)
	for _, tc := range []struct {
		name       string
		module     []byte
		imports    []string
		unresolved []string
		start      bool
		err        bool
	}{
		{"minimal", wasmtest.Minimal(), []string{"wasi_snapshot_preview1.fd_write"}, nil, true, false},
		{"foreign import", foreign, []string{"env.foo"}, []string{"env.foo"}, false, false},
		{"broken", []byte("\x00asm\x01\x00\x00\x00\x01\xff"), nil, nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := rt.Inspect(context.Background(), writeModule(t, tc.module))
			if tc.err {
				if err == nil {
					t.Fatalf("no error for a broken module: %+v", in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(in.Imports, tc.imports) || !slices.Equal(in.Unresolved, tc.unresolved) || in.HasStart != tc.start {
				t.Errorf("got %+v", in)
			}
		})
	}
}
