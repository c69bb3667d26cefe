package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// Resource errors, shaped as the original's codes (COMPAT §1.5, §6.3).
var (
	errOutsideRoots = jsonrpc.NewError(jsonrpc.CodeInternalError, "Resource outside allowed roots", nil)
	errNotFound     = jsonrpc.NewError(-32002, "Resource not found", nil)
)

// resourceContent is one item of ReadResourceResult.contents.
type resourceContent struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     *string         `json:"text,omitempty"`
	Blob     string          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// remoteFetcher is what the https and git providers offer (host/internal/providers).
type remoteFetcher interface {
	Fetch(ctx context.Context, uri string) (body []byte, contentType string, err error)
}

func (srv *Server) registerResources() {
	srv.handlers["resources/read"] = handler{fn: srv.resourcesRead}
	srv.handlers["resources/subscribe"] = handler{fn: srv.resourcesSubscribe}
	srv.handlers["resources/unsubscribe"] = handler{fn: srv.resourcesUnsubscribe}
}

func (srv *Server) resourcesRead(ctx context.Context, s *Session, r *Request) (any, error) {
	c, _, err := srv.readResourceParams(ctx, s, r.scope, r.Params)
	if err != nil {
		return nil, err
	}
	return map[string]any{"contents": []resourceContent{c}}, nil
}

// readResourceParams reads the resource that resources/read or resources/subscribe params name
// (by uri, or by name as the original also allows); uri is the one the params gave ("" when
// they named it).
func (srv *Server) readResourceParams(ctx context.Context, s *Session, sc scope, params json.RawMessage) (c resourceContent, uri string, err error) {
	var p struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	}
	if err := decodeParams(params, &p); err != nil {
		return resourceContent{}, "", err
	}
	if p.URI == "" && p.Name == "" {
		return resourceContent{}, "", invalidParams("Resource name or uri required")
	}
	c, err = srv.readResource(ctx, s, sc, p.URI, p.Name)
	return c, p.URI, err
}

// readResource resolves a resource by uri or name and reads it through its provider, as sc
// sees it.
func (srv *Server) readResource(ctx context.Context, s *Session, sc scope, uri, name string) (resourceContent, error) {
	resources, err := srv.reg.Resources(ctx)
	if err != nil {
		return resourceContent{}, jsonrpc.NewError(jsonrpc.CodeInternalError, "Unable to load resource registry", err.Error())
	}
	var res *registry.Resource
	for _, x := range resources {
		if (uri != "" && x.URI == uri) || (uri == "" && x.Name == name) {
			res = x
			break
		}
	}
	if res == nil && uri == "" {
		return resourceContent{}, errNotFound
	}
	if !srv.resourceVisible(ctx, sc, res, uri) {
		return resourceContent{}, errNotFound // hidden from the scope: answered as a missing resource
	}
	provider, declaredMIME := providerFor(uri), ""
	if res != nil {
		uri, declaredMIME = res.URI, res.MIMEType
		// Discovery records unknown schemes as "file"; the scheme's own provider still wins.
		if res.Provider != "file" || provider == "" {
			provider = res.Provider
		}
	} else if tpl := srv.matchTemplate(ctx, uri); tpl != nil {
		declaredMIME = tpl.MIMEType
	}
	data, detected, err := srv.fetch(ctx, s, provider, uri)
	if err != nil {
		return resourceContent{}, err
	}
	// The declared mimeType wins over detection (COMPAT §7 #22, recommended).
	mt := declaredMIME
	if mt == "" {
		mt = detected
	}
	if mt == "" {
		mt = guessMIME(uri, data)
	}
	c := contentFor(uri, mt, data)
	if res != nil && res.Provider == "ui" {
		// An MCP Apps page carries its ui.meta.json (csp, permissions, prefersBorder), which
		// hosts apply when they render it.
		c.Meta = res.ContentMeta
	}
	return c, nil
}

func providerFor(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme == "" {
		return "file"
	}
	switch u.Scheme {
	case "git+https":
		return "git"
	}
	return u.Scheme
}

