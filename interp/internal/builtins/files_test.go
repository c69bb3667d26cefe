package builtins

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// TestFileOperations runs a sequence of commands in one root and checks the tree after each.
func TestFileOperations(t *testing.T) {
	te := fixture(t)
	exists := func(p string) bool { _, err := os.Lstat(filepath.Join(te.dir, p)); return err == nil }
	read := func(p string) string { b, _ := os.ReadFile(filepath.Join(te.dir, p)); return string(b) }
	for _, s := range []struct {
		argv    []string
		rc      int
		out     string
		errPart string
		check   func() bool
	}{
		{argv: []string{"mkdir", "-p", "x/y/z"}, check: func() bool { return exists("x/y/z") }},
		{argv: []string{"mkdir", "-p", "x/y/z"}},
		{argv: []string{"mkdir", "x"}, rc: 1, errPart: "mkdir: cannot create directory 'x': File exists"},
		{argv: []string{"mkdir", "-m", "700", "priv"}, check: func() bool { fi, _ := os.Stat(filepath.Join(te.dir, "priv")); return fi.Mode().Perm() == 0o700 }},
		{argv: []string{"mkdir", "-v", "v1"}, out: "mkdir: created directory 'v1'\n"},
		{argv: []string{"touch", "x/y/z/f"}, check: func() bool { return exists("x/y/z/f") }},
		{argv: []string{"touch", "-c", "nothere"}, check: func() bool { return !exists("nothere") }},
		{argv: []string{"touch", "-d", "2020-01-02 03:04:05", "a.txt"}, check: func() bool {
			fi, _ := os.Stat(filepath.Join(te.dir, "a.txt"))
			return fi.ModTime().Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC))
		}},
		{argv: []string{"touch", "-t", "202101020304.05", "csv.txt"}, check: func() bool {
			fi, _ := os.Stat(filepath.Join(te.dir, "csv.txt"))
			return fi.ModTime().Equal(time.Date(2021, 1, 2, 3, 4, 5, 0, time.UTC))
		}},
		{argv: []string{"cp", "a.txt", "x/copy.txt"}, check: func() bool { return read("x/copy.txt") == fixtureFiles["a.txt"] }},
		{argv: []string{"cp", "a.txt", "csv.txt", "x"}, check: func() bool { return exists("x/a.txt") && exists("x/csv.txt") }},
		{argv: []string{"cp", "a.txt", "csv.txt", "nodir"}, rc: 1, errPart: "target 'nodir' is not a directory"},
		{argv: []string{"cp", "x", "x4"}, rc: 1, errPart: "-r not specified; omitting directory 'x'"},
		{argv: []string{"cp", "-r", "x", "x2"}, check: func() bool { return read("x2/y/z/f") == "" && exists("x2/y/z/f") }},
		{argv: []string{"cp", "-r", "x", "x/inside"}, rc: 1, errPart: "into itself"},
		{argv: []string{"cp", "a.txt", "a.txt"}, rc: 1, errPart: "are the same file"},
		{argv: []string{"cp", "-n", "csv.txt", "x/copy.txt"}, check: func() bool { return read("x/copy.txt") == fixtureFiles["a.txt"] }},
		{argv: []string{"cp", "-p", "a.txt", "kept.txt"}, check: func() bool {
			a, _ := os.Stat(filepath.Join(te.dir, "a.txt"))
			k, _ := os.Stat(filepath.Join(te.dir, "kept.txt"))
			return a.ModTime().Equal(k.ModTime())
		}},
		{argv: []string{"mv", "x2", "x3"}, check: func() bool { return !exists("x2") && exists("x3/y/z/f") }},
		{argv: []string{"mv", "kept.txt", "x3"}, check: func() bool { return exists("x3/kept.txt") }},
		{argv: []string{"mv", "-n", "csv.txt", "version.txt"}, check: func() bool { return read("version.txt") == fixtureFiles["version.txt"] }},
		{argv: []string{"mv", "x3", "x3/y"}, rc: 1, errPart: "subdirectory of itself"},
		{argv: []string{"mv", "missing", "y"}, rc: 1, errPart: "cannot stat 'missing': No such file or directory"},
		{argv: []string{"rm", "x3"}, rc: 1, errPart: "cannot remove 'x3': Is a directory"},
		{argv: []string{"rm", "-r", "x3"}, check: func() bool { return !exists("x3") }},
		{argv: []string{"rm", "missing"}, rc: 1, errPart: "No such file or directory"},
		{argv: []string{"rm", "-f", "missing"}},
		{argv: []string{"rm", "-rf", "."}, rc: 1, errPart: "refusing to remove '.' or '..'"},
		{argv: []string{"rm", "-rf", "/"}, rc: 1, errPart: "dangerous"},
		{argv: []string{"rmdir", "x/y/z"}, rc: 1, errPart: "Directory not empty"},
		{argv: []string{"rm", "x/y/z/f"}},
		{argv: []string{"rmdir", "-p", "x/y/z"}, rc: 1, errPart: "failed to remove 'x'"},
		{argv: []string{"ln", "-s", "a.txt", "link"}, check: func() bool { t, _ := os.Readlink(filepath.Join(te.dir, "link")); return t == "a.txt" }},
		{argv: []string{"ln", "-s", "csv.txt", "link"}, rc: 1, errPart: "File exists"},
		{argv: []string{"ln", "-sf", "csv.txt", "link"}, check: func() bool { t, _ := os.Readlink(filepath.Join(te.dir, "link")); return t == "csv.txt" }},
		{argv: []string{"ln", "a.txt", "hard"}, rc: 1, errPart: "without -s (a hard link) is not supported"},
		{argv: []string{"ln", "-s", "/etc/passwd", "pw"}, rc: 1, errPart: "Permission denied"},
		{argv: []string{"ln", "-s", "../../../../etc/passwd", "pw2"}, rc: 1, errPart: "Permission denied"},
		{argv: []string{"chmod", "600", "a.txt"}, check: func() bool { fi, _ := os.Stat(filepath.Join(te.dir, "a.txt")); return fi.Mode().Perm() == 0o600 }},
		{argv: []string{"chmod", "u+x,go+r", "a.txt"}, check: func() bool { fi, _ := os.Stat(filepath.Join(te.dir, "a.txt")); return fi.Mode().Perm() == 0o744 }},
		{argv: []string{"readlink", "link"}, out: "csv.txt\n"},
		{argv: []string{"readlink", "a.txt"}, rc: 1},
		{argv: []string{"readlink", "-f", "link"}, out: te.dir + "/csv.txt\n"},
		{argv: []string{"readlink", "-f", "sub/missing"}, out: te.dir + "/sub/missing\n"},
		{argv: []string{"readlink", "-e", "sub/missing"}, rc: 1},
		{argv: []string{"readlink", "-m", "no/such/thing"}, out: te.dir + "/no/such/thing\n"},
		{argv: []string{"realpath", "link", "sub/../a.txt"}, out: te.dir + "/csv.txt\n" + te.dir + "/a.txt\n"},
		{argv: []string{"realpath", "-s", "link"}, out: te.dir + "/link\n"},
		{argv: []string{"realpath", "-e", "nothing"}, rc: 1, errPart: "realpath: nothing: No such file or directory"},
		{argv: []string{"realpath", "--relative-to=sub", "a.txt"}, out: "../a.txt\n"},
	} {
		out, errOut, rc := te.run(t, "", s.argv...)
		if rc != s.rc || (s.out != "" && out != s.out) || !strings.Contains(errOut, s.errPart) {
			t.Errorf("%q: rc %d out %q err %q; want rc %d out %q err containing %q", s.argv, rc, out, errOut, s.rc, s.out, s.errPart)
		}
		if s.check != nil && !s.check() {
			t.Errorf("%q: the tree is not as expected", s.argv)
		}
	}
}

