package changes

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

// fixture is a root with some content, a store, and a review-mode FS over the root.
type fixture struct {
	root, store string
	st          *Store
	fs          *sandbox.FS
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	f := &fixture{root: filepath.Join(base, "root"), store: filepath.Join(base, "store")}
	for _, d := range []string{"sub/deep", "empty", "old"} {
		os.MkdirAll(filepath.Join(f.root, d), 0o755)
	}
	files := map[string]string{"a.txt": "one\ntwo\nthree\n", "sub/b.txt": "beta\n", "sub/deep/c.txt": "gamma\n",
		"bin.dat": "\x00\x01\x02", "old/x": "x\n", "f-to-dir": "file\n"}
	for p, c := range files {
		os.WriteFile(filepath.Join(f.root, p), []byte(c), 0o644)
	}
	os.Symlink("a.txt", filepath.Join(f.root, "link"))
	var err error
	if f.st, err = Open(f.store, o); err != nil {
		t.Fatal(err)
	}
	f.newCall(t)
	return f
}

// newCall starts a new call's FS over the root.
func (f *fixture) newCall(t *testing.T) {
	t.Helper()
	layer, err := f.st.NewLayer("")
	if err != nil {
		t.Fatal(err)
	}
	f.fs, err = sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: f.root, Mode: sandbox.ReadWrite}}, Layer: layer}, sandbox.Scratch{}, &sandbox.Record{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.fs.Close() })
}

func (f *fixture) p(rel string) string { return filepath.Join(f.root, rel) }

// view is every entry under the root as the call sees it (through its FS), as harness.Tree.
func (f *fixture) view(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(dir string)
	walk = func(dir string) {
		ents, err := f.fs.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			rel, _ := filepath.Rel(f.root, p)
			fi, err := f.fs.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			out[rel] = harness.TreeEntry(fi, func() (string, error) { return f.fs.Readlink(p) }, func() ([]byte, error) { return f.fs.ReadFile(p) })
			if fi.IsDir() {
				walk(p)
			}
		}
	}
	walk(f.root)
	return out
}

// host is every entry under the root on the host.
func (f *fixture) host(t *testing.T) map[string]string { return harness.Tree(t, f.root) }

// keep builds and keeps the call's change set.
func (f *fixture) keep(t *testing.T) *Set {
	t.Helper()
	set, err := Build(context.Background(), f.fs.Review())
	if err != nil {
		t.Fatal(err)
	}
	set.Tool = "t"
	if err := f.st.Keep(set, nil); err != nil {
		t.Fatal(err)
	}
	return set
}

