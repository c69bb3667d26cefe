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

// testEnv is the environment of the evaluator's tests.
var testEnv = []string{"HOME=/home/user", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "USER=user",
	"TERM=dumb", "TZ=UTC"}

// corpusScripts are the scripts of the differential corpus (test/bashdiff/testdata/corpus),
// the fuzzer's seeds; fixtures are left out (the fuzzer runs scripts alone).
func corpusScripts(t testing.TB) []string {
	files, err := filepath.Glob("../../../test/bashdiff/testdata/corpus/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range strings.Split("\n"+string(data), "\n### ")[1:] {
			_, body, _ := strings.Cut(block, "\n")
			if _, script, ok := strings.Cut(body, "\n-- script --\n"); ok && strings.HasPrefix(body, "-- file: ") {
				body = script
			}
			out = append(out, body)
		}
	}
	return out
}

// FuzzEval runs arbitrary scripts, each also wrapped in a pipeline stage, a subshell, a
// command substitution and a background job: whatever the script, Run must return (within
// its deadline) without an InternalError (a panic caught at a goroutine boundary).
func FuzzEval(f *testing.F) {
	for _, s := range corpusScripts(f) {
		f.Add(s)
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
