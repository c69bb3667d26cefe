package wasm

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync/atomic"

	"github.com/tetratelabs/wazero"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// The compilation cache holds native code the server executes, so nothing reaches wazero
// from it unverified. wazero's own file cache (NewCompilationCacheWithDir) protects its files
// with a CRC, not a key, under predictable names, and opens them itself: it is only ever given
// a private staging directory. The persistent entries live in the cache directory, one per
// module content, each signed with HMAC-SHA256 under a per-installation key kept beside (not
// inside) the directory. To compile a module, its entry is read, verified in memory and only
// then written into the staging directory, where wazero finds it; what wazero writes there
// after compiling becomes the new entry, signed; the staging files are removed either way.

// cacheMagic starts every entry (its format version).
const cacheMagic = "mcp-bash wasm cache 1\n"

// maxCacheEntry bounds an entry read from the cache.
const maxCacheEntry = 1 << 30

// CacheKeyPath is where the key of the cache at dir is kept: beside it, never inside it.
func CacheKeyPath(dir string) string { return filepath.Clean(dir) + ".key" }

// ErrCacheUnsafe is wrapped by every refusal to use a cache directory or its key.
var ErrCacheUnsafe = errors.New("wasm compilation cache refused")

type diskCache struct {
	dir   string // physical
	key   []byte
	stage string // private directory wazero's file cache points at
	logf  func(string, ...any)
	off   atomic.Bool
}

// openCache prepares dir (created 0700 when missing, then resolved physically; with physical
// set, dir must already be its physical path) and its key (created 0600 with 32 random bytes
// when missing), refusing either when it is not a directory or regular file of the server's
// user that nobody else may read or write, and makes the private staging directory in
// stageBase.
func openCache(dir string, physical bool, stageBase string, logf func(string, ...any)) (*diskCache, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%w: %s is not absolute", ErrCacheUnsafe, dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCacheUnsafe, err)
	}
	phys, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCacheUnsafe, err)
	}
	if physical && phys != filepath.Clean(dir) {
		// The host vetted dir against the roots; a symlink made since leads elsewhere.
		return nil, fmt.Errorf("%w: %s now resolves to %s", ErrCacheUnsafe, dir, phys)
	}
	fi, err := os.Lstat(phys)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCacheUnsafe, err)
	}
	if err := ownedPrivate(phys, fi, true); err != nil {
		return nil, err
	}
	key, err := loadKey(CacheKeyPath(phys))
	if err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(stageBase, "mcpbash-wasm-stage-")
	if err != nil {
		return nil, fmt.Errorf("%w: staging directory: %v", ErrCacheUnsafe, err)
	}
	return &diskCache{dir: phys, key: key, stage: stage, logf: logf}, nil
}

// loadKey reads the key at p, creating it first when it does not exist (a new key makes every
// existing entry fail verification, so they are compiled again).
func loadKey(p string) ([]byte, error) {
	for range 2 {
		f, err := sandbox.OpenNoFollow(p)
		if errors.Is(err, fs.ErrNotExist) {
			if err := createKey(p); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: key: %v", ErrCacheUnsafe, err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("%w: key: %v", ErrCacheUnsafe, err)
		}
		if err := ownedPrivate(p, fi, false); err != nil {
			return nil, err
		}
		key := make([]byte, 33)
		n, _ := io.ReadFull(f, key)
		if n != 32 {
			return nil, fmt.Errorf("%w: key %s is not 32 bytes (remove it to make a new one)", ErrCacheUnsafe, p)
		}
		return key[:32], nil
	}
	return nil, fmt.Errorf("%w: key %s could not be created", ErrCacheUnsafe, p)
}

// createKey writes a new key without ever replacing one (a concurrent server may have made it).
func createKey(p string) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), ".wasm-cache-key-*")
	if err != nil {
		return fmt.Errorf("%w: key: %v", ErrCacheUnsafe, err)
	}
	defer os.Remove(tmp.Name())
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	_, werr := tmp.Write(key)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("%w: key: %v", ErrCacheUnsafe, werr)
	}
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%w: key: %v", ErrCacheUnsafe, err)
	}
	return nil
}

// disable stops every use of the disk (a root now covers the directory or its key): from then
// on modules are compiled in memory only.
func (c *diskCache) disable() { c.off.Store(true) }

func (c *diskCache) close() { os.RemoveAll(c.stage) }

