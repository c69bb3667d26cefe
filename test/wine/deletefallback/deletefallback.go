//go:build windows

// Package deletefallback makes os.Remove and os.RemoveAll use Windows' classic delete under
// Wine. Go deletes with FILE_DISPOSITION_INFORMATION_EX (POSIX semantics, Windows 10 1607 and
// later), which Wine 8 answers with an error Go does not take for "unsupported", so every
// removal fails there ("Invalid function"), t.TempDir's cleanup included. Go keeps a switch
// for its own tests that forces the older path; this sets it. Only the Wine runs link it (the
// build tag wine, with -ldflags=-checklinkname=0: test/wine.sh); release binaries never do.
package deletefallback

import _ "unsafe" // go:linkname

//go:linkname testDeleteatFallback internal/syscall/windows.TestDeleteatFallback
var testDeleteatFallback bool

func init() { testDeleteatFallback = true }
