package wasm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

// logBuf collects what a runtime writes to the server's log.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newRuntime(t *testing.T, o Options) *Runtime {
	t.Helper()
	rt, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// guest writes a module into a fresh directory that is also the guest's only (read-only) root.
func guest(t *testing.T, module []byte) (string, *sandbox.FS) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "m.wasm")
	if err := os.WriteFile(p, module, 0o644); err != nil {
		t.Fatal(err)
	}
	fsys, err := sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadOnly}}}, sandbox.Scratch{}, &sandbox.Record{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return p, fsys
}

func TestMemoryMinimumOverTheBudget(t *testing.T) {
	rt := newRuntime(t, Options{})
	for _, tc := range []struct {
		pages int64
		mib   int
	}{{300, 16}, {65536, 0}, {4097, 256}} {
		mod, fsys := guest(t, wasmtest.MemoryMin(tc.pages))
		var errw bytes.Buffer
		st, err := rt.Run(context.Background(), Program{Module: mod, Stderr: &errw, FS: fsys, MemoryMiB: tc.mib})
		if st != 126 || !errors.Is(err, ErrMemoryLimit) || !strings.Contains(errw.String(), "more than the call's memory limit") {
			t.Errorf("%d pages under %d MiB: status %d, err %v, stderr %q", tc.pages, tc.mib, st, err, errw.String())
		}
	}
	// In background goroutines (as `m & m & wait` runs them): no panic anywhere.
	mod, fsys := guest(t, wasmtest.MemoryMin(65536))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			st, err := rt.Run(context.Background(), Program{Module: mod, FS: fsys, MemoryMiB: 1})
			if st != 126 || !errors.Is(err, ErrMemoryLimit) {
				t.Errorf("status %d, err %v", st, err)
			}
		})
	}
	wg.Wait()
}

