package changes

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// The store's layout (MCPBASH_CHANGES_DIR, 0700, owned by the server's user):
//
//	layers/<scope>/<call>/     a running call's layer (its data files); scope is a tenant or "_"
//	pending/<id>/set.json      a change set waiting for a person's word
//	pending/<id>/data/         its data files (the call's layer, moved here)
//	pending/<id>/journal.json  a commit in progress (journal.go)
//	audit.log                  who kept, committed, discarded what, one JSON line each
//	lock                       held while the store changes (between processes: the server, the CLI)
//
// No root may be in the store nor the store in a root (the host checks both): nothing a tool
// can write with host file calls is ever read back from here as a decision.

// Actor is who decided a change set's fate.
type Actor struct {
	// Kind is "user" (elicitation), "cli" (a person at `mcp-bash changes`), "operator" (the
	// hosting endpoint) or "server" (expiry, a full store).
	Kind string `json:"kind"`
	// Name identifies them: the client and session, the local user, the operator credential.
	Name string `json:"name,omitempty"`
}

// Event is one line of the store's audit log.
type Event struct {
	Time    time.Time `json:"time"`
	Action  string    `json:"action"` // kept, committed, discarded, expired, conflict, recovered
	ID      string    `json:"id"`
	Tool    string    `json:"tool,omitempty"`
	Session string    `json:"session,omitempty"`
	Tenant  string    `json:"tenant,omitempty"`
	Subject string    `json:"subject,omitempty"`
	By      *Actor    `json:"by,omitempty"`
	Files   []string  `json:"files,omitempty"`
	Digest  string    `json:"digest,omitempty"`
	Detail  string    `json:"detail,omitempty"`
}

// Options are the store's limits and its audit sink.
type Options struct {
	// TTL is how long a change set waits before it is discarded (MCPBASH_CHANGES_TTL_SECS).
	TTL time.Duration
	// MaxPending caps the sets waiting per session (per tenant in hosting mode)
	// (MCPBASH_CHANGES_MAX_PENDING).
	MaxPending int
	// Audit, when set, receives every event as well (MCPBASH_AUDIT_LOG).
	Audit func(Event)
	// Now is the clock (tests).
	Now func() time.Time
}

// Store holds change sets.
type Store struct {
	dir  string
	opts Options
	// mu orders this process's own users; the lock file orders processes.
	mu sync.Mutex
}

// ErrNotPending: no change set waits under that id (never made, or already decided).
var ErrNotPending = errors.New("no change set waits under that id (it was committed, discarded or has expired)")

// ErrFull: the session or tenant has as many change sets waiting as it may.
type ErrFull struct{ Max int }

func (e ErrFull) Error() string {
	return fmt.Sprintf("%d change sets already wait for a person's word (MCPBASH_CHANGES_MAX_PENDING); commit or discard them with `mcp-bash changes`", e.Max)
}

var idPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// ValidID reports whether id can name a change set.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Open opens (making it when missing) the store at dir, which must be absolute, a directory
// owned by the server's user that no one else may write; it finishes or undoes commits a crash
// interrupted and drops the sets that expired.
func Open(dir string, o Options) (*Store, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("the changes directory %q is not absolute", dir)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.TTL <= 0 {
		o.TTL = 24 * time.Hour
	}
	if o.MaxPending <= 0 {
		o.MaxPending = 20
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the changes directory: %w", err)
	}
	if err := private(dir); err != nil {
		return nil, err
	}
	for _, sub := range []string{"layers", "pending"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("the changes directory: %w", err)
		}
	}
	s := &Store{dir: dir, opts: o}
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	s.recoverAll()
	s.sweep()
	s.expire()
	s.dropStaleLayers()
	return s, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// TTL is how long a set waits.
func (s *Store) TTL() time.Duration { return s.opts.TTL }

// lock takes the store (this process, then the lock file).
func (s *Store) lock() (func(), error) {
	s.mu.Lock()
	f, err := os.OpenFile(filepath.Join(s.dir, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("the changes directory: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		s.mu.Unlock()
		return nil, fmt.Errorf("the changes directory: lock: %w", err)
	}
	return func() {
		f.Close() // releases the lock
		s.mu.Unlock()
	}, nil
}

// scope is a layer directory's scope component: a tenant id (already validated), else "_".
func scope(tenant string) string {
	if tenant == "" {
		return "_"
	}
	return "t-" + tenant
}

// LayerBase is the directory a scope's call layers are made in (made when missing): a worker
// process serving that scope is confined to it.
func (s *Store) LayerBase(tenant string) (string, error) {
	d := filepath.Join(s.dir, "layers", scope(tenant))
	if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return d, nil
}

// NewLayer makes the directory of one call's layer.
func (s *Store) NewLayer(tenant string) (string, error) {
	base, err := s.LayerBase(tenant)
	if err != nil {
		return "", err
	}
	return os.MkdirTemp(base, "call-")
}

// DropLayer removes a call's layer that will not be kept (no changes, or a cancelled call).
func (s *Store) DropLayer(dir string) {
	if dir != "" && strings.HasPrefix(dir, filepath.Join(s.dir, "layers")+string(filepath.Separator)) {
		os.RemoveAll(dir)
	}
}

// dropStaleLayers removes layers no call can still be writing (older than a day past the TTL:
// a server that died left them).
func (s *Store) dropStaleLayers() {
	scopes, _ := os.ReadDir(filepath.Join(s.dir, "layers"))
	for _, sc := range scopes {
		calls, _ := os.ReadDir(filepath.Join(s.dir, "layers", sc.Name()))
		for _, c := range calls {
			if fi, err := c.Info(); err == nil && s.opts.Now().Sub(fi.ModTime()) > s.opts.TTL+24*time.Hour {
				os.RemoveAll(filepath.Join(s.dir, "layers", sc.Name(), c.Name()))
			}
		}
	}
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Keep saves set as waiting: it gets its ID and expiry, and its layer moves into the store.
// counts says which waiting sets share its cap (same session, or same tenant).
func (s *Store) Keep(set *Set, sameScope func(*Set) bool) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	s.expire()
	if sameScope != nil {
		n := 0
		for _, other := range s.list() {
			if sameScope(other) {
				n++
			}
		}
		if n >= s.opts.MaxPending {
			return ErrFull{Max: s.opts.MaxPending}
		}
	}
	set.ID = newID()
	set.Created = s.opts.Now().UTC()
	set.Expires = set.Created.Add(s.opts.TTL)
	dir := s.setDir(set.ID)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return err
	}
	if err := os.Rename(set.Manifest.Dir, filepath.Join(dir, "data")); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("moving the call's layer into the changes directory: %w", err)
	}
	set.Manifest.Dir = filepath.Join(dir, "data")
	if err := writeJSON(filepath.Join(dir, "set.json"), set); err != nil {
		os.RemoveAll(dir)
		return err
	}
	s.event("kept", set, nil, "")
	return nil
}

