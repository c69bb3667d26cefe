//go:build !linux

package confine

import (
	"errors"
	"syscall"
)

var errNoLayer = errors.New("native tools can be held in a review layer only on Linux (an overlay mount in a user namespace)")

// LayerAttr has no meaning here: LayerProbe fails first.
func LayerAttr(uid, gid int) *syscall.SysProcAttr { return nil }

// LayerExec fails: no overlays here.
func LayerExec([]string) (int, error) { return 126, errNoLayer }

// LayerProbe fails: no overlays here.
func LayerProbe(string, string) error { return errNoLayer }
