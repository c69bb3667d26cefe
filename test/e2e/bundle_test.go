package e2e

import (
	"archive/zip"
	"debug/elf"
	"debug/pe"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// bundleProject is a fresh `mcp-bash new` project with a few files a bundle must leave out.
func bundleProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if _, e, code := runCLI(t, dir, nil, "new", "demo"); code != 0 {
		t.Fatalf("new: %s", e)
	}
	proj := filepath.Join(dir, "demo")
	for name, body := range map[string]string{".env": "SECRET=1\n", ".git/config": "x", "old.mcpb": "zip", "data/notes.txt": "notes\n"} {
		p := filepath.Join(proj, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return proj
}

// unzipBundle extracts a bundle, keeping file modes, and returns the directory and the names.
func unzipBundle(t *testing.T, path string) (string, []string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dir := t.TempDir()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		dst := filepath.Join(dir, filepath.FromSlash(f.Name))
		os.MkdirAll(filepath.Dir(dst), 0o755)
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, f.Mode().Perm())
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(w, r)
		r.Close()
		w.Close()
	}
	return dir, names
}

type mcpbManifest struct {
	ManifestVersion string `json:"manifest_version"`
	Name, Version   string
	Author          struct{ Name string }
	Server          struct {
		Type       string
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command           string
			Args              []string
			Env               map[string]string
			PlatformOverrides map[string]struct{ Command string } `json:"platform_overrides"`
		} `json:"mcp_config"`
	}
	Tools         []struct{ Name, Description string }
	Compatibility struct{ Platforms []string }
	Keywords      []string
}

func readManifest(t *testing.T, dir string) mcpbManifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m mcpbManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("manifest: %v\n%s", err, data)
	}
	return m
}

// startBundle starts the server the way an MCPB client does: mcp_config with ${__dirname}
// replaced by the directory the bundle was unpacked in.
func startBundle(t *testing.T, dir string, m mcpbManifest) *harness.Client {
	t.Helper()
	sub := func(s string) string { return strings.ReplaceAll(s, "${__dirname}", dir) }
	var args, env []string
	for _, a := range m.Server.MCPConfig.Args {
		args = append(args, sub(a))
	}
	for k, v := range m.Server.MCPConfig.Env {
		env = append(env, k+"="+sub(v))
	}
	c := harness.Start(t, harness.Options{Binary: sub(m.Server.MCPConfig.Command), Dir: t.TempDir(), Args: args, Env: env})
	c.Initialize("2025-11-25", nil)
	return c
}

