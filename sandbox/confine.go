package sandbox

import (
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
	// LayerCommand is the hidden subcommand of the review layer's helper.
	LayerCommand = confine.LayerCommand
)

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
