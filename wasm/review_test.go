package wasm_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"write", "new.txt"}, "OK wrote"},
		{[]string{"read", "new.txt"}, "written by probe"},
		{[]string{"append", "in.txt"}, "OK appended"},
		{[]string{"read", "in.txt"}, "inside\nappended by probe"},
		{[]string{"mkdir", "d/e"}, "OK made"},
		{[]string{"rename", "d/e/moved.txt", "new.txt"}, "OK renamed"},
		{[]string{"read", "d/e/moved.txt"}, "written by probe"},
		{[]string{"stat", "new.txt"}, "ERR"},
		{[]string{"symlink", "to-in", "in.txt"}, "inside\nappended by probe"},
		{[]string{"list", "."}, "d,in.txt,planted,planted-dir,to-in"},
		{[]string{"remove", "to-in"}, "OK removed"},
		{[]string{"list", "."}, "d,in.txt,planted,planted-dir"},
	} {
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
