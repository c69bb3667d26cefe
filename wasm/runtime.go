// Package wasm runs WebAssembly (WASI preview 1) tools and commands under wazero, in-process,
// with the call's sandbox filesystem as the only filesystem a guest sees. One Runtime serves
// the whole server: modules are compiled once per process (and cached on disk across
// processes) and instantiated per call, anonymously, with the call's limits.
package wasm

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// WazeroVersion names the compiler that fills the cache; cache directories are per version.
const WazeroVersion = "v1.12.0"

// DefaultMemoryMiB is a guest's memory limit when the tool metadata sets none.
const DefaultMemoryMiB = 256

// maxPages is wasm32's whole address space (4 GiB): the runtime-wide ceiling. A call's own
// limit (sandbox.memoryMiB) is enforced per instance by the memory allocator, so compiled code
// never depends on it.
const maxPages = 65536

// Options configure a Runtime.
type Options struct {
	// CacheDir holds compiled code across processes ("" keeps it in memory only). It must be
	// owned by the server and never inside a root: guests and scripts must not be able to
	// plant native code there.
	CacheDir string
	// Logf receives progress lines for slow compiles (nil: silent).
	Logf func(format string, args ...any)
	// SlowCompile is how long a compile runs before a progress line (default 1s).
	SlowCompile time.Duration
}

// Runtime is one wazero runtime with its WASI and `mcp` host modules and the compiled modules.
// It is safe for concurrent use.
type Runtime struct {
	rt   wazero.Runtime
	opts Options

	mu      sync.Mutex
	modules map[string]*compiled // by path
}

// compiled is a module compiled (or being compiled) from one version of a file.
type compiled struct {
	size  int64
	mtime int64
	done  chan struct{}
	mod   wazero.CompiledModule
	err   error
}

// New starts a runtime. The cache directory is created when missing; a cache that cannot be
// used falls back to memory with a warning through Logf.
func New(ctx context.Context, o Options) (*Runtime, error) {
	if o.SlowCompile <= 0 {
		o.SlowCompile = time.Second
	}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(maxPages)
	if o.CacheDir != "" {
		if err := os.MkdirAll(o.CacheDir, 0o700); err != nil {
			o.logf("warning: wasm compilation cache %s: %v (compiling in memory only)", o.CacheDir, err)
		} else if cache, err := wazero.NewCompilationCacheWithDir(o.CacheDir); err != nil {
			o.logf("warning: wasm compilation cache %s: %v (compiling in memory only)", o.CacheDir, err)
		} else {
			cfg = cfg.WithCompilationCache(cache)
		}
	}
	r := &Runtime{rt: wazero.NewRuntimeWithConfig(ctx, cfg), opts: o, modules: map[string]*compiled{}}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r.rt); err != nil {
		r.rt.Close(ctx)
		return nil, fmt.Errorf("wasm: wasi: %w", err)
	}
	if err := instantiateHostModule(ctx, r.rt); err != nil {
		r.rt.Close(ctx)
		return nil, fmt.Errorf("wasm: host module: %w", err)
	}
	return r, nil
}

func (o Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// DefaultCacheDir is $XDG_CACHE_HOME/mcp-bash/wazero-<version> (else ~/.cache/...), from the
// given environment lookup; "" when neither is set.
func DefaultCacheDir(getenv func(string) string) string {
	base := getenv("XDG_CACHE_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" || !filepath.IsAbs(home) {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "mcp-bash", "wazero-"+WazeroVersion)
}

// Close releases every compiled module and instance.
func (r *Runtime) Close(ctx context.Context) error { return r.rt.Close(ctx) }

// Compile returns the compiled form of the module at path, compiling it at most once per
// version of the file (size and mtime) however many calls ask at the same time.
func (r *Runtime) Compile(ctx context.Context, path string) (wazero.CompiledModule, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("wasm: %w", err)
	}
	size, mtime := fi.Size(), fi.ModTime().UnixNano()
	r.mu.Lock()
	c := r.modules[path]
	if c == nil || c.size != size || c.mtime != mtime {
		// A changed file gets a new entry; calls still running on the old module keep it.
		c = &compiled{size: size, mtime: mtime, done: make(chan struct{})}
		r.modules[path] = c
		r.mu.Unlock()
		c.mod, c.err = r.compile(ctx, path)
		close(c.done)
		if c.err != nil {
			// A broken module is not kept: the next call tries again (after a fix, say).
			r.mu.Lock()
			if r.modules[path] == c {
				delete(r.modules, path)
			}
			r.mu.Unlock()
		}
	} else {
		r.mu.Unlock()
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.err != nil {
		return nil, c.err
	}
	return c.mod, nil
}

func (r *Runtime) compile(ctx context.Context, path string) (wazero.CompiledModule, error) {
	data, err := readModule(path)
	if err != nil {
		return nil, fmt.Errorf("wasm: %w", err)
	}
	start := time.Now()
	slow := time.AfterFunc(r.opts.SlowCompile, func() {
		r.opts.logf("compiling %s (%d KiB); compiled code is cached for later runs", path, len(data)>>10)
	})
	// The compile itself is not cancelled by a call's context: other calls may wait for it.
	mod, err := r.rt.CompileModule(context.WithoutCancel(ctx), data)
	if !slow.Stop() {
		r.opts.logf("compiled %s in %v", path, time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		return nil, fmt.Errorf("wasm: compile %s: %w", path, err)
	}
	return mod, nil
}

// Precompile compiles modules concurrently (bounded by workers), so the first call of each
// finds it ready. Errors surface again on the call.
func (r *Runtime) Precompile(ctx context.Context, paths []string, workers int) {
	if workers < 1 {
		workers = 1
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	for _, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := r.Compile(ctx, p); err != nil {
				r.opts.logf("warning: %v", err)
			}
		}()
	}
	wg.Wait()
}

// maxModuleBytes bounds a module file.
const maxModuleBytes = 256 << 20

// readModule reads a module file, never through a symlink in its last component (a planted
// link must not make the server read a file outside the project).
func readModule(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if fi.Size() > maxModuleBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", path, maxModuleBytes>>20)
	}
	return io.ReadAll(f)
}

// FindCommand returns the module a command name runs: NAME.wasm (or NAME when it already ends
// in .wasm), a regular file (not a symlink) in the first of dirs that has one; "" when none.
func FindCommand(dirs []string, name string) string {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return ""
	}
	file := name
	if !strings.HasSuffix(name, ".wasm") {
		file += ".wasm"
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, file)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}
