package interp

import (
	"os"
	"sync"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// scratch is one call's private directory tree (a sandbox.CallDir, created only when the
// script first touches it):
//
//	root/        0700, outside every root
//	  work/      the call's read-write scratch root and $HOME
//	    tmp/     $TMPDIR
//	  home/      0555, empty: HOME and config dirs of allowlisted host commands (made on first use)
//
// Pipes and process substitutions are in memory: nothing of them is on disk.
type scratch struct {
	*sandbox.CallDir
	work, tmp, home string

	homeOnce sync.Once
	homeErr  error
}

// scratchSubdirs are the subdirectories of every call's tree (read only: shared by the calls
// instead of a new variadic slice each).
var scratchSubdirs = []string{"work", "work/tmp"}

func newScratch(base string) *scratch {
	d := sandbox.NewCallDir(base, "mcpbash-call-", scratchSubdirs...)
	return &scratch{CallDir: d, work: d.Sub("work"), tmp: d.Sub("work/tmp")}
}

// emptyHome makes the tree and, once, its empty read-only home/ (outside every root, so no
// script can put a configuration file there).
func (s *scratch) emptyHome() (string, error) {
	s.homeOnce.Do(func() {
		s.home = s.Sub("home")
		if s.homeErr = s.Ensure(); s.homeErr == nil {
			s.homeErr = os.Mkdir(s.home, 0o555)
		}
	})
	return s.home, s.homeErr
}
