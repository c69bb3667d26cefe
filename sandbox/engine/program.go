package engine

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Program is the one interface of every program a script engine runs in-process: the
// utilities (jq, sed, ...), the SDK's mcp_* builtins and wasm commands. argv[0] is the name it
// was called by; it returns the exit status. A program touches nothing but what env gives it.
type Program func(ctx context.Context, env *Env, argv []string) int

// Env is what an in-process program sees of the command that runs it. The engine fills what it
// has; a nil func means unavailable.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Dir is the working directory (absolute); relative paths are taken from it.
	Dir string
	// FS is the call's sandbox filesystem, the only one the program may see.
	FS *sandbox.FS
	// Getenv reads a variable of the script: an exported one for a command (as a child process
	// sees its environment), any of the shell's for an SDK builtin. Environ lists the
	// exported ones (K=V).
	Getenv  func(string) string
	Environ func() []string
	Now     func() time.Time
	// Exec runs a command through the engine's command resolution (utilities, allowlisted
	// externals, scripts in the roots); used by xargs, env, timeout and mcp_run_with_progress.
	// environ is the command's whole environment (nil: the script's exported variables).
	Exec func(ctx context.Context, argv []string, environ func() []string, stdin io.Reader, stdout, stderr io.Writer) int
	// Budget is the call's memory budget for in-process programs (nil: none).
	Budget *sandbox.Budget
	// OpenFD opens descriptor N of the shell that runs the program, for /dev/fd/N operands
	// (process substitution); nil: only 0, 1 and 2 exist.
	OpenFD func(n int) (io.ReadWriteCloser, error)
	// Umask is the shell's file-creation mask, applied to the files and directories programs
	// create (the host process's own umask is not the script's).
	Umask fs.FileMode
	// Refuse ends the call with a refusal of construct at the command that runs the program,
	// naming fix: for what the program cannot do as the host's would (nil: none; the program
	// then only says so on stderr).
	Refuse func(construct, fix string)
	// LookPath is the shell's command search: the first path it finds for name, or with all
	// every match in PATH order (nil: none is found). It never consults the host.
	LookPath func(name string, all bool) []string
}

// Perm is the mode a program creates a file or directory with when it asks for want.
func (e *Env) Perm(want fs.FileMode) fs.FileMode { return want &^ e.Umask }

// Abs resolves p against the working directory.
func (e *Env) Abs(p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(e.Dir, p)
}

// ReadFile reads a whole file through FS.
func (e *Env) ReadFile(name string) ([]byte, error) {
	if e.FS == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return e.FS.ReadFile(e.Abs(name))
}

// WriteFile writes a whole file through FS with mode 0666 under the umask.
func (e *Env) WriteFile(name string, data []byte) error {
	if e.FS == nil {
		return &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return e.FS.WriteFile(e.Abs(name), data, e.Perm(0o666))
}

// AppendFile appends to a file through FS, creating it with mode 0666 under the umask.
func (e *Env) AppendFile(name string, data []byte) error {
	if e.FS == nil {
		return &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	f, err := e.FS.Open(e.Abs(name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, e.Perm(0o666))
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Commands are programs a script engine runs in-process besides its own utilities and SDK
// (wasm commands), found by name.
type Commands interface {
	// Lookup returns the path of the program a command name runs and the program ("", nil
	// when none). The program runs over env.FS with the script's stdio, working directory
	// and exported variables.
	Lookup(name string) (path string, run Program)
}
