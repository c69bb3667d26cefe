package registry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Kind names one registry; its value is the cache file stem and the cursor collection.
type Kind string

// Registry kinds.
const (
	KindTools             Kind = "tools"
	KindResources         Kind = "resources"
	KindResourceTemplates Kind = "resource-templates"
	KindPrompts           Kind = "prompts"
)

// Kinds lists every registry kind in a fixed order.
var Kinds = []Kind{KindTools, KindResources, KindResourceTemplates, KindPrompts}

// Errors returned by List and lookups.
var (
	ErrInvalidCursor = errors.New("registry: invalid cursor")
	ErrLoad          = errors.New("registry: unable to load")
	ErrNotFound      = errors.New("registry: not found")
)

// List limits (the non-standard `limit` parameter).
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// Options configures a Registry.
type Options struct {
	Dirs Dirs
	// ServerName is used for default MCP Apps UI resource URIs.
	ServerName string
	// Settings are the registry's (config.Registry; zero values take the defaults).
	Settings config.Registry
	// TmpRoot is where register.sh's private working files go ("" = the OS temp dir).
	TmpRoot string
	// HookEnv and HookPassthrough are register.sh's inherited system variables and MCPBASH_*
	// settings (hooks.Options' Env and Passthrough).
	HookEnv         func(string) string
	HookPassthrough map[string]string
	// HookEnviron lists the operator's environment (hooks.Options' Environ); HookSandbox runs
	// register.sh when project hooks are off (hooks.Options' Sandbox).
	HookEnviron func() []string
	HookSandbox engine.Engine
	// HookBash is the bash of project hooks (hooks.Options' Bash; "": found on PATH).
	HookBash string
	// Warn receives structured, non-fatal problems (malformed metadata, guardrails).
	Warn func(Warning)
	// Now is the clock (tests replace it).
	Now func() time.Time
}

// Registry is the in-memory model of a project. It is safe for concurrent use.
type Registry struct {
	opts       Options
	ttl        map[Kind]time.Duration
	static     bool
	maxBytes   int64
	manualMax  int64
	manualPath string
	readOnly   bool // never write .registry (health checks)
	hook       registerHook

	mu         sync.Mutex
	manual     *manual
	manualFP   string
	manualErr  error
	cols       map[Kind]*collection
	tools      []*Tool
	toolByName map[string]*Tool
	resources  []*Resource
	templates  []*Template
	prompts    []*Prompt
}

// collection is one kind's current items and bookkeeping.
type collection struct {
	loaded      bool
	items       []json.RawMessage
	hash        string
	generatedAt time.Time
	checkedAt   time.Time
	fp          string
	announced   string // hash last reported as a change (or the initial hash)
	err         error
}

// Page is one page of a list.
type Page struct {
	Items      []json.RawMessage
	NextCursor string
	Total      int
}

// Open prepares a registry. It reads server.d/register.json strictly (an invalid file is an
// error: the server must refuse to start) but scans nothing yet.
func Open(ctx context.Context, o Options) (*Registry, error) {
	if o.Warn == nil {
		o.Warn = func(Warning) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &Registry{
		opts:       o,
		readOnly:   o.Settings.ReadOnly,
		ttl:        map[Kind]time.Duration{},
		static:     o.Settings.Static,
		maxBytes:   orDefault(o.Settings.MaxBytes, 100<<20),
		manualMax:  orDefault(o.Settings.ManualMaxBytes, DefaultManualMaxBytes),
		manualPath: filepath.Join(o.Dirs.Server, "register.json"),
		cols:       map[Kind]*collection{},
	}
	// The TTLs are config's (5 s unless set); a zero TTL re-checks on every request.
	s := o.Settings
	r.ttl[KindTools], r.ttl[KindResources] = s.ToolsTTL, s.ResourcesTTL
	r.ttl[KindResourceTemplates], r.ttl[KindPrompts] = s.TemplatesTTL, s.PromptsTTL
	for _, k := range Kinds {
		r.cols[k] = &collection{}
	}
	r.hook = newRegisterHook(o, r.static)
	r.manualFP = statFP(r.manualPath)
	m, err := loadManual(r.manualPath, r.manualMax)
	if err != nil {
		// Serve anyway: every list answers -32603 with the reason until the file is fixed (a
		// server that refuses to start shows only "disconnected" in GUI clients).
		r.manualErr = err
		o.Warn(Warning{Kind: KindTools, Path: "server.d/register.json", Message: err.Error() + "; every list fails until it is fixed"})
	}
	r.manual = m
	return r, ctx.Err()
}

// orDefault is n, or def when n is not positive.
func orDefault(n, def int64) int64 {
	if n <= 0 {
		return def
	}
	return n
}

// ManualError is why server.d/register.json could not be loaded (nil when it loads or is
// absent): the server serves anyway, but health reports the project misconfigured.
func (r *Registry) ManualError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.manualErr
}

