package eval_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval/internal/osfs"
)

// TestSourcesMatchReading: sourcing a file of Config.Sources (set commands applied without
// running them) gives what reading and running the same file gives: options, status, $_,
// what xtrace prints, traps, a function named set, arguments.
func TestSourcesMatchReading(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "sdk.sh")
	text := "# strict mode\nset -euo pipefail\nset +u -o noglob\n"
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := eval.Parse(f, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	scripts := []string{
		`source $F; echo "$- $? $_"; shopt -o pipefail noglob nounset`,
		`. "$F" && echo "ok $-"`,
		`set -x; source $F; echo $-`,
		`trap 'echo ret' RETURN; source $F; echo $-`,
		`set() { echo "fn $*"; }; source $F; echo $-`,
		`source $F a b; echo "$- $#"`,
		`g() { source $F; echo "in $-"; }; g; echo "$-"`,
		`false; source $F; echo "$?"`,
		`cd /; source ${F#/}; echo "$-"`,
	}
	run := func(script string, sources map[string]*eval.Program) string {
		var out bytes.Buffer
		p, err := eval.Parse("t.sh", []byte(script))
		if err != nil {
			t.Fatal(err)
		}
		cfg := &eval.Config{FS: osfs.FS{}, Exec: pureExec, Environ: append(testEnv, "F="+f), Dir: dir, Name: "t.sh",
			Stdout: &out, Stderr: &out, Sources: sources}
		st, err := eval.New(cfg).Run(context.Background(), p)
		out.WriteString("status " + string(rune('0'+st)))
		if err != nil {
			out.WriteString(" " + err.Error())
		}
		return out.String()
	}
	for _, s := range scripts {
		if got, want := run(s, map[string]*eval.Program{f: prog}), run(s, nil); got != want {
			t.Errorf("%s\nwith Sources: %q\nread:         %q", s, got, want)
		}
	}
	// The file itself is not read: gone from disk, it is still sourced.
	want := run(scripts[0], nil)
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	if got := run(scripts[0], map[string]*eval.Program{f: prog}); got != want {
		t.Errorf("without the file: %q, want %q", got, want)
	}
}
