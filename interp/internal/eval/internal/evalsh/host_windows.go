package main

import "io/fs"

// Windows has no rlimits (ulimit shows every limit unlimited, as Git-Bash's does) and no
// umask (new files take their ACL from their directory; 022 is what Git-Bash reports).
const rlimInfinity = ^uint64(0)

func rlimitResources() map[byte]rlimit { return nil }

func getrlimit(int) (cur, max uint64, ok bool) { return 0, 0, false }

func processUmask() fs.FileMode { return 0o022 }