// Completions returns the manual completion providers from register.json or register.sh.
func (r *Registry) Completions() []Completion {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reloadManual() != nil || r.manual == nil {
		return nil
	}
	return append([]Completion(nil), r.manual.completions...)
}

// Warm loads every kind (from a valid cache or by scanning) so the first list is fast.
func (r *Registry) Warm(ctx context.Context) {
	for _, k := range Kinds {
		if ctx.Err() != nil {
			return
		}
		r.mu.Lock()
		_ = r.ensure(k, false)
		r.mu.Unlock()
	}
}

// List returns one page of a kind. cursor is "" for the first page; limit ≤ 0 means the default.
func (r *Registry) List(ctx context.Context, kind Kind, cursor string, limit int) (Page, error) {
	if limit <= 0 {
		limit = DefaultPageSize
	}
	limit = min(limit, MaxPageSize)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensure(kind, false); err != nil {
		return Page{}, err
	}
	c := r.cols[kind]
	offset := 0
	if cursor != "" {
		var err error
		if offset, err = decodeCursor(cursor, kind, c.hash, len(c.items)); err != nil {
			return Page{}, err
		}
	}
	end := min(offset+limit, len(c.items))
	p := Page{Items: c.items[offset:end], Total: len(c.items)}
	if end < len(c.items) {
		p.NextCursor = encodeCursor(kind, end, c.hash, r.opts.Now())
	}
	return p, ctx.Err()
}

// Refresh re-checks each loaded kind whose TTL has passed and rescans it when its sources
// changed. It returns the kinds whose hash differs from the last one reported, each once.
func (r *Registry) Refresh(ctx context.Context) ([]Kind, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var changed []Kind
	var firstErr error
	for _, k := range Kinds {
		if ctx.Err() != nil {
			break
		}
		c := r.cols[k]
		if !c.loaded {
			continue
		}
		if err := r.ensure(k, false); err != nil && firstErr == nil {
			firstErr = err
		}
		if c.err == nil && c.hash != c.announced {
			c.announced = c.hash
			changed = append(changed, k)
		}
	}
	return changed, firstErr
}

// RefreshDue reports whether Refresh would do anything now: a loaded kind whose TTL has run
// out, or a change not yet announced. The server asks before starting a refresh, so the common
// case costs no goroutine. It never waits for a scan in progress (false then: the next line or
// idle tick asks again).
func (r *Registry) RefreshDue() bool {
	if !r.mu.TryLock() {
		return false
	}
	defer r.mu.Unlock()
	now := r.opts.Now()
	for _, k := range Kinds {
		c := r.cols[k]
		if !c.loaded {
			continue
		}
		if (!r.static && now.Sub(c.checkedAt) >= r.ttl[k]) || (c.err == nil && c.hash != c.announced) {
			return true
		}
	}
	return false
}

