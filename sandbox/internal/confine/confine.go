// Package confine puts processes that leave the in-process sandbox (allowlisted external
// commands, native-mode tools) under Linux Landlock, so that a real program is held to the same
// roots the sandbox's own filesystem enforces. It is defence in depth: the sandbox decides what
// may run; Landlock makes sure that what runs cannot read /etc/passwd, write outside its roots,
// or open network connections anyway.
//
// The server never confines itself (Landlock is irrevocable and process-wide). Wrap turns a
// command line into one that re-executes the mcp-bash binary as
//
//	mcp-bash __confine RULES -- PROG ARGS...
//
// and that child (Exec) resolves PROG on PATH, calls Apply, and replaces itself with PROG, which
// inherits the Landlock domain, as does everything it starts.
//
// # What a confined process may touch
//
// Its rules' read-write directories (roots, the call's scratch dir), its read-only directories
// (read-only roots, the tool's directory), the program it runs (that one file), and these
// system paths, which every program needs to start:
//
//	read and execute  /usr /bin /sbin /lib /lib32 /lib64 /libx32   (programs, libraries, locales, zoneinfo)
//	read              /etc/ld.so.cache /etc/localtime              (dynamic loader cache, local time zone)
//	read              /dev/zero /dev/random /dev/urandom
//	read and write    /dev/null
//
// Not /etc as a whole (no /etc/passwd, no /etc/shadow), not /proc, /sys, /home, /root,
// /tmp, /run, /var, /opt. Paths missing on the host are skipped; on merged-/usr systems /bin and
// /lib* are symlinks into /usr and add nothing. Only when Rules.Net is true are the name-resolution
// and TLS trust files readable as well (see netPaths). Pipes and sockets inherited or made by
// the process are not paths and stay usable (so /dev/fd/N and /dev/stdout work on pipes).
//
// # Network and IPC
//
// With Net false, Landlock (ABI 4 or newer) denies TCP bind(2) and connect(2), and a seccomp
// filter refuses, with EPERM, what Landlock's network rule does not see (seccomp_linux.go): every
// IPv4 or IPv6 socket but plain TCP (so Multipath TCP, UDP and with it DNS, ping and raw sockets,
// SCTP), every socket family but UNIX and netlink (AF_PACKET, AF_VSOCK, ...), TCP Fast Open sends
// (MSG_FASTOPEN connects without connect(2)) and io_uring. A system call through a second ABI
// (i386 or x32 on amd64, AArch32 on arm64) kills the process, so 32-bit programs run only with
// Net. Below ABI 4 the kernel cannot restrict TCP: Apply then installs the filter, confines the
// filesystem and says on stderr that TCP stays open, and Wrap refuses the command when
// confinement is Required. With Net true there is no filter.
//
// UNIX sockets stay usable: socketpair(2), inherited sockets, and sockets bound inside the
// domain. Below ABI 9 a confined process can also connect to a pathname socket anywhere the
// file permissions allow (Landlock checks no path on connect); from ABI 9 connecting to one
// bound outside the domain is refused (the rules never grant the resolve-unix right). From ABI 6
// it can neither signal processes outside its domain (the server, other tools) nor connect to
// their abstract UNIX sockets.
//
// # Limits of the rules
//
// Landlock rules only grant, and grants add up: a read-only root nested inside a read-write root
// is writable for a confined process. Moving files between directories needs ABI 2 (the "refer"
// right, granted within read-write directories). Apply uses go-landlock's strict mode for the
// ABI the kernel reports (capped at the newest the library knows), never best-effort, and sets
// no_new_privs.
package confine

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Command is the hidden mcp-bash subcommand Wrap re-executes: `mcp-bash __confine RULES -- PROG ARGS...`.
const Command = "__confine"

// NetABI is the first Landlock ABI that can restrict TCP.
const NetABI = 4

// Rules say what a confined process may use besides the system paths.
type Rules struct {
	RW []string // read-write: roots, the call's scratch directory
	RO []string // read-only (and executable): read-only roots, the tool's directory
	// Protect lists paths inside RW directories that stay read-only: the project's own
	// metadata (tools/, bin/, server.d/, .git, ...; T-FS-5). Landlock rules only grant, so a
	// read-write directory holding one is granted read-only itself, and read-write below it
	// only for the entries that hold nothing protected (see splitRW). A last component
	// HiddenEntries stands for every hidden entry of its directory.
	Protect []string
	// Net allows the network. Without it, TCP bind and connect are denied (Landlock ABI 4+) and
	// other network sockets cannot be created (a seccomp filter).
	Net bool
	// Limits are resource limits set (only ever lowered) before the program starts.
	Limits []Rlimit
	// Physical are the roots among the paths above: each must still be reached without a
	// symlink when the rules are applied (PhysicalDir), or Apply fails. The call's own paths
	// (scratch, the tool's directory) may legitimately lie behind links and are not listed.
	Physical []string
}

