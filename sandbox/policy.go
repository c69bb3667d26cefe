// Package sandbox is the confinement every engine shares: the roots a tool may touch (one
// os.Root each, so no path, `..` or symlink can leave them), limits, a clean environment and
// identity, and the access record of what a call read, wrote, listed, ran and was refused.
package sandbox

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox/internal/confine"
)

// Mode says whether a root may be written.
type Mode int

// Root modes.
const (
	ReadOnly Mode = iota
	ReadWrite
)

func (m Mode) String() string {
	if m == ReadWrite {
		return "rw"
	}
	return "ro"
}

// Root is one directory a tool may use. Path is absolute and physical.
type Root struct {
	Path string `json:"path"`
	Name string `json:"name,omitempty"`
	Mode Mode   `json:"-"`
	// Protected marks a read-only root nested in a read-write one to keep the project's own
	// metadata out of a tool's reach (T-FS-5). It is mounted even when the directory does not
	// exist yet, so that a tool cannot create it, and it is never statted up front.
	Protected bool `json:"-"`
	// spec is the root's mount layout, made by PrepareRoots and shared by the calls given the
	// prepared roots (nil: NewFS makes one per call).
	spec *mountSpec
}

// newMountSpec is r's mount layout: its path cleaned, as scripts see it (ShellPath), its host
// path cleaned, a protected root read-only. physical marks a root the policy gave.
func newMountSpec(r Root, physical bool) *mountSpec {
	r.spec = nil
	host := filepath.Clean(r.Path)
	r.Path = path.Clean(ShellPath(host))
	if r.Protected {
		// Mounted even when missing, never vetted at its physical path.
		r.Mode, physical = ReadOnly, false
	}
	return &mountSpec{Root: r, host: host, physical: physical}
}

// PrepareRoots returns roots with cleaned paths whose cleaning and conversion NewFS does not
// repeat: for roots given to many calls (a server's fallback roots with the project's
// protected directories are a dozen, on every call). A relative path is left for NewFS to
// refuse.
func PrepareRoots(roots []Root) []Root {
	out := make([]Root, len(roots))
	slab := make([]mount, 0, len(roots))
	for i, r := range roots {
		if filepath.IsAbs(r.Path) {
			r.Path = filepath.Clean(r.Path)
			r.spec = newMountSpec(r, true)
			slab = append(slab, mount{mountSpec: r.spec})
		}
		out[i] = r
	}
	// The nested lists of the mounts NewFS makes of exactly these roots, in its order.
	mounts := make([]*mount, len(slab))
	for i := range slab {
		mounts[i] = &slab[i]
	}
	sortMounts(mounts)
	for _, m := range mounts {
		m.nested = nestedIn(mounts, m)
	}
	return out
}

// HiddenEntries, as the last component of a Protected root's path ("/project/.*"), stands for
// every entry of that directory whose name starts with a dot (.git, .github, .envrc, ...), those
// that exist and those a tool might create: the operator's own tools trust and run them.
// Landlock's rules (confine.Rules.Protect) read the same pattern.
const HiddenEntries = confine.HiddenEntries

// hiddenPattern reports whether a nested mount's relative path is a HiddenEntries pattern, and
// the directory it covers ("." for the mount itself).
func hiddenPattern(rel string) (string, bool) {
	if rel == HiddenEntries {
		return ".", true
	}
	dir, ok := strings.CutSuffix(rel, "/"+HiddenEntries)
	return dir, ok
}

// isHiddenIn reports whether the relative path p is, or is below, a hidden entry of dir.
func isHiddenIn(p, dir string) bool {
	if dir != "." {
		rest, ok := cutPathPrefix(p, dir)
		if !ok || rest == "" {
			return false
		}
		p = rest
	}
	return strings.HasPrefix(p, ".") && p != "." && p != ".."
}

