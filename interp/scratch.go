package interp

import (
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// scratch is one call's private directory tree (a sandbox.CallDir, created only when the
// script first touches it):
//
//	root/        0700, outside every root
//	  fifo/      the Runner's TMPDIR for process-substitution pipes (not visible to scripts)
//	  work/      the call's read-write scratch root and $HOME
//	    tmp/     $TMPDIR
type scratch struct {
	*sandbox.CallDir
	work, fifo, tmp string
}

func newScratch(base string) *scratch {
	d := sandbox.NewCallDir(base, "mcpbash-call-", "fifo", "work", "work/tmp")
	return &scratch{CallDir: d, work: d.Sub("work"), fifo: d.Sub("fifo"), tmp: d.Sub("work/tmp")}
}
