package builtins

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// hung is how long a test waits for a utility to stop (after a cancellation, a failed writer,
// or a timeout) or to stream its input before failing. It only catches a hang or a blow-up:
// the inputs never end by themselves, and a loaded 2-core machine runs many times slower than
// a quiet one, so no test asserts how quickly anything happened.
const hung = 2 * time.Minute

// fixedNow is the clock every test sees.
var fixedNow = time.Date(2026, 11, 23, 7, 8, 9, 0, time.UTC)

// fixtureFiles is the content of a fresh root.
var fixtureFiles = map[string]string{
	"a.txt":       "banana\napple\ncherry\napple\n10 x\n9 y\n",
	"csv.txt":     "name,age,city\nada,36,london\nalan,41,wilmslow\n",
	"sub/b.txt":   "needle here\nno match\nNEEDLE caps\n",
	"sub/c.md":    "a needle in markdown\n",
	"version.txt": "1.10\n1.9\n1.2\n",
	"nums.txt":    "3\n1K\n20\n2M\n-4\n1.5\n",
	"nonl.txt":    "first\nlast without newline",
	"words.txt":   "the quick brown fox\njumps over\nthe lazy dog\n\n  spaced   out  \n",
	"dup.txt":     "a\na\nB\nb\nb\nc\na\n",
	"tab.tsv":     "k1\tv1\tx\nk2\tv2\ty\nnodelim\n",
	"utf8.txt":    "héllo wörld\nnaïve\x00nul\n",
}

// testEnv is an Env over a fresh read-write root, with captured output.
type testEnv struct {
	*Env
	dir       string
	out, errb *bytes.Buffer
}

func fixture(t *testing.T) *testEnv {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, body := range fixtureFiles {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Stable times so ls -t, find -newer, stat and diff -u are deterministic.
	for p := range fixtureFiles {
		ts := fixedNow.Add(-30 * time.Minute)
		os.Chtimes(filepath.Join(dir, p), ts, ts)
	}
	for i, p := range []string{"a.txt", "csv.txt", "version.txt", "nums.txt"} {
		ts := fixedNow.Add(-time.Duration(i+1) * time.Hour)
		os.Chtimes(filepath.Join(dir, p), ts, ts)
	}
	fsys, err := sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}}, sandbox.Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	te := &testEnv{dir: dir, out: &bytes.Buffer{}, errb: &bytes.Buffer{}}
	vars := map[string]string{"TMPDIR": dir, "HOME": dir}
	te.Env = &Env{Stdin: strings.NewReader(""), Stdout: te.out, Stderr: te.errb, Dir: dir, FS: fsys,
		Getenv:  func(k string) string { return vars[k] },
		Environ: func() []string { return []string{"A=1", "B=2", "TMPDIR=" + dir} },
		Now:     func() time.Time { return fixedNow },
	}
	te.Env.Exec = func(ctx context.Context, argv []string, environ func() []string, stdin io.Reader, stdout, stderr io.Writer) int {
		f, ok := Lookup(argv[0])
		if !ok {
			return 127
		}
		sub := *te.Env
		sub.Stdin, sub.Stdout, sub.Stderr, sub.Environ = stdin, stdout, stderr, environ
		if sub.Stdin == nil {
			sub.Stdin = strings.NewReader("")
		}
		return f(ctx, &sub, argv)
	}
	return te
}

// run runs a utility with stdin and returns its stdout, stderr and status.
func (te *testEnv) run(t *testing.T, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	return te.runCtx(context.Background(), t, stdin, argv...)
}

func (te *testEnv) runCtx(ctx context.Context, t *testing.T, stdin string, argv ...string) (string, string, int) {
	t.Helper()
	te.Stdin = strings.NewReader(stdin)
	te.out.Reset()
	te.errb.Reset()
	te.Stdout, te.Stderr = te.out, te.errb
	f, ok := Lookup(argv[0])
	if !ok {
		t.Fatalf("no utility %s", argv[0])
	}
	rc := f(ctx, te.Env, argv)
	return te.out.String(), te.errb.String(), rc
}

// gnu runs the host's real tool (tests only) in dir with the C locale and UTC.
func gnu(t *testing.T, dir, stdin string, argv ...string) (string, int, bool) {
	t.Helper()
	real, err := exec.LookPath(argv[0])
	if err != nil {
		return "", 0, false
	}
	cmd := exec.Command(real, argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = []string{"LC_ALL=C", "TZ=UTC", "PATH=/usr/bin:/bin"}
	var out bytes.Buffer
	cmd.Stdout = &out
	err = cmd.Run()
	rc := 0
	if ee, ok := err.(*exec.ExitError); ok {
		rc = ee.ExitCode()
	} else if err != nil {
		return "", 0, false
	}
	return out.String(), rc, true
}

// gnuCase is one comparison with the real tool.
type gnuCase struct {
	stdin string
	argv  []string
}

// compareGNU checks stdout and the exit status of each case against the host's tool; a
// case is skipped where the tool is missing. Cases that modify files run in fresh roots.
func compareGNU(t *testing.T, cases []gnuCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(strings.Join(c.argv, " "), func(t *testing.T) {
			want := fixture(t)
			wantOut, wantRC, ok := gnu(t, want.dir, c.stdin, c.argv...)
			if !ok {
				t.Skip("no " + c.argv[0] + " on this host")
			}
			te := fixture(t)
			got, errOut, rc := te.run(t, c.stdin, c.argv...)
			if got != wantOut || rc != wantRC {
				t.Errorf("got (rc %d):\n%q\nwant (rc %d):\n%q\nstderr: %s", rc, got, wantRC, wantOut, errOut)
			}
		})
	}
}
