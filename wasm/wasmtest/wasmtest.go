// Package wasmtest builds the guests that tests and benchmarks of WebAssembly tools run: Go
// programs compiled for GOOS=wasip1 (once per test process) and a minimal hand-assembled module.
package wasmtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	mu     sync.Mutex
	dir    string
	builds = map[string]*build{}
)

type build struct {
	once sync.Once
	path string
	err  error
}

// RepoRoot is the module root (found from this file).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// BuildGo builds the Go main package at pkg (a path relative to the repository root, e.g.
// "examples/20-wasm-tool/src/stats") with GOOS=wasip1 GOARCH=wasm and returns the .wasm path.
// Each package is built once per test process (parallel tests and benchmarks share the build),
// into a directory that Main removes.
func BuildGo(t testing.TB, pkg string) string {
	t.Helper()
	mu.Lock()
	if dir == "" {
		d, err := os.MkdirTemp("", "mcpbash-wasm-guests-")
		if err != nil {
			mu.Unlock()
			t.Fatal(err)
		}
		dir = d
	}
	b := builds[pkg]
	if b == nil {
		b = &build{}
		builds[pkg] = b
	}
	out := dir
	mu.Unlock()
	b.once.Do(func() {
		// Prebuilt guests (WASMTEST_GUESTS): where the tests run without a Go toolchain,
		// as the Windows test binaries do under Wine (test/wine.sh builds them first).
		if pre := os.Getenv("WASMTEST_GUESTS"); pre != "" {
			b.path = filepath.Join(pre, filepath.Base(pkg)+".wasm")
			if _, err := os.Stat(b.path); err != nil {
				b.err = fmt.Errorf("prebuilt guest %s: %v (WASMTEST_GUESTS)", b.path, err)
			}
			return
		}
		b.path = filepath.Join(out, filepath.Base(pkg)+".wasm")
		cmd := exec.Command("go", "build", "-trimpath", "-o", b.path, "./"+pkg)
		cmd.Dir = RepoRoot()
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("GOOS=wasip1 go build ./%s: %v\n%s", pkg, err, msg)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// TempDir returns a directory for this test process (for example a shared compilation cache),
// removed by Main.
func TempDir(t testing.TB, name string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if d, ok := tempDirs[name]; ok {
		return d
	}
	d, err := os.MkdirTemp("", "mcpbash-wasm-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	tempDirs[name] = d
	return d
}

var tempDirs = map[string]string{}

// Main runs a package's tests and then Cleanup. Use it from TestMain:
// os.Exit(wasmtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	Cleanup()
	return code
}

// Cleanup removes the built guests and TempDir directories; packages whose TestMain does
// more than Main (harness.Main) pass it along.
func Cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
}

// Copy copies a built module to dst (creating its directory).
func Copy(t testing.TB, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Minimal is the smallest useful WASI program, assembled by hand: it writes "ok\n" to stdout
// with one fd_write and returns. In WAT:
//
//	(module
//	  (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
//	  (memory (export "memory") 1)
//	  (data (i32.const 16) "ok\n")
//	  (func (export "_start")
//	    (i32.store (i32.const 0) (i32.const 16))
//	    (i32.store (i32.const 4) (i32.const 3))
//	    (drop (call $w (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))
func Minimal() []byte {
	var m bytes.Buffer
	m.Write([]byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00})
	section := func(id byte, body ...byte) {
		m.WriteByte(id)
		m.Write(ULEB(uint64(len(body))))
		m.Write(body)
	}
	name := Name
	const i32 = 0x7f
	// types: 0 = (i32 i32 i32 i32) -> i32, 1 = () -> ()
	section(1, 0x02, 0x60, 0x04, i32, i32, i32, i32, 0x01, i32, 0x60, 0x00, 0x00)
	// import fd_write as function 0 of type 0
	imp := []byte{0x01}
	imp = append(imp, name("wasi_snapshot_preview1")...)
	imp = append(imp, name("fd_write")...)
	imp = append(imp, 0x00, 0x00)
	section(2, imp...)
	// function 1 has type 1
	section(3, 0x01, 0x01)
	// one memory, min 1 page
	section(5, 0x01, 0x00, 0x01)
	// exports: memory 0, _start = function 1
	exp := []byte{0x02}
	exp = append(exp, name("memory")...)
	exp = append(exp, 0x02, 0x00)
	exp = append(exp, name("_start")...)
	exp = append(exp, 0x00, 0x01)
	section(7, exp...)
	// code
	body := []byte{0x00, // no locals
		0x41, 0x00, 0x41, 0x10, 0x36, 0x02, 0x00, // i32.store (0) (16)
		0x41, 0x04, 0x41, 0x03, 0x36, 0x02, 0x00, // i32.store (4) (3)
		0x41, 0x01, 0x41, 0x00, 0x41, 0x01, 0x41, 0x08, 0x10, 0x00, 0x1a, // drop (call 0 1 0 1 8)
		0x0b}
	code := append([]byte{0x01}, ULEB(uint64(len(body)))...)
	code = append(code, body...)
	section(10, code...)
	// data: active, memory 0, offset (i32.const 16), "ok\n"
	section(11, 0x01, 0x00, 0x41, 0x10, 0x0b, 0x03, 'o', 'k', '\n')
	return m.Bytes()
}
