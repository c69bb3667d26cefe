package eval_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval/internal/osfs"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The differential corpus: testdata/cases/*.txt hold scripts ("### name" then the script),
// organised by the sections of the Bash reference manual. Each runs under /bin/bash and
// under the evaluator, in a fresh temporary directory with a fixed environment; stdout, the
// exit status and whether anything went to stderr must agree. testdata/known.txt lists the
// accepted differences with the reason; each must be loud (a refusal, or a failure with a
// message on stderr), never a silent difference.

type diffCase struct {
	file, name, script string
}

func loadCases(t testing.TB) []diffCase {
	files, err := filepath.Glob("testdata/cases/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	var out []diffCase
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range strings.Split("\n"+string(data), "\n### ")[1:] {
			name, body, _ := strings.Cut(block, "\n")
			name = strings.TrimSpace(name)
			if seen[name] {
				t.Fatalf("duplicate case name %q", name)
			}
			seen[name] = true
			out = append(out, diffCase{file: filepath.Base(f), name: name, script: body})
		}
	}
	return out
}

type outcome struct {
	Stdout  string
	Stderr  string
	Status  int
	Refused string
}

var testEnv = []string{"HOME=/home/user", "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "USER=user",
	"TERM=dumb", "TZ=UTC"}

func bashRun(t testing.TB, dir, script string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	harness.CleanChildren(t)
	cmd := exec.CommandContext(ctx, "/bin/bash", "script.sh")
	cmd.Dir = dir
	cmd.Env = testEnv
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	st := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		st = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("bash: %v", err)
	}
	return outcome{Stdout: stdout.String(), Stderr: stderr.String(), Status: st}
}

func evalRun(t testing.TB, dir, script string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cfg := &eval.Config{
		FS: osfs.FS{}, Exec: osfs.Exec(""), Lookup: osfs.Lookup,
		Environ: testEnv, Dir: dir, Name: "script.sh",
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Identity: eval.Identity{PID: 4242, PPID: 4241, UID: 1000, EUID: 1000, GID: 1000, User: "user", Hostname: "sandbox"},
	}
	prog, err := eval.Parse("script.sh", []byte(script))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if f := prog.File(); f != nil {
		if refs := eval.Check(f); len(refs) > 0 {
			return outcome{Refused: refs[0].String()}
		}
	}
	st, err := eval.New(cfg).Run(ctx, prog)
	var re *eval.RefusalError
	if errors.As(err, &re) {
		return outcome{Refused: re.Error(), Stdout: stdout.String()}
	}
	if err != nil {
		t.Errorf("run error: %v", err)
	}
	return outcome{Stdout: stdout.String(), Stderr: stderr.String(), Status: st}
}

func prepDir(t testing.TB, script string) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "script.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBashDiff(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	cases := loadCases(t)
	known := harness.ReadKnown(t, "testdata/known.txt")
	only := os.Getenv("EVAL_CASE")
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	var failed []string
	for _, c := range cases {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			want := bashRun(t, prepDir(t, c.script), c.script)
			got := evalRun(t, prepDir(t, c.script), c.script)
			same := got.Refused == "" && got.Stdout == want.Stdout && got.Status == want.Status &&
				(got.Stderr == "") == (want.Stderr == "")
			reason, isKnown := known[c.name]
			switch {
			case same && isKnown:
				t.Errorf("listed in known.txt (%s) but now identical: remove it", reason)
			case !same && isKnown && got.Refused == "" && (got.Status == 0 || got.Stderr == ""):
				t.Errorf("known difference %q must be loud, got a silent difference:\nbash: %q status %d\neval: %q status %d",
					reason, want.Stdout, want.Status, got.Stdout, got.Status)
			case !same && !isKnown:
				<-mu
				failed = append(failed, c.file+": "+c.name)
				mu <- struct{}{}
				if got.Refused != "" {
					t.Errorf("refused: %s\nbash stdout %q status %d", got.Refused, want.Stdout, want.Status)
					return
				}
				t.Errorf("script:\n%s\nbash: stdout %q status %d stderr %q\neval: stdout %q status %d stderr %q",
					c.script, want.Stdout, want.Status, want.Stderr, got.Stdout, got.Status, got.Stderr)
			}
		})
	}
	t.Cleanup(func() {
		if len(failed) > 0 {
			sort.Strings(failed)
			t.Logf("%d failing cases:\n%s", len(failed), strings.Join(failed, "\n"))
		}
	})
}
