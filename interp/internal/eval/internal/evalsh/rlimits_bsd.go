//go:build unix && !linux

package main

import "golang.org/x/sys/unix"

// rlimitResources: the BSDs and macOS have the POSIX limits only (bash shows the others as
// unlimited there too).
func rlimitResources() map[byte]rlimit {
	return map[byte]rlimit{
		't': {unix.RLIMIT_CPU, 1}, 'f': {unix.RLIMIT_FSIZE, 1024}, 'd': {unix.RLIMIT_DATA, 1024},
		's': {unix.RLIMIT_STACK, 1024}, 'c': {unix.RLIMIT_CORE, 1024}, 'n': {unix.RLIMIT_NOFILE, 1},
		'v': {unix.RLIMIT_AS, 1024},
	}
}