// Rlimit is one resource limit: Resource is a syscall.RLIMIT_* number; Cur and Max the soft and
// hard values.
type Rlimit struct {
	Resource int
	Cur, Max uint64
}

// setLimits lowers the process's limits to ls (a limit already lower stays).
func setLimits(ls []Rlimit) error {
	for _, l := range ls {
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(l.Resource, &cur); err != nil {
			return fmt.Errorf("confine: getrlimit %d: %w", l.Resource, err)
		}
		want := syscall.Rlimit{Cur: min(l.Cur, uint64(cur.Max)), Max: min(l.Max, uint64(cur.Max))}
		if err := syscall.Setrlimit(l.Resource, &want); err != nil {
			return fmt.Errorf("confine: setrlimit %d: %w", l.Resource, err)
		}
	}
	return nil
}

var (
	systemDirs    = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}
	systemFiles   = []string{"/etc/ld.so.cache", "/etc/localtime", "/dev/zero", "/dev/random", "/dev/urandom"}
	systemRWFiles = []string{"/dev/null"}
	// netPaths are readable only with Rules.Net: name resolution and TLS trust stores.
	netPaths = []string{"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf",
		"/etc/services", "/etc/protocols", "/etc/ssl/certs", "/etc/ca-certificates", "/etc/pki/tls/certs",
		"/etc/pki/ca-trust/extracted"}
)

// Status reports the running kernel's Landlock ABI version, or why Landlock is unavailable.
func Status() (abi int, err error) {
	if runtime.GOOS != "linux" {
		return 0, fmt.Errorf("landlock: Linux only (this is %s)", runtime.GOOS)
	}
	v, err := llsys.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, errors.New("landlock: not supported by this kernel (needs Linux 5.13+ built with CONFIG_SECURITY_LANDLOCK)")
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, errors.New("landlock: supported by the kernel but not enabled at boot (add landlock to the lsm= kernel parameter)")
	case err != nil:
		return 0, fmt.Errorf("landlock: ABI version query failed (a seccomp filter?): %w", err)
	case v < 1:
		return 0, fmt.Errorf("landlock: kernel reports ABI %d", v)
	}
	return v, nil
}

// Confiner wraps command lines so that they run under Landlock. A nil *Confiner wraps nothing.
type Confiner struct {
	// Self is the path of the mcp-bash binary (it serves the __confine subcommand).
	Self string
	// Required refuses to run commands that cannot be confined (MCPBASH_REQUIRE_CONFINEMENT).
	Required bool

	status func() (int, error) // nil: Status; tests force other kernels
}

func (c *Confiner) abi() (int, error) {
	if c.status != nil {
		return c.status()
	}
	return Status()
}

// Wrap returns argv rewritten to run under r: `Self __confine RULES -- argv...`. When Landlock
// is unavailable it returns argv unchanged, unless c.Required, in which case it fails and says
// why; with Required it also fails when r denies the network and the kernel cannot (ABI < 4).
func (c *Confiner) Wrap(r Rules, argv []string) ([]string, error) {
	if c == nil || len(argv) == 0 {
		return argv, nil
	}
	abi, err := c.abi()
	if err != nil {
		if c.Required {
			return nil, fmt.Errorf("confinement is required (MCPBASH_REQUIRE_CONFINEMENT) but unavailable: %w", err)
		}
		return argv, nil
	}
	if c.Required && !r.Net && abi < NetABI {
		return nil, fmt.Errorf("confinement is required (MCPBASH_REQUIRE_CONFINEMENT) but Landlock ABI %d cannot deny network access (needs %d)", abi, NetABI)
	}
	if c.Self == "" {
		return nil, errors.New("confine: no mcp-bash binary to run the confinement (Confiner.Self is empty)")
	}
	enc, err := encode(r)
	if err != nil {
		return nil, err
	}
	return append([]string{c.Self, Command, enc, "--"}, argv...), nil
}