// TestBundle writes a one-platform bundle, checks its contents and manifest, and serves from it.
func TestBundle(t *testing.T) {
	t.Parallel()
	proj := bundleProject(t)
	os.WriteFile(filepath.Join(proj, "server.d", "mcpb.json"), []byte(`{"keywords":["demo"],"license":"MIT"}`), 0o644)
	out, e, code := runCLI(t, proj, nil, "bundle", "--author", "Ada Lovelace", "--output", "dist", "--json")
	if code != 0 {
		t.Fatalf("bundle: exit %d\n%s\n%s", code, out, e)
	}
	var res struct {
		Path      string
		Platforms []string
		Files     []string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if res.Path != filepath.Join(proj, "dist", "demo-0.1.0.mcpb") || len(res.Platforms) != 1 || res.Platforms[0] != runtime.GOOS+"-"+runtime.GOARCH {
		t.Errorf("result: %s", out)
	}
	dir, names := unzipBundle(t, res.Path)
	if names[0] != "manifest.json" {
		t.Errorf("manifest.json is not first: %v", names)
	}
	have := strings.Join(names, "\n") + "\n"
	for _, want := range []string{"manifest.json\n", "server/mcp-bash\n", "server/project/server.d/server.meta.json\n", "server/project/tools/hello/tool.sh\n", "server/project/data/notes.txt\n", "server/project/server.d/mcpb.json\n"} {
		if !strings.Contains(have, want) {
			t.Errorf("bundle lacks %s", want)
		}
	}
	for _, bad := range []string{".env", ".git", ".gitignore", "old.mcpb", ".registry", "dist/"} {
		if strings.Contains(have, bad) {
			t.Errorf("bundle has %s:\n%s", bad, have)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "server", "mcp-bash")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("server binary not executable: %v %v", fi, err)
	}
	m := readManifest(t, dir)
	if m.ManifestVersion != "0.3" || m.Name != "demo" || m.Version != "0.1.0" || m.Author.Name != "Ada Lovelace" ||
		m.Server.Type != "binary" || m.Server.EntryPoint != "server/mcp-bash" ||
		m.Server.MCPConfig.Command != "${__dirname}/server/mcp-bash" || m.Server.MCPConfig.Env["MCPBASH_TOOL_ALLOWLIST"] != "*" ||
		len(m.Tools) != 1 || m.Tools[0].Name != "hello" || len(m.Compatibility.Platforms) != 1 || m.Compatibility.Platforms[0] != runtime.GOOS ||
		len(m.Keywords) != 1 {
		t.Errorf("manifest: %+v", m)
	}
	c := startBundle(t, dir, m)
	r := c.Call("tools/call", map[string]any{"name": "hello", "arguments": map[string]any{"name": "Bundle"}})
	if !strings.Contains(string(r.Raw), "Hello, Bundle!") {
		t.Errorf("tools/call from the bundle: %s\n%s", r.Raw, c.Stderr())
	}
	// A fresh project bundles as generated: new wrote the user as its author.
	if out, e, code := runCLI(t, proj, nil, "bundle", "--output", "fresh.mcpb"); code != 0 {
		t.Errorf("bundle of a fresh project: exit %d\n%s\n%s", code, out, e)
	}
	// The author can come from server.meta.json; the default output is the working directory.
	os.WriteFile(filepath.Join(proj, "server.d", "server.meta.json"), []byte(`{"name":"demo","version":"2.0.0","description":"d","author":{"name":"Meta Author","email":"a@example.com"}}`), 0o644)
	if out, e, code := runCLI(t, proj, nil, "bundle"); code != 0 || !strings.Contains(out, "wrote "+filepath.Join(proj, "demo-2.0.0.mcpb")) {
		t.Errorf("bundle: exit %d\n%s\n%s", code, out, e)
	}
}

// Invalid manifests and impossible requests exit 2 with a clear message and write nothing.
func TestBundleErrors(t *testing.T) {
	t.Parallel()
	proj := bundleProject(t)
	for _, tc := range []struct {
		name, overlay string
		args          []string
		want          string
	}{
		{"no author", "", nil, "author: is required (pass --author NAME"}, // server.meta.json rewritten without one below
		{"bad version", "", []string{"--author", "A", "--version", "v1"}, `version: must be a semantic version such as 1.0.0, not "v1"`},
		{"overlay types", `{"keywords":"a,b","author":{"name":"A","email":5},"server":{"type":"ruby"}}`, nil,
			"author.email: must be a string, not a number\n  keywords: must be an array, not a string\n  server.type: must be one of binary, node, python, uv, not \"ruby\""},
		{"overlay not an object", `[1]`, []string{"--author", "A"}, "server.d/mcpb.json: must be a JSON object"},
		{"entry point missing", `{"server":{"entry_point":"server/nope"}}`, []string{"--author", "A"}, `server.entry_point: "server/nope" is not in the bundle`},
		{"unknown platform", "", []string{"--author", "A", "--platform", "plan9-mips"}, `unknown platform "plan9-mips"`},
		{"no source", "", []string{"--author", "A", "--platform", "linux-amd64,linux-arm64,darwin-arm64", "--source", "/nonexistent"}, "cannot build"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "p")
			if out, err := runCmdOut("cp", "-a", proj, p); err != nil {
				t.Fatal(out)
			}
			if tc.overlay != "" {
				os.WriteFile(filepath.Join(p, "server.d", "mcpb.json"), []byte(tc.overlay), 0o644)
			}
			if tc.name == "no author" {
				os.WriteFile(filepath.Join(p, "server.d", "server.meta.json"), []byte(`{"name":"demo","version":"0.1.0"}`), 0o644)
			}
			out, e, code := runCLI(t, p, nil, append([]string{"bundle", "--output", "out.mcpb"}, tc.args...)...)
			if code != 2 || !strings.Contains(e, tc.want) {
				t.Errorf("exit %d (want 2), stderr does not contain %q:\n%s\nstdout: %s", code, tc.want, e, out)
			}
			if _, err := os.Stat(filepath.Join(p, "out.mcpb")); err == nil {
				t.Error("a bundle was written")
			}
		})
	}
}