// fetch reads uri with a provider: a project script providers/<name>.sh wins over the
// built-ins (file, https, git, ui).
func (srv *Server) fetch(ctx context.Context, s *Session, provider, uri string) ([]byte, string, error) {
	if provider != "" && !strings.ContainsAny(provider, "/.") {
		script := filepath.Join(srv.cfg.Dirs.Providers, provider+".sh")
		if fi, err := os.Stat(script); err == nil && fi.Mode().IsRegular() {
			data, err := srv.scriptProvider(ctx, s, script, uri)
			return data, "", err
		}
	}
	switch provider {
	case "file":
		data, err := srv.fileProvider(uri)
		return data, "", err
	case "https":
		if srv.https == nil {
			return nil, "", jsonrpc.NewError(jsonrpc.CodeInternalError, "https provider unavailable", nil)
		}
		data, ct, err := srv.https.Fetch(ctx, uri)
		return data, ct, remoteErrorFor(err)
	case "git":
		if srv.git == nil {
			return nil, "", jsonrpc.NewError(jsonrpc.CodeInternalError, "git provider unavailable", nil)
		}
		data, ct, err := srv.git.Fetch(ctx, uri)
		return data, ct, remoteErrorFor(err)
	case "ui":
		data, err := srv.uiProvider(ctx, uri)
		return data, uiMIME, err
	}
	return nil, "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Unsupported resource provider: "+provider, nil)
}

// resourceRoots: MCP_RESOURCES_ROOTS (colon list, relative to the project root), else the
// resources dir, else the project root. Missing directories are dropped.
func (srv *Server) resourceRoots() []sandbox.Root {
	var roots []sandbox.Root
	add := func(p string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(srv.cfg.Dirs.Root, p)
		}
		p = sandbox.Physical(p)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			roots = append(roots, sandbox.Root{Path: p, Mode: sandbox.ReadOnly})
		}
	}
	if rs := srv.cfg.Settings.ResourcesRoots; rs != nil {
		for _, p := range rs {
			add(p)
		}
		return roots
	}
	add(srv.cfg.Dirs.Resources)
	if len(roots) == 0 {
		add(srv.cfg.Dirs.Root)
	}
	return roots
}

// maxResourceBytes is MCPBASH_MAX_RESOURCE_BYTES (default 10 MiB).
func (srv *Server) maxResourceBytes() int64 {
	return srv.cfg.Settings.MaxResourceBytes
}

// fileURIPath is the clean absolute path a file resource URI names (file://./x is relative to
// the project).
func (srv *Server) fileURIPath(uri string) (string, error) {
	var p string
	switch {
	case strings.HasPrefix(uri, "file://./"), strings.HasPrefix(uri, "file://../"):
		p = filepath.Join(srv.cfg.Dirs.Root, strings.TrimPrefix(uri, "file://"))
	case strings.HasPrefix(uri, "file://"):
		u, err := url.Parse(uri)
		if err != nil || (u.Host != "" && u.Host != "localhost") {
			return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid file URI", uri)
		}
		p = u.Path
	default:
		p = uri
	}
	if !filepath.IsAbs(p) {
		return "", errOutsideRoots
	}
	return filepath.Clean(p), nil
}

// fileProvider reads file:// URIs through a read-only sandbox FS over the resource roots, so
// `..`, symlinks and absolute paths cannot leave them. file://./x is relative to the project.
func (srv *Server) fileProvider(uri string) ([]byte, error) {
	p, err := srv.fileURIPath(uri)
	if err != nil {
		return nil, err
	}
	roots := srv.resourceRoots()
	if len(roots) == 0 {
		return nil, errOutsideRoots // fail closed without roots
	}
	fsys, err := sandbox.NewFS(sandbox.Policy{Roots: roots}, sandbox.Scratch{}, nil)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Resource roots unavailable", err.Error())
	}
	defer fsys.Close()
	inside := false
	for _, r := range roots {
		if p == r.Path || strings.HasPrefix(p, strings.TrimSuffix(r.Path, "/")+"/") {
			inside = true
		}
	}
	if !inside {
		return nil, errOutsideRoots
	}
	fi, err := fsys.Stat(p)
	if err != nil || fi.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, errOutsideRoots
		}
		if lfi, lerr := fsys.Lstat(p); lerr == nil && lfi.Mode()&fs.ModeSymlink != 0 {
			return nil, errOutsideRoots // a symlink that leads out of the roots
		}
		return nil, errNotFound
	}
	max := srv.maxResourceBytes()
	if fi.Size() > max {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, fmt.Sprintf("Resource exceeds %d bytes (MCPBASH_MAX_RESOURCE_BYTES)", max), nil)
	}
	f, err := fsys.Open(p, os.O_RDONLY, 0)
	if err != nil {
		return nil, errNotFound
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Resource read failed", err.Error())
	}
	if int64(len(data)) > max {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, fmt.Sprintf("Resource exceeds %d bytes (MCPBASH_MAX_RESOURCE_BYTES)", max), nil)
	}
	return data, nil
}

