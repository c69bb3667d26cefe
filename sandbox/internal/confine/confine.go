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
	"os/exec"
	"path/filepath"
	"strings"
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

// Rlimit is one resource limit: Resource is one of the Limit* numbers (the platform's
// RLIMIT_* on Unix); Cur and Max the soft and hard values.
type Rlimit struct {
	Resource int
	Cur, Max uint64
}

// Support is what this host can confine a process with.
type Support struct {
	// Mechanism names it: "landlock" (Linux), "seatbelt" (macOS sandbox-exec), "job object"
	// (Windows: resource limits only, no filesystem or network rules), or "" when there is none.
	Mechanism string
	// ABI is the Landlock ABI the kernel reports (0 elsewhere).
	ABI int
	// Files and Net report whether the mechanism confines the filesystem and can deny the network.
	Files, Net bool
	// Absent is set where the platform has no confinement of files and network at all
	// (Windows), as opposed to a Linux kernel without Landlock: there, native tools and
	// allowlisted commands need the operator's consent to run unconfined (Confiner.Unconfined).
	Absent bool
	// Err says why there is no file and network confinement (nil when Files).
	Err error
}

// String describes the support for doctor and logs.
func (s Support) String() string {
	switch {
	case s.Mechanism == "landlock" && s.Net:
		return fmt.Sprintf("Landlock ABI %d (filesystem and TCP)", s.ABI)
	case s.Mechanism == "landlock":
		return fmt.Sprintf("Landlock ABI %d (filesystem only: network rules need ABI %d)", s.ABI, NetABI)
	case s.Mechanism == "seatbelt":
		return "Seatbelt (" + SandboxExec + ": filesystem and network)"
	case s.Err != nil:
		return "unavailable: " + s.Err.Error()
	}
	return "unavailable"
}

// Confiner wraps command lines so that they run confined (Landlock, Seatbelt). A nil *Confiner
// wraps nothing.
type Confiner struct {
	// Self is the path of the mcp-bash binary (it serves the __confine subcommand).
	Self string
	// Required refuses to run commands that cannot be confined (MCPBASH_REQUIRE_CONFINEMENT).
	Required bool
	// Unconfined is the operator's consent to run commands unconfined where the platform has
	// no confinement (MCPBASH_NATIVE_UNCONFINED); without it they are refused there.
	Unconfined bool

	support func() Support // nil: Available; tests force other hosts
}

func (c *Confiner) host() Support {
	if c.support != nil {
		return c.support()
	}
	return Available()
}

// Name is the mechanism's name as people write it ("Landlock", "Seatbelt"; "" for none).
func (s Support) Name() string {
	switch s.Mechanism {
	case "landlock":
		return "Landlock"
	case "seatbelt":
		return "Seatbelt"
	}
	return ""
}

// Describe says how a command Wrap wrapped (or let through) runs, for the access record and
// logs: "confined by Landlock", "confined by Seatbelt", or "unconfined: <why>".
func (c *Confiner) Describe() string {
	if m := c.Mechanism(); m != "" {
		return "confined by " + m
	}
	if c == nil {
		return "unconfined"
	}
	s := c.host()
	why := "no OS confinement"
	if s.Err != nil {
		why = s.Err.Error()
	}
	if s.Absent {
		why += "; MCPBASH_NATIVE_UNCONFINED=true"
	}
	return "unconfined: " + why
}

// Mechanism is the name of what Wrap confines with on this host ("" when nothing).
func (c *Confiner) Mechanism() string {
	if c == nil {
		return ""
	}
	if s := c.host(); s.Files {
		return s.Name()
	}
	return ""
}

// Wrap returns argv rewritten to run under r: `Self __confine RULES -- argv...`. When the host
// cannot confine files it returns argv unchanged (the rules' resource limits then have no
// process to set them: the caller applies its own fallback), unless c.Required, in which case it
// fails and says why; with Required it also fails when r denies the network and the host cannot
// (Landlock ABI < 4).
func (c *Confiner) Wrap(r Rules, argv []string) ([]string, error) {
	if c == nil || len(argv) == 0 {
		return argv, nil
	}
	s := c.host()
	if !s.Files {
		err := s.Err
		if err == nil {
			err = errors.New("no OS confinement on this host")
		}
		switch {
		case c.Required:
			return nil, fmt.Errorf("confinement is required (MCPBASH_REQUIRE_CONFINEMENT) but unavailable: %w", err)
		case s.Absent && !c.Unconfined:
			return nil, fmt.Errorf("%w; it runs only with the operator's consent to run it unconfined (MCPBASH_NATIVE_UNCONFINED=true)", err)
		}
		return argv, nil
	}
	if c.Required && !r.Net && !s.Net {
		return nil, fmt.Errorf("confinement is required (MCPBASH_REQUIRE_CONFINEMENT) but Landlock ABI %d cannot deny network access (needs %d)", s.ABI, NetABI)
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
// read and execute) and replaces the process with PROG (execConfined, per platform). It
// returns only on failure, with the status a shell would use: 127 when PROG is not found, 126
// otherwise.
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
	return 126, execConfined(r, prog, argv)
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
		case len(t) > 1 && strings.ContainsRune("wrpf", rune(t[0])) && filepath.IsAbs(t[1:]):
			switch p := t[1:]; t[0] {
			case 'w':
				r.RW = append(r.RW, p)
			case 'r':
				r.RO = append(r.RO, p)
			case 'p':
				r.Protect = append(r.Protect, p)
			case 'f':
				r.Physical = append(r.Physical, p)
			}
		default:
			return Rules{}, fmt.Errorf("confine: malformed rules (token %q)", t)
		}
	}
	return r, nil
}
