package tenants

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/glob"
)

// Lookup errors.
var (
	ErrInvalidID = errors.New("tenants: invalid tenant id")
	ErrUnknown   = errors.New("tenants: unknown tenant")
	ErrDisabled  = errors.New("tenants: tenant disabled")
)

// RootError is a root that cannot be used: missing, not a directory, or resolving outside the
// directory it was templated in.
type RootError struct {
	Tenant, Path string
	Err          error
}

func (e *RootError) Error() string {
	return fmt.Sprintf("tenants: tenant %q: root %s: %v", e.Tenant, e.Path, e.Err)
}

func (e *RootError) Unwrap() error { return e.Err }

// Root is a resolved root: a physical absolute path (symlinks resolved).
type Root struct {
	Path     string
	Name     string
	ReadOnly bool
}

// Kind names what Visible filters.
type Kind string

// Kinds of listed items.
const (
	KindTool     Kind = "tools"
	KindResource Kind = "resources"
	KindPrompt   Kind = "prompts"
)

// Tenant is one tenant resolved against the tenants file: what the session core asks before
// every call. It is immutable; a reload yields new Tenants.
type Tenant struct {
	id       string
	gen      uint64
	roots    []Root
	commands []string
	wasm     []string
	limits   Limits
	vis      map[Kind]Visibility
	review   bool
}

// ID is the tenant id.
func (t *Tenant) ID() string { return t.id }

// Generation is the tenants-file generation the tenant was resolved from.
func (t *Tenant) Generation() uint64 { return t.gen }

// Roots are the tenant's roots: the most a call of this tenant may see, and what its worker
// processes are confined to.
func (t *Tenant) Roots() []Root { return slices.Clone(t.roots) }

// Limits are the tenant's limits.
func (t *Tenant) Limits() Limits { return t.limits }

// Review reports whether the tenant's calls run in review mode whatever their tools say.
func (t *Tenant) Review() bool { return t.review }

// Commands are the host commands the tenant's tools may run (the allowlist).
func (t *Tenant) Commands() []string { return slices.Clone(t.commands) }

// Wasm are the wasm modules the tenant's tools may run.
func (t *Tenant) Wasm() []string { return slices.Clone(t.wasm) }

// Visible reports whether the tenant sees the tool, resource or prompt called name: it
// matches an allow pattern (no allow list: any name) and no deny pattern.
func (t *Tenant) Visible(kind Kind, name string) bool {
	v, ok := t.vis[kind]
	if !ok {
		return true
	}
	if len(v.Allow) > 0 && !slices.ContainsFunc(v.Allow, func(p string) bool { return glob.Match(p, name) }) {
		return false
	}
	return !slices.ContainsFunc(v.Deny, func(p string) bool { return glob.Match(p, name) })
}

// Filters reports whether the tenant's file hides any names of kind (Visible can be false).
func (t *Tenant) Filters(kind Kind) bool {
	_, ok := t.vis[kind]
	return ok
}

// NarrowRoots intersects a client's roots (roots/list, file paths) with the tenant's: a client
// can only narrow what the tenant may see, never widen it. Each client root is resolved to its
// physical path (a missing one is dropped); one inside a tenant root is kept with that root's
// mode (the deepest containing root's, so a read-only root nested in a read-write one stays
// read-only); one that contains tenant roots yields those roots. No client roots means the
// tenant's roots; client roots that meet none of the tenant's mean none at all.
//
// Landlock confinement of the tenant's workers must use Roots, not the narrowed list: a client
// root is checked here once, and the tenant could swap a directory for a symlink afterwards.
func (t *Tenant) NarrowRoots(client []Root) []Root {
	if len(client) == 0 {
		return t.Roots()
	}
	var out []Root
	add := func(r Root) {
		for i, o := range out {
			if o.Path == r.Path {
				out[i].ReadOnly = o.ReadOnly || r.ReadOnly
				return
			}
		}
		out = append(out, r)
	}
	for _, c := range client {
		p, err := physicalDir(c.Path)
		if err != nil {
			continue
		}
		var best *Root
		for i := range t.roots {
			r := &t.roots[i]
			if within(p, r.Path) && (best == nil || len(r.Path) > len(best.Path)) {
				best = r
			}
		}
		if best != nil {
			name := c.Name
			if name == "" {
				name = best.Name
			}
			add(Root{Path: p, Name: name, ReadOnly: best.ReadOnly})
			continue
		}
		for _, r := range t.roots {
			if within(r.Path, p) {
				add(r)
			}
		}
	}
	return out
}

