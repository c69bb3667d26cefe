package strerror

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

func TestWords(t *testing.T) {
	path := func(err error) error { return &fs.PathError{Op: "open", Path: "/x", Err: err} }
	for _, tc := range []struct {
		err  error
		want string
	}{
		{path(syscall.ENOENT), "No such file or directory"},
		{fs.ErrNotExist, "No such file or directory"},
		{path(syscall.EACCES), "Permission denied"},
		{path(syscall.EPERM), "Permission denied"},
		{path(syscall.EISDIR), "Is a directory"},
		{path(syscall.ENOTDIR), "Not a directory"},
		{path(syscall.ENOTEMPTY), "Directory not empty"},
		{path(syscall.EEXIST), "File exists"},
		{path(syscall.EBADF), "Bad file descriptor"},
		{fmt.Errorf("write: %w", syscall.ENOSPC), "No space left on device"},
		{path(errors.New("file already closed")), "file already closed"},
		{errors.New("plain"), "plain"},
	} {
		if got := Words(tc.err); got != tc.want {
			t.Errorf("Words(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