// A multi-platform bundle cross-compiles the other platforms from the source checkout, two at
// once with progress on stderr, starts the right Unix binary through its launcher and names the
// Windows binary in the manifest's win32 override; a second bundle reuses the binaries of a
// GoReleaser dist/ of the same version instead of building, and passes over one of another
// version. (darwin is left to host/internal/bundle's tests, to build one platform less here.)
func TestBundleCrossPlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the server")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the platform pair below assumes a linux-amd64 host")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	t.Parallel()
	proj := bundleProject(t)
	// The go command with the caller's build and module caches, offline.
	env := []string{"PATH=" + filepath.Dir(goBin) + ":/usr/bin:/bin", "GOTOOLCHAIN=local", "GOPROXY=off"}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS"} {
		if v, err := exec.Command(goBin, "env", k).Output(); err == nil {
			env = append(env, k+"="+strings.TrimSpace(string(v)))
		}
	}
	noRelease := t.TempDir() // so that a dist/ in the checkout is not used
	out, e, code := runCLI(t, proj, env, "bundle", "--author", "A", "--platform", "linux-amd64,linux-arm64,windows-amd64",
		"--source", harness.RepoRoot(), "--binaries", noRelease, "--output", "multi.mcpb")
	if code != 0 {
		t.Fatalf("bundle: exit %d\n%s\n%s", code, out, e)
	}
	for _, want := range []string{"linux-amd64: this binary", "building 2 platform(s) from " + harness.RepoRoot() + ", 2 at a time",
		"linux-arm64: building", "windows-amd64: building", "linux-arm64: built in", "windows-amd64: built in", "(2 of 2)", "built 2 platform(s) in"} {
		if !strings.Contains(e, want) {
			t.Errorf("progress lacks %q:\n%s", want, e)
		}
	}
	dir, names := unzipBundle(t, filepath.Join(proj, "multi.mcpb"))
	have := strings.Join(names, "\n")
	for _, want := range []string{"server/mcp-bash", "server/bin/linux-amd64/mcp-bash", "server/bin/linux-arm64/mcp-bash", "server/bin/windows-amd64/mcp-bash.exe"} {
		if !strings.Contains(have, want) {
			t.Errorf("bundle lacks %s:\n%s", want, have)
		}
	}
	arm64 := filepath.Join(dir, "server", "bin", "linux-arm64", "mcp-bash")
	if f, err := elf.Open(arm64); err != nil || f.Machine != elf.EM_AARCH64 {
		t.Errorf("linux-arm64 binary: %v", err)
	} else {
		f.Close()
	}
	if f, err := pe.Open(filepath.Join(dir, "server", "bin", "windows-amd64", "mcp-bash.exe")); err != nil || f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("windows-amd64 binary: %v", err)
	} else {
		f.Close()
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "server", "mcp-bash")); !strings.HasPrefix(string(b), "#!/bin/sh") || strings.Contains(string(b), "windows") {
		t.Errorf("entry point is not the launcher of the Unix binaries:\n%.400s", b)
	}
	m := readManifest(t, dir)
	if got := m.Server.MCPConfig.PlatformOverrides["win32"].Command; got != "${__dirname}/server/bin/windows-amd64/mcp-bash.exe" {
		t.Errorf("win32 command %q", got)
	}
	if got := strings.Join(m.Compatibility.Platforms, ","); got != "linux,win32" {
		t.Errorf("compatibility.platforms %q", got)
	}
	c := startBundle(t, dir, m)
	r := c.Call("tools/call", map[string]any{"name": "hello", "arguments": map[string]any{}})
	if !strings.Contains(string(r.Raw), "Hello, World!") {
		t.Errorf("tools/call through the launcher: %s\n%s", r.Raw, c.Stderr())
	}

	// The binaries of a GoReleaser dist/ of this version are used as they are, with no source
	// checkout and no go command.
	o, _, _ := runCLI(t, proj, nil, "version")
	version := strings.TrimSpace(strings.TrimPrefix(o, "mcp-bash "))
	dist := t.TempDir()
	distBin := filepath.Join(dist, "mcp-bash_linux_arm64_v8.0", "mcp-bash")
	copyFile(t, arm64, distBin)
	writeMeta := func(v string) {
		t.Helper()
		meta, _ := json.Marshal(map[string]any{"project_name": "mcp-bash", "version": v})
		if err := os.WriteFile(filepath.Join(dist, "metadata.json"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeMeta(version)
	out, e, code = runCLI(t, proj, nil, "bundle", "--author", "A", "--platform", "linux-amd64,linux-arm64",
		"--source", "/nonexistent", "--binaries", dist, "--output", "reuse.mcpb")
	if code != 0 || strings.Contains(e, "building") || !strings.Contains(e, "linux-arm64: release binary "+distBin) {
		t.Fatalf("bundle from release binaries: exit %d\n%s\n%s", code, out, e)
	}
	dir2, _ := unzipBundle(t, filepath.Join(proj, "reuse.mcpb"))
	a, _ := os.ReadFile(arm64)
	b, _ := os.ReadFile(filepath.Join(dir2, "server", "bin", "linux-arm64", "mcp-bash"))
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the bundle does not hold the release binary")
	}

	// A dist/ of another version is not used, and says so.
	writeMeta(version + ".other")
	out, e, code = runCLI(t, proj, nil, "bundle", "--author", "A", "--platform", "linux-arm64",
		"--source", "/nonexistent", "--binaries", dist, "--output", "stale.mcpb")
	if code != 2 || !strings.Contains(e, "they are version "+version+".other, this binary is "+version) || !strings.Contains(e, "cannot build linux-arm64") {
		t.Errorf("bundle with a dist/ of another version: exit %d (want 2)\n%s\n%s", code, out, e)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
