package host

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// rootsTimeout bounds how long a roots/list answer is awaited; the fallback roots stay in force
// when the client is slow.
const rootsTimeout = 5 * time.Second

// fallbackRoots follows the original: MCPBASH_ROOTS (colon list, relative to the project root),
// else config/roots.json, else the project root. Missing directories are dropped.
func (srv *Server) fallbackRoots() []engine.Root {
	root := srv.cfg.Dirs.Root
	var out []engine.Root
	add := func(p, name string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p, ok := srv.vetRoot(p, "configured")
		if !ok {
			return
		}
		for _, r := range out {
			if r.Path == p {
				return
			}
		}
		out = append(out, engine.Root{URI: sandbox.FileURI(p), Name: name, Path: p})
	}
	if rs := srv.cfg.Settings.Roots; rs != nil {
		for _, p := range rs {
			add(p, "")
		}
		if len(out) > 0 {
			return out
		}
	}
	if data, err := os.ReadFile(filepath.Join(root, "config", "roots.json")); err == nil {
		var cfg struct {
			Roots []struct {
				Path string `json:"path"`
				Name string `json:"name"`
			} `json:"roots"`
		}
		if json.Unmarshal(data, &cfg) == nil {
			for _, r := range cfg.Roots {
				add(r.Path, r.Name)
			}
		} else {
			srv.logf("warning: config/roots.json is not valid JSON; ignored")
		}
		if len(out) > 0 {
			return out
		}
	}
	// No roots were named: the project itself, read-only unless the operator grants writes
	// (tools must not rewrite what the operator and the server later run: T-FS-5).
	add(root, "project")
	if len(out) == 1 && !srv.cfg.Settings.ProjectRootWritable {
		out[0].ReadOnly = true
	}
	return out
}

// systemDirs are never roots: the kernel's views of processes (the server's environment is in
// /proc/<pid>/environ), devices and kernel objects. Windows has none in its file system (its
// device namespace, \\.\, is not a path filepath.EvalSymlinks resolves).
var systemDirs = []string{"/proc", "/sys", "/dev"}

// vetRoot canonicalises a root from any source (the operator's MCPBASH_ROOTS or
// config/roots.json, the project, a client's roots/list) and decides whether it may be one.
// The path is cleaned and resolved physically (every symlink); it must be an existing
// directory, and is refused when it is "/", /proc, /sys or /dev or inside them, is or is inside
// the compilation cache, or is or contains the scratch base (other calls' scratch trees). A
// root that contains the compilation cache or its key is accepted, and the disk cache is turned
// off for the rest of the process (disableWasmCache). Refusals are logged; callers skip the
// root, so a call gets the others.
func (srv *Server) vetRoot(p, source string) (string, bool) {
	refuse := func(why string) (string, bool) {
		srv.logRootRefusal(source, p, why)
		return "", false
	}
	if !filepath.IsAbs(p) {
		return refuse("not an absolute path")
	}
	phys, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		return "", false // a missing root is dropped, as the original drops it
	}
	if fi, err := os.Stat(phys); err != nil || !fi.IsDir() {
		return "", false
	}
	if sandbox.IsVolumeRoot(phys) {
		return refuse("the whole filesystem cannot be a root")
	}
	for _, d := range systemDirs {
		if under(phys, d) {
			return refuse(d + " cannot be a root")
		}
	}
	scratch := sandbox.ScratchBase(srv.cfg.Settings.TmpRoot)
	if r, err := filepath.EvalSymlinks(scratch); err == nil {
		scratch = r
	}
	if under(scratch, phys) {
		return refuse("it is or holds the server's scratch directory " + scratch + " (MCPBASH_TMP_ROOT), where other calls keep their files")
	}
	if dir, key := srv.wasmCachePaths(); dir != "" {
		switch {
		case under(phys, dir) || phys == key:
			return refuse("it is inside the server's wasm compilation cache")
		case under(dir, phys) || under(key, phys):
			srv.disableWasmCache(phys, under(key, phys))
		}
	}
	return phys, true
}

// under reports whether p is dir or below it (both clean and absolute host paths), comparing
// names as the host's file system does (without regard to case on Windows and macOS).
func under(p, dir string) bool { return sandbox.PathUnder(p, dir) }

// logRootRefusal writes a refused root to the server's log, once per source and path.
func (srv *Server) logRootRefusal(source, p, why string) {
	srv.rootsLogMu.Lock()
	defer srv.rootsLogMu.Unlock()
	if srv.rootsLogged == nil {
		srv.rootsLogged = map[string]bool{}
	}
	if k := source + "\x00" + p; !srv.rootsLogged[k] {
		srv.rootsLogged[k] = true
		srv.logf("warning: %s root %s refused: %s; the other roots stay in force", source, p, why)
	}
}

// startRoots sets the fallback roots and, when the client offers roots, asks for them: at once
// (eagerRoots), or when the first call needs them.
func (s *Session) startRoots(ctx context.Context) {
	s.rootsMu.Lock()
	s.roots = s.fallbackRoots()
	lazy := s.client.caps.Roots != nil && !s.eagerRoots
	s.rootsStale = lazy
	s.rootsMu.Unlock()
	if s.client.caps.Roots == nil || lazy {
		close(s.rootsReady)
		return
	}
	s.refreshRoots(ctx, true)
}

