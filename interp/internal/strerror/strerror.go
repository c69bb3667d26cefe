// Package strerror words a file error as the C library's strerror does, the way bash and the
// coreutils print it after "name: ": the evaluator's redirections and builtins and the Go
// utilities share it so that one error reads the same wherever it surfaces.
package strerror

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// Words is err in strerror's words ("No such file or directory"); an error that is no system
// error keeps its own text.
func Words(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "No such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied"
	case errors.Is(err, syscall.EISDIR):
		return "Is a directory"
	case errors.Is(err, syscall.ENOTDIR):
		return "Not a directory"
	case errors.Is(err, syscall.ENOTEMPTY):
		return "Directory not empty" // before ErrExist, which matches ENOTEMPTY too
	case errors.Is(err, fs.ErrExist):
		return "File exists"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		// strerror's capital: "Bad file descriptor", not Go's lower-case "bad file descriptor".
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