// Limits bound one call. Zero values mean "use the default".
type Limits struct {
	Timeout        time.Duration
	MaxStdoutBytes int64
	MaxStderrBytes int64
	MaxCommands    int64
	MaxCallDepth   int
	MaxScriptBytes int64
	// MaxJobs bounds the background jobs (`cmd &`) a call may start in all, counted as they
	// start (a fork bomb hits it long before memory or the command limit).
	MaxJobs int64
	// MaxOpenFiles bounds the files a call holds open at once through its FS (scripts, their
	// utilities and redirections, wasm guests): one call must not take every descriptor of
	// the server (MCPBASH_MAX_OPEN_FILES_PER_CALL).
	MaxOpenFiles int
	// MaxUtilityBytes is the call's memory budget for in-process utilities (Budget): what
	// they hold at once, all runs of the call together.
	MaxUtilityBytes int64
	// MaxBytesWritten bounds the bytes a call writes through its FS, roots and scratch alike
	// (0: no bound; hosting mode sets a tenant's bytesWritten). Writes by allowlisted host
	// commands go to the file directly and are bounded only by the process's file-size limit.
	MaxBytesWritten int64
}

// MaxNesting bounds how deeply anything a call's script or client gives may nest once parsed
// or built: shell text, awk, jq and bc programs, sed blocks, and the values jq builds. Parsers
// and the code that walks what they build recurse on the Go stack, and a Go stack overflow is
// a fatal error that ends the process (issue 27), so every parser is held to this bound before
// it runs. Real programs nest a few dozen levels.
const MaxNesting = 10000

// DefaultLimits are used for every zero field of a policy's limits.
func DefaultLimits() Limits {
	return Limits{
		Timeout:        30 * time.Second,
		MaxStdoutBytes: 10 << 20,
		MaxStderrBytes: 1 << 20,
		MaxCommands:    1_000_000,
		MaxCallDepth:   200,
		MaxScriptBytes: 1 << 20,
		MaxJobs:        1000,
		MaxOpenFiles:   256,
		// MaxUtilityBytes: the engine's default is 512 MiB (host: MCPBASH_UTILITY_MEMORY_MB).
		MaxUtilityBytes: 512 << 20,
	}
}

// WithDefaults fills zero fields from DefaultLimits (MaxBytesWritten has no default: 0 is no
// bound).
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	orDefault(&l.Timeout, d.Timeout)
	orDefault(&l.MaxStdoutBytes, d.MaxStdoutBytes)
	orDefault(&l.MaxUtilityBytes, d.MaxUtilityBytes)
	orDefault(&l.MaxStderrBytes, d.MaxStderrBytes)
	orDefault(&l.MaxCommands, d.MaxCommands)
	orDefault(&l.MaxOpenFiles, d.MaxOpenFiles)
	orDefault(&l.MaxCallDepth, d.MaxCallDepth)
	orDefault(&l.MaxJobs, d.MaxJobs)
	orDefault(&l.MaxScriptBytes, d.MaxScriptBytes)
	return l
}

// orDefault sets *v to def when it is zero or negative (unset).
func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Policy is everything an engine may do for one call.
type Policy struct {
	Roots []Root
	// ToolDir is readable even when no root covers it.
	ToolDir string
	// Allow lists external commands the call may run on the host (already intersected with
	// the operator's ceiling).
	Allow  []string
	Limits Limits
	// Layer, when set, puts the call in review mode: its writes to read-write roots land in a
	// copy-on-write layer whose data files go in this directory (private to the server, outside
	// every root), not in the roots (layer.go; FS.Review returns what it holds).
	Layer string
}

// Nested lists the read-only roots of the policy below the root at p, relative to it: the
// protected paths a write to p never reaches.
func (p Policy) Nested(root string) []string {
	var out []string
	for _, r := range p.Roots {
		if r.Mode == ReadOnly && r.Path != root && isUnder(r.Path, root) {
			out = append(out, strings.TrimPrefix(r.Path[len(root):], "/"))
		}
	}
	return out
}

// Allowed reports whether an external command name is allowlisted.
func (p Policy) Allowed(name string) bool { return slices.Contains(p.Allow, name) }

// Physical returns p made absolute and with symlinks resolved where it exists.
func Physical(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// ScratchBase is where per-call scratch directories go when the operator names none: /dev/shm
// (tmpfs: a call's few mkdirs cost microseconds there instead of a journalled disk's
// hundreds) when it is usable, else the OS temp dir.
func ScratchBase(base string) string {
	if base != "" {
		return base
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() && fi.Mode().Perm()&0o002 != 0 {
		return "/dev/shm"
	}
	return os.TempDir()
}
