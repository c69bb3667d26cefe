// Package osfs gives the evaluator's development tools (evalsh, the differential tests) the
// host filesystem, and runs external commands on the host. It is never used by the
// sandbox engine.
package osfs

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/strerror"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// RefusedStatus is evalsh's exit status when the evaluator refused the script.
const RefusedStatus = 99

// FS is the host filesystem.
type FS struct{}

func (FS) Open(name string, flag int, perm fs.FileMode) (eval.File, error) {
	return os.OpenFile(name, flag, perm)
}
func (FS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (FS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (FS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (FS) RealPath(name string) (string, error)       { return filepath.EvalSymlinks(name) }
func (FS) Chmod(name string, mode fs.FileMode) error  { return os.Chmod(name, mode) }
func (FS) Access(name string, mode uint32) error      { return access(name, mode) }

// Lookup finds a command in a PATH, as bash does: the first executable regular file.
func Lookup(name, path, cwd string) (string, bool) {
	if hits := search(name, path, cwd, true); len(hits) > 0 {
		return hits[0], true
	}
	return "", false
}

// LookupAll is every executable match of Lookup's search, in PATH order (type -a).
func LookupAll(name, path, cwd string) []string { return search(name, path, cwd, false) }

// search lists the executable regular files named name in PATH order, stopping at the first
// when first is set.
func search(name, path, cwd string, first bool) []string {
	var out []string
	for _, dir := range strings.Split(path, ":") {
		p := filepath.Join(dir, name)
		if dir == "" {
			p = name
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, abs)
		}
		if fi, err := os.Stat(abs); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			out = append(out, p)
			if first {
				break
			}
		}
	}
	return out
}

// Exec runs a host command. Shell invocations (bash, sh, or self) run self, the evaluator's
// own command, so scripts that start a shell stay on the evaluator.
func Exec(self string) eval.ExecFunc {
	return func(ctx context.Context, c *eval.Command) (int, error) {
		argv := c.Args
		name := argv[0]
		isShell := self != "" && (name == self || name == "bash" || name == "sh" || name == "/bin/bash" || name == "/bin/sh" || name == "/usr/bin/bash")
		if isShell && (name == "bash" || name == "sh") {
			// A bare name is found only where PATH has the host's shell, as bash finds it.
			if _, ok := Lookup(name, c.Path, c.Dir); !ok {
				return 127, eval.ErrNotFound
			}
		}
		if isShell {
			argv = append([]string{self}, argv[1:]...)
			name = self
		}
		path := name
		if !strings.Contains(name, "/") {
			p, ok := Lookup(name, c.Path, c.Dir)
			if !ok {
				return 127, eval.ErrNotFound
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.Dir, p)
			}
			path = p
		} else {
			p := name
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.Dir, p)
			}
			fi, err := os.Stat(p)
			if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENAMETOOLONG) {
				// bash: 127 only for a path that does not exist, 126 for any other failure.
				io.WriteString(c.Stderr, "bash: "+name+": "+strerror.Words(err)+"\n")
				return 126, nil
			}
			if err != nil {
				return 127, eval.ErrNotFound
			}
			if fi.IsDir() || fi.Mode()&0o111 == 0 {
				io.WriteString(c.Stderr, "bash: "+name+": Permission denied\n")
				return 126, nil
			}
			path = p
		}
		cmd := exec.CommandContext(ctx, path, argv[1:]...)
		cmd.Args[0] = argv[0]
		cmd.Dir = c.Dir
		cmd.Env = c.Environ()
		cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
		// /dev/fd/N arguments (process substitution) are bridged to real pipes.
		var closers []io.Closer
		for i, a := range argv[1:] {
			if !strings.HasPrefix(a, "/dev/fd/") {
				continue
			}
			n, err := strconv.Atoi(a[len("/dev/fd/"):])
			if err != nil || n < 3 || n > 200 || c.OpenFD == nil {
				continue
			}
			f, err := c.OpenFD(n)
			if err != nil {
				continue
			}
			pr, pw, err := os.Pipe()
			if err != nil {
				f.Close()
				continue
			}
			for len(cmd.ExtraFiles) <= n-3 {
				cmd.ExtraFiles = append(cmd.ExtraFiles, nil)
			}
			// Which way the data flows is unknown: try reading from the shell side first.
			cmd.ExtraFiles[n-3] = pr
			go func() {
				io.Copy(pw, f)
				pw.Close()
				f.Close()
			}()
			closers = append(closers, pr)
			_ = i
		}
		err := run(cmd, c)
		if errors.Is(err, syscall.ENOEXEC) && self != "" {
			// An executable without a #! line: bash runs it as a shell script.
			cmd = exec.CommandContext(ctx, self, append([]string{path}, argv[1:]...)...)
			cmd.Dir, cmd.Env = c.Dir, c.Environ()
			cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
			isShell = true
			err = run(cmd, c)
		}
		for _, c := range closers {
			c.Close()
		}
		if st, ok := sandbox.ExitStatus(err); ok {
			if isShell && st == RefusedStatus {
				// The nested shell refused (its message is on stderr): the whole run refuses,
				// as it would if the nested script ran in-process. (A signal's 128+N is never
				// RefusedStatus.)
				return 0, &eval.RefusalError{Refusal: eval.Refusal{File: name, Construct: "a construct in a nested shell",
					Fix: eval.DefaultFix}}
			}
			return st, nil
		}
		if ctx.Err() != nil {
			return 1, nil
		}
		io.WriteString(c.Stderr, "bash: "+name+": "+err.Error()+"\n")
		return 126, nil
	}
}

// umaskMu serializes the process umask while a command starts under the shell's.
var umaskMu sync.Mutex

// run runs cmd with the umask of the shell that runs it (a new process inherits its shell's
// umask; the host process's own is not the script's).
func run(cmd *exec.Cmd, c *eval.Command) error {
	mask := 0o022
	if c.Shell != nil {
		mask = int(c.Shell.Umask())
	}
	// A command that never reads the shell's input must not wait for its end: bash's does
	// not (its stdin is a descriptor, here a copy from the shell's reader).
	cmd.WaitDelay = time.Second
	umaskMu.Lock()
	old := setUmask(mask)
	err := cmd.Start()
	setUmask(old)
	umaskMu.Unlock()
	if err != nil {
		return err
	}
	if err := cmd.Wait(); !errors.Is(err, exec.ErrWaitDelay) {
		return err
	}
	// The command ended; only the copy of the shell's input to it had not.
	if cmd.ProcessState.Success() {
		return nil
	}
	return &exec.ExitError{ProcessState: cmd.ProcessState}
}
