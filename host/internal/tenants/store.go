package tenants

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// maxCached bounds the resolved tenants kept per generation (a default template admits any
// number of tenant ids).
const maxCached = 4096

// Store holds the current tenants file and reloads it when it changes. An invalid new file
// keeps the old configuration in force and is logged once.
type Store struct {
	path string
	log  *slog.Logger

	cur atomic.Pointer[snapshot]

	reloadMu sync.Mutex // one reload at a time
	seen     fileStamp  // the file as last examined
	lastBad  string     // the failure last logged, so that one bad file is logged once

	onReload func(gen uint64)
}

type snapshot struct {
	file *File
	gen  uint64
	hash [sha256.Size]byte

	mu    sync.Mutex
	cache map[string]*Tenant
}

type fileStamp struct {
	mtime      time.Time
	size       int64
	ino, dev   uint64
	configured bool
}

func stampOf(fi os.FileInfo) fileStamp {
	s := fileStamp{mtime: fi.ModTime(), size: fi.Size(), configured: true}
	st := sandbox.StatOf(fi)
	s.ino, s.dev = st.Ino, st.Dev
	return s
}

// StoreOptions configure a Store.
type StoreOptions struct {
	Log *slog.Logger
	// OnReload is called after a new configuration took effect (tests, metrics).
	OnReload func(gen uint64)
}

// Open loads the tenants file at path; it must be valid (a server does not start on a broken
// file).
func Open(path string, o StoreOptions) (*Store, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Store{path: path, log: o.Log, onReload: o.OnReload}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("tenants: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tenants: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, withPath(err, path)
	}
	s.seen = stampOf(fi)
	s.cur.Store(&snapshot{file: f, gen: 1, hash: sha256.Sum256(data), cache: map[string]*Tenant{}})
	return s, nil
}

// NewStatic serves a parsed file that is never reloaded (tests, or a configuration built in
// code).
func NewStatic(f *File) *Store {
	s := &Store{log: slog.New(slog.DiscardHandler)}
	s.cur.Store(&snapshot{file: f, gen: 1, cache: map[string]*Tenant{}})
	return s
}

func withPath(err error, path string) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.Path = path
		return pe
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Lookup resolves tenant id under the current configuration. Errors: ErrInvalidID, ErrUnknown,
// ErrDisabled, *RootError.
func (s *Store) Lookup(id string) (*Tenant, error) {
	snap := s.cur.Load()
	snap.mu.Lock()
	t, ok := snap.cache[id]
	snap.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := snap.file.resolve(id, snap.gen)
	if err != nil {
		// Not cached: a missing root may be created by the operator any moment.
		return nil, err
	}
	snap.mu.Lock()
	if len(snap.cache) >= maxCached {
		clear(snap.cache)
	}
	snap.cache[id] = t
	snap.mu.Unlock()
	return t, nil
}

// Generation counts configurations that took effect (1 after Open).
func (s *Store) Generation() uint64 { return s.cur.Load().gen }

// File is the configuration in force.
func (s *Store) File() *File { return s.cur.Load().file }

// Reload examines the file once: when its stamp (mtime, size, inode) and then its content hash
// changed, the new content is parsed and takes effect if valid. It reports whether a new
// configuration took effect; an error means the file changed but is unusable (the old
// configuration stays; the same bad content is reported once).
func (s *Store) Reload() (bool, error) {
	if s.path == "" {
		return false, nil
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	fi, err := os.Stat(s.path)
	if err != nil {
		err = fmt.Errorf("tenants: %w", err)
		return false, s.bad(err, err.Error())
	}
	st := stampOf(fi)
	if st == s.seen {
		return false, nil
	}
	data, err := os.ReadFile(s.path)
	if err != nil {
		err = fmt.Errorf("tenants: %w", err)
		return false, s.bad(err, err.Error())
	}
	s.seen = st
	h := sha256.Sum256(data)
	cur := s.cur.Load()
	if h == cur.hash {
		return false, nil
	}
	f, err := Parse(data)
	if err != nil {
		return false, s.bad(withPath(err, s.path), fmt.Sprintf("content %x", h))
	}
	s.lastBad = ""
	next := &snapshot{file: f, gen: cur.gen + 1, hash: h, cache: map[string]*Tenant{}}
	s.cur.Store(next)
	s.log.Info("tenants: configuration reloaded", "path", s.path, "generation", next.gen, "tenants", len(f.Tenants), "default", f.Default != nil)
	if s.onReload != nil {
		s.onReload(next.gen)
	}
	return true, nil
}

// bad logs a failed reload once per distinct bad content and returns err.
func (s *Store) bad(err error, key string) error {
	if key != s.lastBad {
		s.lastBad = key
		s.log.Error("tenants: keeping the previous configuration", "path", s.path, "generation", s.cur.Load().gen, "err", err.Error())
	}
	return err
}

// Watch polls the file every interval until ctx ends. Polling (rather than inotify) also sees
// Kubernetes ConfigMap updates, which swap a symlink.
func (s *Store) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, _ = s.Reload() // logged by Reload
		}
	}
}
