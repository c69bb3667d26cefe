package sandbox

import (
	"crypto/rand"
	"io"
	"io/fs"
	"path"
	"syscall"
	"time"
)

// DevNull is one of the devices the sandbox serves itself.
const DevNull = "/dev/null"

// deviceMinor is the minor number of a device the sandbox serves (Linux's memory devices,
// major 1), and whether p names one. They are virtual: never the host's files, so reading
// one leaks nothing and writing one changes nothing.
func deviceMinor(p string) (uint32, bool) {
	switch p {
	case "/dev/null":
		return 3, true
	case "/dev/zero":
		return 5, true
	case "/dev/full":
		return 7, true
	case "/dev/random":
		return 8, true
	case "/dev/urandom":
		return 9, true
	}
	return 0, false
}

// deviceNames are the entries /dev lists for the served devices.
func deviceNames() []string { return []string{"full", "null", "random", "urandom", "zero"} }

// IsDevice reports whether p (absolute, clean) is a device the sandbox serves.
func IsDevice(p string) bool {
	_, ok := deviceMinor(p)
	return ok
}

// device is an open virtual device: null reads EOF, zero and full read zero bytes, random and
// urandom read the process's random source; full refuses writes (ENOSPC), the others discard.
type device struct {
	name  string
	minor uint32
}

func (d device) Read(p []byte) (int, error) {
	switch d.minor {
	case 3:
		return 0, io.EOF
	case 8, 9:
		return rand.Read(p)
	}
	clear(p)
	return len(p), nil
}

func (d device) Write(p []byte) (int, error) {
	if d.minor == 7 {
		return 0, &fs.PathError{Op: "write", Path: "/dev/full", Err: syscall.ENOSPC}
	}
	return len(p), nil
}

func (device) Seek(int64, int) (int64, error)     { return 0, nil }
func (device) Close() error                       { return nil }
func (d device) Stat() (fs.FileInfo, error)       { return deviceInfo(d), nil }
func (device) ReadDir(int) ([]fs.DirEntry, error) { return nil, syscall.ENOTDIR }

// deviceInfo describes a virtual device as a character device with its number (ls -l shows
// "1, 3"), world read-write, dated at the epoch rather than the host's boot.
type deviceInfo device

func (d deviceInfo) Name() string     { return path.Base(d.name) }
func (deviceInfo) Size() int64        { return 0 }
func (deviceInfo) Mode() fs.FileMode  { return fs.ModeDevice | fs.ModeCharDevice | 0o666 }
func (deviceInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (deviceInfo) IsDir() bool        { return false }
func (d deviceInfo) Sys() any         { return deviceStat(1, d.minor) }

// deviceStat is the stat of a virtual character device.
func deviceStat(major, minor uint32) *StatT {
	return &StatT{Nlink: 1, Mode: sIFCHR | 0o666, Major: major, Minor: minor}
}

// DeviceNumbers returns the major and minor numbers of a device file (ls -l, stat %t %T);
// zero for other files.
func DeviceNumbers(fi fs.FileInfo) (major, minor uint32) {
	if fi.Mode()&fs.ModeDevice == 0 {
		return 0, 0
	}
	st := StatOf(fi)
	return st.Major, st.Minor
}