// physicalDir resolves p to an existing directory's physical path.
func physicalDir(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", errors.New("not absolute")
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", errors.New("not a directory")
	}
	return real, nil
}

// resolve builds the Tenant id of f. It creates per-tenant roots marked create (0700) and
// checks every root: it must exist, be a directory, and a per-tenant root must resolve inside
// the directory it is templated under (a symlink planted there cannot redirect it).
func (f *File) resolve(id string, gen uint64) (*Tenant, error) {
	if !ValidID(id) {
		return nil, ErrInvalidID
	}
	entry, listed := f.Tenants[id]
	if !listed && f.Default == nil {
		return nil, ErrUnknown
	}
	if listed && entry != nil && entry.Disabled {
		return nil, ErrDisabled
	}
	eff := Template{}
	if f.Default != nil {
		eff = *f.Default
	}
	limits := DefaultLimits().with(eff.Limits)
	if listed && entry != nil {
		if entry.Roots != nil {
			eff.Roots = entry.Roots
		}
		if entry.Commands != nil {
			eff.Commands = entry.Commands
		}
		if entry.Wasm != nil {
			eff.Wasm = entry.Wasm
		}
		if entry.Tools != nil {
			eff.Tools = entry.Tools
		}
		if entry.Resources != nil {
			eff.Resources = entry.Resources
		}
		if entry.Prompts != nil {
			eff.Prompts = entry.Prompts
		}
		if entry.WriteMode != "" {
			eff.WriteMode = entry.WriteMode
		}
		limits = limits.with(entry.Limits)
	}
	t := &Tenant{id: id, gen: gen, limits: limits, vis: map[Kind]Visibility{}, review: eff.WriteMode == "review"}
	if eff.Commands != nil {
		t.commands = slices.Clone(*eff.Commands)
	}
	if eff.Wasm != nil {
		t.wasm = slices.Clone(*eff.Wasm)
	}
	for k, v := range map[Kind]*Visibility{KindTool: eff.Tools, KindResource: eff.Resources, KindPrompt: eff.Prompts} {
		if v != nil {
			t.vis[k] = *v
		}
	}
	for _, spec := range eff.Roots {
		r, err := resolveRoot(id, spec)
		if err != nil {
			return nil, err
		}
		t.roots = append(t.roots, r)
	}
	return t, nil
}

func resolveRoot(id string, spec RootSpec) (Root, error) {
	p := strings.ReplaceAll(spec.Path, Placeholder, id)
	rootErr := func(err error) (Root, error) { return Root{}, &RootError{Tenant: id, Path: p, Err: err} }
	prefix := tenantPrefix(spec.Path)
	if spec.Create {
		// The prefix is the operator's: never create it, only the tenant's directories below.
		if _, err := os.Stat(prefix); err != nil {
			return rootErr(fmt.Errorf("cannot create below %s: %w", prefix, err))
		}
		if err := os.MkdirAll(p, 0o700); err != nil {
			return rootErr(err)
		}
	}
	real, err := physicalDir(p)
	if err != nil {
		return rootErr(err)
	}
	if prefix != "" {
		realPrefix, err := filepath.EvalSymlinks(prefix)
		if err != nil {
			return rootErr(err)
		}
		if !within(real, realPrefix) || real == realPrefix {
			return rootErr(fmt.Errorf("resolves to %s, outside %s", real, realPrefix))
		}
	}
	name := spec.Name
	if name == "" {
		name = filepath.Base(real)
	}
	return Root{Path: real, Name: name, ReadOnly: spec.ReadOnly}, nil
}
