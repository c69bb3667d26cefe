// Package eval is the sandbox's Bash evaluator: it runs mvdan.cc/sh/v3/syntax trees with the
// semantics of bash 5.2 and touches nothing outside its configuration. Files go through FS,
// commands that are neither functions nor builtins go through Config.Exec, identity values are
// virtual, pipes are in memory, and every goroutine it starts ends (recovered) with its Run.
//
// A construct it cannot run exactly as bash does is refused: statically by Check, and at run
// time (code reached through eval, source or traps) with a RefusalError before it runs.
package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"
)

// FS is every file access the evaluator makes. Paths are absolute and clean.
type FS interface {
	Open(name string, flag int, perm fs.FileMode) (File, error)
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	ReadDir(name string) ([]fs.DirEntry, error)
	// Access checks permission bits as access(2) does: 4 read, 2 write, 1 execute.
	Access(name string, mode uint32) error
	// RealPath resolves every symbolic link of name, as the kernel would (pwd -P, cd -P).
	RealPath(name string) (string, error)
	// Chmod sets a file's mode (a file a redirection created gets the script's umask).
	Chmod(name string, mode fs.FileMode) error
}

// MessageError is an error of the FS that words itself for the shell's messages (the sandbox
// says why it refused an access where bash would only print "Permission denied").
type MessageError interface {
	error
	ShellMessage() string
}

// File is an open file of the FS.
type File interface {
	io.Reader
	io.Writer
	io.Closer
}

// Command is a command handed to Config.Exec.
type Command struct {
	// Args is argv after expansion; Args[0] is the command name as written.
	Args []string
	// Dir is the shell's working directory; Path its PATH variable (exported or not), which
	// command search uses.
	Dir  string
	Path string
	// Environ lists the exported variables (K=V) as a child process would get them; it is
	// computed when called, so commands that do not need an environment do not pay for it.
	Environ func() []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// OpenFD opens /dev/fd/N of the shell's file descriptor table (process substitution).
	OpenFD func(n int) (io.ReadWriteCloser, error)
	// Shell is the shell running the command (Shell.RunScript runs an executable script).
	Shell *Shell
}

// ExecFunc runs a command that is not a function or a shell builtin. It returns the exit
// status; ErrNotFound makes the shell report "command not found" (127); an ExitRequest ends
// the shell as `exit` would; any other error ends the whole run with that error.
type ExecFunc func(ctx context.Context, cmd *Command) (int, error)

// ErrNotFound is returned by an ExecFunc that has no such command.
var ErrNotFound = errors.New("command not found")

// ExitRequest, returned by an ExecFunc or a BuiltinFunc, exits the shell (or the subshell the
// command runs in) with Status, running EXIT traps, as `exit Status` would.
type ExitRequest struct{ Status int }

func (e ExitRequest) Error() string { return fmt.Sprintf("exit %d", e.Status) }

// BuiltinFunc is a Go command that needs the shell's state (the SDK functions that set
// variables). It is looked up after shell functions and before shell builtins.
type BuiltinFunc func(ctx context.Context, sh *Shell, args []string) (int, error)

// Identity holds the virtual values the shell reports for itself.
type Identity struct {
	PID, PPID      int // $$, $PPID; subshells get BASHPID values counting up from PID+1
	UID, EUID, GID int
	User, Hostname string
}

// Limits bound one Run. Zero values mean the defaults below.
type Limits struct {
	// MaxCallDepth bounds nested functions, source, eval, subshells and command substitutions.
	MaxCallDepth int
	// MaxCommands bounds the commands run (simple commands, including builtins).
	MaxCommands int64
	// MaxJobs bounds the background jobs, coprocesses and process substitutions running at once.
	MaxJobs int64
	// MaxFDs bounds the open file descriptors of one shell.
	MaxFDs int
	// MaxMemory bounds the bytes held by variables, captures, here-documents and expansions.
	MaxMemory int64
	// MaxScriptBytes bounds every text the shell parses at run time (eval's and trap's
	// arguments, sourced files, alias expansions, declare's compound values), as the script
	// itself and bash -c's argument are bounded before the run.
	MaxScriptBytes int64
}

// Default limits.
const (
	DefaultMaxCallDepth = 1000
	DefaultMaxCommands  = 10_000_000
	DefaultMaxJobs      = 1000
	DefaultMaxFDs       = 1024
	DefaultMaxMemory    = 256 << 20
	DefaultMaxScript    = 1 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxCallDepth <= 0 {
		l.MaxCallDepth = DefaultMaxCallDepth
	}
	if l.MaxCommands <= 0 {
		l.MaxCommands = DefaultMaxCommands
	}
	if l.MaxJobs <= 0 {
		l.MaxJobs = DefaultMaxJobs
	}
	if l.MaxFDs <= 0 {
		l.MaxFDs = DefaultMaxFDs
	}
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	if l.MaxScriptBytes <= 0 {
		l.MaxScriptBytes = DefaultMaxScript
	}
	return l
}