// scriptProvider runs providers/<scheme>.sh (in the engine its metadata and the operator choose:
// runScript) with the original's exit-code contract: 0 ok, 2 outside roots, 3 not found, 4 invalid, 5 fetch failed, 6 too large.
func (srv *Server) scriptProvider(ctx context.Context, s *Session, script, uri string) ([]byte, error) {
	roots := srv.resourceRoots()
	roots = append(roots, sandbox.Root{Path: srv.cfg.Dirs.Root, Mode: sandbox.ReadOnly})
	max := srv.maxResourceBytes()
	meta, err := readScriptMeta(script)
	if err != nil {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Resource provider metadata is invalid", err.Error())
	}
	job := interp.Job{Call: &engine.Call{Tool: filepath.Base(script), ToolPath: script, ToolDir: filepath.Dir(script), Args: json.RawMessage(`{}`), Meta: json.RawMessage(`{}`)},
		Script: script, Dir: srv.cfg.Dirs.Root,
		Policy: sandbox.Policy{Roots: roots, ToolDir: filepath.Dir(script),
			Limits: sandbox.Limits{Timeout: srv.cfg.Settings.DefaultToolTimeout, MaxStdoutBytes: max}},
		ScratchBase: srv.cfg.Settings.TmpRoot, Args: []string{uri}, Cancelled: func() bool { return ctx.Err() != nil },
		Env: map[string]string{"MCP_RESOURCES_ROOTS": joinRoots(roots), "MCPBASH_PROJECT_ROOT": srv.cfg.Dirs.Root, "MCP_RESOURCE_URI": uri}}
	out, err := srv.runScript(ctx, meta, job)
	if err != nil {
		return nil, err
	}
	stderr := strings.TrimSpace(string(out.Stderr))
	msg := func(def string) string {
		if stderr != "" {
			return strings.SplitN(stderr, "\n", 2)[0]
		}
		return def
	}
	switch {
	case out.Limit == engine.LimitStdout:
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, fmt.Sprintf("Resource exceeds %d bytes (MCPBASH_MAX_RESOURCE_BYTES)", max), nil)
	case out.TimedOut:
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Resource provider timed out", nil)
	case out.Limit != engine.LimitNone:
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, out.LimitHit, nil)
	}
	switch out.ExitCode {
	case 0:
		return out.Stdout, nil
	case 2:
		return nil, errOutsideRoots
	case 3:
		return nil, errNotFound
	case 4:
		return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, msg("Invalid resource request"), nil)
	case 5:
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, msg("Resource fetch failed"), nil)
	case 6:
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, msg("Resource too large"), nil)
	}
	return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, msg("Resource provider failed"), map[string]any{"exitCode": out.ExitCode})
}

func joinRoots(roots []sandbox.Root) string {
	var ps []string
	for _, r := range roots {
		ps = append(ps, r.Path)
	}
	return strings.Join(ps, ":")
}

const uiMIME = registry.UIMIME

// uiProvider serves ui://<server>/<name> from ui/<name>/ or a tool's ui/: index.html, or the
// page ui.meta.json names; without that file, the page of the template ui.meta.json names.
func (srv *Server) uiProvider(ctx context.Context, uri string) ([]byte, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return nil, errNotFound
	}
	name := strings.Trim(u.Path, "/")
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		return nil, errNotFound
	}
	for _, dir := range []string{filepath.Join(srv.cfg.Dirs.UI, name), filepath.Join(srv.cfg.Dirs.Tools, name, "ui")} {
		root, err := os.OpenRoot(dir)
		if err != nil {
			continue
		}
		// ui.meta.json's entrypoint (index.html unless it names another page); the root keeps
		// the read inside the directory.
		um, _ := registry.ReadUIMeta(dir)
		data, err := root.ReadFile(um.Entrypoint)
		root.Close()
		if err == nil {
			return data, nil
		}
		if errors.Is(err, fs.ErrNotExist) && sdk.IsUITemplate(um.Template) {
			page, err := sdk.RenderUITemplate(ctx, um.Template, um.Config)
			if err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "UI template "+um.Template+" of "+uri+": "+err.Error(), nil)
			}
			return []byte(page), nil
		}
	}
	return nil, errNotFound
}