// calls are scripts of writes a call makes.
var calls = []struct {
	name string
	do   func(t *testing.T, f *fixture)
}{
	{"create", func(t *testing.T, f *fixture) {
		f.fs.WriteFile(f.p("new.txt"), []byte("new\n"), 0o600)
		f.fs.MkdirAll(f.p("n1/n2"), 0o750)
		f.fs.WriteFile(f.p("n1/n2/deep.txt"), []byte("deep\n"), 0o644)
	}},
	{"append and truncate", func(t *testing.T, f *fixture) {
		w, _ := f.fs.Open(f.p("a.txt"), os.O_WRONLY|os.O_APPEND, 0)
		w.Write([]byte("four\n"))
		w.Close()
		w, _ = f.fs.Open(f.p("sub/b.txt"), os.O_WRONLY|os.O_TRUNC, 0)
		w.Close()
	}},
	{"binary", func(t *testing.T, f *fixture) {
		f.fs.WriteFile(f.p("bin.dat"), []byte("\x00\xff\x00"), 0o644)
	}},
	{"rename a file and edit it", func(t *testing.T, f *fixture) {
		f.fs.Rename(f.p("a.txt"), f.p("sub/a2.txt"))
		f.fs.WriteFile(f.p("sub/b.txt"), []byte("beta 2\n"), 0o644)
	}},
	{"rename a directory", func(t *testing.T, f *fixture) {
		if err := f.fs.Rename(f.p("sub"), f.p("moved")); err != nil {
			t.Fatal(err)
		}
	}},
	{"rename and replace", func(t *testing.T, f *fixture) {
		f.fs.Rename(f.p("sub"), f.p("moved"))
		f.fs.Mkdir(f.p("sub"), 0o755)
		f.fs.WriteFile(f.p("sub/b.txt"), []byte("fresh\n"), 0o644)
	}},
	{"swap", func(t *testing.T, f *fixture) {
		f.fs.Rename(f.p("a.txt"), f.p("tmp"))
		f.fs.Rename(f.p("sub/b.txt"), f.p("a.txt"))
		f.fs.Rename(f.p("tmp"), f.p("sub/b.txt"))
	}},
	{"delete", func(t *testing.T, f *fixture) {
		f.fs.Remove(f.p("sub/deep/c.txt"))
		f.fs.RemoveAll(f.p("old"))
		f.fs.Remove(f.p("empty"))
		f.fs.Remove(f.p("link"))
	}},
	{"replace a file with a directory and back", func(t *testing.T, f *fixture) {
		f.fs.Remove(f.p("f-to-dir"))
		f.fs.MkdirAll(f.p("f-to-dir/inner"), 0o755)
		f.fs.WriteFile(f.p("f-to-dir/inner/x"), []byte("x"), 0o644)
		f.fs.RemoveAll(f.p("old"))
		f.fs.WriteFile(f.p("old"), []byte("now a file\n"), 0o644)
	}},
	{"chmod and touch", func(t *testing.T, f *fixture) {
		f.fs.Chmod(f.p("a.txt"), 0o600)
		f.fs.Chmod(f.p("sub"), 0o700)
		when := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
		f.fs.Chtimes(f.p("sub/b.txt"), when, when)
	}},
	{"links", func(t *testing.T, f *fixture) {
		f.fs.Remove(f.p("link"))
		f.fs.Symlink("sub/b.txt", f.p("link"))
		f.fs.Symlink("sub", f.p("to-sub"))
		f.fs.WriteFile(f.p("to-sub/via.txt"), []byte("via\n"), 0o644)
	}},
}

// TestCommitMatchesView: a committed set leaves the root exactly as the call saw it, whatever
// it did.
func TestCommitMatchesView(t *testing.T) {
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			c.do(t, f)
			want := f.view(t)
			set := f.keep(t)
			if len(set.Files) == 0 {
				t.Fatal("no changes")
			}
			res, err := f.st.Commit(context.Background(), set.ID, Actor{Kind: "cli", Name: "test"})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Committed {
				t.Fatalf("conflicts: %v", res.Conflicts)
			}
			if d := harness.TreeDiff(want, f.host(t)); d != "" {
				t.Fatalf("the root differs from the call's view:\n%s", d)
			}
			if leftovers := tempsIn(t, f.root); len(leftovers) > 0 {
				t.Fatalf("temporary files left: %v", leftovers)
			}
			if _, err := f.st.Get(set.ID); err != ErrNotPending {
				t.Fatalf("the set still waits: %v", err)
			}
			if ts := f.view(t)["sub/b.txt"]; c.name == "chmod and touch" && ts == "" {
				t.Fatal("b.txt vanished")
			}
		})
	}
}

func tempsIn(t *testing.T, root string) []string {
	var out []string
	filepath.Walk(root, func(p string, fi fs.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), ".mcpbash-commit-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestDiscardLeavesRoot: a discarded set writes nothing.
func TestDiscardLeavesRoot(t *testing.T) {
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			before := f.host(t)
			c.do(t, f)
			set := f.keep(t)
			if err := f.st.Discard(set.ID, Actor{Kind: "cli"}); err != nil {
				t.Fatal(err)
			}
			if d := harness.TreeDiff(before, f.host(t)); d != "" {
				t.Fatalf("the root changed:\n%s", d)
			}
			if _, err := os.Stat(filepath.Join(f.store, "pending", set.ID)); !os.IsNotExist(err) {
				t.Fatalf("the set's files stay: %v", err)
			}
		})
	}
}