// mac signs an entry's body for one module (its sha256) and this wazero and platform.
func (c *diskCache) mac(module [32]byte, body []byte) []byte {
	h := hmac.New(sha256.New, c.key)
	fmt.Fprintf(h, "%s%s\x00%s/%s\x00", cacheMagic, WazeroVersion, runtime.GOOS, runtime.GOARCH)
	h.Write(module[:])
	h.Write(body)
	return h.Sum(nil)
}

func (c *diskCache) entryPath(module [32]byte) string {
	return filepath.Join(c.dir, hex.EncodeToString(module[:]))
}

// stagedFile is one file of wazero's cache, relative to the staging directory.
type stagedFile struct {
	name string
	data []byte
}

// load returns the verified files of a module's entry (nil when there is none or it fails
// verification, which removes it).
func (c *diskCache) load(module [32]byte) []stagedFile {
	p := c.entryPath(module)
	f, err := sandbox.OpenNoFollow(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCacheEntry || fi.Size() < int64(len(cacheMagic)+sha256.Size) {
		c.reject(p, "not a regular file of a plausible size")
		return nil
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxCacheEntry))
	if err != nil || len(raw) < len(cacheMagic)+sha256.Size {
		return nil
	}
	body, sig := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if !hmac.Equal(sig, c.mac(module, body)) || !bytes.HasPrefix(body, []byte(cacheMagic)) {
		c.reject(p, "its signature does not match")
		return nil
	}
	files, err := decodeEntry(body[len(cacheMagic):])
	if err != nil {
		c.reject(p, err.Error())
		return nil
	}
	return files
}

func (c *diskCache) reject(p, why string) {
	c.logf("warning: wasm compilation cache entry %s ignored and removed: %s", p, why)
	_ = os.Remove(p)
}

func decodeEntry(b []byte) ([]stagedFile, error) {
	var files []stagedFile
	for len(b) > 0 {
		var parts [2][]byte
		for i := range parts {
			n, k := binary.Uvarint(b)
			if k <= 0 || n > uint64(len(b)-k) {
				return nil, errors.New("truncated entry")
			}
			parts[i], b = b[k:k+int(n)], b[k+int(n):]
		}
		name := string(parts[0])
		if !filepath.IsLocal(name) {
			return nil, fmt.Errorf("file name %q leaves the staging directory", name)
		}
		files = append(files, stagedFile{name: name, data: parts[1]})
	}
	return files, nil
}

func encodeEntry(files []stagedFile) []byte {
	out := []byte(cacheMagic)
	for _, f := range files {
		out = binary.AppendUvarint(out, uint64(len(f.name)))
		out = append(out, f.name...)
		out = binary.AppendUvarint(out, uint64(len(f.data)))
		out = append(out, f.data...)
	}
	return out
}

// store signs and writes a module's entry (atomically: a temporary file renamed over it).
func (c *diskCache) store(module [32]byte, files []stagedFile) {
	body := encodeEntry(files)
	tmp, err := os.CreateTemp(c.dir, ".entry-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(body, c.mac(module, body)...))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil || os.Rename(tmp.Name(), c.entryPath(module)) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// staged lists the files in the staging directory (sorted) and removes them.
func (c *diskCache) staged() []stagedFile {
	var files []stagedFile
	_ = filepath.WalkDir(c.stage, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(c.stage, p)
		if data, err := os.ReadFile(p); err == nil {
			files = append(files, stagedFile{name: filepath.ToSlash(rel), data: data})
		}
		_ = os.Remove(p)
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files
}

// compile compiles data (whose sha256 is module) with rt, whose file cache is c.stage: a
// verified entry is staged for wazero first, and what wazero staged is kept as the new entry.
// Compiles must not overlap (Runtime runs one at a time), so that what is staged is theirs.
func (c *diskCache) compile(ctx context.Context, rt wazero.Runtime, module [32]byte, data []byte) (wazero.CompiledModule, error) {
	c.staged() // leftovers of a compile that failed midway
	var restored []stagedFile
	if !c.off.Load() {
		restored = c.load(module)
		for _, f := range restored {
			p := filepath.Join(c.stage, filepath.FromSlash(f.name))
			if os.MkdirAll(filepath.Dir(p), 0o700) != nil || os.WriteFile(p, f.data, 0o600) != nil {
				restored = nil
				break
			}
		}
	}
	mod, err := rt.CompileModule(ctx, data)
	after := c.staged()
	if err == nil && !c.off.Load() && len(after) > 0 && !sameFiles(restored, after) {
		c.store(module, after)
	}
	return mod, err
}

func sameFiles(a, b []stagedFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || !bytes.Equal(a[i].data, b[i].data) {
			return false
		}
	}
	return true
}
