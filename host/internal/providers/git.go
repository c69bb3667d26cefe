package providers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Git defaults.
const (
	DefaultGitTimeout  = 30 * time.Second
	DefaultGitMaxBytes = 10 << 20
)

// Git reads one file from a remote repository over https with the system git, through a
// shallow fetch into a server-owned cache. It is opt-in: the zero value refuses everything.
type Git struct {
	Enabled               bool          // MCPBASH_ENABLE_GIT_PROVIDER=true|1
	AllowHosts, DenyHosts []string      // MCPBASH_GIT_ALLOW_HOSTS / MCPBASH_GIT_DENY_HOSTS; no allowlist → any host not denied
	CacheDir              string        // where fetches go (server-owned, never inside a project root); "" → a temporary dir per fetch
	Timeout               time.Duration // MCPBASH_GIT_TIMEOUT seconds, default 30
	MaxBytes              int64         // MCPBASH_GIT_MAX_BYTES, default 10 MiB: the file size cap
	GitBin                string        // default "git" from PATH

	// Test-only hooks; nil in production.
	resolve     func(ctx context.Context, host string) ([]netip.Addr, error) // replaces net.DefaultResolver
	pin         func([]netip.Addr) []netip.Addr                              // rewrites the vetted addresses git is pinned to
	config      []string                                                     // extra "-c" settings (a test CA)
	localRemote func(httpsURL string) string                                 // swaps in a file:// remote, skipping the address check
}

// NewGit is the git provider with the MCPBASH_*GIT* settings and defaults applied; getenv
// gives the cache location (XDG_CACHE_HOME) and, in test builds, the test hooks.
func NewGit(c config.Git, getenv func(string) string) Git {
	g := Git{Enabled: c.Enabled, AllowHosts: c.AllowHosts, DenyHosts: c.DenyHosts, CacheDir: defaultGitCache(getenv),
		MaxBytes: c.MaxBytes, Timeout: c.Timeout, GitBin: "git"}
	applyGitTestHooks(&g, getenv)
	return g.withDefaults()
}

// defaultGitCache is $XDG_CACHE_HOME/mcp-bash/git, else the OS cache dir; "" when neither
// exists, which makes Fetch use a throwaway directory rather than a guessable shared one.
func defaultGitCache(getenv func(string) string) string {
	if x := getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "mcp-bash", "git")
	}
	if d, err := os.UserCacheDir(); err == nil && filepath.IsAbs(d) {
		return filepath.Join(d, "mcp-bash", "git")
	}
	return ""
}

func (g Git) withDefaults() Git {
	if g.Timeout <= 0 {
		g.Timeout = DefaultGitTimeout
	}
	if g.MaxBytes <= 0 {
		g.MaxBytes = DefaultGitMaxBytes
	}
	if g.GitBin == "" {
		g.GitBin = "git"
	}
	return g
}

// gitURI is a parsed git+https://host/owner/repo.git#ref:path.
type gitURI struct {
	Host   string // host name or IP literal, no brackets
	Port   string // "443" unless the URI names one
	Remote string // https://host[:port]/owner/repo.git
	Ref    string // "HEAD" when the URI names none
	Path   string // file inside the repository, relative
}

