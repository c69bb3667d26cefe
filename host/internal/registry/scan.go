package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/mcp-bash/mcp-bash/sdk"
)

// maxDepth bounds how deep discovery descends below a kind's directory.
const maxDepth = 8

// Regexps are compiled on first use, not at process start (toolNameRE's {1,128} alone expands to
// 128 instructions' worth of program); the same holds for the other package-level regexps.
var (
	// toolNameRE is what the server serves: MCP 2025-11-25's tool name characters and length
	// (the original checks nothing at run time, so dotted names such as "fail.tool" are common).
	toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })
	// portableNameRE is validate's stricter rule, the original's: Claude Desktop rejects dots
	// and names longer than 64.
	portableNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })
	templateVar    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{[^{}]+\}`) })
)

// ToolKind says how a tool's file is run; the engine is chosen by the tool call.
type ToolKind string

// Tool kinds.
const (
	ToolScript ToolKind = "script"
	ToolWasm   ToolKind = "wasm"
)

// Tool is one registered tool.
type Tool struct {
	Name string
	// Path is relative to the tools dir; Abs is the physical file.
	Path, Abs string
	Kind      ToolKind
	// InputSchema is normalised; OutputSchema is nil when absent.
	InputSchema, OutputSchema json.RawMessage
	// TimeoutSecs is 0 when the metadata sets none.
	TimeoutSecs            int
	MaxTimeoutSecs         int
	TimeoutHint            string
	ProgressExtendsTimeout bool
	// Meta is the whole metadata document (engines read their own fields, e.g. "exec").
	Meta map[string]json.RawMessage
	// Item is the tools/list wire item.
	Item json.RawMessage
	// Prepared is what the server derives once for calls of the tool (its call plan), made on
	// the first call. A change of the tool makes a new Tool, so no plan outlives its tool.
	Prepared atomic.Value
}

// Resource is one registered resource.
type Resource struct {
	Name, URI, Path, Abs, MIMEType, Provider string
	Item                                     json.RawMessage
	// ContentMeta is the `_meta` its resources/read content carries (MCP Apps pages).
	ContentMeta json.RawMessage
	// UITemplate and UIConfig: an MCP Apps page built from a template (Abs is then "").
	UITemplate string
	UIConfig   json.RawMessage
}

// Template is one registered resource template.
type Template struct {
	Name, URITemplate, MIMEType string
	Item                        json.RawMessage
}

// Prompt is one registered prompt template.
type Prompt struct {
	Name, Path, Abs, Role string
	// Arguments is the JSON-Schema object of the metadata (nil when absent).
	Arguments json.RawMessage
	Item      json.RawMessage
}

// Completion is a manual completion provider from register.json. Exec and Sandbox choose its
// engine as a tool's meta does ("exec": "native"; "sandbox": {"allowCommands": [...]}).
type Completion struct {
	Name        string          `json:"name"`
	Path        string          `json:"path"`
	TimeoutSecs int             `json:"timeoutSecs,omitempty"`
	Exec        string          `json:"exec,omitempty"`
	Sandbox     json.RawMessage `json:"sandbox,omitempty"`
}

// Warning is a structured, non-fatal problem found while scanning.
type Warning struct {
	Kind    Kind   `json:"kind"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// ioErr marks a failure to read the project (ioWarning): the scan that met it is thrown
	// away (Registry.scan), never reported as a smaller project.
	ioErr error
}

// ioFailure reports whether err is a failure to read the project (descriptors exhausted, an
// I/O error, no memory...), as opposed to an entry that is missing, not permitted or not of
// the expected type, which a scan skips.
func ioFailure(err error) bool {
	return err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) &&
		!errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, syscall.ELOOP) && !errors.Is(err, syscall.ENAMETOOLONG)
}

// ioWarning reports an I/O failure met while scanning path (see ioFailure).
func ioWarning(warn func(Warning), path string, err error) {
	warn(Warning{Path: path, Message: err.Error(), ioErr: err})
}

// object is a JSON object that keeps its key order, so wire items read like the original's.
type object []field

type field struct {
	key string
	val any
}

func (o *object) set(key string, val any) { *o = append(*o, field{key, val}) }

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.val)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("registry: marshal: %v", err))
	}
	return b
}

