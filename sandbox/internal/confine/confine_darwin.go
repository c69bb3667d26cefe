package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
)

// Status reports the Landlock ABI, which macOS has not (Seatbelt confines here: Available).
func Status() (abi int, err error) {
	return 0, errors.New("landlock: Linux only (macOS confines with Seatbelt)")
}

// Available reports Seatbelt's support: sandbox-exec must be installed (it is on every macOS
// release so far, though Apple marks it deprecated).
func Available() Support {
	fi, err := os.Stat(SandboxExec)
	if err != nil || !fi.Mode().IsRegular() {
		return Support{Err: fmt.Errorf("seatbelt: %s is missing", SandboxExec)}
	}
	return Support{Mechanism: "seatbelt", Files: true, Net: true}
}

// Apply cannot confine the calling process on macOS: Seatbelt applies to a program started by
// sandbox-exec (sandbox_init needs cgo, and this binary is built without it). The worker pool
// therefore runs its workers unconfined by the OS (docs/SANDBOX.md).
func Apply(Rules) error {
	return errors.New("confine: macOS cannot confine a running process (Seatbelt applies to programs started by sandbox-exec)")
}

// execConfined becomes `sandbox-exec -p PROFILE -- prog argv[1:]...` with the limits set.
func execConfined(r Rules, prog string, argv []string) error {
	if err := checkPhysical(r.Physical); err != nil {
		return err
	}
	profile, err := SeatbeltProfile(r, physicalPath)
	if err != nil {
		return err
	}
	args := append([]string{"sandbox-exec", "-p", profile, "--", prog}, argv[1:]...)
	env := os.Environ()
	debug.SetGCPercent(-1)
	if err := setLimits(r.Limits); err != nil {
		return err
	}
	err = syscall.Exec(SandboxExec, args, env)
	return fmt.Errorf("confine: %s: %w", SandboxExec, err)
}

// physicalPath resolves p's links where it exists (Seatbelt matches resolved paths).
func physicalPath(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// LimitsMechanism says how the per-call limits hold on macOS, which accepts an address-space
// limit but does not enforce it.
const LimitsMechanism = "rlimits (CPU time, open files, file size), set by the confinement wrapper or bash's ulimit; macOS does not enforce the address-space limit"