func TestMktemp(t *testing.T) {
	te := fixture(t)
	out, _, rc := te.run(t, "", "mktemp")
	if rc != 0 || !strings.HasPrefix(out, te.dir+"/tmp.") {
		t.Errorf("mktemp: %d %q", rc, out)
	}
	out, _, _ = te.run(t, "", "mktemp", "-d")
	if fi, err := os.Stat(strings.TrimSpace(out)); err != nil || !fi.IsDir() {
		t.Errorf("mktemp -d made no directory: %q", out)
	}
	out, _, _ = te.run(t, "", "mktemp", "job.XXXX")
	if !strings.HasPrefix(out, "job.") || len(strings.TrimSpace(out)) != 8 {
		t.Errorf("mktemp TEMPLATE makes it in the cwd: %q", out)
	}
	out, _, _ = te.run(t, "", "mktemp", "-p", "sub", "x.XXXXXX")
	if !strings.HasPrefix(out, "sub/x.") {
		t.Errorf("mktemp -p: %q", out)
	}
	if _, errOut, rc := te.run(t, "", "mktemp", "xy"); rc == 0 || !strings.Contains(errOut, "too few X's") {
		t.Errorf("mktemp xy: %d %q", rc, errOut)
	}
	if _, _, rc := te.run(t, "", "mktemp", "-p", "/etc"); rc == 0 {
		t.Error("mktemp -p /etc succeeded")
	}
	// The template goes into the directory as it is (GNU): a leading dot makes a hidden entry
	// inside it, never a name beside it; trailing slashes of the directory are one separator.
	for _, c := range []struct{ dir, tmpl, prefix string }{
		{"sub", ".XXXXXX", "sub/."}, {"sub//", ".XXX", "sub/."}, {"./sub", "./aXXX", "./sub/./a"},
	} {
		out, errOut, rc := te.run(t, "", "mktemp", "-p", c.dir, c.tmpl)
		name := strings.TrimSpace(out)
		if rc != 0 || !strings.HasPrefix(name, c.prefix) || len(name) != len(c.prefix)+strings.Count(c.tmpl, "X") {
			t.Errorf("mktemp -p %s %s: %d %q %q; want a name starting %q", c.dir, c.tmpl, rc, out, errOut, c.prefix)
			continue
		}
		if _, err := os.Stat(filepath.Join(te.dir, name)); err != nil {
			t.Errorf("mktemp -p %s %s: %v", c.dir, c.tmpl, err)
		}
	}
	if _, errOut, rc := te.run(t, "", "mktemp", "-p", "sub", "/abs.XXX"); rc != 1 || !strings.Contains(errOut, "may not be absolute") {
		t.Errorf("mktemp -p sub /abs.XXX: %d %q", rc, errOut)
	}
	if _, errOut, rc := te.run(t, "", "mktemp", "-t", "a/XXX"); rc != 1 || !strings.Contains(errOut, "contains directory separator") {
		t.Errorf("mktemp -t a/XXX: %d %q", rc, errOut)
	}
}

