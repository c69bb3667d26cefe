package interp

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// scratch is one call's private directory tree, created only when the script first touches it
// (most tools never do, and then a call costs no filesystem work at all):
//
//	root/        0700, outside every root
//	  fifo/      the Runner's TMPDIR for process-substitution pipes (not visible to scripts)
//	  work/      the call's read-write scratch root and $HOME
//	    tmp/     $TMPDIR
type scratch struct {
	root, work, fifo, tmp string

	once    sync.Once
	err     error
	created bool
}

func newScratch(base string) *scratch {
	var b [8]byte
	_, _ = rand.Read(b[:])
	root := filepath.Join(sandbox.ScratchBase(base), "mcpbash-call-"+hex.EncodeToString(b[:]))
	s := &scratch{root: root, work: filepath.Join(root, "work"), fifo: filepath.Join(root, "fifo")}
	s.tmp = filepath.Join(s.work, "tmp")
	return s
}

// ensure creates the tree once. The random name makes the path unguessable; Mkdir (not
// MkdirAll) of the root fails if anything already sits there.
func (s *scratch) ensure() error {
	s.once.Do(func() {
		if s.err = os.Mkdir(s.root, 0o700); s.err != nil {
			return
		}
		s.created = true
		for _, d := range []string{s.fifo, s.work, s.tmp} {
			if s.err = os.Mkdir(d, 0o700); s.err != nil {
				return
			}
		}
	})
	return s.err
}

// seal stops the tree from being created from now on and reports whether it was. Background
// jobs of the script may still be running (and creating it) while the engine reads the call's
// side files; the once orders their creation before the read.
func (s *scratch) seal() bool {
	s.once.Do(func() {})
	return s.created
}

// remove deletes the tree (if it was ever created) off the response path.
func (s *scratch) remove() {
	if s.seal() {
		go os.RemoveAll(s.root)
	}
}
