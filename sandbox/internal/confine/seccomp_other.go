//go:build !linux || !(amd64 || arm64)

package confine

import (
	"fmt"
	"runtime"
)

// denyNetSockets has no filter for this platform. Apply only gets here on Linux (elsewhere
// Landlock is unavailable and Apply fails first), and then fails closed.
func denyNetSockets() error {
	return fmt.Errorf("confine: no seccomp network filter for %s/%s", runtime.GOOS, runtime.GOARCH)
}