func TestListingMatchesGNU(t *testing.T) {
	var cases []gnuCase
	for _, argv := range [][]string{
		{"ls"}, {"ls", "sub"}, {"ls", "-a", "sub"}, {"ls", "-A"}, {"ls", "-1", "sub", "a.txt"}, {"ls", "-d", "sub"},
		{"ls", "-r"}, {"ls", "-S"}, {"ls", "-t", "a.txt", "csv.txt", "version.txt", "nums.txt"}, {"ls", "-R", "sub"},
		{"ls", "missing"}, {"ls", "-p"}, {"ls", "-F", "sub"}, {"ls", "a.txt", "sub", "csv.txt"},
		{"stat", "-c", "%n %s %a %A %F", "a.txt", "sub"}, {"stat", "-c", "%Y %X %s %h", "a.txt"}, {"stat", "--printf", "%n\\t%s\\n", "a.txt"},
		{"stat", "-c", "%F", "nofile"},
		{"du", "-s", "-b", "sub"}, {"du", "-b", "-a", "sub"}, {"du", "-sb", "a.txt", "csv.txt"}, {"du", "-cb", "a.txt", "csv.txt"},
		{"basename", "/x/y/z.txt", ".txt"}, {"basename", "/x/y/"}, {"basename", "/"}, {"basename", "-a", "a/b", "c/d"},
		{"basename", "-s", ".c", "a.c", "b.c"}, {"basename", "x.txt", "x.txt"},
		{"dirname", "/x/y/z.txt"}, {"dirname", "a/b/"}, {"dirname", "a"}, {"dirname", "/"}, {"dirname", "//a//b//"}, {"dirname", "a", "/b/c"},
	} {
		cases = append(cases, gnuCase{"", argv})
	}
	compareGNU(t, cases)
}

func TestLsLong(t *testing.T) {
	te := fixture(t)
	os.Symlink("a.txt", filepath.Join(te.dir, "sub", "ln"))
	os.Chtimes(filepath.Join(te.dir, "sub", "b.txt"), fixedNow.Add(-time.Hour), fixedNow.Add(-time.Hour))
	out, _, rc := te.run(t, "", "ls", "-l", "sub")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if rc != 0 || !strings.HasPrefix(lines[0], "total ") || len(lines) != 4 {
		t.Fatalf("ls -l: %d %q", rc, out)
	}
	if !strings.HasPrefix(lines[1], "-rw-r--r-- 1 mcp mcp 33 Nov 23 06:08 ") || !strings.HasSuffix(lines[1], " b.txt") {
		t.Errorf("ls -l file line: %q", lines[1])
	}
	if !strings.HasPrefix(lines[3], "lrwxrwxrwx") || !strings.HasSuffix(lines[3], "ln -> a.txt") {
		t.Errorf("ls -l link line: %q", lines[3])
	}
	out, _, _ = te.run(t, "", "ls", "-l", "a.txt")
	if !strings.Contains(out, " Nov 23 06:08 a.txt") {
		t.Errorf("ls -l date: %q", out)
	}
	if humanSize(1536) != "1.5K" || humanSize(10<<20) != "10M" || humanSize(1000) != "1000" || humanSize(4097) != "4.1K" {
		t.Errorf("humanSize: %s %s %s %s", humanSize(1536), humanSize(10<<20), humanSize(1000), humanSize(4097))
	}
}

