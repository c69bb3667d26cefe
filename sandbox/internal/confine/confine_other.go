//go:build !linux && !darwin

package confine

import (
	"errors"
	"fmt"
	"runtime"
)

// errNoConfinement is why processes cannot be confined on this platform.
var errNoConfinement = fmt.Errorf("%s has no OS confinement of files and network for native tools and allowlisted commands (Landlock is Linux's, Seatbelt macOS's)", runtime.GOOS)

// Status reports the Landlock ABI, which this platform has not.
func Status() (abi int, err error) { return 0, errors.New("landlock: Linux only") }

// Available reports that nothing confines files and network here.
func Available() Support { return Support{Err: errNoConfinement, Absent: true} }

// Apply fails: there is nothing to confine the process with.
func Apply(Rules) error { return errNoConfinement }

// execConfined refuses: Wrap never wraps here (Available reports no confinement), so only a
// hand-made `mcp-bash __confine` gets this.
func execConfined(Rules, string, []string) error { return errNoConfinement }
