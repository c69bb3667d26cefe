//go:build linux

package testexpr

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/bashtest"
	"github.com/mcp-bash/mcp-bash/interp/internal/shquote"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// osEnv is an Env over the real file system, to compare with Bash.
type osEnv struct{ vars map[string]bool }

func info(fi os.FileInfo) FileInfo {
	st := sandbox.StatOf(fi)
	return FileInfo{Mode: fi.Mode(), Size: fi.Size(), Uid: st.Uid, Gid: st.Gid, Dev: st.Dev, Ino: st.Ino,
		ModTime: fi.ModTime(), AccessTime: st.Atime}
}

func (osEnv) Stat(n string) (FileInfo, error) {
	fi, err := os.Stat(n)
	if err != nil {
		return FileInfo{}, err
	}
	return info(fi), nil
}

func (osEnv) Lstat(n string) (FileInfo, error) {
	fi, err := os.Lstat(n)
	if err != nil {
		return FileInfo{}, err
	}
	return info(fi), nil
}

func (osEnv) Access(n string, mode uint32) bool {
	return syscall.Faccessat(-100, n, mode, 0x200 /* AT_EACCESS */) == nil
}
func (osEnv) IsTerminal(fd int) bool  { return false }
func (e osEnv) IsSet(n string) bool   { return e.vars[n] }
func (osEnv) IsNameref(n string) bool { return n == "ref" }
func (osEnv) Option(n string) bool    { return n == "noglob" }
func (osEnv) Euid() uint32            { return uint32(os.Geteuid()) }
func (osEnv) Egid() uint32            { return uint32(os.Getegid()) }

func split(s string) []string { return strings.Fields(strings.ReplaceAll(s, "''", "\x00")) }

// cases are argument lists (words separated by spaces, ” is an empty word).
var cases = []string{
	"", "a", "''", "-z", "-z a", "-z ''", "a =", "!", "! a", "! ''", "-q a", "a -q b", "a b c d", "a b",
	"1 -eq a", "a -eq 1", "1x -eq 1", "99999999999999999999 -eq 1", "-1 -lt +2", "010 -eq 10", "0x10 -eq 16",
	"( a )", "( a", "( a b )", "a -a b -o ''", "'' -a b -o c", "! a -o b", "( a -a '' ) -o ( b )", "-n", "-n ''",
	"= = =", "! =", "-a", "-a a", "a -a", "a = b -o", "( )", "( '' )", "a < b", "b > a", "é > z", "-v x", "-v nope",
	"-o noglob", "-o errexit", "-t", "-t 1", "-t x", "-e /", "-d / -a -f /", "a b c d e f", "a ] ]", "-e", "! ! a",
	"! -e /nonexist", "a = a -a", "( a = a )", "-nt", "/ -nt /nonexist", "/nonexist -ot /", "/ -ef /", "1 -eq 1 -a",
	"x -o", ")", "a )", "( a ) b", "1 -eq", "-l a", "a == a", "a != b", "-R ref", "-R x", "! ( a = b )",
	"( ! a = b )", "a -o b -a ''", "'' -o '' -o a", "! '' -a ''", "-f F -a -r F -a -w F", "-x X", "-x F", "-s F",
	"-s E", "-L L", "-h L", "-L F", "-e L", "-e B", "-h B", "-d D", "-d F", "-p P", "-f P", "-O F", "-G F",
	"-u F", "-g F", "-k D", "-k K", "F -nt E", "E -nt F", "F -ot E", "F -ef F", "F -ef L", "F -ef E", "-e ''",
	"-f ''", "-r ''", "'  7 ' -eq 7", "7 -ge 8", "-5 -le -5", "3 -gt 2 -a 2 -gt 1", "1 -eq 1 -o 1 -eq x",
	"1 -eq x -o 1 -eq 1", "( ( a ) )", "( ( a )", "! ( -e / )", "-z a -o -n a", "--", "-", "a = a = a",
	"( = )", "( -z )", "! -z", "-a -a -a", "-o -a -o", "x -a -a", "-t 0 -o a",
}

func TestDifferential(t *testing.T) {
	bashtest.Require(t)
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "F"), []byte("x"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "E"), nil, 0o600))
	must(os.WriteFile(filepath.Join(dir, "X"), nil, 0o755))
	must(os.Symlink("F", filepath.Join(dir, "L")))
	must(os.Symlink("nope", filepath.Join(dir, "B")))
	must(os.Mkdir(filepath.Join(dir, "D"), 0o755))
	must(os.Mkdir(filepath.Join(dir, "K"), 0o1777))
	must(syscall.Mkfifo(filepath.Join(dir, "P"), 0o600))
	old := time.Now().Add(-time.Hour)
	must(os.Chtimes(filepath.Join(dir, "E"), old, old))
	snips := make([]string, 0, 2*len(cases))
	for _, c := range cases {
		var q []string
		for _, w := range split(c) {
			q = append(q, shquote.Printf(strings.ReplaceAll(w, "\x00", "")))
		}
		args := strings.Join(q, " ")
		snips = append(snips, "test "+args+`; echo "rc=$?"`, "[ "+args+` ]; echo "rc=$?"`)
	}
	prelude := "cd " + shquote.Printf(dir) + "; x=1; declare -n ref=x; set -f"
	got := bashtest.Batch(t, prelude, snips)
	must(os.Chdir(dir))
	env := osEnv{vars: map[string]bool{"x": true}}
	for i, c := range cases {
		var words []string
		for _, w := range split(c) {
			words = append(words, strings.ReplaceAll(w, "\x00", ""))
		}
		for k, name := range []string{"test", "["} {
			var ok bool
			var err error
			if name == "test" {
				ok, err = Test(words, env)
			} else {
				ok, err = Bracket(append(append([]string{}, words...), "]"), env)
			}
			want := ""
			if err != nil {
				want = name + ": " + err.Error() + "\n"
			}
			want += fmt.Sprintf("rc=%d\nrc=0\n", Status(ok, err))
			if g := got[2*i+k]; g != want {
				t.Errorf("%s %s:\nbash: %q\nours: %q", name, c, g, want)
			}
		}
	}
	t.Logf("%d argument lists x 2 (test and [)", len(cases))
}

func TestMissingBracket(t *testing.T) {
	_, err := Bracket([]string{"a"}, osEnv{})
	var e *Error
	if !errors.As(err, &e) || e.Msg != "missing `]'" || Status(false, err) != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestNestLimit(t *testing.T) {
	args := append(strings.Split(strings.Repeat("( ", 20000), " "), "a")
	for i := 0; i < 20000; i++ {
		args = append(args, ")")
	}
	args = append(args[:19999], args[20000:]...) // drop the empty word after the last "("
	if _, err := Test(args, osEnv{}); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Fatalf("got %v", err)
	}
	if ok, err := Test([]string{"(", "(", "a", ")", ")"}, osEnv{}); !ok || err != nil {
		t.Fatalf("got %v %v", ok, err)
	}
}

func TestBinaryArith(t *testing.T) {
	num := func(s string) (int64, error) { return int64(len(s)), nil }
	if ok, err := Binary("-eq", "abc", "xyz", osEnv{}, num); !ok || err != nil {
		t.Fatalf("custom number parser not used: %v %v", ok, err)
	}
}

func FuzzTest(f *testing.F) {
	for _, c := range cases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := strings.Split(s, " ")
		if len(words) > 50 {
			return
		}
		ok, err := Test(words, osEnv{})
		if st := Status(ok, err); st < 0 || st > 2 {
			t.Fatal(st)
		}
	})
}
