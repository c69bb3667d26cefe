package bundle

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// miniSource writes a source checkout of ModulePath whose server is a program of a few lines
// (src is its main.go), so that cross-compiling it is quick.
func miniSource(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{
		"go.mod":               "module " + ModulePath + "\n\ngo 1.26\n",
		"cmd/mcp-bash/main.go": src,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goCommand is the go command for a test that cross-compiles, with the local toolchain only.
func goCommand(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("cross-compiles")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOTOOLCHAIN", "local")
	return goBin
}

// Binaries builds the platforms it has no binary for Jobs at a time, stamped with the version
// and commit, with a progress line as each starts and ends. The builds' link steps wait for one
// another (a -toolexec barrier), so that builds one at a time would never finish: the test
// fails at the barrier's backstop rather than passing. The platforms are of every OS the
// release targets; the program is a few lines, so that the test stays quick.
func TestBinariesParallel(t *testing.T) {
	goBin := goCommand(t)
	src := miniSource(t, "package main\n\nvar version, commit string\n\nfunc main() { println(version, commit) }\n")
	barrier := t.TempDir()
	script := filepath.Join(t.TempDir(), "barrier.sh")
	// Each link marks its arrival, then waits (5 minutes at most) until two have arrived.
	if err := os.WriteFile(script, []byte(`#!/bin/sh
case "$1 $2" in
*/link" -V=full") ;;
*/link*)
	: >"`+barrier+`/$$"
	n=0
	while [ "$(ls "`+barrier+`" | wc -l)" -lt 2 ]; do
		n=$((n + 1))
		if [ $n -gt 3000 ]; then echo "barrier: no other link ran alongside this one" >&2; exit 1; fi
		sleep 0.1
	done ;;
esac
exec "$@"
`), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-toolexec="+script)

	var log bytes.Buffer
	b := &Builder{Self: "/self", Source: src, GoBin: goBin, Version: "9.8.7-stamptest", Commit: "c0ffee5eed", Jobs: 2, Log: &log}
	ps := []Platform{Current(), {"linux", "arm64"}, {"darwin", "arm64"}, {"windows", "amd64"}}
	if Current() == ps[1] {
		ps[1] = Platform{"linux", "amd64"}
	}
	got, err := b.Binaries(context.Background(), ps, t.TempDir())
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if got[Current()] != "/self" {
		t.Errorf("own platform: %q", got[Current()])
	}
	for _, p := range ps[1:] {
		p2, ok := platformOf(got[p])
		if !ok || p2 != p || filepath.Base(got[p]) != p.binaryName() {
			t.Errorf("%s: %s is %v %v", p, got[p], p2, ok)
		}
		if data, err := os.ReadFile(got[p]); err != nil || !bytes.Contains(data, []byte("9.8.7-stamptest")) || !bytes.Contains(data, []byte("c0ffee5eed")) {
			t.Errorf("%s: version and commit not stamped: %v", p, err)
		}
		for _, want := range []string{p.String() + ": building\n", p.String() + ": built in "} {
			if !strings.Contains(log.String(), want) {
				t.Errorf("progress lacks %q:\n%s", want, log.String())
			}
		}
	}
	for _, want := range []string{Current().String() + ": this binary", "building 3 platform(s) from " + src + ", 2 at a time", "(3 of 3)", "built 3 platform(s) in "} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, log.String())
		}
	}
	if n, _ := os.ReadDir(barrier); len(n) != 3 {
		t.Errorf("%d links, want 3", len(n))
	}
}

// A build that fails says which platform and why, and the other builds stop with it.
func TestBinariesBuildFails(t *testing.T) {
	goBin := goCommand(t)
	src := miniSource(t, "package main\n\nfunc main() { undefinedName() }\n")
	b := &Builder{Self: "/self", Source: src, GoBin: goBin, Version: "1.2.3"}
	_, err := b.Binaries(context.Background(), []Platform{{"linux", "arm64"}, {"windows", "amd64"}}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "undefined: undefinedName") || !strings.Contains(err.Error(), "building ") {
		t.Errorf("err = %v", err)
	}
}

// The binaries of a GoReleaser dist/ of the running version are used as they are; those of
// another version, or of a folder that is not a dist/, are passed over with a line saying so.
func TestReleaseBinaries(t *testing.T) {
	goBin := goCommand(t)
	src := miniSource(t, "package main\n\nfunc main() {}\n")
	other := Platform{"linux", "arm64"}
	if Current() == other {
		other = Platform{"linux", "amd64"}
	}
	dist := t.TempDir()
	bin, err := (&Builder{Source: src, GoBin: goBin, Version: "2.0.0"}).build(context.Background(), other, dist)
	if err != nil {
		t.Fatal(err)
	}
	writeMeta := func(content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dist, "metadata.json"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	windows := Platform{"windows", "amd64"}
	for _, tc := range []struct {
		name, meta, version string
		reused              bool
		log                 string
	}{
		{"same version", `{"project_name":"mcp-bash","version":"2.0.0"}`, "2.0.0", true, ""},
		{"other version", `{"version":"1.0.0"}`, "2.0.0", false, "they are version 1.0.0, this binary is 2.0.0"},
		{"no metadata", "", "2.0.0", false, "no metadata.json: it is not a GoReleaser dist/ folder"},
		{"metadata without a version", `{"version":""}`, "2.0.0", false, "metadata.json names no version"},
		{"development binary", `{"version":"devel"}`, "devel", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(dist, "metadata.json"))
			if tc.meta != "" {
				writeMeta(tc.meta)
			}
			var log bytes.Buffer
			b := &Builder{Self: "/self", Version: tc.version, ReleaseDir: dist, Log: &log}
			have, build := b.plan([]Platform{Current(), other, windows})
			if have[Current()] != "/self" {
				t.Errorf("own platform %q", have[Current()])
			}
			if tc.reused && (have[other] != bin || len(build) != 1 || build[0] != windows) {
				t.Errorf("have %v build %v, want %s reused", have, build, bin)
			}
			if !tc.reused && (have[other] != "" || len(build) != 2) {
				t.Errorf("have %v build %v, want nothing reused", have, build)
			}
			if !strings.Contains(log.String(), tc.log) || (tc.log == "") != (log.Len() == 0) {
				t.Errorf("log %q, want %q", log.String(), tc.log)
			}
		})
	}
}