func (s *Store) setDir(id string) string { return filepath.Join(s.dir, "pending", id) }

// drop ends a set at once (its directory renamed away: it no longer waits, whatever happens
// next), then removes what it held.
func (s *Store) drop(id string) error {
	gone := filepath.Join(s.dir, "pending", ".gone-"+id)
	if err := os.Rename(s.setDir(id), gone); err != nil {
		return err
	}
	syncDir(filepath.Join(s.dir, "pending"))
	return os.RemoveAll(gone)
}

// sweep removes what a crash left of dropped sets.
func (s *Store) sweep() {
	gone, _ := filepath.Glob(filepath.Join(s.dir, "pending", ".gone-*"))
	for _, g := range gone {
		os.RemoveAll(g)
	}
}

// load reads a waiting set.
func (s *Store) load(id string) (*Set, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("%q is not a change set id (16 hex digits)", id)
	}
	b, err := os.ReadFile(filepath.Join(s.setDir(id), "set.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotPending
	}
	if err != nil {
		return nil, err
	}
	var set Set
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("change set %s: %w", id, err)
	}
	if set.ID != id {
		return nil, fmt.Errorf("change set %s: its file names another set", id)
	}
	set.Manifest.Dir = filepath.Join(s.setDir(id), "data")
	return &set, nil
}

// Get returns a waiting set.
func (s *Store) Get(id string) (*Set, error) {
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	s.expire()
	return s.load(id)
}

// List returns the waiting sets, oldest first.
func (s *Store) List() ([]*Set, error) {
	unlock, err := s.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	s.recoverAll()
	s.expire()
	return s.list(), nil
}

func (s *Store) list() []*Set {
	ents, _ := os.ReadDir(filepath.Join(s.dir, "pending"))
	var out []*Set
	for _, e := range ents {
		if set, err := s.load(e.Name()); err == nil {
			out = append(out, set)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// Discard drops a waiting set: nothing of it is written.
func (s *Store) Discard(id string, by Actor) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	set, err := s.load(id)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(s.setDir(id), journalName)); err == nil {
		return fmt.Errorf("change set %s is being committed", id)
	}
	if err := s.drop(id); err != nil {
		return err
	}
	s.event("discarded", set, &by, "")
	return nil
}

// expire discards the sets past their time (lock held), and removes what a crash left of a set
// being kept.
func (s *Store) expire() {
	now := s.opts.Now()
	ents, _ := os.ReadDir(filepath.Join(s.dir, "pending"))
	for _, e := range ents {
		set, err := s.load(e.Name())
		if errors.Is(err, ErrNotPending) {
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > time.Hour {
				s.drop(e.Name()) // kept halfway
			}
			continue
		}
		if err != nil || !now.After(set.Expires) {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.setDir(set.ID), journalName)); err == nil {
			continue // a commit to finish, not to drop
		}
		if s.drop(set.ID) == nil {
			s.event("expired", set, &Actor{Kind: "server"}, "waited longer than MCPBASH_CHANGES_TTL_SECS")
		}
	}
}

// event appends to the audit log (and the Audit sink).
func (s *Store) event(action string, set *Set, by *Actor, detail string) {
	ev := Event{Time: s.opts.Now().UTC(), Action: action, ID: set.ID, Tool: set.Tool, Session: set.Session,
		Tenant: set.Tenant, Subject: set.Subject, By: by, Digest: set.Digest, Detail: detail}
	for i, f := range set.Files {
		if i == 100 {
			ev.Files = append(ev.Files, fmt.Sprintf("... %d more", len(set.Files)-100))
			break
		}
		ev.Files = append(ev.Files, f.Change+" "+f.Abs())
	}
	if b, err := json.Marshal(ev); err == nil {
		if f, err := os.OpenFile(filepath.Join(s.dir, "audit.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			f.Write(append(b, '\n'))
			f.Close()
		}
	}
	if s.opts.Audit != nil {
		s.opts.Audit(ev)
	}
}

// writeJSON writes v to p atomically (a temporary file synced, then renamed over p, and the
// directory synced).
func writeJSON(p string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := p + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		return err
	}
	return syncDir(filepath.Dir(p))
}

// syncDir makes a directory's entries durable.
func syncDir(p string) error {
	d, err := os.Open(p)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