// walkFiles lists regular files below dir (depth-limited, hidden entries skipped) grouped by
// their directory, in lexical order. Symlinked files count; symlinked directories are not
// followed (they could loop).
func walkFiles(dir string, warn func(Warning), kind Kind) map[string][]string {
	out := map[string][]string{}
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		ents, err := os.ReadDir(d)
		if err != nil {
			if ioFailure(err) {
				ioWarning(warn, d, err)
			}
			return
		}
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue
			}
			p := filepath.Join(d, name)
			if strings.ContainsAny(name, "\n\r") {
				warn(Warning{Kind: kind, Path: p, Message: "file name contains a newline; skipped"})
				continue
			}
			typ := e.Type()
			if typ&fs.ModeSymlink != 0 {
				fi, err := os.Stat(p)
				if err != nil {
					if ioFailure(err) {
						ioWarning(warn, p, err)
					}
					continue
				}
				typ = fi.Mode().Type()
				if fi.IsDir() {
					continue
				}
			}
			switch {
			case typ.IsDir():
				if depth+1 >= maxDepth {
					warn(Warning{Kind: kind, Path: p, Message: fmt.Sprintf("directory deeper than %d levels; skipped", maxDepth)})
					continue
				}
				walk(p, depth+1)
			case typ.IsRegular():
				out[d] = append(out[d], p)
			}
		}
	}
	walk(dir, 0)
	return out
}

// parallel runs fn over the keys of groups on a bounded worker pool.
func parallel[T any](groups map[string][]string, fn func(dir string, files []string) []T) []T {
	dirs := make([]string, 0, len(groups))
	for d := range groups {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	results := make([][]T, len(dirs))
	workers := min(runtime.GOMAXPROCS(0)*2, len(dirs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = fn(dirs[i], groups[dirs[i]])
			}
		}()
	}
	for i := range dirs {
		next <- i
	}
	close(next)
	wg.Wait()
	var all []T
	for _, r := range results {
		all = append(all, r...)
	}
	return all
}

func isMetaFile(name string) bool { return strings.HasSuffix(name, ".meta.json") }

func isCompletionScript(name string) bool {
	return strings.HasSuffix(name, ".completion") || strings.HasSuffix(name, ".completion.sh")
}

// toolCandidate reports whether a file can be a tool: a script (executable, .sh/.bash, or a
// shebang) or a WebAssembly module.
func toolCandidate(path string, warn func(Warning)) (ToolKind, bool) {
	base := filepath.Base(path)
	if isMetaFile(base) || base == "smoke.sh" {
		return "", false
	}
	switch filepath.Ext(base) {
	case ".wasm":
		return ToolWasm, true
	case ".sh", ".bash":
		return ToolScript, true
	}
	fi, err := os.Stat(path)
	if err == nil && fi.Mode()&0o111 != 0 {
		return ToolScript, true
	}
	if ioFailure(err) {
		ioWarning(warn, path, err)
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		if ioFailure(err) {
			ioWarning(warn, path, err)
		}
		return "", false
	}
	defer f.Close()
	head := make([]byte, 2)
	if n, _ := f.Read(head); n == 2 && string(head) == "#!" {
		return ToolScript, true
	}
	return "", false
}

// PortableToolName reports whether a tool name suits every client (^[A-Za-z0-9_-]{1,64}$);
// validate warns about served names that do not.
func PortableToolName(name string) bool { return portableNameRE().MatchString(name) }

func usableTool(m metaDoc) bool { return m.str("name") != "" || m.str("description") != "" }

