// Package tenants is the tenant model of hosting mode: the tenants file
// (server.d/tenants.json, a strict schema, hot reload) that maps each tenant id, or a default
// template, to its roots, allowed host commands and wasm modules, limits and visible
// tools/resources/prompts; the resolved Tenant the session core asks; and per-tenant admission
// (calls per minute, concurrent calls, fair queueing across tenants).
//
// The package is a leaf: it imports nothing of host.
package tenants

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed tenants.schema.json
var schemaJSON []byte

// Placeholder is replaced by the tenant id in root paths.
const Placeholder = "{tenant}"

// ValidID reports whether id may name a tenant: ^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$, one path
// component that can be neither "." nor "..", with no "/", so that {tenant} can never climb out
// of its directory. Checked by hand: compiling that regexp at every start cost most of a
// millisecond.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '@' && c != '-') {
			return false
		}
	}
	return true
}

// File is a parsed tenants file.
type File struct {
	Version int                  `json:"version"`
	Default *Template            `json:"default,omitempty"`
	Tenants map[string]*Template `json:"tenants,omitempty"`
}

// Template is the default template or one tenant's entry. In an entry, a field that is present
// replaces the default's; limits are merged field by field.
type Template struct {
	Disabled  bool        `json:"disabled,omitempty"`
	Roots     []RootSpec  `json:"roots,omitempty"`
	Commands  *[]string   `json:"commands,omitempty"`
	Wasm      *[]string   `json:"wasm,omitempty"`
	Limits    *LimitSpec  `json:"limits,omitempty"`
	Tools     *Visibility `json:"tools,omitempty"`
	Resources *Visibility `json:"resources,omitempty"`
	Prompts   *Visibility `json:"prompts,omitempty"`
	// WriteMode is "direct" or "review" (review mode, docs/REVIEW.md): a floor over the tools'.
	WriteMode string `json:"writeMode,omitempty"`
}

// RootSpec is a root as written in the file.
type RootSpec struct {
	Path     string `json:"path"`
	Name     string `json:"name,omitempty"`
	ReadOnly bool   `json:"readOnly,omitempty"`
	Create   bool   `json:"create,omitempty"`
}

// LimitSpec is limits as written (absent fields inherit).
type LimitSpec struct {
	TimeoutSecs     *int   `json:"timeoutSecs,omitempty"`
	MemoryMiB       *int   `json:"memoryMiB,omitempty"`
	OutputBytes     *int64 `json:"outputBytes,omitempty"`
	ConcurrentCalls *int   `json:"concurrentCalls,omitempty"`
	QueueLength     *int   `json:"queueLength,omitempty"`
	CallsPerMinute  *int   `json:"callsPerMinute,omitempty"`
	BytesWritten    *int64 `json:"bytesWritten,omitempty"`
	Sessions        *int   `json:"sessions,omitempty"`
	Listens         *int   `json:"listens,omitempty"`
	Subscriptions   *int   `json:"subscriptions,omitempty"`
	BufferedBytes   *int64 `json:"bufferedBytes,omitempty"`
}

// Visibility filters names with * and ? patterns: a name is visible when it matches an allow
// pattern (no allow list: every name) and no deny pattern.
type Visibility struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Limits are a tenant's resolved limits.
type Limits struct {
	Timeout         time.Duration // per call
	MemoryMiB       int           // per worker process (heap)
	OutputBytes     int64         // per call, stdout and the response
	ConcurrentCalls int           // calls running at once
	QueueLength     int           // calls waiting for a slot beyond which calls are refused (0: unbounded)
	CallsPerMinute  int           // admitted calls per minute (token bucket)
	BytesWritten    int64         // bytes one call may write into the roots
	Sessions        int           // HTTP sessions open at once
	Listens         int           // subscriptions/listen streams open at once
	Subscriptions   int           // resources watched at once, across listens and sessions
	BufferedBytes   int64         // SSE bytes held for the tenant's streams no client reads
}