// Exec is the child side of Wrap, what `mcp-bash __confine` runs: args are `RULES -- PROG
// ARGS...`. It resolves PROG on PATH, confines the process with the rules (plus PROG itself,
// read and execute) and replaces the process with PROG. It returns only on failure, with the
// status a shell would use: 127 when PROG is not found, 126 otherwise.
func Exec(args []string) (status int, err error) {
	if len(args) < 3 || args[1] != "--" {
		return 126, fmt.Errorf("confine: usage: %s RULES -- PROG [ARGS...]", Command)
	}
	r, err := decode(args[0])
	if err != nil {
		return 126, err
	}
	argv := args[2:]
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return 127, fmt.Errorf("confine: %s: %w", argv[0], err)
	}
	if prog, err = filepath.Abs(prog); err != nil {
		return 126, fmt.Errorf("confine: %s: %w", argv[0], err)
	}
	r.RO = append(r.RO[:len(r.RO):len(r.RO)], prog)
	if err := Apply(r); err != nil {
		return 126, err
	}
	// The limits come last, right before exec: under a low address-space limit this Go process
	// itself cannot map memory any more (it already uses more than a tool's limit may allow), so
	// nothing between here and exec may need to, and no GC may start.
	env := os.Environ()
	debug.SetGCPercent(-1)
	if err := setLimits(r.Limits); err != nil {
		return 126, err
	}
	err = syscall.Exec(prog, argv, env)
	return 126, fmt.Errorf("confine: %s: %w", argv[0], err)
}

// configs are go-landlock's presets, index = ABI - 1.
var configs = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// Apply confines the calling process, and every program it later executes, to r and the system
// paths. It cannot be undone. It fails when Landlock is unavailable, a rule cannot be added or,
// with r.Net false, the seccomp network filter cannot be installed; with r.Net false on a kernel
// below ABI 4 it leaves TCP open and writes a note to stderr (Wrap refuses that case up front
// when confinement is required).
func Apply(r Rules) error {
	abi, err := Status()
	if err != nil {
		return err
	}
	if err := checkPhysical(r.Physical); err != nil {
		return err
	}
	cfg := configs[min(abi, len(configs))-1] // strict: exactly what this kernel can enforce
	if r.Net {
		cfg.HandledAccessNet = 0
	} else if abi < NetABI {
		fmt.Fprintf(os.Stderr, "mcp-bash: Landlock ABI %d cannot deny TCP bind and connect (needs %d); they stay open\n", abi, NetABI)
	}
	rules := []landlock.Rule{
		landlock.RODirs(systemDirs...).IgnoreIfMissing(),
		landlock.ROFiles(systemFiles...).IgnoreIfMissing(),
		landlock.RWFiles(systemRWFiles...).IgnoreIfMissing(),
	}
	if r.Net {
		rules = append(rules, pathRules(netPaths, false, abi)...)
	}
	rules = append(rules, pathRules(r.RO, false, abi)...)
	for _, p := range r.RW {
		if holdsProtected(r.Protect, p) {
			rules = append(rules, splitRW(r.Protect, p, abi)...)
		} else {
			rules = append(rules, pathRules([]string{p}, true, abi)...)
		}
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("confine: landlock (ABI %d): %w", abi, err)
	}
	if !r.Net {
		return denyNetSockets() // what Landlock's network rule does not see (seccomp_linux.go)
	}
	return nil
}

// pathRules makes one rule per existing path: directory rights for directories, file rights for
// anything else (Landlock refuses directory rights on a file). Missing paths grant nothing.
func pathRules(paths []string, rw bool, abi int) []landlock.Rule {
	var out []landlock.Rule
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		switch {
		case fi.IsDir() && rw && abi >= 2:
			out = append(out, landlock.RWDirs(p).WithRefer().IgnoreIfMissing())
		case fi.IsDir() && rw:
			out = append(out, landlock.RWDirs(p).IgnoreIfMissing())
		case fi.IsDir():
			out = append(out, landlock.RODirs(p).IgnoreIfMissing())
		case rw:
			out = append(out, landlock.RWFiles(p).IgnoreIfMissing())
		default:
			out = append(out, landlock.ROFiles(p).IgnoreIfMissing())
		}
	}
	return out
}

// HiddenEntries, as the last component of a protected path ("/project/.*"), stands for every
// entry of that directory whose name starts with a dot (sandbox.HiddenEntries is this).
const HiddenEntries = ".*"

