// Package wasm runs WebAssembly (WASI preview 1) tools and commands under wazero, in-process,
// with the call's sandbox filesystem as the only filesystem a guest sees. One Runtime serves
// the whole server: modules are checked against the module limits, compiled once per content
// and process (and cached on disk across processes, verified) and instantiated per call,
// anonymously, with the call's limits.
package wasm

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// WazeroVersion names the compiler that fills the cache; cache directories are per version.
const WazeroVersion = "v1.12.0"

// DefaultMemoryMiB is a call's guest memory budget when the tool metadata sets none.
const DefaultMemoryMiB = 256

// maxPages is wasm32's whole address space (4 GiB): the runtime-wide ceiling. A call's own
// budget (sandbox.memoryMiB) is enforced by the memory allocator, so compiled code never
// depends on it.
const maxPages = 65536

// Options configure a Runtime.
type Options struct {
	// CacheDir holds compiled code across processes ("" keeps it in memory only). Entries are
	// verified with a key kept at CacheKeyPath(CacheDir) before wazero sees them (cache.go);
	// the directory and the key must belong to the server's user alone, and no root may
	// reach them (the host disables the cache, DisableCache, when one does).
	CacheDir string
	// CacheDirPhysical says CacheDir is the physical path the host vetted: the cache is
	// refused if, once created, it resolves anywhere else.
	CacheDirPhysical bool
	// StageBase is where the private staging directory of the cache is made ("": the
	// default scratch base, sandbox.ScratchBase).
	StageBase string
	// Meter is the process's budget for guest memory, which the heap guard also sees (nil:
	// none beyond each call's own).
	Meter *sandbox.Meter
	// WatchMemory, when set, puts each tool run (RunTool) under the server's heap guard (the
	// sandbox engine's, interp.Engine.WatchMemory): the guard calls the function it is given
	// when the heap and the guests' memory together pass MCPBASH_MAX_HEAP_MB, and the run ends
	// with ErrProcessMemory. The function it returns ends the registration. Wasm commands run
	// inside a script, which the guard already watches.
	WatchMemory func(stop context.CancelCauseFunc) (done func())
	// Logf receives progress lines for slow compiles, warnings and the stacks of recovered
	// panics: the server's log, never a client (nil: silent).
	Logf func(format string, args ...any)
	// SlowCompile is how long a compile runs before a progress line (default 1s).
	SlowCompile time.Duration
}

// Runtime is one wazero runtime with its WASI and `mcp` host modules and the compiled modules.
// It is safe for concurrent use.
type Runtime struct {
	rt    wazero.Runtime
	opts  Options
	cache *diskCache // nil: memory only
	// slot admits one compile at a time: a compile is the costliest thing a project can ask
	// of the server, and the cache's staging needs compiles not to overlap.
	slot chan struct{}

	mu      sync.Mutex
	modules map[[32]byte]*compiled // by the sha256 of the module
	files   map[string]fileVersion // the version of each module file last read
}

// fileVersion identifies one version of a module file without reading it again.
type fileVersion struct {
	dev, ino           uint64
	size, mtime, ctime int64
	sum                [32]byte
}

// compiled is a module compiled (or being compiled) from one content.
type compiled struct {
	done chan struct{}
	mod  wazero.CompiledModule
	info *moduleInfo
	err  error
}