// DefaultLimits apply to every limit the file leaves out.
func DefaultLimits() Limits {
	return Limits{
		Timeout:         30 * time.Second,
		MemoryMiB:       512,
		OutputBytes:     10 << 20,
		ConcurrentCalls: 4,
		QueueLength:     64,
		CallsPerMinute:  600,
		BytesWritten:    100 << 20,
		Sessions:        100,
		Listens:         8,
		Subscriptions:   256,
		BufferedBytes:   64 << 20,
	}
}

func (l Limits) with(s *LimitSpec) Limits {
	if s == nil {
		return l
	}
	if s.TimeoutSecs != nil {
		l.Timeout = time.Duration(*s.TimeoutSecs) * time.Second
	}
	override(&l.MemoryMiB, s.MemoryMiB)
	override(&l.OutputBytes, s.OutputBytes)
	override(&l.ConcurrentCalls, s.ConcurrentCalls)
	override(&l.QueueLength, s.QueueLength)
	override(&l.CallsPerMinute, s.CallsPerMinute)
	override(&l.BytesWritten, s.BytesWritten)
	override(&l.Sessions, s.Sessions)
	override(&l.Listens, s.Listens)
	override(&l.Subscriptions, s.Subscriptions)
	override(&l.BufferedBytes, s.BufferedBytes)
	return l
}

// override sets *dst to what the file wrote, when it wrote it.
func override[T any](dst *T, written *T) {
	if written != nil {
		*dst = *written
	}
}

// Problem is one thing wrong with a tenants file, at a JSON pointer.
type Problem struct {
	Pointer string // RFC 6901, "" for the whole document
	Message string
}

// ParseError lists every problem found in a tenants file.
type ParseError struct {
	Path     string // the file, when known
	Problems []Problem
}

func (e *ParseError) Error() string {
	var b strings.Builder
	name := e.Path
	if name == "" {
		name = "tenants file"
	}
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("\n")
		}
		ptr := p.Pointer
		if ptr == "" {
			ptr = "/"
		}
		fmt.Fprintf(&b, "%s: %s: %s", name, ptr, p.Message)
	}
	return b.String()
}

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	const loc = "mem:///tenants.schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
})

type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema reference %q", url)
}

// Schema returns the JSON Schema of the tenants file (for docs and editors).
func Schema() []byte { return bytes.Clone(schemaJSON) }

// Parse validates a tenants document against the schema (unknown keys are errors), then checks
// what a schema cannot say (root templates, read-write roots shared between tenants).
func Parse(data []byte) (*File, error) {
	sch, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("tenants: schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, &ParseError{Problems: []Problem{{Message: "not valid JSON: " + err.Error()}}}
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
		return nil, &ParseError{Problems: schemaProblems(ve)}
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, &ParseError{Problems: []Problem{{Message: err.Error()}}}
	}
	if probs := f.check(); len(probs) > 0 {
		return nil, &ParseError{Problems: probs}
	}
	return &f, nil
}

// schemaProblems flattens a validation error to its leaves, sorted by pointer.
func schemaProblems(ve *jsonschema.ValidationError) []Problem {
	p := message.NewPrinter(language.English)
	var out []Problem
	var walk func(e *jsonschema.ValidationError, parent string)
	walk = func(e *jsonschema.ValidationError, parent string) {
		ptr := ""
		for _, tok := range e.InstanceLocation {
			ptr += "/" + pointerToken(tok)
		}
		if _, ok := e.ErrorKind.(*kind.PropertyNames); ok {
			// jsonschema v6.0.3 reports a propertyNames failure at a location that aliases
			// another property's; the only propertyNames in our schema is that of tenants.
			ptr = "/tenants"
		} else if len(ptr) < len(parent) {
			ptr = parent // a key validated as an instance of its own: point at its object
		}
		if len(e.Causes) == 0 {
			out = append(out, Problem{Pointer: ptr, Message: e.ErrorKind.LocalizedString(p)})
		}
		for _, c := range e.Causes {
			walk(c, ptr)
		}
	}
	walk(ve, "")
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return slices.Compact(out)
}

