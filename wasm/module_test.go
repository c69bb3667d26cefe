package wasm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/wasm/wasmtest"
)

// shapes are the module shapes of issue 21 and the limits: the cases of TestInspectModule and,
// unless noSeed (large modules that slow the fuzzer down, or compile for seconds), the fuzz
// seeds. want is "" (accepted), "limit" (ErrModuleLimit) or "malformed".
var shapes = []struct {
	name   string
	module func() []byte
	want   string
	noSeed bool
}{
	{"minimal", wasmtest.Minimal, "", false},
	{"memory-min-4gib", func() []byte { return wasmtest.MemoryMin(65536) }, "", false}, // refused at instantiation, not here
	{"tables-2p27", func() []byte { return wasmtest.Tables(3, 1<<27) }, "limit", false},
	{"tables-at-limit", func() []byte { return wasmtest.Tables(2, MaxTableEntries) }, "", true},
	{"table-grow-no-max", func() []byte { return wasmtest.TableGrower(1 << 20) }, "limit", false},
	{"hog", func() []byte { return wasmtest.Hog(16) }, "", false},
	{"file-hog", func() []byte { return wasmtest.FileHog("f") }, "", false},
	{"no-memory-log", wasmtest.NoMemoryLog, "", false},
	{"out-of-range-log", wasmtest.OutOfRangeLog, "", false},
	{"locals-blocks-bomb", func() []byte { return wasmtest.LocalsBomb(50_000, 1000) }, "limit", false},
	{"locals-at-limit", func() []byte { return wasmtest.LocalsBomb(MaxLocals, 100) }, "", true},
	{"depth-over-limit", func() []byte { return wasmtest.LocalsBomb(10, MaxDepth+1) }, "limit", true},
	{"depth-at-limit", func() []byte { return wasmtest.LocalsBomb(10, MaxDepth) }, "", true},
	{"loop-bomb", func() []byte { return wasmtest.LoopBomb(5000, 500) }, "limit", false},
	{"loop-bomb-issue", func() []byte { return wasmtest.LoopBomb(10_000, 1000) }, "limit", true},
	{"loop-at-limit", func() []byte { return wasmtest.LoopBomb(2000, 100) }, "", true},
	{"loop-nest-at-limit", func() []byte { return wasmtest.LoopBomb(20, 4999) }, "", true},
	{"loop-nest-over-limit", func() []byte { return wasmtest.LoopBomb(20, 5001) }, "limit", true},
	{"empty", func() []byte { return nil }, "malformed", false},
	{"header-only", func() []byte { return []byte("\x00asm\x01\x00\x00\x00") }, "", false},
	{"component", func() []byte { return []byte("\x00asm\x0d\x00\x01\x00") }, "malformed", false},
	{"truncated-section", func() []byte { return []byte("\x00asm\x01\x00\x00\x00\x01\xff") }, "malformed", false},
	{"huge-vector", func() []byte { return wasmtest.Module(wasmtest.Section(1, wasmtest.ULEB(1<<31))) }, "limit", false},
}

func TestInspectModule(t *testing.T) {
	for _, tc := range shapes {
		t.Run(tc.name, func(t *testing.T) {
			_, err := inspectModule(tc.module())
			switch tc.want {
			case "":
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
			case "limit":
				if !errors.Is(err, ErrModuleLimit) {
					t.Fatalf("want a limit, got %v", err)
				}
			case "malformed":
				if !errors.Is(err, errMalformed) {
					t.Fatalf("want malformed, got %v", err)
				}
			}
		})
	}
}

// TestInspectFindsWhatRunsAtStart: what Run reserves before instantiation comes from here.
func TestInspectFindsWhatRunsAtStart(t *testing.T) {
	m, err := inspectModule(wasmtest.MemoryMin(300))
	if err != nil || m.memory == nil || m.memory.min != 300 {
		t.Fatalf("%+v %v", m, err)
	}
	m, err = inspectModule(wasmtest.Tables(2, 1000))
	if err != nil || m.tableBytes() != 2*1000*8 {
		t.Fatalf("%+v %v", m, err)
	}
	if _, ok := m.exports["_start"]; !ok {
		t.Fatalf("no _start in %v", m.exports)
	}
	m, err = inspectModule(wasmtest.NoMemoryLog())
	if err != nil || m.memory != nil || len(m.imports) != 2 || m.imports[0].module != "mcp" {
		t.Fatalf("%+v %v", m, err)
	}
}