// guessMIME uses the extension, then content sniffing.
func guessMIME(uri string, data []byte) string {
	if mt := mime.TypeByExtension(filepath.Ext(uri)); mt != "" {
		return mt
	}
	return http.DetectContentType(data)
}

// contentFor is text (trailing newlines removed, as the original does) for textual MIME types
// and valid UTF-8 without NUL bytes, else a base64 blob.
func contentFor(uri, mt string, data []byte) resourceContent {
	c := resourceContent{URI: uri, MIMEType: mt}
	base := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	textual := strings.HasPrefix(base, "text/") || strings.HasSuffix(base, "json") || strings.HasSuffix(base, "xml") ||
		strings.Contains(base, "javascript") || strings.HasSuffix(base, "yaml") || base == "application/x-sh"
	if textual && utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 {
		t := strings.TrimRight(string(data), "\n")
		c.Text = &t
		return c
	}
	c.Blob = base64.StdEncoding.EncodeToString(data)
	return c
}

// Subscriptions: polled every MCPBASH_RESOURCES_POLL_INTERVAL_SECS (default 2; 0 disables).
type subscription struct {
	id, uri string
	hash    [32]byte
	failed  bool
	// listenID is the subscriptions/listen request that opened it (nil: resources/subscribe).
	listenID json.RawMessage
	// release gives back its seat in the scope's subscriptions (resources/subscribe; a
	// listen's are its listener's).
	release func()
}

type subscriptions struct {
	mu      sync.Mutex
	byID    map[string]*subscription
	started bool
}

func (srv *Server) resourcesSubscribe(ctx context.Context, s *Session, r *Request) (any, error) {
	// The original also subscribes by the resource's name (non-standard, as for reads).
	c, uri, err := srv.readResourceParams(ctx, s, r.scope, r.Params)
	if err != nil {
		return nil, err
	}
	release, err := srv.pipe.seats.take(r.scope, false, 1)
	if err != nil {
		return nil, err
	}
	if uri == "" {
		uri = c.URI
	}
	var idb [16]byte
	_, _ = rand.Read(idb[:])
	id := fmt.Sprintf("sub-%x-%x-%x-%x-%x", idb[0:4], idb[4:6], idb[6:8], idb[8:10], idb[10:16])
	sub := &subscription{id: id, uri: uri, hash: contentHash(c), release: release}
	s.subs.mu.Lock()
	if s.subs.byID == nil {
		s.subs.byID = map[string]*subscription{}
	}
	s.subs.byID[id] = sub
	start := !s.subs.started
	s.subs.started = true
	s.subs.mu.Unlock()
	if start {
		srv.startPolling(s)
	}
	// The spec's answer is an EmptyResult, and the TypeScript SDKs reject any other member, so
	// clients that identify themselves (every SDK does: clientInfo is required) get the id in
	// _meta; a client that sent no clientInfo (the original's own tests, hand-written shell
	// clients) gets the original's {"subscriptionId"} (docs/DECISIONS.md).
	if s.anonymous() {
		return map[string]any{"subscriptionId": id}, nil
	}
	return map[string]any{"_meta": map[string]any{"mcpbash/subscriptionId": id}}, nil
}

