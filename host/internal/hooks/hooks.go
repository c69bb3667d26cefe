// Package hooks runs a project's Bash hooks, server.d/register.sh and server.d/policy.sh,
// behind the original framework's trust rules. With MCPBASH_ALLOW_PROJECT_HOOKS a run is a
// child bash on the host, in its own process group that is killed when the run ends; without
// it the hook runs in the sandbox engine instead (the project read-only, no host commands
// beyond the sandbox's utilities), so a migrated project's hooks still take effect, the
// original having always run policy.sh. Either way a shim defines the original's API, the
// environment is the operator's minus secrets, the project root is the working directory, and
// a timeout and an output cap apply.
package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Defaults for one run of a hook.
const (
	// DefaultTimeout bounds one run of register.sh or policy.sh; the process group is killed
	// when it passes.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxOutput caps register.sh's combined stdout and stderr
	// (MCPBASH_MAX_MANUAL_REGISTRY_BYTES).
	DefaultMaxOutput = 1 << 20
	// DefaultMaxRegistrations caps the function registrations of one kind
	// (MCPBASH_MANUAL_BUFFER_MAX_BYTES).
	DefaultMaxRegistrations = 1 << 20
	// maxScriptBytes refuses absurdly large hook files before copying them.
	maxScriptBytes = 16 << 20
)

// Options say which hook to run and how. Root and Script are required.
type Options struct {
	// Root is the project root: the working directory and part of the trust check.
	Root string
	// Script is the hook's absolute path (server.d/register.sh or server.d/policy.sh).
	Script string
	// Allowed is MCPBASH_ALLOW_PROJECT_HOOKS: the hook runs in real bash on the host. Without
	// it the hook runs in Sandbox.
	Allowed bool
	// Sandbox is the sandbox engine that runs the hook when Allowed is false (nil: the hook is
	// refused, with the reason).
	Sandbox engine.Engine
	// Env reads the server's system variables a hook inherits: PATH, HOME, TMPDIR, LANG, LC_ALL
	// and USER (see Environ).
	Env func(string) string
	// Environ lists the operator's environment: every variable except secrets reaches the hook
	// (see Environ), as the original's hooks, sourced in the server's shell, saw them.
	Environ func() []string
	// Passthrough are the server's MCPBASH_* settings the hook sees as the original's hooks did
	// (config: hookVars), never secrets.
	Passthrough map[string]string
	// Vars are added to the hook's environment (MCPBASH_PROJECT_ROOT, MCPBASH_*_DIR).
	Vars map[string]string
	// Timeout bounds the run (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxOutput caps register.sh's combined stdout and stderr (DefaultMaxOutput when zero);
	// the run fails above it. (policy.sh output is not used; 64 KiB of it is kept.)
	MaxOutput int64
	// MaxRegistrations caps register.sh's function registrations per kind
	// (DefaultMaxRegistrations when zero).
	MaxRegistrations int64
	// TmpDir holds the run's private working files (the OS temp dir when empty).
	TmpDir string
	// Warn receives PolicyCheck's non-fatal problems (may be nil); RunRegister returns its
	// warnings in the Registration instead.
	Warn func(string)
	// Bash is the bash that runs a project hook ("": bash on the hook's PATH, else the usual
	// places); the server finds Git-Bash's on Windows (MCPBASH_BASH).
	Bash string
}