// TestBuild: what the change set says.
func TestBuild(t *testing.T) {
	f := newFixture(t, Options{})
	w, _ := f.fs.Open(f.p("a.txt"), os.O_WRONLY|os.O_APPEND, 0)
	w.Write([]byte("four\n"))
	w.Close()
	f.fs.WriteFile(f.p("new.txt"), []byte("n\n"), 0o644)
	f.fs.WriteFile(f.p("bin.dat"), []byte("\x00\xff"), 0o644)
	f.fs.Rename(f.p("sub/b.txt"), f.p("b-moved.txt"))
	f.fs.RemoveAll(f.p("old"))
	f.fs.WriteFile(f.p("sub/deep/c.txt"), []byte("gamma\n"), 0o644) // unchanged content
	set, err := Build(context.Background(), f.fs.Review())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]File{}
	for _, fl := range set.Files {
		got[fl.Path] = fl
	}
	if a := got["a.txt"]; a.Change != Changed || a.AddedLines != 1 || a.RemovedLines != 0 || !strings.Contains(a.Diff, "+four\n") || !strings.Contains(a.Diff, "--- a/a.txt") {
		t.Fatalf("a.txt %+v", a)
	}
	if n := got["new.txt"]; n.Change != Added || !strings.Contains(n.Diff, "--- /dev/null") {
		t.Fatalf("new.txt %+v", n)
	}
	if b := got["bin.dat"]; !b.Binary || b.Diff != "" || b.OldSize != 3 || b.NewSize != 2 {
		t.Fatalf("bin.dat %+v", b)
	}
	if m := got["b-moved.txt"]; m.Change != Renamed || m.From != "sub/b.txt" {
		t.Fatalf("b-moved.txt %+v", m)
	}
	if _, shown := got["sub/b.txt"]; shown {
		t.Fatal("a renamed file's origin is shown as deleted")
	}
	if got["old"].Change != Deleted || got["old/x"].Change != Deleted {
		t.Fatalf("old %+v %+v", got["old"], got["old/x"])
	}
	if _, shown := got["sub/deep/c.txt"]; shown {
		t.Fatal("a file written back unchanged is shown")
	}
	sum := set.Summary(10)
	for _, want := range []string{"M " + f.p("a.txt") + " (+1 -0)", "R " + f.p("sub/b.txt") + " -> " + f.p("b-moved.txt"), "binary, 3 -> 2 bytes"} {
		if !strings.Contains(sum, want) {
			t.Fatalf("summary lacks %q:\n%s", want, sum)
		}
	}
	if set.Digest == "" {
		t.Fatal("no digest")
	}
}

