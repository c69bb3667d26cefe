package builtins

import (
	"crypto/rand"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
)

// The shell's own descriptors reach utilities as /dev/fd/N (process substitution: `diff <(a)
// <(b)`, `tee >(c)`) and /dev/stdin, /dev/stdout, /dev/stderr. They are not files of the
// sandbox filesystem: openDevice serves them from the command's streams and Env.OpenFD.

// deviceFD returns the descriptor a device path names, and whether it names one.
func deviceFD(p string) (int, bool) {
	switch p {
	case "/dev/stdin":
		return 0, true
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, prefix := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			n, err := strconv.Atoi(rest)
			return n, err == nil && n >= 0
		}
	}
	return 0, false
}

type devReader struct{ io.Reader }

// zeroReader is /dev/zero: utilities read it (head -c N /dev/zero); the sandbox filesystem
// holds no host device but /dev/null, so it is served here, as /dev/urandom is from crypto/rand.
type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func (devReader) Write([]byte) (int, error) { return 0, syscall.EBADF }
func (devReader) Close() error              { return nil }

type devWriter struct{ io.Writer }

func (devWriter) Read([]byte) (int, error) { return 0, syscall.EBADF }
func (devWriter) Close() error             { return nil }

// openDevice opens a device path of the command's descriptors; ok is false when p is not one.
func openDevice(env *Env, p string) (f io.ReadWriteCloser, ok bool, err error) {
	switch p {
	case "/dev/zero":
		return devReader{zeroReader{}}, true, nil
	case "/dev/urandom", "/dev/random":
		return devReader{rand.Reader}, true, nil
	}
	n, ok := deviceFD(p)
	if !ok {
		return nil, false, nil
	}
	switch {
	case n == 0 && env.Stdin != nil:
		return devReader{env.Stdin}, true, nil
	case n == 1 && env.Stdout != nil:
		return devWriter{env.Stdout}, true, nil
	case n == 2 && env.Stderr != nil:
		return devWriter{env.Stderr}, true, nil
	case env.OpenFD != nil:
		if f, err := env.OpenFD(n); err == nil {
			return f, true, nil
		}
	}
	return nil, true, &fs.PathError{Op: "open", Path: p, Err: syscall.EBADF}
}

// openFile opens an operand for writing or reading: a device path, else a sandbox file.
func openFile(env *Env, name string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	if f, ok, err := openDevice(env, env.Abs(name)); ok {
		return f, err
	}
	return env.FS.Open(env.Abs(name), flag, perm)
}

// isDevice reports whether an operand names one of the command's descriptors.
func isDevice(env *Env, name string) bool {
	_, ok := deviceFD(env.Abs(name))
	return ok
}

// Describe words a filesystem error as the utilities do: the words of coreutils, with the
// sandbox's reason when it refused the operation.
func Describe(err error) string { return describe(err) }
