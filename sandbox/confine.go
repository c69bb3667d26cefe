package sandbox

import (
	"os/exec"
	"syscall"

	"github.com/mcp-bash/mcp-bash/sandbox/internal/confine"
)

// Confinement of the programs that leave the in-process sandbox (allowlisted external commands,
// native tools, the process-isolation worker): Landlock, a seccomp network filter and resource
// limits, implemented in sandbox/internal/confine (its package comment says what a confined
// process may touch). These names are that package's API to the rest of the module.
type (
	// ConfineRules say what a confined process may use besides the system paths.
	ConfineRules = confine.Rules
	// Rlimit is one resource limit set before a confined program starts.
	Rlimit = confine.Rlimit
	// Confiner wraps command lines so that they run confined; a nil *Confiner wraps nothing.
	Confiner = confine.Confiner
	// ConfineSupport is what this host confines processes with (Landlock, Seatbelt, none).
	ConfineSupport = confine.Support
	// LayerSpec is what the review layer's helper mounts for a native tool (Linux).
	LayerSpec = confine.LayerSpec
	// LayerMount is one read-write root with the overlay's upper and work directories.
	LayerMount = confine.LayerMount
)

const (
	// ConfineCommand is the hidden mcp-bash subcommand a Confiner re-executes the binary as.
	ConfineCommand = confine.Command
	// LandlockNetABI is the first Landlock ABI that can restrict TCP.
	LandlockNetABI = confine.NetABI

	// The resources of an Rlimit: the platform's RLIMIT_* numbers on Unix.
	LimitAddressSpace = confine.LimitAddressSpace
	LimitCPU          = confine.LimitCPU
	LimitOpenFiles    = confine.LimitOpenFiles
	LimitFileSize     = confine.LimitFileSize
	// LayerCommand is the hidden subcommand of the review layer's helper.
	LayerCommand = confine.LayerCommand
)

// Confinement reports what this host confines the processes that leave the sandbox with:
// Landlock on Linux, Seatbelt on macOS, nothing for files and network elsewhere.
func Confinement() ConfineSupport { return confine.Available() }

// SeatbeltProfile is the macOS Seatbelt profile a Confiner runs a program under for r (the
// same policy as Landlock's); resolve maps a path to its physical form (nil: as given).
func SeatbeltProfile(r ConfineRules, resolve func(string) string) (string, error) {
	return confine.SeatbeltProfile(r, resolve)
}

// WrapLayer is the command line that runs argv (a native tool, confined) over the review
// layer s; start it with LayerAttr.
func WrapLayer(self string, s LayerSpec, argv []string) ([]string, error) {
	return confine.WrapLayer(self, s, argv)
}

// LayerAttr is how the review layer's helper is started (its namespaces; Linux).
func LayerAttr(uid, gid int) *syscall.SysProcAttr { return confine.LayerAttr(uid, gid) }

// LayerExec is the helper's side (`mcp-bash __layer`).
func LayerExec(args []string) (int, error) { return confine.LayerExec(args) }

// LayerProbe reports whether a native tool's writes can be held in a review layer made in dir.
func LayerProbe(self, dir string) error { return confine.LayerProbe(self, dir) }

// LandlockStatus reports the running kernel's Landlock ABI version, or why Landlock is unavailable.
func LandlockStatus() (abi int, err error) { return confine.Status() }

// ConfineExec is the child side of Confiner.Wrap (`mcp-bash __confine RULES -- PROG ARGS...`):
// it confines the process and replaces it with PROG, returning only on failure with the status
// a shell would use (127 not found, 126 otherwise).
func ConfineExec(args []string) (status int, err error) { return confine.Exec(args) }

// ConfineSelf confines the calling process, irrevocably, to r and the system paths.
func ConfineSelf(r ConfineRules) error { return confine.Apply(r) }

// ConfineRules are the Landlock rules for p's roots, the one translation of a policy's roots
// for every confined process that runs a call: read-write roots RW, read-only roots RO, and a
// Protected root (read-only inside a read-write one) in Protect, since Landlock cannot take
// rights away and its read-write root must be split (confine.Rules.Protect). Callers add the
// call's own paths (scratch, tool directory) and the network.
func (p Policy) ConfineRules() ConfineRules {
	var r ConfineRules
	for _, root := range p.Roots {
		if root.Protected {
			// A path inside a root (a pattern, or a link the project may have): not walked.
			r.Protect = append(r.Protect, root.Path)
			continue
		}
		r.Physical = append(r.Physical, root.Path) // T-FS-12: not swapped for a symlink since
		switch {
		case root.Mode == ReadWrite:
			r.RW = append(r.RW, root.Path)
		default:
			r.RO = append(r.RO, root.Path)
		}
	}
	return r
}

// ProcessGroup is a started program and every process it starts, ended together: a process
// group on Unix, a Job Object on Windows (which also holds the program's limits there).
type ProcessGroup = confine.Group

// StartGroup starts cmd as a ProcessGroup; a context cmd was made with kills the whole group.
// On Windows the limits are set on the group's Job Object (address space as committed memory,
// CPU as user time); unenforced lists the limits this platform cannot hold this way (all of
// them on Unix, where the confinement wrapper or bash's ulimit sets them in the child).
func StartGroup(cmd *exec.Cmd, limits []Rlimit) (g *ProcessGroup, unenforced []Rlimit, err error) {
	return confine.StartGroup(cmd, limits)
}

// KilledStatus is the status of a program its ProcessGroup's Kill ended (128+SIGKILL, 137, on
// every platform).
const KilledStatus = confine.KilledStatus

// LimitsMechanism says how this platform holds the per-call limits of native tools and
// allowlisted commands (doctor reports it).
func LimitsMechanism() string { return confine.LimitsMechanism }
