//go:build linux

package confine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the mcp-bash binary: with childEnv set, `TEST __confine RULES --
// PROG ARGS...` runs Exec, exactly as `mcp-bash __confine` does. With doEnv set it is a confined
// Go program doing one thing and printing the outcome.
const (
	childEnv = "CONFINE_TEST_CHILD"
	doEnv    = "CONFINE_TEST_DO"
)

// doModes are further doEnv modes, registered by platform-specific test files.
var doModes = map[string]func(){}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" && len(os.Args) > 1 && os.Args[1] == Command {
		code, err := Exec(os.Args[2:])
		fmt.Fprintln(os.Stderr, "confine child:", err)
		os.Exit(code)
	}
	switch os.Getenv(doEnv) {
	case "":
		os.Exit(m.Run())
	case "bind":
		// Go's net.Listen tries Multipath TCP first (which the seccomp filter refuses without
		// Net, and Landlock does not see); ask for classic TCP, the socket Landlock restricts.
		lc := net.ListenConfig{}
		lc.SetMultipathTCP(false)
		l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("bind:", err)
			os.Exit(1)
		}
		l.Close()
		fmt.Println("bind: ok")
	case "nnp":
		const prGetNoNewPrivs = 39
		v, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prGetNoNewPrivs, 0, 0)
		fmt.Println("no_new_privs:", v, errno)
	default:
		if do := doModes[os.Getenv(doEnv)]; do != nil {
			do()
		}
	}
	os.Exit(0)
}

func requireLandlock(t *testing.T) int {
	t.Helper()
	abi, err := Status()
	if err != nil {
		t.Skipf("Landlock unavailable: %v", err)
	}
	return abi
}

