package eval_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval/internal/osfs"
)

// FuzzEval runs arbitrary scripts, each also wrapped in a pipeline stage, a subshell, a
// command substitution and a background job: whatever the script, Run must return (within
// its deadline) without an InternalError (a panic caught at a goroutine boundary).
func FuzzEval(f *testing.F) {
	for _, c := range loadCases(f) {
		f.Add(c.script)
	}
	for _, s := range []string{
		`declare -A A=(1 2 3)`, `declare -A a; echo "${a[a+1]}"`, `declare -n r=''; echo "$r"`,
		`(( a[1] += 10 ))`, `f() { f; }; f`, `x=$x$x`, `: <(true)`, `exec 3>&-; echo >&3`,
		`trap 'echo $$' EXIT`, `${x@P}`, `coproc cat`, `read -t 1 x`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	base := eval.NewBase(testEnv, eval.Identity{PID: 10, PPID: 9})
	f.Fuzz(func(t *testing.T, script string) {
		if len(script) > 4096 {
			return
		}
		for _, wrapped := range []string{script, "{ " + script + "\n} | cat", "( " + script + "\n)",
			"x=$( " + script + "\n)", "{ " + script + "\n} & wait"} {
			prog, err := eval.Parse("fuzz.sh", []byte(wrapped))
			if err != nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			cfg := &eval.Config{FS: sandboxedFS{osfs.FS{}, dir}, Exec: pureExec, Base: base, Environ: testEnv,
				Dir: dir, Name: "fuzz.sh", Stdout: io.Discard, Stderr: io.Discard,
				Limits: eval.Limits{MaxCallDepth: 50, MaxCommands: 5000, MaxJobs: 20, MaxFDs: 64, MaxMemory: 8 << 20}}
			done := make(chan error, 1)
			go func() {
				_, err := eval.New(cfg).Run(ctx, prog)
				done <- err
			}()
			select {
			case err = <-done:
			case <-time.After(60 * time.Second):
				t.Fatalf("Run did not return after its deadline:\n%s", wrapped)
			}
			cancel()
			var ie *eval.InternalError
			if errors.As(err, &ie) {
				t.Fatalf("internal error %v\n%s\nscript:\n%s", ie.Cause, ie.Stack, wrapped)
			}
		}
	})
}

// sandboxedFS keeps fuzzed scripts inside one directory: other paths do not exist.
type sandboxedFS struct {
	osfs.FS
	root string
}

func (s sandboxedFS) ok(name string) error {
	if name == s.root || strings.HasPrefix(name, s.root+"/") {
		return nil
	}
	return os.ErrNotExist
}

func (s sandboxedFS) Open(name string, flag int, perm os.FileMode) (eval.File, error) {
	if err := s.ok(filepath.Clean(name)); err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return s.FS.Open(name, flag, perm)
}

func (s sandboxedFS) Stat(name string) (os.FileInfo, error) {
	if err := s.ok(filepath.Clean(name)); err != nil {
		return nil, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	return s.FS.Stat(name)
}

func (s sandboxedFS) Lstat(name string) (os.FileInfo, error) {
	if err := s.ok(filepath.Clean(name)); err != nil {
		return nil, &os.PathError{Op: "lstat", Path: name, Err: err}
	}
	return s.FS.Lstat(name)
}

func (s sandboxedFS) ReadDir(name string) ([]os.DirEntry, error) {
	if err := s.ok(filepath.Clean(name)); err != nil {
		return nil, err
	}
	return s.FS.ReadDir(name)
}