// scanTools discovers tools. A candidate file is a tool when it has its own metadata (meta file
// or inline header) or is its directory's only candidate; helper scripts beside a tool are not
// tools (a deliberate difference from the original, which lists every runnable file). Files
// directly in tools/ (the flat layout, tools/x.sh with tools/x.meta.json) are tools only with
// their own metadata: v1.3.0 ignored them, later versions of the original list them.
func scanTools(d Dirs, serverName string, warn func(Warning)) []*Tool {
	groups := walkFiles(d.Tools, warn, KindTools)
	tools := parallel(groups, func(dir string, files []string) []*Tool {
		flat := dir == d.Tools
		type cand struct {
			path string
			kind ToolKind
		}
		var cands []cand
		for _, f := range files {
			if k, ok := toolCandidate(f, warn); ok {
				cands = append(cands, cand{f, k})
			}
		}
		var out []*Tool
		for _, c := range cands {
			meta, metaPath, src, bad := readMeta(c.path, usableTool, c.kind == ToolScript, warn)
			if bad != nil {
				warn(Warning{Kind: KindTools, Path: bad.(*MetaError).Path, Message: "malformed metadata: " + bad.(*MetaError).Err.Error()})
			}
			if src == metaNone && (len(cands) > 1 || flat) {
				continue
			}
			t, err := buildTool(d, c.path, c.kind, meta, metaPath, serverName)
			if err != nil {
				warn(Warning{Kind: KindTools, Path: c.path, Message: err.Error()})
				continue
			}
			out = append(out, t)
		}
		return out
	})
	slices.SortStableFunc(tools, func(a, b *Tool) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return tools
}

func buildTool(d Dirs, path string, kind ToolKind, meta metaDoc, metaPath, serverName string) (*Tool, error) {
	if meta == nil {
		meta = metaDoc{}
	}
	rel, _ := filepath.Rel(d.Tools, path)
	rel = filepath.ToSlash(rel)
	name := meta.str("name")
	if name == "" {
		base := filepath.Base(path)
		name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if !toolNameRE().MatchString(name) {
		return nil, fmt.Errorf("invalid tool name %q (MCP allows 1 to 128 of A-Z a-z 0-9 _ - .; rename it); skipped", name)
	}
	schemaRaw, ok := meta["inputSchema"]
	if !ok {
		schemaRaw = meta["arguments"]
	}
	t := &Tool{Name: name, Path: rel, Abs: path, Kind: kind, InputSchema: normalizeSchema(schemaRaw), Meta: meta}
	if out := meta.object("outputSchema"); out != nil {
		t.OutputSchema = compact(out)
	}
	t.TimeoutSecs = positiveInt(meta["timeoutSecs"])
	t.MaxTimeoutSecs = positiveInt(meta["maxTimeoutSecs"])
	t.TimeoutHint = meta.str("timeoutHint")
	_ = json.Unmarshal(meta["progressExtendsTimeout"], &t.ProgressExtendsTimeout)

	var it object
	it.set("name", name)
	if title := meta.str("title"); title != "" {
		it.set("title", title)
	}
	it.set("description", meta.str("description"))
	it.set("path", rel)
	it.set("inputSchema", t.InputSchema)
	if t.OutputSchema != nil {
		it.set("outputSchema", t.OutputSchema)
	}
	// The original always sends timeoutSecs (null when unset); strict clients reject the null,
	// so it is sent only when set.
	if t.TimeoutSecs > 0 {
		it.set("timeoutSecs", t.TimeoutSecs)
	}
	if t.TimeoutHint != "" {
		it.set("timeoutHint", t.TimeoutHint)
	}
	if t.ProgressExtendsTimeout {
		it.set("progressExtendsTimeout", true)
	}
	if t.MaxTimeoutSecs > 0 {
		it.set("maxTimeoutSecs", t.MaxTimeoutSecs)
	}
	metaDir := filepath.Dir(path)
	if metaPath != "" {
		metaDir = filepath.Dir(metaPath)
	}
	if ic := icons(meta["icons"], metaDir); ic != nil {
		it.set("icons", ic)
	}
	if a := meta.object("annotations"); a != nil {
		it.set("annotations", compact(a))
	}
	if m := toolUIMeta(meta.object("_meta"), filepath.Dir(path), serverName); m != nil {
		it.set("_meta", m)
	}
	t.Item = mustJSON(it)
	return t, nil
}

// toolUIMeta adds the MCP Apps default `_meta.ui` for a tool directory that ships a UI.
func toolUIMeta(meta json.RawMessage, toolDir, serverName string) json.RawMessage {
	hasUI := fileExists(filepath.Join(toolDir, "ui.meta.json"))
	// The page ui/ serves: index.html, or ui.meta.json's entrypoint (index.html when the file
	// is unusable, as for the resource).
	um, _ := ReadUIMeta(filepath.Join(toolDir, "ui"))
	hasUI = hasUI || fileExists(filepath.Join(toolDir, "ui", filepath.FromSlash(um.Entrypoint)))
	if !hasUI {
		if meta != nil {
			return compact(meta)
		}
		return nil
	}
	m := map[string]json.RawMessage{}
	if meta != nil {
		_ = json.Unmarshal(meta, &m)
	}
	if _, ok := m["ui"]; !ok {
		m["ui"] = mustJSON(map[string]any{
			"resourceUri": "ui://" + serverName + "/" + filepath.Base(toolDir),
			"visibility":  []string{"model", "app"},
		})
	}
	return mustJSON(m)
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// positiveInt reads an integer field the way the original does (`^[0-9]+$`, numbers or strings).
func positiveInt(raw json.RawMessage) int {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	if s == "" || strings.Trim(s, "0123456789") != "" || len(s) > 9 {
		return 0
	}
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func usableResource(m metaDoc) bool {
	return m.str("name") != "" || m.str("description") != "" || m.str("uri") != ""
}

// providerFor infers a provider from the URI scheme.
func providerFor(uri string) string {
	switch {
	case strings.HasPrefix(uri, "git+https://"):
		return "git"
	case strings.HasPrefix(uri, "https://"):
		return "https"
	}
	return "file"
}

// scanResources discovers resources: every non-hidden, non-meta file under the resources dir.
func scanResources(d Dirs, serverName string, warn func(Warning)) []*Resource {
	groups := walkFiles(d.Resources, warn, KindResources)
	res := parallel(groups, func(dir string, files []string) []*Resource {
		var out []*Resource
		for _, f := range files {
			base := filepath.Base(f)
			if isMetaFile(base) || isCompletionScript(base) {
				continue
			}
			meta, metaPath, _, bad := readMeta(f, usableResource, true, warn)
			if bad != nil {
				warn(Warning{Kind: KindResources, Path: bad.(*MetaError).Path, Message: "malformed metadata: " + bad.(*MetaError).Err.Error()})
			}
			if meta == nil {
				meta = metaDoc{}
			}
			if meta.str("uriTemplate") != "" && meta.str("uri") == "" {
				continue // a template definition, not a resource
			}
			rel, _ := filepath.Rel(d.Resources, f)
			r := &Resource{Name: meta.str("name"), URI: meta.str("uri"), Path: filepath.ToSlash(rel), Abs: f,
				MIMEType: meta.str("mimeType"), Provider: meta.str("provider")}
			if r.Name == "" {
				r.Name = strings.TrimSuffix(base, filepath.Ext(base))
			}
			if r.URI == "" {
				r.URI = "file://" + filepath.ToSlash(f)
			}
			if r.MIMEType == "" {
				r.MIMEType = "text/plain"
			}
			if r.Provider == "" {
				r.Provider = providerFor(r.URI)
			}
			var it object
			it.set("name", r.Name)
			if title := meta.str("title"); title != "" {
				it.set("title", title)
			}
			it.set("description", meta.str("description"))
			it.set("path", r.Path)
			it.set("uri", r.URI)
			it.set("mimeType", r.MIMEType)
			it.set("provider", r.Provider)
			iconDir := filepath.Dir(f)
			if metaPath != "" {
				iconDir = filepath.Dir(metaPath)
			}
			if ic := icons(meta["icons"], iconDir); ic != nil {
				it.set("icons", ic)
			}
			if a := meta.object("annotations"); a != nil {
				it.set("annotations", compact(a))
			}
			if m := meta.object("_meta"); m != nil {
				it.set("_meta", compact(m))
			}
			r.Item = mustJSON(it)
			out = append(out, r)
		}
		return out
	})
	slices.SortStableFunc(res, func(a, b *Resource) int {
		return cmpChain(strings.Compare(a.Name, b.Name), strings.Compare(a.URI, b.URI), strings.Compare(a.Path, b.Path))
	})
	// MCP Apps: ui/<name>/index.html and tools/<tool>/ui/index.html are appended as
	// ui://<server>/<name> resources, as the original does.
	res = append(res, uiResources(d, serverName, warn)...)
	// Duplicate names would make reads by name ambiguous; the first wins, the rest are reported.
	return dedupe(res, func(r *Resource) string { return r.Name }, func(r *Resource) {
		warn(Warning{Kind: KindResources, Path: r.Abs, Message: "duplicate resource name " + r.Name + "; skipped"})
	})
}

func cmpChain(cs ...int) int {
	for _, c := range cs {
		if c != 0 {
			return c
		}
	}
	return 0
}

func dedupe[T any](xs []T, key func(T) string, dropped func(T)) []T {
	seen := map[string]bool{}
	out := xs[:0]
	for _, x := range xs {
		k := key(x)
		if seen[k] {
			dropped(x)
			continue
		}
		seen[k] = true
		out = append(out, x)
	}
	return out
}

// scanTemplates discovers resource templates: *.meta.json files under the resources dir with a
// uriTemplate. Names taken by resources are skipped.
func scanTemplates(d Dirs, resourceNames map[string]bool, warn func(Warning)) []*Template {
	groups := walkFiles(d.Resources, warn, KindResourceTemplates)
	ts := parallel(groups, func(dir string, files []string) []*Template {
		var out []*Template
		for _, f := range files {
			if !isMetaFile(filepath.Base(f)) {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				if ioFailure(err) {
					ioWarning(warn, f, err)
				}
				continue
			}
			var meta metaDoc
			if json.Unmarshal(stripBOM(data), &meta) != nil {
				continue // reported by the resource scan when it matters
			}
			if tpl, err := buildTemplate(meta); err != nil {
				if err != errNotTemplate {
					warn(Warning{Kind: KindResourceTemplates, Path: f, Message: err.Error()})
				}
			} else {
				out = append(out, tpl)
			}
		}
		return out
	})
	ts = slices.DeleteFunc(ts, func(t *Template) bool {
		if resourceNames[t.Name] {
			warn(Warning{Kind: KindResourceTemplates, Message: "resource template " + t.Name + " collides with a resource name; skipped"})
			return true
		}
		return false
	})
	sortTemplates(ts)
	return dedupe(ts, func(t *Template) string { return t.Name }, func(t *Template) {
		warn(Warning{Kind: KindResourceTemplates, Message: "duplicate resource template " + t.Name + "; skipped"})
	})
}

func sortTemplates(ts []*Template) {
	slices.SortStableFunc(ts, func(a, b *Template) int { return strings.Compare(a.Name, b.Name) })
}

var errNotTemplate = fmt.Errorf("not a template")

func buildTemplate(meta metaDoc) (*Template, error) {
	tpl := meta.str("uriTemplate")
	if tpl == "" {
		return nil, errNotTemplate
	}
	if meta.has("uri") {
		return nil, fmt.Errorf("both uri and uriTemplate set; skipped")
	}
	name := meta.str("name")
	if name == "" {
		return nil, fmt.Errorf("resource template without a name; skipped")
	}
	if !templateVar().MatchString(tpl) {
		return nil, fmt.Errorf("uriTemplate %q has no {variable}; skipped", tpl)
	}
	var it object
	it.set("name", name)
	it.set("uriTemplate", tpl)
	for _, k := range []string{"title", "description", "mimeType"} {
		if v := meta.str(k); v != "" {
			it.set(k, v)
		}
	}
	for _, k := range []string{"annotations", "_meta"} {
		if v := meta.object(k); v != nil {
			it.set(k, compact(v))
		}
	}
	return &Template{Name: name, URITemplate: tpl, MIMEType: meta.str("mimeType"), Item: mustJSON(it)}, nil
}

// scanPrompts discovers prompt templates: every non-hidden, non-meta file under the prompts dir
// (completion scripts beside prompts are providers, not prompts).
func scanPrompts(d Dirs, warn func(Warning)) []*Prompt {
	groups := walkFiles(d.Prompts, warn, KindPrompts)
	ps := parallel(groups, func(dir string, files []string) []*Prompt {
		var out []*Prompt
		for _, f := range files {
			base := filepath.Base(f)
			if isMetaFile(base) || isCompletionScript(base) {
				continue
			}
			meta, metaPath, _, bad := readMeta(f, usableTool, true, warn)
			if bad != nil {
				warn(Warning{Kind: KindPrompts, Path: bad.(*MetaError).Path, Message: "malformed metadata: " + bad.(*MetaError).Err.Error()})
			}
			if meta == nil {
				meta = metaDoc{}
			}
			rel, _ := filepath.Rel(d.Prompts, f)
			p, err := buildPrompt(filepath.ToSlash(rel), f, meta, metaPath)
			if err != nil {
				warn(Warning{Kind: KindPrompts, Path: f, Message: err.Error()})
				continue
			}
			out = append(out, p)
		}
		return out
	})
	slices.SortStableFunc(ps, func(a, b *Prompt) int { return strings.Compare(a.Name, b.Name) })
	return dedupe(ps, func(p *Prompt) string { return p.Name }, func(p *Prompt) {
		warn(Warning{Kind: KindPrompts, Path: p.Abs, Message: "duplicate prompt name " + p.Name + "; skipped"})
	})
}

func buildPrompt(rel, f string, meta metaDoc, metaPath string) (*Prompt, error) {
	base := filepath.Base(f)
	p := &Prompt{Name: meta.str("name"), Path: rel, Abs: f, Role: meta.str("role")}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if p.Role == "" {
		p.Role = "user"
	}
	args := []object{}
	if raw, ok := meta["arguments"]; ok && string(raw) != "null" {
		if len(raw) == 0 || raw[0] != '{' {
			return nil, fmt.Errorf("prompt arguments must be a JSON Schema object; skipped")
		}
		p.Arguments = compact(raw)
		var err error
		if args, err = promptArguments(raw); err != nil {
			return nil, fmt.Errorf("prompt arguments: %v; skipped", err)
		}
	}
	var it object
	it.set("name", p.Name)
	if title := meta.str("title"); title != "" {
		it.set("title", title)
	}
	it.set("description", meta.str("description"))
	it.set("path", p.Path)
	it.set("arguments", args)
	it.set("role", p.Role)
	if m := meta.object("metadata"); m != nil {
		it.set("metadata", compact(m))
	}
	dir := filepath.Dir(f)
	if metaPath != "" {
		dir = filepath.Dir(metaPath)
	}
	if ic := icons(meta["icons"], dir); ic != nil {
		it.set("icons", ic)
	}
	if m := meta.object("_meta"); m != nil {
		it.set("_meta", compact(m))
	}
	p.Item = mustJSON(it)
	return p, nil
}

// promptArguments converts a JSON-Schema object into MCP's argument list, keeping the order in
// which properties are written.
func promptArguments(schema json.RawMessage) ([]object, error) {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	keys, err := orderedKeys(s.Properties)
	if err != nil {
		return nil, err
	}
	var props map[string]struct {
		Description string `json:"description"`
		Title       string `json:"title"`
	}
	_ = json.Unmarshal(s.Properties, &props)
	out := []object{}
	for _, k := range keys {
		var a object
		a.set("name", k)
		if t := props[k].Title; t != "" {
			a.set("title", t)
		}
		if desc := props[k].Description; desc != "" {
			a.set("description", desc)
		}
		a.set("required", slices.Contains(s.Required, k))
		out = append(out, a)
	}
	return out, nil
}

// orderedKeys returns the keys of a JSON object in document order.
func orderedKeys(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("properties must be an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// UIMIME is the MIME type of MCP Apps HTML resources.
const UIMIME = "text/html;profile=mcp-app"

func uiResources(d Dirs, serverName string, warn func(Warning)) []*Resource {
	var out []*Resource
	add := func(name, dir string) {
		um, err := ReadUIMeta(dir)
		if err != nil {
			warn(Warning{Kind: KindResources, Path: filepath.Join(dir, "ui.meta.json"), Message: err.Error()})
		}
		file := filepath.Join(dir, filepath.FromSlash(um.Entrypoint))
		if !fileExists(file) {
			// As the original: a page file wins, else the page of the template ui.meta.json names.
			switch {
			case um.Template == "":
				return
			case !sdk.IsUITemplate(um.Template):
				warn(Warning{Kind: KindResources, Path: filepath.Join(dir, "ui.meta.json"),
					Message: "UI template " + strconv.Quote(um.Template) + " is not one of the original's templates (form, data-table, progress, diff-viewer, tree-view, kanban): ship the page as " + um.Entrypoint + "; ui://" + serverName + "/" + name + " is not served"})
				return
			}
			file = ""
		}
		uri := "ui://" + serverName + "/" + name
		desc := um.Description
		if desc == "" {
			desc = "MCP App UI for " + name
		}
		var it object
		it.set("name", "ui-"+name)
		if um.Title != "" {
			it.set("title", um.Title)
		}
		it.set("description", desc)
		it.set("uri", uri)
		it.set("mimeType", UIMIME)
		it.set("provider", "ui")
		meta := um.ContentMeta()
		if file == "" {
			meta = um.TemplateContentMeta()
		}
		it.set("_meta", meta)
		r := &Resource{Name: "ui-" + name, URI: uri, Abs: file, MIMEType: UIMIME, Provider: "ui", Item: mustJSON(it), ContentMeta: meta}
		if file == "" {
			r.UITemplate, r.UIConfig = um.Template, um.Config
		}
		out = append(out, r)
	}
	for _, base := range []struct{ dir, sub string }{{d.UI, ""}, {d.Tools, "ui"}} {
		ents, err := os.ReadDir(base.dir)
		if err != nil {
			if ioFailure(err) {
				ioWarning(warn, base.dir, err)
			}
			continue
		}
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				if dir := filepath.Join(base.dir, e.Name(), base.sub); dirExists(dir) {
					add(e.Name(), dir)
				}
			}
		}
	}
	return out
}
