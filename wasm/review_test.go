package wasm_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/wasm"
)

// TestGuestReviewLayer: a guest in review mode writes through the call's copy-on-write layer:
// it reads back what it wrote (the same FS serves every run of the call), the root is never
// written, and the layer's manifest holds the changes.
func TestGuestReviewLayer(t *testing.T) {
	t.Parallel()
	p := newProject(t)
	pol := p.policy()
	pol.Layer = t.TempDir()
	fs, err := sandbox.NewFS(pol, sandbox.Scratch{}, &sandbox.Record{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	run := func(args ...string) string {
		var out bytes.Buffer
		st, err := runtimeForTest(t).Run(context.Background(), wasm.Program{Module: probe(t), Args: append([]string{"probe"}, args...),
			Dir: p.root, Stdout: &out, Stderr: &out, FS: fs})
		if err != nil || st != 0 {
			t.Fatalf("%v: status %d, err %v: %s", args, st, err, out.String())
		}
		return out.String()
	}
	before, _ := os.ReadFile(filepath.Join(p.root, "in.txt"))
	type step struct {
		args []string
		want string
	}
	steps := []step{
		{[]string{"write", "new.txt"}, "OK wrote"},
		{[]string{"read", "new.txt"}, "written by probe"},
		{[]string{"append", "in.txt"}, "OK appended"},
		{[]string{"read", "in.txt"}, "inside\nappended by probe"},
		{[]string{"mkdir", "d/e"}, "OK made"},
		{[]string{"rename", "d/e/moved.txt", "new.txt"}, "OK renamed"},
		{[]string{"read", "d/e/moved.txt"}, "written by probe"},
		{[]string{"stat", "new.txt"}, "ERR"},
	}
	// The planted links exist where the host could make them (not under Wine).
	listed := "d,in.txt"
	for _, n := range []string{"planted", "planted-dir"} {
		if _, err := os.Lstat(filepath.Join(p.root, n)); err == nil {
			listed += "," + n
		}
	}
	if runtime.GOOS == "windows" {
		// The sandbox makes no links on Windows, in the layer as on the host.
		steps = append(steps, step{[]string{"symlink", "to-in", "in.txt"}, "ERR symlink"}, step{[]string{"list", "."}, listed})
	} else {
		steps = append(steps, step{[]string{"symlink", "to-in", "in.txt"}, "inside\nappended by probe"},
			step{[]string{"list", "."}, listed + ",to-in"}, step{[]string{"remove", "to-in"}, "OK removed"},
			step{[]string{"list", "."}, listed})
	}
	for _, step := range steps {
		if out := run(step.args...); !strings.Contains(out, step.want) {
			t.Fatalf("%v: %q lacks %q", step.args, out, step.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(p.root, "in.txt")); !bytes.Equal(after, before) {
		t.Fatalf("the root was written: %q", after)
	}
	for _, name := range []string{"new.txt", "d", "to-in"} {
		if _, err := os.Lstat(filepath.Join(p.root, name)); err == nil {
			t.Fatalf("%s reached the root", name)
		}
	}
	got := map[string]string{}
	for _, r := range fs.Review().Roots {
		for _, e := range r.Entries {
			got[e.Path] = e.Kind
		}
	}
	for path, kind := range map[string]string{"in.txt": "file", "d": "dir", "d/e": "dir", "d/e/moved.txt": "file"} {
		if got[path] != kind {
			t.Errorf("manifest: %s is %q, want %s (%v)", path, got[path], kind, got)
		}
	}
}