// TestFindMatchesGNU compares find with the host's, ignoring order (GNU find walks in
// directory order; ours is sorted).
func TestFindMatchesGNU(t *testing.T) {
	for _, argv := range [][]string{
		{"find"}, {"find", "."}, {"find", "sub"}, {"find", ".", "-name", "*.txt"}, {"find", ".", "-iname", "B.TXT"},
		{"find", ".", "-type", "d"}, {"find", ".", "-type", "f", "-name", "*.md"}, {"find", ".", "-maxdepth", "1"},
		{"find", ".", "-mindepth", "2"}, {"find", ".", "-path", "./sub/*"}, {"find", ".", "!", "-name", "*.txt"},
		{"find", ".", "-name", "a*", "-o", "-name", "c*"}, {"find", ".", "(", "-name", "*.md", "-o", "-name", "b*", ")", "-print"},
		{"find", ".", "-name", "sub", "-prune", "-o", "-type", "f", "-print"}, {"find", ".", "-size", "+1"}, {"find", ".", "-size", "-40c"},
		{"find", ".", "-empty"}, {"find", ".", "-newer", "nums.txt"}, {"find", ".", "-type", "f", "-print0"},
		{"find", ".", "-printf", "%p %s %d %y\\n"}, {"find", "sub", "-printf", "%f|%h|%P\\n"}, {"find", "missing"},
		{"find", ".", "-regex", ".*/[ab]\\.txt"}, {"find", ".", "-name", "[ab].*"}, {"find", ".", "-name", "[!a]*.txt"},
		{"find", ".", "-type", "f", "-name", "*.txt", "-not", "-path", "./sub/*"}, {"find", ".", "-depth", "-name", "sub"},
		{"find", ".", "-perm", "644", "-name", "a.txt"}, {"find", ".", "-name", "*.txt", "-print", "-quit"},
	} {
		t.Run(strings.Join(argv, " "), func(t *testing.T) {
			want := fixture(t)
			wantOut, wantRC, ok := gnu(t, want.dir, "", argv...)
			if !ok {
				t.Skip("no find")
			}
			te := fixture(t)
			got, errOut, rc := te.run(t, "", argv...)
			sortLines := func(s string) string {
				sep := "\n"
				if strings.Contains(s, "\x00") {
					sep = "\x00"
				}
				l := strings.Split(s, sep)
				sort.Strings(l)
				return strings.Join(l, sep)
			}
			if strings.Contains(strings.Join(argv, " "), "-quit") {
				// Which file comes first differs; one line each is the point.
				if strings.Count(got, "\n") != 1 || strings.Count(wantOut, "\n") != 1 {
					t.Errorf("-quit: got %q want %q", got, wantOut)
				}
				return
			}
			if sortLines(got) != sortLines(wantOut) || rc != wantRC {
				t.Errorf("got (rc %d):\n%q\nwant (rc %d):\n%q\nstderr %s", rc, got, wantRC, wantOut, errOut)
			}
		})
	}
}

// Time tests use env.Now (the host's find uses the real clock, so they are not compared).
func TestFindTimes(t *testing.T) {
	te := fixture(t)
	for _, tc := range []struct {
		argv []string
		want string
	}{
		{[]string{"find", ".", "-type", "f", "-mmin", "+30"}, "./a.txt\n./csv.txt\n./nums.txt\n./version.txt\n"},
		{[]string{"find", ".", "-type", "f", "-mmin", "-61", "-name", "*.txt"}, "./a.txt\n./dup.txt\n./nonl.txt\n./sub/b.txt\n./utf8.txt\n./words.txt\n"},
		{[]string{"find", ".", "-type", "f", "-mtime", "0", "-name", "a*"}, "./a.txt\n"},
		{[]string{"find", ".", "-type", "f", "-mtime", "+0"}, ""},
		{[]string{"find", "sub", "-newer", "a.txt"}, "sub\nsub/b.txt\nsub/c.md\n"},
	} {
		if out, errOut, _ := te.run(t, "", tc.argv...); out != tc.want {
			t.Errorf("%q = %q (%s), want %q", tc.argv, out, errOut, tc.want)
		}
	}
}

