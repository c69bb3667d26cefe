// Package bashdiff runs the same Bash snippets under /bin/bash and under the sandbox engine and
// compares stdout, exit status and whether anything went to stderr. Known differences are listed,
// with reasons, in testdata/known.txt; any other difference fails the suite, and so does a listed
// difference that has gone away (the list must stay true).
package bashdiff

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

type snippet struct{ name, body string }

func load(t *testing.T) []snippet {
	data, err := os.ReadFile("testdata/snippets.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []snippet
	for _, block := range strings.Split(string(data), "### ")[1:] {
		name, body, _ := strings.Cut(block, "\n")
		out = append(out, snippet{name: name, body: body})
	}
	return out
}

var fixture = map[string]string{
	"data/lines.txt":  "first\nsecond\nthird\n",
	"data/fruit.txt":  "apple\nbanana\ncherry\napple\nbanana\napple\n",
	"data/people.csv": "ada,36,london\nalan,41,wilmslow\ngrace,85,arlington\n",
	"data/obj.json":   `{"name":"demo","items":[1,2,3],"nested":{"deep":"value"}}`,
}

func prepare(t *testing.T, body string) (dir, script string) {
	dir, _ = filepath.EvalSymlinks(t.TempDir())
	for p, c := range fixture {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644)
	}
	script = filepath.Join(dir, "snippet.sh")
	os.WriteFile(script, []byte(body+"\n"), 0o755)
	return dir, script
}

type result struct {
	Stdout string
	Stderr bool
	Status int
}

func runBash(t *testing.T, body string) result {
	dir, script := prepare(t, body)
	harness.CleanChildren(t)
	cmd := exec.Command("/bin/bash", "--norc", "--noprofile", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "LC_ALL=C", "LANG=C"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	st := 0
	if ee, ok := err.(*exec.ExitError); ok {
		st = ee.ExitCode()
	}
	return result{Stdout: out.String(), Stderr: errb.Len() > 0, Status: st}
}

// runEngine runs script under the sandbox engine with dir as its working directory and only
// root, and toolDir as the tool's directory.
func runEngine(t *testing.T, e *interp.Engine, dir, toolDir, script string) *engine.Outcome {
	return e.Run(t.Context(), interp.Job{Call: &engine.Call{Tool: "snippet", Args: json.RawMessage("{}")}, Script: script, Dir: dir,
		ScratchBase: t.TempDir(), Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: dir, Mode: sandbox.ReadWrite}}, ToolDir: toolDir,
			Limits: sandbox.Limits{Timeout: caseTimeout}}})
}

func runSandbox(t *testing.T, e *interp.Engine, body string) result {
	dir, script := prepare(t, body)
	out := runEngine(t, e, dir, dir, script)
	return result{Stdout: string(out.Stdout), Stderr: len(out.Stderr) > 0, Status: out.ExitCode}
}

func TestBashDiff(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	e, err := interp.NewEngine(0)
	if err != nil {
		t.Fatal(err)
	}
	snippets, known := load(t), harness.ReadKnown(t, "testdata/known.txt")
	if len(snippets) < 300 {
		t.Fatalf("only %d snippets", len(snippets))
	}
	same := 0
	seen := map[string]bool{}
	for _, s := range snippets {
		if seen[s.name] {
			t.Fatalf("duplicate snippet name %s", s.name)
		}
		seen[s.name] = true
		want, got := runBash(t, s.body), runSandbox(t, e, s.body)
		equal := want == got
		_, listed := known[s.name]
		switch {
		case equal && listed:
			t.Errorf("%s: listed as a known difference but now identical; remove it from known.txt", s.name)
		case !equal && !listed:
			t.Errorf("%s: new difference\n  script: %s\n  bash:    %+v\n  sandbox: %+v", s.name, s.body, want, got)
		}
		if equal {
			same++
		}
	}
	for name := range known {
		if !seen[name] {
			t.Errorf("known.txt lists %s, which is not a snippet", name)
		}
	}
	t.Logf("identical behaviour: %d of %d snippets (%.1f%%)", same, len(snippets), 100*float64(same)/float64(len(snippets)))
}