// pointerToken escapes a key for a JSON pointer (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// check validates root templates and isolation between tenants.
func (f *File) check() []Problem {
	var probs []Problem
	addRoots := func(base string, t *Template, perTenantOnly bool) {
		for i, r := range t.Roots {
			ptr := fmt.Sprintf("%s/roots/%d/path", base, i)
			if msg := checkRootTemplate(r); msg != "" {
				probs = append(probs, Problem{ptr, msg})
				continue
			}
			if perTenantOnly && !r.ReadOnly && !strings.Contains(r.Path, Placeholder) {
				probs = append(probs, Problem{ptr, "a root of the default template without {tenant} is shared by every tenant, so it must be readOnly"})
			}
		}
	}
	if f.Default != nil {
		addRoots("/default", f.Default, true)
	}
	ids := make([]string, 0, len(f.Tenants))
	for id := range f.Tenants {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		t := f.Tenants[id]
		if t == nil {
			continue
		}
		addRoots("/tenants/"+pointerToken(id), t, false)
		if !t.Disabled && t.Roots == nil && f.Default == nil {
			probs = append(probs, Problem{"/tenants/" + pointerToken(id), "no roots: give the tenant roots or add a default template"})
		}
	}
	if len(probs) > 0 {
		return probs
	}
	return append(probs, f.checkIsolation(ids)...)
}

// checkRootTemplate returns what is wrong with a root path template ("" when fine).
func checkRootTemplate(r RootSpec) string {
	rest := strings.ReplaceAll(r.Path, Placeholder, "x")
	if strings.ContainsAny(rest, "{}") {
		return "only {tenant} may appear in braces"
	}
	if path.Clean(rest) != rest || !strings.HasPrefix(rest, "/") {
		return "must be a clean absolute path (no //, ., .. or trailing /)"
	}
	if rest == "/" {
		return "the filesystem root cannot be a tenant root"
	}
	if r.Create && !strings.Contains(r.Path, Placeholder) {
		return "create is only allowed for per-tenant paths (containing {tenant})"
	}
	return ""
}

// tenantPrefix is the operator-owned directory above a per-tenant path: the directory holding
// the first component that contains {tenant} ("" for a path without {tenant}).
func tenantPrefix(p string) string {
	i := strings.Index(p, Placeholder)
	if i < 0 {
		return ""
	}
	return path.Dir(p[:i] + "x")
}

// checkIsolation refuses configurations where one tenant's read-write root would contain
// another tenant's data: two listed tenants with overlapping read-write roots, or a read-write
// root that contains the directory under which per-tenant roots are made.
func (f *File) checkIsolation(ids []string) []Problem {
	type rw struct {
		id, path, ptr string
	}
	var rws []rw
	var prefixes []string
	collect := func(t *Template) {
		for _, r := range t.Roots {
			if p := tenantPrefix(r.Path); p != "" {
				prefixes = append(prefixes, p)
			}
		}
	}
	if f.Default != nil {
		collect(f.Default)
	}
	for _, id := range ids {
		t := f.Tenants[id]
		if t == nil || t.Disabled {
			continue
		}
		collect(t)
		roots := t.Roots
		base := "/tenants/" + pointerToken(id)
		if roots == nil && f.Default != nil {
			roots, base = f.Default.Roots, "/default"
		}
		for i, r := range roots {
			if !r.ReadOnly {
				rws = append(rws, rw{id, strings.ReplaceAll(r.Path, Placeholder, id), fmt.Sprintf("%s/roots/%d/path", base, i)})
			}
		}
	}
	var probs []Problem
	for i, a := range rws {
		for _, b := range rws[i+1:] {
			if a.id != b.id && (within(a.path, b.path) || within(b.path, a.path)) {
				probs = append(probs, Problem{b.ptr, fmt.Sprintf("read-write root %s of tenant %q overlaps read-write root %s of tenant %q", b.path, b.id, a.path, a.id)})
			}
		}
		for _, p := range prefixes {
			if within(p, a.path) {
				probs = append(probs, Problem{a.ptr, fmt.Sprintf("read-write root %s of tenant %q contains %s, where other tenants' roots are made", a.path, a.id, p)})
			}
		}
	}
	return probs
}

// within reports whether p is root or below it (both clean absolute paths).
func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}