// TestCallBudgetIsShared: every instance of a call draws on one budget, so eight hogs running
// at once under 32 MiB hold 32 MiB between them, not 8 × 32.
func TestCallBudgetIsShared(t *testing.T) {
	meter := sandbox.NewMeter(0)
	rt := newRuntime(t, Options{Meter: meter})
	mod, fsys := guest(t, wasmtest.Hog(16))
	budget := NewCallMemory(32, meter)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for range 8 {
		wg.Go(func() {
			var errw bytes.Buffer
			st, err := rt.Run(context.Background(), Program{Module: mod, Stderr: &errw, FS: fsys, Memory: budget})
			mu.Lock()
			defer mu.Unlock()
			errs = append(errs, err)
			if st != 1 || !strings.Contains(errw.String(), "hog: full") {
				t.Errorf("status %d, stderr %q", st, errw.String())
			}
			if budget.used > budget.limit {
				t.Errorf("the call holds %d bytes, over its %d", budget.used, budget.limit)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if !errors.Is(err, ErrMemoryLimit) {
			t.Errorf("err %v, want the call's memory limit", err)
		}
	}
	if budget.used != 0 || meter.Used() != 0 {
		t.Errorf("after the runs the call holds %d bytes and the meter %d", budget.used, meter.Used())
	}
}

// TestProcessMeter: the process's budget (MCPBASH_MAX_HEAP_MB) caps all guests together.
func TestProcessMeter(t *testing.T) {
	meter := sandbox.NewMeter(8 << 20)
	rt := newRuntime(t, Options{Meter: meter})
	mod, fsys := guest(t, wasmtest.Hog(16))
	st, err := rt.Run(context.Background(), Program{Module: mod, FS: fsys, MemoryMiB: 64})
	if st != 1 || !errors.Is(err, ErrProcessMemory) {
		t.Fatalf("status %d, err %v", st, err)
	}
	if meter.Used() != 0 {
		t.Fatalf("the meter still holds %d bytes", meter.Used())
	}
}

// TestTablesCountAgainstTheBudget: two tables of 2^20 entries take 16 MiB of the call's budget.
func TestTablesCountAgainstTheBudget(t *testing.T) {
	rt := newRuntime(t, Options{})
	mod, fsys := guest(t, wasmtest.Tables(2, MaxTableEntries))
	var errw bytes.Buffer
	if st, err := rt.Run(context.Background(), Program{Module: mod, Stderr: &errw, FS: fsys, MemoryMiB: 8}); st != 126 || !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("status %d, err %v, stderr %q", st, err, errw.String())
	}
	if st, err := rt.Run(context.Background(), Program{Module: mod, FS: fsys, MemoryMiB: 32}); st != 0 || err != nil {
		t.Fatalf("status %d, err %v", st, err)
	}
}

type recordSink struct {
	mu   sync.Mutex
	logs []string
}

func (s *recordSink) Progress(_ context.Context, _ float64, _ *float64, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logs = append(s.logs, "progress:"+msg)
}

func (s *recordSink) Log(_ context.Context, level, logger string, data json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logs = append(s.logs, level+":"+logger+":"+string(data))
}

// TestHostFunctionsNeverPanic: `mcp.log` and `mcp.progress` from a module without memory, or
// with pointers outside its memory, log empty strings; nothing panics.
func TestHostFunctionsNeverPanic(t *testing.T) {
	log := &logBuf{}
	rt := newRuntime(t, Options{Logf: log.logf})
	for name, module := range map[string][]byte{"no-memory": wasmtest.NoMemoryLog(), "out-of-range": wasmtest.OutOfRangeLog()} {
		mod, fsys := guest(t, module)
		sink := &recordSink{}
		var errw bytes.Buffer
		st, err := rt.Run(context.Background(), Program{Module: mod, Stderr: &errw, FS: fsys,
			Call: &engine.Call{Sink: sink, ProgressToken: json.RawMessage(`"p"`)}})
		if st != 0 || err != nil || errw.Len() > 0 || len(sink.logs) == 0 || !strings.HasPrefix(sink.logs[0], `info::""`) {
			t.Errorf("%s: status %d err %v stderr %q logs %q", name, st, err, errw.String(), sink.logs)
		}
	}
	if log.String() != "" {
		t.Errorf("server log: %s", log.String())
	}
}

// panicWriter fails the way a bug does: a runtime error, which wazero reports with a Go stack.
type panicWriter struct{ m map[string]int }

func (w panicWriter) Write([]byte) (int, error) {
	w.m["x"]++
	return 0, nil
}

// TestPanicsStayInTheServerLog: a panic under the guest (here in the stdout writer the host
// hands it) ends the run with a short cause; the Go stack is only in the server's log.
func TestPanicsStayInTheServerLog(t *testing.T) {
	log := &logBuf{}
	rt := newRuntime(t, Options{Logf: log.logf})
	mod, fsys := guest(t, wasmtest.Minimal())
	var errw bytes.Buffer
	st, _ := rt.Run(context.Background(), Program{Module: mod, Stdout: panicWriter{}, Stderr: &errw, FS: fsys})
	if st != TrapStatus || strings.Contains(errw.String(), "goroutine") || strings.Contains(errw.String(), goTrace) ||
		!strings.Contains(errw.String(), "assignment to entry in nil map") {
		t.Errorf("status %d, stderr %q", st, errw.String())
	}
	if !strings.Contains(log.String(), "goroutine") {
		t.Errorf("the stack is not in the server's log: %q", log.String())
	}
}

// TestCompileHonoursTheDeadline: a caller waits for a compile only until its deadline; the
// compile goes on, and the next caller finds it done.
func TestCompileHonoursTheDeadline(t *testing.T) {
	rt := newRuntime(t, Options{})
	mod, fsys := guest(t, wasmtest.LoopBomb(2000, 100)) // about a second of compile
	ctx, cancel := context.WithTimeout(context.Background(), 1)
	defer cancel()
	<-ctx.Done()
	if st, err := rt.Run(ctx, Program{Module: mod, FS: fsys}); st != 1 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("status %d, err %v", st, err)
	}
	if st, err := rt.Run(context.Background(), Program{Module: mod, FS: fsys}); st != 0 || err != nil {
		t.Fatalf("status %d, err %v", st, err)
	}
}

// TestModuleLimitsRefuseBeforeCompile: a refused module never reaches wazero, and says why.
func TestModuleLimitsRefuseBeforeCompile(t *testing.T) {
	rt := newRuntime(t, Options{})
	mod, fsys := guest(t, wasmtest.LoopBomb(10_000, 1000))
	var errw bytes.Buffer
	st, err := rt.Run(context.Background(), Program{Module: mod, Stderr: &errw, FS: fsys})
	if st != 126 || !errors.Is(err, ErrModuleLimit) || !strings.Contains(errw.String(), "inside (nested) loops") {
		t.Fatalf("status %d, err %v, stderr %q", st, err, errw.String())
	}
}

func cacheEntry(t *testing.T, dir string, module []byte) string {
	sum := sha256.Sum256(module)
	return filepath.Join(dir, hex.EncodeToString(sum[:]))
}

// TestCacheVerifiesEverything: compiled code reaches wazero only from verified entries; a
// tampered entry, or an entry moved to another module's name, is ignored and removed; files
// planted in wazero's own format in the cache directory are never read.
func TestCacheVerifiesEverything(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no disk cache on Windows (TestNoDiskCacheOnWindows)")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	stage := t.TempDir()
	log := &logBuf{}
	open := func() *Runtime {
		rt := newRuntime(t, Options{CacheDir: dir, StageBase: stage, Logf: log.logf})
		if rt.CacheDir() == "" {
			t.Fatalf("no cache: %s", log.String())
		}
		return rt
	}
	mod, fsys := guest(t, wasmtest.Minimal())
	other, ofs := guest(t, wasmtest.MemoryMin(1))
	run := func(rt *Runtime, m string, f *sandbox.FS) {
		t.Helper()
		if st, err := rt.Run(context.Background(), Program{Module: m, FS: f}); err != nil || st != 0 {
			t.Fatalf("status %d err %v", st, err)
		}
	}
	rt := open()
	run(rt, mod, fsys)
	run(rt, other, ofs)
	entry := cacheEntry(t, dir, wasmtest.Minimal())
	good, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no entry: %v", err)
	}
	if fi, err := os.Stat(CacheKeyPath(dir)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key: %v %v", fi, err)
	}
	if ents, _ := filepath.Glob(filepath.Join(rt.cache.stage, "*", "*")); len(ents) != 0 {
		t.Fatalf("staging files left behind: %v", ents)
	}

	// Tampered: one byte of the compiled code changed.
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 0xff
	if err := os.WriteFile(entry, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	run(open(), mod, fsys)
	if !strings.Contains(log.String(), "ignored and removed: its signature does not match") {
		t.Fatalf("log: %s", log.String())
	}
	if now, _ := os.ReadFile(entry); !bytes.Equal(now, good) && len(now) == 0 {
		t.Fatal("the entry was not written again")
	}

	// Transplanted: another module's signed entry under Minimal's name.
	hog, _ := os.ReadFile(cacheEntry(t, dir, wasmtest.MemoryMin(1)))
	if err := os.WriteFile(entry, hog, 0o600); err != nil {
		t.Fatal(err)
	}
	before := strings.Count(log.String(), "ignored and removed")
	run(open(), mod, fsys)
	if strings.Count(log.String(), "ignored and removed") != before+1 {
		t.Fatalf("a transplanted entry was accepted: %s", log.String())
	}

	// wazero's own format planted where wazero would look if it read the cache directory.
	planted := filepath.Join(dir, "wazero-"+WazeroVersion+"-planted")
	if err := os.WriteFile(planted, []byte("not compiled code"), 0o600); err != nil {
		t.Fatal(err)
	}
	run(open(), mod, fsys)
	if b, _ := os.ReadFile(planted); string(b) != "not compiled code" {
		t.Fatal("a planted file was touched")
	}
}

// TestCacheRefusesWhatOthersCanWrite: a cache directory or key that others may access, or that
// is not a directory, is not used (memory only, with a warning); a symlinked directory is used
// at its physical path.
func TestCacheRefusesWhatOthersCanWrite(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no disk cache on Windows (TestNoDiskCacheOnWindows)")
	}
	base := t.TempDir()
	base, _ = filepath.EvalSymlinks(base)
	log := &logBuf{}
	open := func(dir string) *Runtime {
		return newRuntime(t, Options{CacheDir: dir, StageBase: base, Logf: log.logf})
	}
	open3 := filepath.Join(base, "open")
	if err := os.Mkdir(open3, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open3, 0o755); err != nil {
		t.Fatal(err)
	}
	if rt := open(open3); rt.CacheDir() != "" || !strings.Contains(log.String(), "must allow nobody but its owner") {
		t.Errorf("a 0755 cache was used: %s", log.String())
	}
	good := filepath.Join(base, "good")
	if rt := open(good); rt.CacheDir() != good {
		t.Fatalf("cache %q: %s", rt.CacheDir(), log.String())
	}
	if err := os.Chmod(CacheKeyPath(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if rt := open(good); rt.CacheDir() != "" {
		t.Errorf("a key others can read was used: %s", log.String())
	}
	if err := os.Chmod(CacheKeyPath(good), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	if rt := open(link); rt.CacheDir() != good {
		t.Errorf("through a symlink the cache is %q, want %q", rt.CacheDir(), good)
	}
	// The host vetted a physical path; a symlink there now leads elsewhere: refused.
	if rt := newRuntime(t, Options{CacheDir: link, CacheDirPhysical: true, StageBase: base, Logf: log.logf}); rt.CacheDir() != "" ||
		!strings.Contains(log.String(), "now resolves to") {
		t.Errorf("a vetted path that became a symlink was used: %s", log.String())
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if rt := open(file); rt.CacheDir() != "" {
		t.Error("a regular file was used as the cache directory")
	}
	// DisableCache: nothing is read or written any more.
	rt := open(good)
	rt.DisableCache()
	mod, fsys := guest(t, wasmtest.Hog(2))
	if _, err := rt.Run(context.Background(), Program{Module: mod, FS: fsys}); err != nil && !errors.Is(err, ErrMemoryLimit) {
		t.Fatal(err)
	}
	if _, err := os.Stat(cacheEntry(t, good, wasmtest.Hog(2))); err == nil {
		t.Error("a disabled cache was written")
	}
}