// Config is everything a Runner may use.
type Config struct {
	FS FS
	// Exec runs commands that are neither functions nor builtins (nil: every one is not found).
	Exec ExecFunc
	// Builtin finds Go commands with shell access (nil: none).
	Builtin func(name string) BuiltinFunc
	// Pure reports the Builtin commands that only read the shell (its variables, directory and
	// descriptors) and never change it: a command substitution that is one of them with plain
	// words runs it in place, with no subshell (nil: none is).
	Pure func(name string) bool
	// Sources are files whose text never changes (an engine's own virtual files), parsed:
	// sourcing one takes its Program instead of reading and parsing the text, and one that is
	// only `set` commands with literal options sets them directly, as running it would, when
	// nothing could tell the difference (see Runner.setOnly).
	Sources map[string]*Program
	// Source intercepts `source PATH` / `. PATH` before the file is read: handled=true makes the
	// command succeed without reading anything (the SDK's own files).
	Source func(path string) (handled bool)
	// Lookup finds the path of an external command for type, command -v and hash, given
	// the shell's PATH and working directory (for relative PATH entries); nil: none is found.
	// In the sandbox it must not consult the host.
	Lookup func(name, path, dir string) (string, bool)
	// LookupAll lists every match of that search, in PATH order (type -a); nil: Lookup's.
	LookupAll func(name, path, dir string) []string
	// Missing says why a command name the search does not find is missing; type's and hash's
	// "not found" end with it in parentheses (nil or "": bash's words alone).
	Missing func(name string) string
	// Environ is the initial environment (K=V), all exported. Base, when set, was built
	// from it by NewBase and is shared between runs (Environ is then only informative).
	Environ []string
	Base    *Base
	// Vars are the run's own exported variables over Base (a later one of a name wins): read
	// where they are, never copied into a map, so that a run's start allocates for the
	// variables the script sets, not for its environment. The run keeps the slice: the caller
	// must not change it.
	Vars []Var
	// Home is the virtual user's home for ~ when HOME is unset ("": Environ's HOME, else /).
	Home string
	// Ulimit reports a resource limit of the run for the ulimit builtin (by its option
	// letter: 'n' open files, 'f' file size, ...), soft and hard, in the units ulimit shows
	// (Unlimited for none), and whether a script may change it (the run has no use for the
	// value: core size, priorities) or not (the run enforces the limit itself, so a change
	// would be pretended). Nil refuses ulimit.
	Ulimit func(opt byte) (soft, hard int64, settable bool)
	// UserHome is the user database for ~name (other than Identity.User, whose home is
	// Home): the home directory, or false for no such user (the tilde stays literal). Nil
	// refuses ~name: the sandbox's identity is virtual and has no other users.
	UserHome func(name string) (string, bool)
	// Parsed keeps text parsed at run time (sourced files, eval and trap strings); an engine
	// shares one between runs (nil: each run has its own).
	Parsed *ParseCache
	// Dir is the initial working directory (absolute).
	Dir string
	// Name is $0; Args are $1...
	Name string
	Args []string
	// Stdin may be nil (empty input).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Identity       Identity
	Limits         Limits
	// Flags are letters appended to $- that describe the invocation ("c" for bash -c).
	Flags string
	// Command is bash -c's command string: $BASH_EXECUTION_STRING when Flags has "c".
	Command string
	// Umask is the file-creation mask the shell starts with (nil: bash's usual 022), as a
	// new process inherits its parent's.
	Umask *fs.FileMode
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Seed seeds $RANDOM (0: from the clock).
	Seed int64
	// Cancel, when set, cancels the context Run is given (the caller's own run context):
	// Run ends its goroutines through it instead of deriving a context of its own.
	Cancel context.CancelCauseFunc
}

// Var is a variable of Config.Vars.
type Var struct{ Name, Value string }

// LimitKind names a limit of Limits.
type LimitKind int

// Limit kinds.
const (
	LimitDepth LimitKind = iota + 1
	LimitCommands
	LimitJobs
	LimitFDs
	LimitMemory
	LimitScript
)

func (k LimitKind) String() string {
	switch k {
	case LimitDepth:
		return "call depth limit"
	case LimitCommands:
		return "command limit"
	case LimitJobs:
		return "background job limit"
	case LimitFDs:
		return "open file descriptor limit"
	case LimitMemory:
		return "memory limit"
	case LimitScript:
		return "script size limit"
	}
	return "limit"
}

// LimitError ends a run that hit one of its Limits.
type LimitError struct {
	Kind LimitKind
	Max  int64
}

func (e *LimitError) Error() string { return fmt.Sprintf("%s (%d) exceeded", e.Kind, e.Max) }

// CancelError ends a run whose context ended; Cause is context.Cause of that context.
type CancelError struct{ Cause error }

func (e *CancelError) Error() string { return "cancelled: " + e.Cause.Error() }
func (e *CancelError) Unwrap() error { return e.Cause }

// InternalError is a bug of the evaluator caught at a goroutine boundary: the run ends with
// it instead of taking the process down.
type InternalError struct {
	Cause any
	Stack string
}

func (e *InternalError) Error() string { return fmt.Sprintf("internal error: %v", e.Cause) }

// Refusal is a construct the evaluator does not run exactly as bash does.
type Refusal struct {
	File      string
	Line, Col int
	Construct string
	Fix       string
}

func (r Refusal) String() string {
	return fmt.Sprintf("%s:%d:%d: %s is not supported in the sandbox; %s", r.File, r.Line, r.Col, r.Construct, r.Fix)
}

// RefusalError ends a run that reached a refused construct at run time (through eval,
// source or a trap string).
type RefusalError struct{ Refusal Refusal }

func (e *RefusalError) Error() string { return e.Refusal.String() }

// DefaultFix is the usual fix of a refusal.
const DefaultFix = `run the tool with "exec": "native" in tool.meta.json`
