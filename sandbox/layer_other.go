//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package sandbox

import (
	"io/fs"
	"time"
)

// oNoFollow: these systems' os package has no O_NOFOLLOW; a final link is followed.
const oNoFollow = 0

func permits(fs.FileInfo, uint32) bool { return true }

func owns(fs.FileInfo) bool { return true }

func inoOf(fs.FileInfo) uint64 { return 0 }

func fileIdentity(fs.FileInfo) (int64, uint64, uint64) { return 0, 0, 0 }

func accessTimeOf(fi fs.FileInfo) time.Time { return fi.ModTime() }

func layerStat(fs.FileInfo, *layerInfo) any { return nil }

func processUmask() fs.FileMode { return 0o022 }

func isWhiteout(fs.FileInfo) bool { return false }

func isOpaque(string) bool { return false }