func (o *Options) defaults() {
	if o.Env == nil {
		o.Env = func(string) string { return "" }
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.MaxRegistrations <= 0 {
		o.MaxRegistrations = DefaultMaxRegistrations
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
}

// TrustError says why a hook was refused. Rule is one of "symlink", "regular", "runnable",
// "writable", "owner" or "unreadable".
type TrustError struct {
	Hook string // the hook, relative to the project root
	Path string // what failed the check, relative to the project root
	Rule string
	msg  string
}

func (e *TrustError) Error() string { return e.Hook + " refused: " + e.msg }

// CheckTrust applies the original's rules to a hook file: a regular file, not a symlink,
// executable or starting with #!; the file, its directory and the project root owned by the
// current user and not group- or world-writable.
func CheckTrust(script, root string) error {
	_, err := readTrusted(script, root)
	return err
}

// readTrusted checks a hook and returns its content, read from the very file that was checked.
func readTrusted(script, root string) ([]byte, error) {
	label := func(p string) string {
		if p == root {
			return "the project root"
		}
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
		return p
	}
	hook := label(script)
	refuse := func(p, rule, format string, args ...any) error {
		return &TrustError{Hook: hook, Path: label(p), Rule: rule, msg: fmt.Sprintf(format, args...)}
	}
	perms := func(p string, fi os.FileInfo) error {
		fix := label(p)
		if p == root {
			fix = "<project root>"
		}
		// Windows has no group or world bits (every writable file shows 0666); its ACLs are
		// not read here (docs/SANDBOX.md, Platforms).
		if fi.Mode().Perm()&0o022 != 0 && runtime.GOOS != "windows" {
			return refuse(p, "writable", "%s is group- or world-writable (fix: chmod g-w,o-w %s)", label(p), fix)
		}
		if st := sandbox.StatOf(fi); st.Owned && int(st.Uid) != os.Getuid() {
			return refuse(p, "owner", "%s is owned by uid %d, not by the user running mcp-bash (uid %d)", label(p), st.Uid, os.Getuid())
		}
		return nil
	}

	fi, err := os.Lstat(script)
	if err != nil {
		return nil, refuse(script, "unreadable", "cannot check %s: %v", hook, cause(err))
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, refuse(script, "symlink", "%s is a symlink (replace it with a regular file)", hook)
	}
	if !fi.Mode().IsRegular() {
		return nil, refuse(script, "regular", "%s is not a regular file", hook)
	}
	f, err := sandbox.OpenNoFollow(script)
	if err != nil {
		return nil, refuse(script, "unreadable", "cannot open %s: %v", hook, cause(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || !os.SameFile(fi, st) {
		return nil, refuse(script, "regular", "%s changed while it was checked", hook)
	}
	if err := perms(script, st); err != nil {
		return nil, err
	}
	content, err := io.ReadAll(io.LimitReader(f, maxScriptBytes+1))
	if err != nil {
		return nil, refuse(script, "unreadable", "cannot read %s: %v", hook, err)
	}
	if len(content) > maxScriptBytes {
		return nil, refuse(script, "regular", "%s is larger than %d bytes", hook, maxScriptBytes)
	}
	if st.Mode().Perm()&0o111 == 0 && !bytes.HasPrefix(content, []byte("#!")) {
		return nil, refuse(script, "runnable", "%s is neither executable nor starts with #! (fix: chmod +x %s)", hook, hook)
	}
	dirs := []string{filepath.Dir(script)}
	if root != dirs[0] {
		dirs = append(dirs, root)
	}
	for _, dir := range dirs {
		di, err := os.Lstat(dir)
		if err != nil {
			return nil, refuse(dir, "unreadable", "cannot check %s: %v", label(dir), cause(err))
		}
		if di.Mode()&os.ModeSymlink != 0 {
			return nil, refuse(dir, "symlink", "%s is a symlink (use the real directory path)", label(dir))
		}
		if err := perms(dir, di); err != nil {
			return nil, err
		}
	}
	return content, nil
}

// cause drops the path from an *os.PathError (the message names the file already).
func cause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// SecretName reports variables that never reach a hook (nor a native tool in minimal mode):
// names that mark credentials, and the server's own secrets (MCPBASH_REMOTE_TOKEN*).
func SecretName(name string) bool {
	return strings.HasPrefix(name, "MCPBASH_REMOTE_TOKEN") || secretRE().MatchString(name)
}

var secretRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|_KEY($|_)|APIKEY`)
})

// Environ is the environment a hook runs with: the operator's environment (Environ) except
// secret-looking names (SecretName) and MCPBASH_* variables, which come only from Passthrough
// (the settings the original's hooks saw); then PATH (default /usr/local/bin:/usr/bin:/bin),
// HOME (default the project root), LANG (default C), MCPBASH_JSON_TOOL[_BIN] (jq or gojq when
// found), MCPBASH_MODE and o.Vars. So a policy reads the operator's switches
// (POLICY_READ_ONLY=1) as the original's did, and never the remote token or cloud credentials.
func Environ(o Options) []string {
	env := environMap(o)
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

func environMap(o Options) map[string]string {
	o.defaults()
	env := map[string]string{}
	set := func(k, v string) {
		if v != "" {
			env[k] = v
		}
	}
	if o.Environ != nil {
		for _, kv := range o.Environ() {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" || SecretName(k) || strings.HasPrefix(k, "MCPBASH_") {
				continue
			}
			set(k, v)
		}
	}
	path := o.Env("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	set("PATH", path)
	set("HOME", o.Env("HOME"))
	if env["HOME"] == "" {
		set("HOME", o.Root)
	}
	set("TMPDIR", o.Env("TMPDIR"))
	set("LANG", o.Env("LANG"))
	if env["LANG"] == "" {
		env["LANG"] = "C"
	}
	set("LC_ALL", o.Env("LC_ALL"))
	set("USER", o.Env("USER"))
	for k, v := range o.Passthrough {
		set(k, v)
	}
	if env["MCPBASH_JSON_TOOL_BIN"] == "" {
		env["MCPBASH_JSON_TOOL"] = "none"
		for _, name := range []string{"jq", "gojq"} {
			if p := lookPath(name, path); p != "" {
				env["MCPBASH_JSON_TOOL"], env["MCPBASH_JSON_TOOL_BIN"] = name, p
				break
			}
		}
	}
	if env["MCPBASH_MODE"] == "" {
		env["MCPBASH_MODE"] = "full"
	}
	set("MCPBASH_PROJECT_ROOT", o.Root)
	for k, v := range o.Vars {
		set(k, v)
	}
	return env
}

// lookPath finds an executable in a PATH value (not the server's own PATH variable).
func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// bashPath is the bash that runs hooks: from the hook's PATH, else the usual places.
func bashPath(path string) (string, error) {
	if p := lookPath("bash", path); p != "" {
		return p, nil
	}
	for _, p := range []string{"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", errors.New("bash not found (project hooks need bash)")
}

// workspace is a run's private directory: the copy of the hook that bash sources and the
// channel file the shim reports through. A sandboxed hook can write the directory (it may put a
// symlink or FIFO where the channel was), so after the run the server reaches the channel only
// through side, a descriptor of the directory that never follows a link.
type workspace struct {
	dir, script, channel string
	side                 *sandbox.SideDir
}

// channelName is the channel's entry in the workspace.
const channelName = "channel"

func newWorkspace(o Options, content []byte) (*workspace, error) {
	dir, err := os.MkdirTemp(o.TmpDir, "mcpbash-hook-")
	if err != nil {
		return nil, err
	}
	w := &workspace{dir: dir, script: filepath.Join(dir, "hook.sh"), channel: filepath.Join(dir, channelName)}
	if w.side, err = sandbox.OpenSideDir(dir); err != nil {
		w.remove()
		return nil, err
	}
	if err := os.WriteFile(w.script, content, 0o600); err != nil {
		w.remove()
		return nil, err
	}
	if err := os.WriteFile(w.channel, nil, 0o600); err != nil {
		w.remove()
		return nil, err
	}
	return w, nil
}

func (w *workspace) remove() {
	w.side.Close()
	os.RemoveAll(w.dir)
}

// channelSize is the channel's size, or -1 when it is not a regular file (replaced by a link,
// FIFO or directory) or is gone.
func (w *workspace) channelSize() int64 {
	f, err := w.side.OpenRegular(channelName)
	if err != nil {
		return -1
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return -1
	}
	return fi.Size()
}

// records splits the channel (at most max bytes) into NUL-terminated records of n fields each;
// an incomplete last record (a hook killed mid-write) is dropped. A channel that is not a
// regular file, or is larger than max, is an error: the hook tampered with its own report.
func (w *workspace) records(n int, max int64) ([][]string, error) {
	data, err := w.side.ReadFile(channelName, max)
	if err != nil {
		return nil, fmt.Errorf("the hook's report channel: %w", err)
	}
	fields := strings.Split(string(data), "\x00")
	fields = fields[:len(fields)-1] // after the last NUL
	var out [][]string
	for len(fields) >= n {
		out = append(out, fields[:n])
		fields = fields[n:]
	}
	return out, nil
}

// run is one bash process.
type run struct {
	args       []string // after bash
	dir        string
	env        []string
	timeout    time.Duration
	maxOutput  int64
	failOnCap  bool         // stop the run when output passes maxOutput (else discard the rest)
	watch      func() int64 // size of the file capped while the run lasts (nil: none)
	watchLimit int64
}

// outcome is how a run ended.
type outcome struct {
	output      []byte
	exitCode    int
	timedOut    bool
	overflow    bool // output passed maxOutput with failOnCap
	watchExceed bool // the watched file passed watchLimit
}

// execute runs bash in its own process group with stdout and stderr on one pipe. The group is
// killed on timeout, on overflow, and after bash exits (so nothing it started outlives it).
func execute(ctx context.Context, bash string, r run) (outcome, error) {
	var out outcome
	pr, pw, err := os.Pipe()
	if err != nil {
		return out, err
	}
	cmd := exec.Command(bash, r.args...)
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdout, cmd.Stderr = pw, pw
	g, _, err := sandbox.StartGroup(cmd, nil)
	if err != nil {
		pr.Close()
		pw.Close()
		return out, fmt.Errorf("cannot start bash: %w", err)
	}
	defer g.Close()
	pw.Close()
	kill := g.Kill

	var buf bytes.Buffer
	full := make(chan struct{})
	readDone := make(chan struct{})
	capped := false // written by the reader, read after readDone
	go func() {
		defer close(readDone)
		chunk := make([]byte, 32<<10)
		for {
			n, err := pr.Read(chunk)
			if n > 0 && !capped {
				room := r.maxOutput - int64(buf.Len())
				if int64(n) > room {
					buf.Write(chunk[:max(room, 0)])
					capped = true
					if r.failOnCap {
						close(full)
					}
				} else {
					buf.Write(chunk[:n])
				}
			}
			if err != nil {
				return
			}
		}
	}()

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(r.timeout)
	defer timer.Stop()
	var tick <-chan time.Time
	if r.watch != nil {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	var waitErr error
	var ctxErr error
loop:
	for {
		select {
		case waitErr = <-done:
			break loop
		case <-timer.C:
			out.timedOut = true
			kill()
			waitErr = <-done
			break loop
		case <-ctx.Done():
			ctxErr = ctx.Err()
			kill()
			waitErr = <-done
			break loop
		case <-full:
			out.overflow = true
			kill()
			waitErr = <-done
			break loop
		case <-tick:
			if r.watch() > r.watchLimit {
				out.watchExceed = true
				kill()
				waitErr = <-done
				break loop
			}
		}
	}
	// No orphans: whatever the hook started in its group ends with it.
	kill()
	select {
	case <-readDone:
	case <-time.After(time.Second):
		// Something left the group and still holds the pipe: stop reading.
		pr.Close()
		<-readDone
	}
	pr.Close()
	out.output = buf.Bytes()
	// The hook may exit before the reader reports the cap: the output decides, not the race.
	if capped && r.failOnCap {
		out.overflow = true
	}
	if st, ok := sandbox.ExitStatus(waitErr); ok {
		out.exitCode = st
	} else {
		out.exitCode = 1
	}
	if ctxErr != nil {
		return out, ctxErr
	}
	return out, nil
}

// lastLine is the last non-empty line of output, shortened, for error messages.
func lastLine(b []byte) string {
	s := strings.TrimRight(string(b), "\r\n\t ")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