func (srv *Server) resourcesUnsubscribe(ctx context.Context, s *Session, r *Request) (any, error) {
	var p struct {
		SubscriptionID string `json:"subscriptionId"`
		URI            string `json:"uri"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.SubscriptionID == "" && p.URI == "" {
		return nil, invalidParams("subscriptionId required")
	}
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	for id, sub := range s.subs.byID {
		if sub.listenID == nil && (id == p.SubscriptionID || (p.SubscriptionID == "" && sub.uri == p.URI)) {
			delete(s.subs.byID, id)
			sub.release()
		}
	}
	return struct{}{}, nil
}

// endSubscriptions ends every subscription of a session that ends, giving their seats back.
func (s *Session) endSubscriptions() {
	s.endListeners(false)
	s.subs.mu.Lock()
	defer s.subs.mu.Unlock()
	for id, sub := range s.subs.byID {
		delete(s.subs.byID, id)
		if sub.release != nil {
			sub.release()
		}
	}
}

func contentHash(c resourceContent) [32]byte {
	b, _ := json.Marshal(c)
	return sha256.Sum256(b)
}

// startPolling runs one poller per session; it ends with the session. It is not in s.wg, which
// counts the work a drain waits for: over HTTP the session's input ends only after the drain, so
// a drain that waited for the poller would always run to MCPBASH_SHUTDOWN_TIMEOUT.
func (srv *Server) startPolling(s *Session) {
	interval := srv.cfg.Settings.ResourcesPollInterval
	if interval == 0 {
		return
	}
	go func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-s.inputDone:
				return
			case <-t.C:
				srv.pollOnce(s)
			}
		}
	}()
}

func (srv *Server) pollOnce(s *Session) {
	s.subs.mu.Lock()
	subs := make([]*subscription, 0, len(s.subs.byID))
	for _, sub := range s.subs.byID {
		subs = append(subs, sub)
	}
	s.subs.mu.Unlock()
	// The session's scope as it is now: a tenant the tenants file stopped serving reads
	// nothing (each subscription is told once that its resource changed).
	sc, serr := s.sessionScope()
	for _, sub := range subs {
		if s.ctx.Err() != nil {
			return // the session ended: nobody to tell
		}
		s.subs.mu.Lock()
		_, still := s.subs.byID[sub.id]
		s.subs.mu.Unlock()
		if !still {
			continue // unsubscribed, or its listen stream ended, since the round began
		}
		var c resourceContent
		err := serr
		if err == nil {
			ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
			c, err = srv.readResource(ctx, s, sc, sub.uri, "")
			cancel()
		}
		changed := false
		s.subs.mu.Lock()
		if err != nil {
			changed = !sub.failed
			sub.failed = true
		} else if h := contentHash(c); h != sub.hash || sub.failed {
			sub.hash, sub.failed, changed = h, false, true
		}
		_, still = s.subs.byID[sub.id]
		s.subs.mu.Unlock()
		switch {
		case !changed || !still:
		case sub.listenID != nil:
			if out := s.listenerOut(sub.listenID); out != nil {
				s.notifyOn(out, "notifications/resources/updated", map[string]any{"uri": sub.uri, "_meta": subscriptionMeta(sub.listenID)})
			}
		case err != nil:
			s.Notify("notifications/resources/updated", map[string]any{"uri": sub.uri})
		default:
			// The content read is sent along, as the original does: clients that know the
			// extension skip the read that follows; others ignore the extra member.
			s.Notify("notifications/resources/updated", map[string]any{"uri": sub.uri, "contents": []resourceContent{c}})
		}
	}
}

// templateMatches reports whether uri fits an RFC 6570 (level 1-3) template.
func templateMatches(tpl, uri string) bool {
	re, err := templateRegexp(tpl)
	return err == nil && re.MatchString(uri)
}

var exprRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([+#./;?&]?)([^{}]+)\}`) })

func templateRegexp(tpl string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range exprRE().FindAllStringSubmatchIndex(tpl, -1) {
		b.WriteString(regexp.QuoteMeta(tpl[last:m[0]]))
		op := tpl[m[2]:m[3]]
		switch op {
		case "":
			b.WriteString(`[^/?#]*`)
		case "+":
			b.WriteString(`[^?#]*`)
		case "#":
			b.WriteString(`(?:#.*)?`)
		case ".":
			b.WriteString(`(?:\.[^/?#]*)*`)
		case "/":
			b.WriteString(`(?:/[^/?#]*)*`)
		case ";":
			b.WriteString(`(?:;[^/?#]*)*`)
		case "?", "&":
			b.WriteString(`(?:[?&][^#]*)?`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(tpl[last:]))
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// matchTemplate finds the resource template a URI instantiates, if any.
func (srv *Server) matchTemplate(ctx context.Context, uri string) *registry.Template {
	tpls, err := srv.reg.Templates(ctx)
	if err != nil {
		return nil
	}
	for _, t := range tpls {
		if templateMatches(t.URITemplate, uri) {
			return t
		}
	}
	return nil
}