// isProtected reports whether p is, or is below, a protected path.
func isProtected(protect []string, p string) bool {
	for _, q := range protect {
		if dir, ok := strings.CutSuffix(q, "/"+HiddenEntries); ok {
			if rest, ok := strings.CutPrefix(p, dir+"/"); ok && strings.HasPrefix(rest, ".") {
				return true
			}
			continue
		}
		if p == q || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

// holdsProtected reports whether the directory dir contains a protected path.
func holdsProtected(protect []string, dir string) bool {
	for _, q := range protect {
		if d, ok := strings.CutSuffix(q, "/"+HiddenEntries); ok && d == dir {
			return true
		}
		if strings.HasPrefix(q, dir+"/") {
			return true
		}
	}
	return false
}

// splitRW grants dir read-only and, below it, read-write to each entry that holds nothing
// protected, recursing into those that do. Protected entries stay read-only (dir's rule covers
// them), symbolic links get nothing (a link could name anything, and its target is covered by
// its own entry if it is inside), and new entries cannot be created in dir itself: what
// Landlock cannot express (a directory writable except for some of its children) is given up
// on the side of safety (docs/SANDBOX.md).
func splitRW(protect []string, dir string, abi int) []landlock.Rule {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return pathRules([]string{dir}, false, abi)
	}
	out := []landlock.Rule{landlock.RODirs(dir).IgnoreIfMissing()}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case isProtected(protect, p), e.Type()&fs.ModeSymlink != 0:
		case e.IsDir() && holdsProtected(protect, p):
			out = append(out, splitRW(protect, p, abi)...)
		case e.IsDir() && abi >= 2:
			out = append(out, landlock.RWDirs(p).WithRefer().IgnoreIfMissing())
		case e.IsDir():
			out = append(out, landlock.RWDirs(p).IgnoreIfMissing())
		default:
			out = append(out, landlock.RWFiles(p).IgnoreIfMissing())
		}
	}
	return out
}

// The rules travel as one argument: "1." and base64url of NUL-separated tokens ("n" for Net,
// "w"+path, "r"+path). NUL cannot occur in a path; the prefix keeps it from looking like a flag.
const encPrefix = "1."

func encode(r Rules) (string, error) {
	var toks []string
	if r.Net {
		toks = append(toks, "n")
	}
	for _, l := range r.Limits {
		toks = append(toks, fmt.Sprintf("l%d:%d:%d", l.Resource, l.Cur, l.Max))
	}
	for _, set := range []struct {
		kind  string
		paths []string
	}{{"w", r.RW}, {"r", r.RO}, {"p", r.Protect}, {"f", r.Physical}} {
		for _, p := range set.paths {
			if !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
				return "", fmt.Errorf("confine: rule path %q is not absolute", p)
			}
			toks = append(toks, set.kind+p)
		}
	}
	return encPrefix + base64.RawURLEncoding.EncodeToString([]byte(strings.Join(toks, "\x00"))), nil
}

func decode(s string) (Rules, error) {
	var r Rules
	body, ok := strings.CutPrefix(s, encPrefix)
	if !ok {
		return r, errors.New("confine: malformed rules (wrong version)")
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return r, fmt.Errorf("confine: malformed rules: %w", err)
	}
	if len(raw) == 0 {
		return r, nil
	}
	for _, t := range strings.Split(string(raw), "\x00") {
		switch {
		case t == "n":
			r.Net = true
		case strings.HasPrefix(t, "l"):
			var l Rlimit
			if _, err := fmt.Sscanf(t, "l%d:%d:%d", &l.Resource, &l.Cur, &l.Max); err != nil {
				return Rules{}, fmt.Errorf("confine: malformed rules (token %q)", t)
			}
			r.Limits = append(r.Limits, l)
		case strings.HasPrefix(t, "w/"):
			r.RW = append(r.RW, t[1:])
		case strings.HasPrefix(t, "r/"):
			r.RO = append(r.RO, t[1:])
		case strings.HasPrefix(t, "p/"):
			r.Protect = append(r.Protect, t[1:])
		case strings.HasPrefix(t, "f/"):
			r.Physical = append(r.Physical, t[1:])
		default:
			return Rules{}, fmt.Errorf("confine: malformed rules (token %q)", t)
		}
	}
	return r, nil
}
