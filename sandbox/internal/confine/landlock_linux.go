package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

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

// Available reports Landlock's support on this kernel.
func Available() Support {
	abi, err := Status()
	if err != nil {
		return Support{Err: err}
	}
	return Support{Mechanism: "landlock", ABI: abi, Files: true, Net: abi >= NetABI}
}

// execConfined applies Landlock and the seccomp filter, then the limits, and becomes prog.
func execConfined(r Rules, prog string, argv []string) error {
	if err := Apply(r); err != nil {
		return err
	}
	// The limits come last, right before exec: under a low address-space limit this Go process
	// itself cannot map memory any more (it already uses more than a tool's limit may allow), so
	// nothing between here and exec may need to, and no GC may start.
	env := os.Environ()
	debug.SetGCPercent(-1)
	if err := setLimits(r.Limits); err != nil {
		return err
	}
	err := syscall.Exec(prog, argv, env)
	return fmt.Errorf("confine: %s: %w", argv[0], err)
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

// LimitsMechanism says how the per-call limits hold on Linux.
const LimitsMechanism = "rlimits (address space, CPU time, open files, file size), set by the confinement wrapper or bash's ulimit"