// New starts a runtime. A cache that cannot be used (a directory or key that is not the
// server's alone, ...) falls back to memory with a warning through Logf.
func New(ctx context.Context, o Options) (*Runtime, error) {
	if o.SlowCompile <= 0 {
		o.SlowCompile = time.Second
	}
	r := &Runtime{opts: o, slot: make(chan struct{}, 1), modules: map[[32]byte]*compiled{}, files: map[string]fileVersion{}}
	cfg := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(maxPages)
	if o.CacheDir != "" {
		c, err := openCache(o.CacheDir, o.CacheDirPhysical, sandbox.ScratchBase(o.StageBase), o.logf)
		if err == nil {
			var fc wazero.CompilationCache
			if fc, err = wazero.NewCompilationCacheWithDir(c.stage); err == nil {
				cfg = cfg.WithCompilationCache(fc)
				r.cache = c
			} else {
				c.close()
			}
		}
		if err != nil {
			o.logf("warning: wasm compilation cache %s: %v (compiling in memory only)", o.CacheDir, err)
		}
	}
	r.rt = wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r.rt); err != nil {
		r.Close(ctx)
		return nil, fmt.Errorf("wasm: wasi: %w", err)
	}
	if err := instantiateHostModule(ctx, r.rt); err != nil {
		r.Close(ctx)
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
	if runtime.GOOS == "windows" {
		return "" // no disk cache on Windows (cache_windows.go)
	}
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

// CacheDir is the physical directory of the disk cache ("" when there is none or it was
// disabled).
func (r *Runtime) CacheDir() string {
	if r.cache == nil || r.cache.off.Load() {
		return ""
	}
	return r.cache.dir
}

// DisableCache stops every use of the disk cache for the rest of the process: compiled code
// stays in memory. The host calls it when a root reaches the cache or its key.
func (r *Runtime) DisableCache() {
	if r.cache != nil {
		r.cache.disable()
	}
}

// Close releases every compiled module and instance.
func (r *Runtime) Close(ctx context.Context) error {
	err := r.rt.Close(ctx)
	if r.cache != nil {
		r.cache.close()
	}
	return err
}

// Compile returns the compiled form of the module at path, compiling it at most once per
// content however many calls ask at the same time (see load).
func (r *Runtime) Compile(ctx context.Context, path string) (wazero.CompiledModule, error) {
	c, err := r.load(ctx, path)
	if err != nil {
		return nil, err
	}
	return c.mod, nil
}

// MaxCompileTime bounds one compile's wall-clock time. Module limits (module.go) keep every
// accepted module's compile far below it; it is the last line if they do not.
const MaxCompileTime = 2 * time.Minute

// load reads the module at path and returns it compiled. The module is first checked against
// the module limits (module.go); the compile itself runs on its own goroutine, one at a time,
// and the caller waits for it only until ctx ends (the call's deadline holds while a module
// compiles). A compile nobody waits for any more goes on, within MaxCompileTime, so that the
// next call finds it done. A module that fails the same way each time (limits, validation)
// keeps its error; a compile that ran out of time is tried again by the next call.
func (r *Runtime) load(ctx context.Context, path string) (*compiled, error) {
	sum, data, err := r.read(path, false)
	if err != nil {
		return nil, fmt.Errorf("wasm: %w", err)
	}
	r.mu.Lock()
	c := r.modules[sum]
	if c == nil {
		c = &compiled{done: make(chan struct{})}
		r.modules[sum] = c
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), MaxCompileTime)
		go func() {
			defer cancel()
			r.compile(cctx, c, sum, path, data)
		}()
	}
	r.mu.Unlock()
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.err != nil {
		return nil, c.err
	}
	return c, nil
}

// read returns the module file's content and its sha256, reading it only when the file
// changed since the last time (device, inode, size, modification and change times) or when
// force is set; the content is nil when it was not read.
func (r *Runtime) read(path string, force bool) ([32]byte, []byte, error) {
	f, fi, err := openModule(path)
	if err != nil {
		return [32]byte{}, nil, err
	}
	defer f.Close()
	v := versionOf(fi)
	r.mu.Lock()
	old, seen := r.files[path]
	r.mu.Unlock()
	if seen && !force {
		old.sum = [32]byte{}
		if old == v {
			r.mu.Lock()
			cur := r.files[path]
			r.mu.Unlock()
			return cur.sum, nil, nil
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxModuleBytes+1))
	if err != nil {
		return [32]byte{}, nil, err
	}
	if len(data) > MaxModuleBytes {
		return [32]byte{}, nil, fmt.Errorf("%s: larger than %d MiB", path, MaxModuleBytes>>20)
	}
	v.sum = sha256.Sum256(data)
	r.mu.Lock()
	if prev, ok := r.files[path]; ok && prev.sum != v.sum {
		r.forget(prev.sum, path)
	}
	r.files[path] = v
	r.mu.Unlock()
	return v.sum, data, nil
}