// TestConflicts: a change made in the root meanwhile stops the commit before it writes.
func TestConflicts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		call  func(f *fixture)
		other func(f *fixture)
		path  string
	}{
		{"edited file", func(f *fixture) {
			w, _ := f.fs.Open(f.p("a.txt"), os.O_WRONLY|os.O_APPEND, 0)
			w.Write([]byte("mine\n"))
			w.Close()
		}, func(f *fixture) { os.WriteFile(f.p("a.txt"), []byte("theirs\n"), 0o644) }, "a.txt"},
		{"same size edit", func(f *fixture) {
			w, _ := f.fs.Open(f.p("sub/b.txt"), os.O_WRONLY|os.O_APPEND, 0)
			w.Write([]byte("mine\n"))
			w.Close()
		}, func(f *fixture) {
			fi, _ := os.Stat(f.p("sub/b.txt"))
			os.WriteFile(f.p("sub/b.txt"), []byte("BETA\n"), 0o644)
			os.Chtimes(f.p("sub/b.txt"), fi.ModTime(), fi.ModTime())
		}, "sub/b.txt"},
		{"created meanwhile", func(f *fixture) { f.fs.WriteFile(f.p("new"), []byte("mine"), 0o644) },
			func(f *fixture) { os.WriteFile(f.p("new"), []byte("theirs"), 0o644) }, "new"},
		{"deleted meanwhile", func(f *fixture) { f.fs.Remove(f.p("sub/b.txt")) },
			func(f *fixture) { os.Remove(f.p("sub/b.txt")) }, "sub/b.txt"},
		{"appeared in a removed directory", func(f *fixture) { f.fs.RemoveAll(f.p("old")) },
			func(f *fixture) { os.WriteFile(f.p("old/late"), []byte("late"), 0o644) }, "old/late"},
		{"directory swapped for a link", func(f *fixture) { f.fs.WriteFile(f.p("sub/deep/n"), []byte("n"), 0o644) },
			func(f *fixture) {
				os.RemoveAll(f.p("sub/deep"))
				os.Symlink("../empty", f.p("sub/deep"))
			}, "sub/deep"},
		{"renamed origin edited", func(f *fixture) { f.fs.Rename(f.p("a.txt"), f.p("a2.txt")) },
			func(f *fixture) { os.WriteFile(f.p("a.txt"), []byte("theirs and longer\n"), 0o644) }, "a.txt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			tc.call(f)
			set := f.keep(t)
			tc.other(f)
			before := f.host(t)
			res, err := f.st.Commit(context.Background(), set.ID, Actor{Kind: "cli"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Committed || len(res.Conflicts) == 0 {
				t.Fatalf("committed over a conflict: %+v", res)
			}
			if !slices.ContainsFunc(res.Conflicts, func(c Conflict) bool { return c.Path == f.p(tc.path) }) {
				t.Fatalf("conflicts %v lack %s", res.Conflicts, tc.path)
			}
			if d := harness.TreeDiff(before, f.host(t)); d != "" {
				t.Fatalf("the commit wrote despite the conflict:\n%s", d)
			}
			if _, err := f.st.Get(set.ID); err != nil {
				t.Fatalf("the set no longer waits: %v", err)
			}
		})
	}
}

// TestTamperedData: data files changed after the set was shown are not committed.
func TestTamperedData(t *testing.T) {
	f := newFixture(t, Options{})
	f.fs.WriteFile(f.p("a.txt"), []byte("shown\n"), 0o644)
	set := f.keep(t)
	for _, e := range set.Manifest.Roots[0].Entries {
		if e.Data != "" {
			os.WriteFile(filepath.Join(set.Manifest.Dir, e.Data), []byte("swapped\n"), 0o600)
		}
	}
	before := f.host(t)
	if _, err := f.st.Commit(context.Background(), set.ID, Actor{Kind: "cli"}); err == nil || !strings.Contains(err.Error(), "not the content that was shown") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if d := harness.TreeDiff(before, f.host(t)); d != "" || len(tempsIn(t, f.root)) > 0 {
		t.Fatalf("the root changed:\n%s", d)
	}
}

// TestRecovery: a crash in staging is undone, one while applying is finished, at any step.
func TestRecovery(t *testing.T) {
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			before := f.host(t)
			c.do(t, f)
			want := f.view(t)
			set := f.keep(t)
			roots, err := openRoots(set)
			if err != nil {
				t.Fatal(err)
			}
			ops, conflicts := plan(set, roots, nil)
			if len(conflicts) > 0 {
				t.Fatal(conflicts)
			}
			n := 0
			for _, o := range ops {
				if !o.staging() {
					n++
				}
			}
			roots.close()
			// Crashed in staging: undone, the set still waits.
			f.crash(t, set, ops, "staging", -1)
			if d := harness.TreeDiff(before, f.host(t)); d != "" || len(tempsIn(t, f.root)) > 0 {
				t.Fatalf("staging was not undone:\n%s", d)
			}
			if _, err := f.st.Get(set.ID); err != nil {
				t.Fatalf("the set no longer waits: %v", err)
			}
			// Crashed after k apply steps, for every k: finished.
			for k := 0; k <= n; k++ {
				g := newFixture(t, Options{})
				c.do(t, g)
				gset := g.keep(t)
				g.crash(t, gset, nil, "applying", k)
				if d := harness.TreeDiff(want, g.host(t)); d != "" {
					t.Fatalf("after a crash at apply step %d/%d, recovery left:\n%s", k, n, d)
				}
				if len(tempsIn(t, g.root)) > 0 {
					t.Fatalf("temporary files left after step %d", k)
				}
			}
		})
	}
}