// fallbackRoots are the roots of a session's calls until the client names its own: its
// scope's (none when the scope is refused).
func (s *Session) fallbackRoots() []engine.Root {
	sc, err := s.sessionScope()
	if err != nil {
		return nil
	}
	return sc.fallbackRoots()
}

// rootsChanged handles notifications/roots/list_changed: ask again, now or at the next call.
func (s *Session) rootsChanged(ctx context.Context) {
	if s.client.caps.Roots == nil {
		return
	}
	if !s.eagerRoots {
		s.rootsMu.Lock()
		s.rootsStale = true
		s.rootsMu.Unlock()
		return
	}
	s.refreshRoots(ctx, false)
}

// refreshRoots asks the client for roots/list in the background; its answer replaces the roots,
// an error or timeout keeps the current ones.
func (s *Session) refreshRoots(ctx context.Context, initial bool) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if initial {
			defer close(s.rootsReady)
		}
		rctx, cancel := context.WithTimeout(ctx, rootsTimeout)
		defer cancel()
		s.askRoots(rctx)
	}()
}

// askRoots asks the client for roots/list; its answer replaces the roots, an error or timeout
// keeps the current ones.
func (s *Session) askRoots(ctx context.Context) {
	raw, err := s.Request(ctx, "roots/list", nil)
	if err != nil {
		s.srv.logf("roots/list: %v (keeping %d fallback roots)", err, len(s.Roots()))
		return
	}
	roots, offered, err := s.srv.parseRoots(raw)
	if err != nil {
		s.srv.logf("roots/list: malformed answer: %v", err)
		return
	}
	if !offered {
		// Clients that declare roots but list none (the Inspector, go-sdk) offer no roots:
		// the fallback applies, as it does for clients without the capability.
		roots = s.srv.fallbackRoots()
	}
	s.rootsMu.Lock()
	s.roots = roots
	s.rootsMu.Unlock()
}

// lazyRoots returns the roots for a call, asking the client first when they are stale: on the
// call's own exchange, so that a client with no stream open for the session still sees the
// question. Concurrent calls share one question.
func (s *Session) lazyRoots(ctx context.Context) []engine.Root {
	s.rootsMu.Lock()
	fetch := s.rootsFetch
	if fetch == nil && s.rootsStale {
		fetch = make(chan struct{})
		s.rootsFetch, s.rootsStale = fetch, false
		s.rootsMu.Unlock()
		rctx, cancel := context.WithTimeout(ctx, rootsTimeout)
		s.askRoots(rctx)
		cancel()
		s.rootsMu.Lock()
		s.rootsFetch = nil
		s.rootsMu.Unlock()
		close(fetch)
		return s.Roots()
	}
	s.rootsMu.Unlock()
	if fetch != nil {
		select {
		case <-fetch:
		case <-ctx.Done():
		}
	}
	return s.Roots()
}

// Roots returns the session's current roots.
func (s *Session) Roots() []engine.Root {
	s.rootsMu.Lock()
	defer s.rootsMu.Unlock()
	return append([]engine.Root(nil), s.roots...)
}

// waitRoots waits (bounded) for the client's first roots/list answer, so that the first tool
// call sees the client's roots rather than the fallback.
func (s *Session) waitRoots(ctx context.Context) []engine.Root {
	if !s.eagerRoots {
		return s.lazyRoots(ctx)
	}
	select {
	case <-s.rootsReady:
		return s.Roots() // the common case: no timer
	default:
	}
	if s.awaitClient != nil {
		s.awaitClient()
	}
	t := time.NewTimer(rootsTimeout)
	defer t.Stop()
	select {
	case <-s.rootsReady:
	case <-ctx.Done():
	case <-t.C:
	}
	return s.Roots()
}

// Roots returns the roots a call would get without a client (MCPBASH_ROOTS, config/roots.json,
// or the project root), or the given paths (relative ones from the project root), vetted as
// every root is (vetRoot).
func (srv *Server) Roots(paths []string) []engine.Root {
	if len(paths) == 0 {
		return srv.fallbackRoots()
	}
	var out []engine.Root
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(srv.cfg.Dirs.Root, p)
		}
		if p, ok := srv.vetRoot(p, "given"); ok {
			out = append(out, engine.Root{URI: sandbox.FileURI(p), Path: p})
		}
	}
	return out
}

// parseRoots is the one check of a client's roots/list answer, for a session and a stateless
// call alike: only file: URIs whose path vetRoot accepts become roots, at their physical
// (symlink-free) path; anything else is dropped. offered is false for an empty list (no roots
// offered: the fallback roots apply). A malformed answer is an error.
func (srv *Server) parseRoots(raw json.RawMessage) (roots []engine.Root, offered bool, err error) {
	var res struct {
		Roots []struct {
			URI  string `json:"uri"`
			Name string `json:"name"`
		} `json:"roots"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, false, err
	}
	for _, r := range res.Roots {
		u, err := url.Parse(r.URI)
		if err != nil {
			continue
		}
		p, ok := sandbox.PathOfFileURI(u)
		if !ok {
			continue
		}
		p, ok = srv.vetRoot(p, "client")
		if !ok {
			continue
		}
		roots = append(roots, engine.Root{URI: r.URI, Name: r.Name, Path: p})
	}
	return roots, len(res.Roots) > 0, nil
}