// confined runs argv under r through Wrap and the test binary's __confine.
func confined(t *testing.T, r Rules, env []string, argv ...string) (stdout, stderr string, code int) {
	t.Helper()
	c := &Confiner{Self: os.Args[0], Required: true}
	w, err := c.Wrap(r, argv)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != len(argv)+4 || w[1] != Command {
		t.Fatalf("Wrap did not wrap: %q", w)
	}
	cmd := exec.Command(w[0], w[1:]...)
	cmd.Env = append([]string{childEnv + "=1", "PATH=/usr/bin:/bin", "LANG=C"}, env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

type dirs struct{ ro, rw, outside string }

func setup(t *testing.T) dirs {
	t.Helper()
	d := dirs{ro: t.TempDir(), rw: t.TempDir(), outside: t.TempDir()}
	for _, dir := range []string{d.ro, d.rw, d.outside} {
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("content of "+filepath.Base(dir)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestStatus(t *testing.T) {
	abi, err := Status()
	if err != nil {
		t.Skipf("Landlock unavailable: %v", err)
	}
	if abi < 1 {
		t.Fatalf("ABI %d with no error", abi)
	}
	t.Logf("Landlock ABI %d", abi)
}

// Bash and coreutils run confined and reach exactly their rules' directories.
func TestConfinedFilesystem(t *testing.T) {
	requireLandlock(t)
	d := setup(t)
	r := Rules{RO: []string{d.ro}, RW: []string{d.rw}}
	for _, tc := range []struct {
		name, script string
		ok           bool
		out          string
	}{
		{"bash and coreutils run", `ls /usr/bin >/dev/null && sleep 0.01 && echo ran`, true, "ran"},
		{"read /etc/passwd", `cat /etc/passwd`, false, ""},
		{"read /etc/passwd with a bash redirection", `read -r line </etc/passwd && echo "$line"`, false, ""},
		{"list /etc", `ls /etc`, false, ""},
		{"read in a read-only dir", `cat "$RO/f.txt"`, true, "content of " + filepath.Base(d.ro)},
		{"list a read-only dir", `ls "$RO"`, true, "f.txt"},
		{"write in a read-only dir", `echo x > "$RO/new"`, false, ""},
		{"remove in a read-only dir", `rm "$RO/f.txt"`, false, ""},
		{"write in a read-write dir", `echo written > "$RW/new" && cat "$RW/new"`, true, "written"},
		{"mkdir and move in a read-write dir", `mkdir "$RW/a" "$RW/b" && echo m > "$RW/a/x" && mv "$RW/a/x" "$RW/b/x" && cat "$RW/b/x"`, true, "m"},
		{"write outside", `echo x > "$OUT/new"`, false, ""},
		{"cat outside", `cat "$OUT/f.txt"`, false, ""},
		{"write /tmp", `echo x > /tmp/confine-test-$$`, false, ""},
		{"/dev/null is writable", `echo x >/dev/null && head -c 4 /dev/urandom | wc -c`, true, "4"},
		{"process substitution still works", `cat <(echo via-pipe)`, true, "via-pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := confined(t, r, []string{"RO=" + d.ro, "RW=" + d.rw, "OUT=" + d.outside}, "/bin/bash", "-c", tc.script)
			if (code == 0) != tc.ok || !strings.Contains(out, tc.out) {
				t.Fatalf("exit %d (want success %v)\nstdout: %s\nstderr: %s", code, tc.ok, out, errOut)
			}
			if !tc.ok && !strings.Contains(errOut, "Permission denied") {
				t.Fatalf("refused, but not by Landlock?\nstderr: %s", errOut)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(d.ro, "f.txt")); err != nil {
		t.Errorf("read-only file removed: %v", err)
	}
	for _, p := range []string{filepath.Join(d.ro, "new"), filepath.Join(d.outside, "new")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// TestProtectedInsideReadWrite (T-FS-5): the project's metadata inside a read-write root stays
// read-only for a confined process (native tools, allowlisted commands), hidden entries
// included; the rest of the root stays writable, except that new entries cannot be made in the
// split directory itself.
func TestProtectedInsideReadWrite(t *testing.T) {
	requireLandlock(t)
	proj := t.TempDir()
	for _, d := range []string{"tools/t", "bin", ".git", "data/sub", "server.d"} {
		if err := os.MkdirAll(filepath.Join(proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tools/t/tool.sh", ".git/config", "README", "data/f.txt"} {
		if err := os.WriteFile(filepath.Join(proj, f), []byte("orig\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link in the root must not carry a grant anywhere.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(proj, "out")); err != nil {
		t.Fatal(err)
	}
	r := Rules{RW: []string{proj}, Protect: []string{filepath.Join(proj, "tools"), filepath.Join(proj, "bin"),
		filepath.Join(proj, "server.d"), filepath.Join(proj, "config"), filepath.Join(proj, ".*")}}
	for _, tc := range []struct {
		name, script string
		ok           bool
	}{
		{"read tools", `cat "$P/tools/t/tool.sh"`, true},
		{"write tools", `echo x >> "$P/tools/t/tool.sh"`, false},
		{"new file in tools", `echo x > "$P/tools/evil.sh"`, false},
		{"plant a wasm command", `echo x > "$P/bin/git.wasm"`, false},
		{"git config", `echo '[core] fsmonitor = id' >> "$P/.git/config"`, false},
		{"new hidden entry", `echo x > "$P/.envrc"`, false},
		{"create config", `mkdir "$P/config"`, false},
		{"rename tools away", `mv "$P/tools" "$P/data/t2"`, false},
		{"write data", `echo x > "$P/data/new" && echo y >> "$P/data/f.txt" && mkdir "$P/data/sub/d"`, true},
		{"write a top-level file", `echo x >> "$P/README"`, true},
		{"through a link out", `echo x > "$P/out/f"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := confined(t, r, []string{"P=" + proj}, "/bin/bash", "-c", tc.script)
			if (code == 0) != tc.ok {
				t.Fatalf("exit %d (want success %v)\nstdout: %s\nstderr: %s", code, tc.ok, out, errOut)
			}
		})
	}
	for _, f := range []string{"tools/t/tool.sh", ".git/config"} {
		if b, _ := os.ReadFile(filepath.Join(proj, f)); string(b) != "orig\n" {
			t.Errorf("%s changed: %q", f, b)
		}
	}
	for _, f := range []string{"tools/evil.sh", "bin/git.wasm", ".envrc", "config"} {
		if _, err := os.Lstat(filepath.Join(proj, f)); err == nil {
			t.Errorf("%s was created", f)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Error("a write went through a link out of the root")
	}
}

// A static Go binary (no dynamic loader, Go runtime start-up) runs confined.
func TestStaticGoBinaryRuns(t *testing.T) {
	requireLandlock(t)
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build a static binary")
	}
	src := t.TempDir()
	prog := `package main

import (
	"fmt"
	"os"
)

func main() {
	for _, p := range os.Args[1:] {
		_, err := os.ReadFile(p)
		fmt.Println(p, err == nil)
	}
}
`
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "static")
	build := exec.Command(gobin, "build", "-o", bin, "main.go")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	d := setup(t)
	out, errOut, code := confined(t, Rules{RO: []string{d.ro}}, nil, bin, filepath.Join(d.ro, "f.txt"), "/etc/passwd", filepath.Join(d.outside, "f.txt"))
	want := fmt.Sprintf("%s true\n/etc/passwd false\n%s false\n", filepath.Join(d.ro, "f.txt"), filepath.Join(d.outside, "f.txt"))
	if code != 0 || out != want {
		t.Fatalf("exit %d\nstdout: %s\nwant: %s\nstderr: %s", code, out, want, errOut)
	}
}

// loopback listens on 127.0.0.1 and returns its port and what the first connection sent.
func loopback(t *testing.T) (port string, got <-chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	ch := make(chan string, 1)
	go func() {
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, _ := bufio.NewReader(conn).ReadString('\n')
		ch <- line
	}()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), ch
}

func TestTCPConnect(t *testing.T) {
	if requireLandlock(t) < NetABI {
		t.Skip("Landlock ABI below 4 cannot restrict TCP")
	}
	script := `echo hello >/dev/tcp/127.0.0.1/$PORT`
	t.Run("denied without Net", func(t *testing.T) {
		port, got := loopback(t)
		out, errOut, code := confined(t, Rules{}, []string{"PORT=" + port}, "/bin/bash", "-c", script)
		if code == 0 || !strings.Contains(errOut, "Permission denied") {
			t.Fatalf("connect not refused: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		}
		select {
		case line := <-got:
			t.Fatalf("listener received %q", line)
		case <-time.After(100 * time.Millisecond):
		}
	})
	t.Run("allowed with Net", func(t *testing.T) {
		port, got := loopback(t)
		out, errOut, code := confined(t, Rules{Net: true}, []string{"PORT=" + port}, "/bin/bash", "-c", script)
		if code != 0 {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		}
		select {
		case line := <-got:
			if line != "hello\n" {
				t.Fatalf("listener received %q", line)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("listener received nothing")
		}
	})
}

func TestTCPBind(t *testing.T) {
	if requireLandlock(t) < NetABI {
		t.Skip("Landlock ABI below 4 cannot restrict TCP")
	}
	for _, tc := range []struct {
		net  bool
		want string
	}{{false, "bind: listen tcp 127.0.0.1:0: bind: permission denied"}, {true, "bind: ok"}} {
		t.Run(fmt.Sprintf("Net=%v", tc.net), func(t *testing.T) {
			out, errOut, _ := confined(t, Rules{Net: tc.net}, []string{doEnv + "=bind"}, os.Args[0])
			if strings.TrimSpace(out) != tc.want {
				t.Fatalf("stdout %q, want %q\nstderr: %s", out, tc.want, errOut)
			}
		})
	}
}

func TestNoNewPrivs(t *testing.T) {
	requireLandlock(t)
	out, errOut, _ := confined(t, Rules{}, []string{doEnv + "=nnp"}, os.Args[0])
	if strings.TrimSpace(out) != "no_new_privs: 1 errno 0" {
		t.Fatalf("stdout %q\nstderr: %s", out, errOut)
	}
}

// From ABI 6 a confined process cannot signal processes outside its domain (the server).
func TestSignalsStayInside(t *testing.T) {
	if requireLandlock(t) < 6 {
		t.Skip("signal scoping needs Landlock ABI 6")
	}
	me := strconv.Itoa(os.Getpid())
	out, errOut, code := confined(t, Rules{}, []string{"TARGET=" + me}, "/bin/bash", "-c", `kill -0 "$TARGET"`)
	if code == 0 || !strings.Contains(errOut, "not permitted") {
		t.Fatalf("signal to the parent not refused: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	out, errOut, code = confined(t, Rules{}, nil, "/bin/bash", "-c", `sleep 5 & kill "$!" && wait "$!"; echo "status $?"`)
	if code != 0 || strings.TrimSpace(out) != "status 143" {
		t.Fatalf("signal to its own child: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func TestExecFailures(t *testing.T) {
	enc, err := encode(Rules{})
	if err != nil {
		t.Fatal(err)
	}
	// These fail before Apply, so they are safe to run in the test process.
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{enc, "--", "no-such-program-mcpbash"}, 127, "not found"},
		{[]string{"junk", "--", "true"}, 126, "malformed rules"},
		{[]string{enc, "true"}, 126, "usage"},
		{[]string{enc, "--"}, 126, "usage"},
	} {
		code, err := Exec(tc.args)
		if code != tc.code || err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Exec(%q) = %d, %v; want %d and %q", tc.args, code, err, tc.code, tc.msg)
		}
	}
	// The program itself may run even outside every rule (Exec grants that one file), but
	// another program may not read it.
	d := setup(t)
	script := filepath.Join(d.outside, "prog.sh")
	if err := os.WriteFile(script, []byte("#!/bin/bash\necho prog ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := confined(t, Rules{}, nil, script); code != 0 || out != "prog ran\n" {
		t.Fatalf("program itself: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if out, errOut, code := confined(t, Rules{}, nil, "/bin/bash", script); code == 0 {
		t.Fatalf("script outside the rules read by bash: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// TestPhysicalRoots: a root whose path now leads through a symlink (the root itself or a
// directory above it swapped for a link) fails the rules before Landlock would follow the link;
// a missing root grants nothing and passes; Physical survives encoding for the child.
func TestPhysicalRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "p", "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkPhysical([]string{root, filepath.Join(base, "missing")}); err != nil {
		t.Fatalf("physical root refused: %v", err)
	}
	if err := os.Rename(filepath.Join(base, "p"), filepath.Join(base, "q")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(base, "p")); err != nil {
		t.Fatal(err)
	}
	if err := checkPhysical([]string{root}); !errors.Is(err, ErrNotPhysical) {
		t.Fatalf("root behind a swapped parent: %v, want ErrNotPhysical", err)
	}
	s, err := encode(Rules{RW: []string{root}, Physical: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := decode(s); err != nil || len(r.Physical) != 1 || r.Physical[0] != root {
		t.Fatalf("decode: %+v %v", r, err)
	}
}