// Rebuild rescans every kind now, ignoring TTLs and caches, and writes the cache.
func (r *Registry) Rebuild(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, k := range Kinds {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := r.ensure(k, true); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Status describes one kind for `registry status`.
type Status struct {
	Kind        Kind      `json:"kind"`
	Total       int       `json:"total"`
	Hash        string    `json:"hash"`
	GeneratedAt time.Time `json:"generatedAt"`
	Error       string    `json:"error,omitempty"`
}

// Status loads every kind and reports it.
func (r *Registry) Status(ctx context.Context) []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Status
	for _, k := range Kinds {
		err := r.ensure(k, false)
		c := r.cols[k]
		s := Status{Kind: k, Total: len(c.items), Hash: c.hash, GeneratedAt: c.generatedAt}
		if err != nil {
			s.Error = err.Error()
		}
		out = append(out, s)
	}
	return out
}

// Tool returns the first tool with that name (duplicates are listed; calls take the first).
func (r *Registry) Tool(ctx context.Context, name string) (*Tool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensure(KindTools, false); err != nil {
		return nil, err
	}
	if t := r.toolByName[name]; t != nil {
		return t, nil
	}
	return nil, ErrNotFound
}

// Tools returns every tool, in no particular order.
func (r *Registry) Tools(ctx context.Context) ([]*Tool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensure(KindTools, false); err != nil {
		return nil, err
	}
	out := make([]*Tool, 0, len(r.toolByName))
	for _, t := range r.toolByName {
		out = append(out, t)
	}
	return out, ctx.Err()
}

// Resources returns every resource (for reads by name or uri).
func (r *Registry) Resources(ctx context.Context) ([]*Resource, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensure(KindResources, false); err != nil {
		return nil, err
	}
	return append([]*Resource(nil), r.resources...), nil
}

// Templates returns every resource template.
func (r *Registry) Templates(ctx context.Context) ([]*Template, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensure(KindResourceTemplates, false); err != nil {
		return nil, err
	}
	return append([]*Template(nil), r.templates...), nil
}

// Prompts returns every prompt.
func (r *Registry) Prompts(ctx context.Context) ([]*Prompt, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensure(KindPrompts, false); err != nil {
		return nil, err
	}
	return append([]*Prompt(nil), r.prompts...), nil
}

// Prompt returns the prompt with that name.
func (r *Registry) Prompt(ctx context.Context, name string) (*Prompt, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ensure(KindPrompts, false); err != nil {
		return nil, err
	}
	for _, p := range r.prompts {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, ErrNotFound
}

// ensure makes kind current. Called with r.mu held. A kind is (re)built when it was never
// loaded, when force is set, or when its TTL passed and the fingerprint of its sources changed.
func (r *Registry) ensure(kind Kind, force bool) error {
	c := r.cols[kind]
	now := r.opts.Now()
	if c.loaded && !force && (r.static || now.Sub(c.checkedAt) < r.ttl[kind]) {
		return c.err
	}
	if err := r.reloadManual(); err != nil {
		for _, k := range Kinds {
			col := r.cols[k]
			col.err = fmt.Errorf("%w: %v", ErrLoad, err)
			col.loaded, col.checkedAt = true, now
		}
		return c.err
	}
	fp := r.fingerprint(kind)
	c.checkedAt = now
	if c.loaded && !force && c.err == nil && fp == c.fp {
		return nil
	}
	first := !c.loaded
	if first && !force && r.loadCache(kind, fp) {
		c.announced = c.hash
		return nil
	}
	err := r.scan(kind, fp)
	if first {
		c.announced = c.hash
	}
	return err
}

// reloadManual re-reads register.json when it changed on disk; without register.json, it
// re-runs server.d/register.sh when that is enabled and due (see reloadRegisterSh).
func (r *Registry) reloadManual() error {
	fp := statFP(r.manualPath)
	if fp == "absent" && r.hookActive() {
		return r.reloadRegisterSh()
	}
	if fp == r.manualFP && r.manualErr == nil {
		return nil
	}
	if fp == r.manualFP {
		return r.manualErr
	}
	r.manualFP = fp
	m, err := loadManual(r.manualPath, r.manualMax)
	return r.adoptManual(m, err)
}

// adoptManual makes m the manual registration (on success) and remembers err.
func (r *Registry) adoptManual(m *manual, err error) error {
	r.manualErr = err
	if err == nil {
		r.manual = m
		// Every kind must be rebuilt against the new file.
		for _, c := range r.cols {
			c.fp = ""
			if c.err != nil && errors.Is(c.err, ErrLoad) {
				c.err = nil
				c.loaded = false
			}
		}
	}
	return err
}

// scan rebuilds kind from the project (and register.json) and writes its cache. A scan that
// fails to read the project (descriptors exhausted, an I/O error: ioFailure) is thrown away
// rather than taken for a smaller project: the kind keeps what it had (nothing changes, nothing
// is announced, the next check scans again), or, never loaded yet, fails with ErrLoad.
func (r *Registry) scan(kind Kind, fp string) error {
	c := r.cols[kind]
	var items []json.RawMessage
	d := r.opts.Dirs
	var failMu sync.Mutex
	var failed error
	warn := func(w Warning) {
		if w.ioErr != nil {
			failMu.Lock()
			if failed == nil {
				failed = fmt.Errorf("%s: %w", w.Path, w.ioErr)
			}
			failMu.Unlock()
			return
		}
		r.opts.Warn(w)
	}
	var (
		tools     []*Tool
		resources = r.resources
		templates = r.templates
		prompts   []*Prompt
	)
	switch kind {
	case KindTools:
		if r.manual != nil && r.manual.tools != nil {
			tools = manualTools(d, *r.manual.tools, warn)
		} else {
			tools = scanTools(d, r.opts.ServerName, warn)
		}
		for _, t := range tools {
			items = append(items, t.Item)
		}
	case KindResources, KindResourceTemplates:
		if r.manual != nil && r.manual.resources != nil {
			resources = manualResources(d, *r.manual.resources)
		} else {
			resources = scanResources(d, r.opts.ServerName, warn)
		}
		if kind == KindResources {
			for _, x := range resources {
				items = append(items, x.Item)
			}
			break
		}
		if r.manual != nil && r.manual.templates != nil {
			templates = manualTemplates(*r.manual.templates)
		} else {
			names := map[string]bool{}
			for _, x := range resources {
				names[x.Name] = true
			}
			templates = scanTemplates(d, names, warn)
		}
		for _, x := range templates {
			items = append(items, x.Item)
		}
	case KindPrompts:
		if r.manual != nil && r.manual.prompts != nil {
			prompts = manualPrompts(d, *r.manual.prompts, warn)
		} else {
			prompts = scanPrompts(d, warn)
		}
		for _, x := range prompts {
			items = append(items, x.Item)
		}
	}
	if failed != nil {
		r.opts.Warn(Warning{Kind: kind, Message: fmt.Sprintf("scan failed (%v); %s", failed,
			map[bool]string{true: "keeping the previous list", false: "listing fails until a scan succeeds"}[c.loaded && c.err == nil])})
		if c.loaded && c.err == nil {
			return nil
		}
		c.loaded, c.err = true, fmt.Errorf("%w: %s scan failed: %v", ErrLoad, kind, failed)
		return c.err
	}
	switch kind {
	case KindTools:
		r.setTools(tools)
	case KindResources, KindResourceTemplates:
		r.resources, r.templates = resources, templates
	case KindPrompts:
		r.prompts = prompts
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	if len(items) > 500 {
		warn(Warning{Kind: kind, Message: fmt.Sprintf("%d %s registered; consider manual registration (server.d/register.json) for large projects", len(items), kind)})
	}
	c.loaded, c.fp, c.generatedAt = true, fp, r.opts.Now().UTC()
	c.items, c.hash = items, hashItems(items)
	c.err = nil
	env, size := r.envelope(c)
	if size > r.maxBytes {
		c.err = fmt.Errorf("%w: %s registry is %d bytes, above MCPBASH_REGISTRY_MAX_BYTES (%d)", ErrLoad, kind, size, r.maxBytes)
		c.items = nil
		return c.err
	}
	r.writeCache(kind, env)
	return nil
}

func (r *Registry) setTools(tools []*Tool) {
	r.tools = tools
	r.toolByName = make(map[string]*Tool, len(tools))
	for _, t := range tools {
		if _, dup := r.toolByName[t.Name]; !dup {
			r.toolByName[t.Name] = t
		}
	}
}

// hashItems is the SHA-256 of the canonical (compact, ordered) items array.
func hashItems(items []json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte{'['})
	for i, it := range items {
		if i > 0 {
			h.Write([]byte{','})
		}
		h.Write(it)
	}
	h.Write([]byte{']'})
	return hex.EncodeToString(h.Sum(nil))
}

// fingerprint is the cheap change check: the path, size and mtime of every entry below the
// kind's directories, plus register.json. Content edits change mtime and are caught too.
func (r *Registry) fingerprint(kind Kind) string {
	h := sha256.New()
	h.Write([]byte(r.manualFP))
	d := r.opts.Dirs
	switch kind {
	case KindTools:
		h.Write([]byte(r.opts.ServerName))
		fpTree(h, d.Tools, 0)
	case KindResources, KindResourceTemplates:
		fpTree(h, d.Resources, 0)
		fpTree(h, d.UI, 0)
		fpTree(h, d.Tools, 0)
	case KindPrompts:
		fpTree(h, d.Prompts, 0)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func fpTree(h hash.Hash, dir string, depth int) {
	ents, err := os.ReadDir(dir)
	if err != nil || depth >= maxDepth {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%o\n", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
		if fi.IsDir() && e.Type()&os.ModeSymlink == 0 {
			fpTree(h, p, depth+1)
		}
	}
}

func statFP(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return "absent"
	}
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano())
}

// cacheEnvelope is the on-disk shape of .registry/<kind>.json (the seed's envelope plus our
// fingerprint, which lets a restart reuse the cache when nothing changed).
type cacheEnvelope struct {
	FormatVersion int               `json:"format_version"`
	Version       int               `json:"version"`
	GeneratedAt   time.Time         `json:"generatedAt"`
	Items         []json.RawMessage `json:"items"`
	Hash          string            `json:"hash"`
	Total         int               `json:"total"`
	Fingerprint   string            `json:"mcpbash/fingerprint,omitempty"`
}

func (r *Registry) envelope(c *collection) ([]byte, int64) {
	b, _ := json.Marshal(cacheEnvelope{FormatVersion: 1, Version: 1, GeneratedAt: c.generatedAt, Items: c.items,
		Hash: c.hash, Total: len(c.items), Fingerprint: c.fp})
	return b, int64(len(b))
}

// writeCache writes atomically (temp file + rename). A read-only project simply has no cache.
func (r *Registry) writeCache(kind Kind, data []byte) {
	if r.readOnly {
		return
	}
	dir := r.opts.Dirs.Registry
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, "."+string(kind)+".json.*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, string(kind)+".json")) != nil {
		os.Remove(tmp.Name())
	}
}

// loadCache adopts .registry/<kind>.json when it is valid and was built from the same sources
// (or unconditionally in static mode). Corrupt or oversized caches are ignored.
func (r *Registry) loadCache(kind Kind, fp string) bool {
	p := filepath.Join(r.opts.Dirs.Registry, string(kind)+".json")
	fi, err := os.Stat(p)
	if err != nil || fi.Size() > r.maxBytes {
		return false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	var env cacheEnvelope
	if json.Unmarshal(data, &env) != nil || env.Version != 1 || env.Items == nil || hashItems(env.Items) != env.Hash {
		return false
	}
	if !(r.static && env.FormatVersion == 1) && env.Fingerprint != fp {
		return false
	}
	// Typed entries are rebuilt from the items; tools re-read their metadata file.
	switch kind {
	case KindTools:
		tools := make([]*Tool, 0, len(env.Items))
		for _, it := range env.Items {
			t, ok := toolFromItem(r.opts.Dirs, it)
			if !ok {
				return false
			}
			tools = append(tools, t)
		}
		r.setTools(tools)
	case KindResources:
		var rs []*Resource
		for _, it := range env.Items {
			var m metaDoc
			if json.Unmarshal(it, &m) != nil {
				return false
			}
			x := &Resource{Name: m.str("name"), URI: m.str("uri"), Path: m.str("path"), MIMEType: m.str("mimeType"), Provider: m.str("provider"), Item: it}
			if x.Path != "" {
				x.Abs = filepath.Join(r.opts.Dirs.Resources, x.Path)
			}
			rs = append(rs, x)
		}
		r.resources = rs
	case KindResourceTemplates:
		var ts []*Template
		for _, it := range env.Items {
			var m metaDoc
			if json.Unmarshal(it, &m) != nil {
				return false
			}
			ts = append(ts, &Template{Name: m.str("name"), URITemplate: m.str("uriTemplate"), Item: it})
		}
		r.templates = ts
	case KindPrompts:
		// Prompts need their argument schema, which the wire item no longer carries: rescan.
		return false
	}
	c := r.cols[kind]
	c.loaded, c.items, c.hash, c.fp, c.generatedAt, c.err = true, env.Items, env.Hash, fp, env.GeneratedAt, nil
	return true
}

func toolFromItem(d Dirs, item json.RawMessage) (*Tool, bool) {
	var m metaDoc
	if json.Unmarshal(item, &m) != nil || m.str("name") == "" {
		return nil, false
	}
	t := &Tool{Name: m.str("name"), Path: m.str("path"), InputSchema: m["inputSchema"], OutputSchema: m.object("outputSchema"),
		TimeoutSecs: positiveInt(m["timeoutSecs"]), MaxTimeoutSecs: positiveInt(m["maxTimeoutSecs"]), TimeoutHint: m.str("timeoutHint"), Item: item}
	_ = json.Unmarshal(m["progressExtendsTimeout"], &t.ProgressExtendsTimeout)
	t.Abs = t.Path
	if !filepath.IsAbs(t.Abs) {
		t.Abs = filepath.Join(d.Tools, t.Path)
	}
	t.Kind = ToolScript
	if filepath.Ext(t.Abs) == ".wasm" {
		t.Kind = ToolWasm
	}
	// Engine-specific fields (exec, sandbox, ...) live only in the metadata file.
	if meta, _, _, _ := readMeta(t.Abs, usableTool, t.Kind == ToolScript, func(Warning) {}); meta != nil {
		t.Meta = meta
	} else {
		t.Meta = m
	}
	return t, true
}

// cursorDoc is the decoded form of an opaque list cursor.
type cursorDoc struct {
	Ver        int    `json:"ver"`
	Collection string `json:"collection"`
	Offset     int    `json:"offset"`
	Hash       string `json:"hash"`
	Timestamp  int64  `json:"timestamp"`
}

func encodeCursor(kind Kind, offset int, hash string, now time.Time) string {
	b, _ := json.Marshal(cursorDoc{Ver: 1, Collection: string(kind), Offset: offset, Hash: hash, Timestamp: now.Unix()})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string, kind Kind, hash string, total int) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return 0, ErrInvalidCursor
	}
	var c cursorDoc
	if json.Unmarshal(b, &c) != nil || c.Ver != 1 || c.Collection != string(kind) || c.Hash != hash || c.Offset < 0 || c.Offset > total {
		return 0, ErrInvalidCursor
	}
	return c.Offset, nil
}