// forget drops the compiled module of a file's previous content unless another file has the
// same content (closing it is safe while instances of it still run). Called with r.mu held.
func (r *Runtime) forget(sum [32]byte, path string) {
	for p, v := range r.files {
		if p != path && v.sum == sum {
			return
		}
	}
	if c := r.modules[sum]; c != nil {
		delete(r.modules, sum)
		go func() {
			<-c.done
			if c.mod != nil {
				_ = c.mod.Close(context.Background())
			}
		}()
	}
}

func versionOf(fi os.FileInfo) fileVersion {
	v := fileVersion{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	st := sandbox.StatOf(fi)
	v.dev, v.ino, v.ctime = st.Dev, st.Ino, st.Ctime.UnixNano()
	return v
}

// compile runs on its own goroutine: the module limits first, then one compile at a time.
func (r *Runtime) compile(ctx context.Context, c *compiled, sum [32]byte, path string, data []byte) {
	defer close(c.done)
	defer func() {
		if p := recover(); p != nil {
			r.opts.logf("panic compiling %s: %v\n%s", path, p, debug.Stack())
			c.err = fmt.Errorf("wasm: compile %s: the compiler failed unexpectedly (the server's log has details)", path)
		}
		if c.err != nil {
			r.mu.Lock()
			if r.modules[sum] == c && ctx.Err() != nil {
				delete(r.modules, sum) // out of time: a later call tries again
			}
			r.mu.Unlock()
		}
	}()
	if data == nil {
		// The caller found the file unchanged but no compile registered for it (a failed or
		// cancelled compile, or a first load whose reader has not registered its compile yet):
		// read it here, forced, as another call may record the file again meanwhile.
		var err error
		if _, data, err = r.read(path, true); err != nil {
			c.err = fmt.Errorf("wasm: %w", err)
			return
		}
	}
	info, err := inspectModule(data)
	if err != nil {
		c.err = fmt.Errorf("wasm: %s: %w", path, err)
		return
	}
	c.info = info
	select {
	case r.slot <- struct{}{}:
		defer func() { <-r.slot }()
	case <-ctx.Done():
		c.err = ctx.Err()
		return
	}
	start := time.Now()
	slow := time.AfterFunc(r.opts.SlowCompile, func() {
		r.opts.logf("compiling %s (%d KiB); compiled code is cached for later runs", path, len(data)>>10)
	})
	// Two compiler workers: the compile then checks its deadline between functions.
	wctx := experimental.WithCompilationWorkers(ctx, 2)
	if r.cache != nil {
		c.mod, err = r.cache.compile(wctx, r.rt, sum, data)
	} else {
		c.mod, err = r.rt.CompileModule(wctx, data)
	}
	if !slow.Stop() {
		r.opts.logf("compiled %s in %v", path, time.Since(start).Round(time.Millisecond))
	}
	if err != nil {
		c.err = fmt.Errorf("wasm: compile %s: %w", path, err)
		if ctx.Err() != nil {
			c.err = fmt.Errorf("wasm: compile %s: not done after %v", path, MaxCompileTime)
		}
	}
}

// openModule opens a module file, never through a symlink in its last component (a planted
// link must not make the server read a file outside the project).
func openModule(path string) (*os.File, os.FileInfo, error) {
	f, err := sandbox.OpenNoFollow(path)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	if fi.Size() > MaxModuleBytes {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w: larger than %d MiB", path, ErrModuleLimit, MaxModuleBytes>>20)
	}
	return f, fi, nil
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