// parseGitURI splits the URI; the fragment is "ref:path", or just "path" for HEAD (git ref
// names cannot contain ':', so the first colon is unambiguous).
func parseGitURI(uri string) (gitURI, error) {
	if strings.ContainsAny(uri, "\x00\r\n") {
		return gitURI{}, fmt.Errorf("control characters in uri: %w", ErrInvalid)
	}
	u, err := url.Parse(uri)
	if err != nil {
		return gitURI{}, fmt.Errorf("malformed uri: %w", ErrInvalid)
	}
	if !strings.EqualFold(u.Scheme, "git+https") {
		return gitURI{}, fmt.Errorf("git uris must start with git+https://: %w", ErrInvalid)
	}
	if u.User != nil {
		return gitURI{}, fmt.Errorf("credentials in the uri are not allowed: %w", ErrInvalid)
	}
	host := u.Hostname()
	if u.Opaque != "" || host == "" {
		return gitURI{}, fmt.Errorf("uri has no host: %w", ErrInvalid)
	}
	if _, err := netip.ParseAddr(host); err != nil && !validHostName(host) {
		return gitURI{}, fmt.Errorf("malformed host %q: %w", host, ErrInvalid)
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return gitURI{}, fmt.Errorf("bad port %q: %w", port, ErrInvalid)
	}
	if u.RawQuery != "" || u.ForceQuery {
		return gitURI{}, fmt.Errorf("query strings are not supported: %w", ErrInvalid)
	}
	if strings.Trim(u.Path, "/") == "" {
		return gitURI{}, fmt.Errorf("uri names no repository: %w", ErrInvalid)
	}
	if u.Fragment == "" {
		return gitURI{}, fmt.Errorf("uri names no file; use #ref:path/in/repo: %w", ErrInvalid)
	}
	ref, path, ok := strings.Cut(u.Fragment, ":")
	if !ok {
		ref, path = "", u.Fragment
	}
	if ref == "" {
		ref = "HEAD"
	}
	if err := validRef(ref); err != nil {
		return gitURI{}, err
	}
	if err := validRepoPath(path); err != nil {
		return gitURI{}, err
	}
	remote := (&url.URL{Scheme: "https", Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String()
	return gitURI{Host: host, Port: port, Remote: remote, Ref: ref, Path: path}, nil
}

// validRef keeps to git check-ref-format rules plus what matters on a command line: the ref
// becomes a refspec argument, so no leading '-' (option) or '+' (forced update), no ':'
// (would name a local destination).
func validRef(ref string) error {
	bad := func(why string) error { return fmt.Errorf("bad ref %q: %s: %w", ref, why, ErrInvalid) }
	switch {
	case len(ref) > 255:
		return bad("too long")
	case strings.HasPrefix(ref, "-"), strings.HasPrefix(ref, "+"):
		return bad("must not start with '-' or '+'")
	case strings.Contains(ref, ".."), strings.Contains(ref, "@{"), ref == "@":
		return bad("'..' and '@{' are not allowed")
	case strings.HasPrefix(ref, "/"), strings.HasSuffix(ref, "/"), strings.Contains(ref, "//"):
		return bad("empty path component")
	case strings.HasSuffix(ref, "."), strings.HasSuffix(ref, ".lock"):
		return bad("must not end with '.' or '.lock'")
	}
	for _, c := range ref {
		if c < 0x20 || c == 0x7f || strings.ContainsRune(" ~^:?*[\\", c) {
			return bad("forbidden character")
		}
	}
	for _, comp := range strings.Split(ref, "/") {
		if strings.HasPrefix(comp, ".") {
			return bad("component starts with '.'")
		}
	}
	return nil
}

// validRepoPath accepts a plain relative path. git resolves "<rev>:./x" and "<rev>:../x"
// against the working directory, so dot components are refused, not normalised.
func validRepoPath(p string) error {
	bad := func(why string) error { return fmt.Errorf("bad path %q: %s: %w", p, why, ErrInvalid) }
	switch {
	case p == "":
		return bad("empty")
	case len(p) > 4096:
		return bad("too long")
	case strings.ContainsAny(p, "\x00\r\n"):
		return bad("control characters")
	case strings.HasPrefix(p, "-"):
		return bad("must not start with '-'")
	case strings.HasPrefix(p, "/"):
		return bad("must be relative")
	}
	for _, comp := range strings.Split(p, "/") {
		if comp == "" || comp == "." || comp == ".." {
			return bad("empty, '.' or '..' component")
		}
	}
	return nil
}

// Fetch returns the contents of the file the URI names.
func (g Git) Fetch(ctx context.Context, uri string) ([]byte, error) {
	if !g.Enabled {
		return nil, fmt.Errorf("git provider disabled; set MCPBASH_ENABLE_GIT_PROVIDER=true: %w", ErrDenied)
	}
	g = g.withDefaults()
	if g.CacheDir != "" && !filepath.IsAbs(g.CacheDir) {
		// A relative cache would land wherever the server's cwd is, possibly a project.
		return nil, fmt.Errorf("git cache dir %q must be absolute: %w", g.CacheDir, ErrFetch)
	}
	gu, err := parseGitURI(uri)
	if err != nil {
		return nil, err
	}
	if err := checkHost(gu.Host, g.AllowHosts, g.DenyHosts, true, "MCPBASH_GIT_ALLOW_HOSTS"); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, g.Timeout)
	defer cancel()

	remote, local := gu.Remote, g.localRemote != nil
	config := gitHardening(local)
	if local {
		remote = g.localRemote(gu.Remote)
	} else {
		addrs, err := vetHost(ctx, gu.Host, g.resolve)
		if err != nil {
			return nil, err
		}
		if g.pin != nil {
			addrs = g.pin(addrs)
		}
		// Pin libcurl to the vetted addresses so git's own lookup cannot be rebound to an
		// internal one (git >= 2.37; older versions ignore the key).
		config = append(config, "http.curloptResolve="+curlResolve(gu.Host, gu.Port, addrs))
	}
	config = append(config, g.config...)
	bin, err := exec.LookPath(g.GitBin)
	if err != nil {
		return nil, fmt.Errorf("git is not installed (%s): %w", g.GitBin, ErrFetch)
	}

	root := g.CacheDir
	if root == "" {
		tmp, err := os.MkdirTemp("", "mcp-bash-git-")
		if err != nil {
			return nil, fmt.Errorf("git cache: %v: %w", err, ErrFetch)
		}
		defer os.RemoveAll(tmp)
		root = tmp
	} else if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("git cache: %v: %w", err, ErrFetch)
	}
	sum := sha256.Sum256([]byte(remote + "#" + gu.Ref))
	repo := filepath.Join(root, hex.EncodeToString(sum[:]))
	unlock, err := lockRepo(ctx, repo)
	if err != nil {
		return nil, fmt.Errorf("waiting for another fetch of the same ref: %w", ErrFetch)
	}
	defer unlock()

	r := gitRunner{bin: bin, dir: root, env: gitEnv(root, local), config: config}
	if _, err := os.Stat(filepath.Join(repo, "HEAD")); err != nil {
		// --template= keeps the system's template hooks out of the cache.
		if _, stderr, err := r.run(ctx, "", "", 0, "init", "--quiet", "--bare", "--template=", repo); err != nil {
			os.RemoveAll(repo)
			return nil, g.gitErr(ctx, "git init", stderr, err)
		}
	}
	if _, stderr, err := r.run(ctx, repo, "", 0, "fetch", "--quiet", "--depth", "1", "--no-tags", remote, gu.Ref); err != nil {
		// A killed fetch can leave lock files behind; start the next one from scratch.
		os.RemoveAll(repo)
		return nil, g.gitErr(ctx, "git fetch", stderr, err)
	}
	// The path goes over stdin, never argv; the size comes first so an oversized blob is
	// refused without being read.
	out, stderr, err := r.run(ctx, repo, "FETCH_HEAD:"+gu.Path+"\n", 4096, "cat-file", "--batch-check")
	if err != nil {
		return nil, g.gitErr(ctx, "git cat-file", stderr, err)
	}
	oid, typ, size, ok := parseBatchCheck(string(out))
	switch {
	case !ok:
		return nil, fmt.Errorf("%s not found at %s: %w", gu.Path, gu.Ref, ErrNotFound)
	case typ != "blob":
		return nil, fmt.Errorf("%s at %s is a %s, not a file: %w", gu.Path, gu.Ref, typ, ErrNotFound)
	case size > g.MaxBytes:
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit: %w", gu.Path, size, g.MaxBytes, ErrTooLarge)
	}
	data, stderr, err := r.run(ctx, repo, "", g.MaxBytes+1, "cat-file", "blob", oid)
	if err != nil {
		return nil, g.gitErr(ctx, "git cat-file", stderr, err)
	}
	if int64(len(data)) > g.MaxBytes {
		return nil, fmt.Errorf("%s exceeds the %d-byte limit: %w", gu.Path, g.MaxBytes, ErrTooLarge)
	}
	return data, nil
}