func TestFindRefusesSideEffects(t *testing.T) {
	te := fixture(t)
	for _, argv := range [][]string{
		{"find", ".", "-execdir", "id", "+"}, {"find", ".", "-exec", "rm", "{}"}, {"find", ".", "-exec", "{}", "+"},
		{"find", ".", "-exec", "echo", "{}", "x", "{}", "+"}, {"find", ".", "-ok", "rm", "{}", ";"}, {"find", ".", "-fprint", "out"}, {"find", ".", "-name"}, {"find", ".", "("},
		{"find", ".", "-bogus"},
	} {
		out, errOut, rc := te.run(t, "", argv...)
		if rc == 0 || out != "" || !strings.HasPrefix(errOut, "find: ") {
			t.Errorf("%q: rc %d out %q err %q", argv, rc, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(te.dir, "a.txt")); err != nil {
		t.Error("a refused find still removed files")
	}
}

// Across roots, mv copies then removes (the FS refuses a cross-root rename with EXDEV) and
// cp writes into the other root.
func TestAcrossRoots(t *testing.T) {
	te := fixture(t)
	other, _ := filepath.EvalSymlinks(t.TempDir())
	fsys, err := sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: te.dir, Mode: sandbox.ReadWrite}, {Path: other, Mode: sandbox.ReadWrite}}}, sandbox.Scratch{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	te.FS = fsys
	if _, errOut, rc := te.run(t, "", "mv", "a.txt", other); rc != 0 {
		t.Fatalf("mv across roots: %s", errOut)
	}
	if exists(te.dir, "a.txt") || !exists(other, "a.txt") {
		t.Error("mv across roots did not move the file")
	}
	if _, errOut, rc := te.run(t, "", "mv", "sub", filepath.Join(other, "moved")); rc != 0 {
		t.Fatalf("mv dir across roots: %s", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "moved", "b.txt")); string(b) != fixtureFiles["sub/b.txt"] || exists(te.dir, "sub") {
		t.Errorf("mv dir across roots: %q", b)
	}
	if _, errOut, rc := te.run(t, "", "cp", "-r", filepath.Join(other, "moved"), "back"); rc != 0 || !exists(te.dir, "back/c.md") {
		t.Errorf("cp -r across roots: %d %s", rc, errOut)
	}
	// A read-only root refuses writes.
	ro, _ := filepath.EvalSymlinks(t.TempDir())
	rofs, _ := sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: te.dir, Mode: sandbox.ReadWrite}, {Path: ro, Mode: sandbox.ReadOnly}}}, sandbox.Scratch{}, nil)
	defer rofs.Close()
	te.FS = rofs
	for _, argv := range [][]string{{"cp", "csv.txt", ro}, {"mkdir", filepath.Join(ro, "d")}, {"touch", filepath.Join(ro, "t")}} {
		if _, errOut, rc := te.run(t, "", argv...); rc == 0 || !strings.Contains(errOut, "Permission denied") {
			t.Errorf("%q on a read-only root: %d %q", argv, rc, errOut)
		}
	}
}

// TestMkdirSetIDModeLeavesNothing: the sandbox refuses setuid and setgid bits, so mkdir -m
// with them fails before creating anything (it used to create the directory, then say it
// could not).
func TestMkdirSetIDModeLeavesNothing(t *testing.T) {
	te := fixture(t)
	for _, m := range []string{"2755", "4700", "u+s", "g+s"} {
		_, errOut, rc := te.run(t, "", "mkdir", "-m", m, "d"+m)
		if rc != 1 || !strings.Contains(errOut, "setuid and setgid bits are refused") {
			t.Errorf("mkdir -m %s: rc %d, stderr %q", m, rc, errOut)
		}
		if _, err := os.Lstat(filepath.Join(te.dir, "d"+m)); !os.IsNotExist(err) {
			t.Errorf("mkdir -m %s left the directory behind: %v", m, err)
		}
	}
	if _, errOut, rc := te.run(t, "", "mkdir", "-m", "1777", "sticky"); rc != 0 {
		t.Errorf("mkdir -m 1777: rc %d, %s", rc, errOut)
	}
}
