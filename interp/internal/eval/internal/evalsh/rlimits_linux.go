package main

import "golang.org/x/sys/unix"

func rlimitResources() map[byte]rlimit {
	return map[byte]rlimit{
		't': {unix.RLIMIT_CPU, 1}, 'f': {unix.RLIMIT_FSIZE, 1024}, 'd': {unix.RLIMIT_DATA, 1024},
		's': {unix.RLIMIT_STACK, 1024}, 'c': {unix.RLIMIT_CORE, 1024}, 'm': {unix.RLIMIT_RSS, 1024},
		'u': {unix.RLIMIT_NPROC, 1}, 'n': {unix.RLIMIT_NOFILE, 1}, 'l': {unix.RLIMIT_MEMLOCK, 1024},
		'v': {unix.RLIMIT_AS, 1024}, 'x': {unix.RLIMIT_LOCKS, 1}, 'i': {unix.RLIMIT_SIGPENDING, 1},
		'q': {unix.RLIMIT_MSGQUEUE, 1}, 'e': {unix.RLIMIT_NICE, 1}, 'r': {unix.RLIMIT_RTPRIO, 1},
		'R': {unix.RLIMIT_RTTIME, 1},
	}
}