// TestInspectAcceptsWhatWazeroCompiles: inspectModule must accept every valid module (of the
// features wazero enables), or it would refuse real guests: wazero's own test modules (the
// WebAssembly 1.0 and 2.0 spec tests, Rust, Zig and TinyGo programs) and the Go probe.
func TestInspectAcceptsWhatWazeroCompiles(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/tetratelabs/wazero").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("wazero's module directory is not available: %v", err)
	}
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		// Other proposals (threads, tail calls, exceptions, typed references...) are off.
		if d != nil && d.IsDir() && strings.Contains(p, "spectest") && !strings.HasSuffix(p, "spectest") &&
			!strings.HasSuffix(p, "/v1") && !strings.HasSuffix(p, "/v2") && filepath.Base(p) != "testdata" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".wasm") {
			files = append(files, p)
		}
		return nil
	})
	files = append(files, wasmtest.BuildGo(t, "wasm/testdata/probe"))
	if len(files) < 100 {
		t.Fatalf("only %d modules under %s", len(files), dir)
	}
	rt := wazero.NewRuntime(context.Background())
	defer rt.Close(context.Background())
	valid := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, ierr := inspectModule(b)
		if cm, err := rt.CompileModule(context.Background(), b); err == nil {
			valid++
			cm.Close(context.Background())
			// A spec test may go past a limit on purpose (tables that grow without a maximum);
			// it must never be mistaken for a malformed module. A program must pass.
			if errors.Is(ierr, errMalformed) || (ierr != nil && !strings.Contains(f, "spectest")) {
				t.Errorf("%s: compiles, but inspection refuses it: %v", strings.TrimPrefix(f, dir), ierr)
			}
		}
	}
	if valid < 1000 {
		t.Fatalf("only %d valid modules", valid)
	}
}

// BenchmarkCompileAtLimits compiles the costliest shapes the limits accept (docs/WASM.md quotes
// the results): the time of an accepted module's compile is bounded by the limits.
func BenchmarkCompileAtLimits(b *testing.B) {
	for _, tc := range shapes {
		if tc.want != "" || !strings.HasSuffix(tc.name, "at-limit") {
			continue
		}
		b.Run(tc.name, func(b *testing.B) {
			mod := tc.module()
			for b.Loop() {
				rt := wazero.NewRuntime(context.Background())
				if _, err := rt.CompileModule(context.Background(), mod); err != nil {
					b.Fatal(err)
				}
				rt.Close(context.Background())
			}
		})
	}
}

var (
	fuzzOnce sync.Once
	fuzzRT   *Runtime
)

// FuzzInspectModule feeds module bytes to the inspection and, for modules it accepts, to the
// compile and a run under small limits (a 4 MiB call budget, 2 s): nothing may panic or hang,
// and a module the inspection refuses never reaches wazero.
func FuzzInspectModule(f *testing.F) {
	for _, tc := range shapes {
		if !tc.noSeed {
			f.Add(tc.module())
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := inspectModule(b)
		if err != nil {
			if !errors.Is(err, ErrModuleLimit) && !errors.Is(err, errMalformed) {
				t.Fatalf("an error of neither kind: %v", err)
			}
			return
		}
		if info == nil || len(b) > 1<<20 {
			return
		}
		fuzzOnce.Do(func() {
			var err error
			if fuzzRT, err = New(context.Background(), Options{Meter: sandbox.NewMeter(64 << 20)}); err != nil {
				panic(err)
			}
		})
		p := filepath.Join(dir, fmt.Sprintf("m%d.wasm", time.Now().UnixNano()))
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		fsys, err := sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadOnly}}}, sandbox.Scratch{}, &sandbox.Record{})
		if err != nil {
			t.Fatal(err)
		}
		defer fsys.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var out bytes.Buffer
		_, _ = fuzzRT.Run(ctx, Program{Module: p, Stdout: &out, Stderr: &out, FS: fsys, MemoryMiB: 4})
		if strings.Contains(out.String(), goTrace) || strings.Contains(out.String(), "goroutine ") {
			t.Fatalf("a Go trace reached the guest's stderr: %s", out.String())
		}
	})
}

// TestFuzzSeedsCommitted: the seed corpus under testdata/fuzz is what the shapes generate
// (MCPBASH_WRITE_FUZZ_SEEDS=1 rewrites it).
func TestFuzzSeedsCommitted(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzInspectModule")
	for _, tc := range shapes {
		if tc.noSeed {
			continue
		}
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", tc.module())
		p := filepath.Join(dir, tc.name)
		if os.Getenv("MCPBASH_WRITE_FUZZ_SEEDS") == "1" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != want {
			t.Errorf("%s is missing or stale (MCPBASH_WRITE_FUZZ_SEEDS=1 go test -run TestFuzzSeedsCommitted ./wasm): %v", p, err)
		}
	}
}