// parseBatchCheck reads "<oid> <type> <size>"; anything else ("<name> missing") is absent.
func parseBatchCheck(line string) (oid, typ string, size int64, ok bool) {
	f := strings.Fields(line)
	if len(f) != 3 {
		return "", "", 0, false
	}
	if _, err := hex.DecodeString(f[0]); err != nil || len(f[0]) < 40 {
		return "", "", 0, false
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return "", "", 0, false
	}
	return f[0], f[1], size, true
}

// gitErr classifies a failed git command from its stderr.
func (g Git) gitErr(ctx context.Context, what, stderr string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s timed out (limit %s): %w", what, g.Timeout, ErrFetch)
	}
	msg := strings.Join(strings.Fields(stderr), " ")
	if msg == "" {
		msg = err.Error()
	}
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	low := strings.ToLower(stderr)
	for _, s := range []string{"couldn't find remote ref", "not our ref", "not found", "does not appear to be a git repository"} {
		if strings.Contains(low, s) {
			return fmt.Errorf("%s: %s: %w", what, msg, ErrNotFound)
		}
	}
	return fmt.Errorf("%s: %s: %w", what, msg, ErrFetch)
}

// gitHardening is the -c settings for every git run: no hooks, no file:// transport (a
// remote's submodule or redirect could name one), no redirects off the vetted host, no
// proxies or credential helpers from anywhere, no background gc outliving the timeout.
func gitHardening(local bool) []string {
	file := "never"
	if local {
		file = "always"
	}
	return []string{
		"protocol.file.allow=" + file,
		"core.hooksPath=/dev/null",
		"core.fsmonitor=false",
		"http.followRedirects=false",
		"http.proxy=",
		"credential.helper=",
		"fetch.recurseSubmodules=false",
		"fetch.writeCommitGraph=false",
		"gc.auto=0",
		"maintenance.auto=false",
	}
}