// crash stages a commit of set, then (state applying) runs the first k apply steps, and
// reopens the store as a restarted server would.
func (f *fixture) crash(t *testing.T, set *Set, ops []op, state string, k int) {
	t.Helper()
	roots, err := openRoots(set)
	if err != nil {
		t.Fatal(err)
	}
	defer roots.close()
	if ops == nil {
		ops, _ = plan(set, roots, nil)
	}
	j := &journal{ID: set.ID, State: "staging", By: Actor{Kind: "cli"}, Ops: ops}
	jp := filepath.Join(f.st.setDir(set.ID), journalName)
	if err := writeJSON(jp, j); err != nil {
		t.Fatal(err)
	}
	if err := stage(context.Background(), j, set, roots); err != nil {
		t.Fatal(err)
	}
	if state == "applying" {
		j.State = "applying"
		writeJSON(jp, j)
		var first []op
		done := 0
		for _, o := range j.Ops {
			if o.staging() {
				first = append(first, o)
			} else if done < k {
				first = append(first, o)
				done++
			}
		}
		apply(&journal{ID: j.ID, Ops: first}, roots, false)
	}
	if f.st, err = Open(f.store, Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestExpiryAndCap: sets expire after the TTL; a scope holds at most MaxPending.
func TestExpiryAndCap(t *testing.T) {
	now := time.Now()
	var events []Event
	f := newFixture(t, Options{TTL: time.Hour, MaxPending: 1, Now: func() time.Time { return now }, Audit: func(e Event) { events = append(events, e) }})
	f.fs.WriteFile(f.p("x"), []byte("x"), 0o644)
	set, _ := Build(context.Background(), f.fs.Review())
	same := func(*Set) bool { return true }
	if err := f.st.Keep(set, same); err != nil {
		t.Fatal(err)
	}
	f.newCall(t)
	f.fs.WriteFile(f.p("y"), []byte("y"), 0o644)
	set2, _ := Build(context.Background(), f.fs.Review())
	if err := f.st.Keep(set2, same); err == nil {
		t.Fatal("a second set was kept past MaxPending=1")
	}
	now = now.Add(2 * time.Hour)
	sets, _ := f.st.List()
	if len(sets) != 0 {
		t.Fatalf("an expired set is listed: %v", sets)
	}
	if err := f.st.Keep(set2, same); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	var actions []string
	for _, e := range events {
		actions = append(actions, e.Action)
	}
	if !slices.Equal(actions, []string{"kept", "expired", "kept"}) {
		t.Fatalf("events %v", actions)
	}
	log, _ := os.ReadFile(filepath.Join(f.store, "audit.log"))
	if strings.Count(string(log), "\n") != 3 || !strings.Contains(string(log), `"action":"expired"`) {
		t.Fatalf("audit log:\n%s", log)
	}
}

// TestStorePrivate: a store others may write is refused.
func TestStorePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	os.Mkdir(dir, 0o777)
	os.Chmod(dir, 0o777)
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "may be written by others") {
		t.Fatalf("want a refusal, got %v", err)
	}
	if _, err := Open("relative", Options{}); err == nil {
		t.Fatal("a relative store was opened")
	}
}

// TestBadIDs: ids that are not a set's are refused before touching a path.
func TestBadIDs(t *testing.T) {
	f := newFixture(t, Options{})
	for _, id := range []string{"", "../../etc", "0123456789abcdeF", "0123456789abcde", "0123456789abcdef/.."} {
		if _, err := f.st.Get(id); err == nil || err == ErrNotPending {
			t.Fatalf("%q: %v", id, err)
		}
	}
	if _, err := f.st.Get("0123456789abcdef"); err != ErrNotPending {
		t.Fatalf("unknown id: %v", err)
	}
}