// gitEnv is the whole environment git gets: nothing inherited but PATH, so GIT_DIR,
// GIT_SSL_NO_VERIFY, proxies or a user's config cannot change what it does.
func gitEnv(home string, local bool) []string {
	proto := "https"
	if local {
		proto = "file"
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ALLOW_PROTOCOL=" + proto,
		"GIT_PROTOCOL_FROM_USER=0",
		"GIT_NO_REPLACE_OBJECTS=1",
		"LC_ALL=C",
	}
}

// curlResolve formats libcurl's CURLOPT_RESOLVE entry "host:port:addr[,addr]".
func curlResolve(host, port string, addrs []netip.Addr) string {
	parts := make([]string, len(addrs))
	for i, a := range addrs {
		parts[i] = a.String()
		if a.Is6() {
			parts[i] = "[" + parts[i] + "]"
		}
	}
	return host + ":" + port + ":" + strings.Join(parts, ",")
}

// lockRepo serialises fetches into the same cache entry, across goroutines and processes
// (concurrent fetches would fight over FETCH_HEAD and git's lock files): an exclusive flock
// on <repo>.lock, polled so that waiting respects ctx.
func lockRepo(ctx context.Context, repo string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(repo), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(repo+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err := sandbox.TryLock(f)
		if err == nil {
			return func() {
				sandbox.Unlock(f)
				f.Close()
			}, nil
		}
		if !errors.Is(err, sandbox.ErrLocked) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

type gitRunner struct {
	bin, dir string
	env      []string
	config   []string
}

// run executes git; stdout is kept up to maxOut bytes (maxOut+1 reveals an overflow),
// stderr up to 4 KiB.
func (r gitRunner) run(ctx context.Context, gitDir, stdin string, maxOut int64, args ...string) ([]byte, string, error) {
	argv := make([]string, 0, 2*len(r.config)+len(args)+1)
	for _, c := range r.config {
		argv = append(argv, "-c", c)
	}
	if gitDir != "" {
		// An explicit git dir: no discovery walking up into some enclosing repository.
		argv = append(argv, "--git-dir="+gitDir)
	}
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, r.bin, argv...)
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin = strings.NewReader(stdin)
	stdout, stderr := &cappedBuffer{max: maxOut}, &cappedBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// git's helpers (remote-https, index-pack) inherit the pipes; don't wait on them forever
	// once git itself is killed.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	return stdout.buf.Bytes(), stderr.buf.String(), err
}

// cappedBuffer keeps the first max bytes and discards the rest without failing the writer.
type cappedBuffer struct {
	buf bytes.Buffer
	max int64
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - int64(c.buf.Len()); room > 0 {
		c.buf.Write(p[:min(int64(len(p)), room)])
	}
	return len(p), nil
}
