package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The Windows build under Wine (test/wine.sh sets MCPBASH_WINE, the wine64 command, and
// MCPBASH_WINE_BINARY, mcp-bash.exe built for windows/amd64). Wine maps the host's / to the
// drive Z:, so the server is given Z:\... paths: the same project files, named the Windows way.

func wineServer(t *testing.T) (wine, exe string) {
	t.Helper()
	wine, exe = os.Getenv("MCPBASH_WINE"), os.Getenv("MCPBASH_WINE_BINARY")
	if wine == "" || exe == "" {
		t.Skip("set MCPBASH_WINE and MCPBASH_WINE_BINARY (test/wine.sh does) to run the Windows build under Wine")
	}
	return wine, exe
}

// winePath is the Windows name Wine gives the host path p.
func winePath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

func wineEnv() []string {
	var env []string
	for _, k := range []string{"WINEPREFIX", "WINEDEBUG", "WINEDLLOVERRIDES", "WINESERVER"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// TestWindowsServesHelloAsLinux: initialize, tools/list and tools/call of the first example give
// the Windows build under Wine the same results as the Linux build (the version aside: the two
// builds may be stamped differently).
func TestWindowsServesHelloAsLinux(t *testing.T) {
	wine, exe := wineServer(t)
	proj := filepath.Join(harness.RepoRoot(), "examples", "00-hello-tool")
	results := func(c *harness.Client) []json.RawMessage {
		init := c.Initialize("2025-06-18", nil)
		var ir map[string]any
		init.Decode(t, &ir)
		if si, ok := ir["serverInfo"].(map[string]any); ok {
			delete(si, "version")
		}
		ib, _ := json.Marshal(ir)
		out := []json.RawMessage{ib, c.Call("tools/list", nil).Result}
		for _, args := range []string{`{"name":"Windows"}`, `{}`} {
			out = append(out, c.Call("tools/call", map[string]any{"name": "hello", "arguments": json.RawMessage(args)}).Result)
		}
		return out
	}
	linux := results(harness.Start(t, harness.Options{Dir: proj, Args: []string{"--project-root", proj}}))
	win := results(harness.Start(t, harness.Options{Binary: exe, Prefix: []string{wine}, Dir: proj,
		Args: []string{"--project-root", winePath(proj)}, Env: wineEnv()}))
	for i := range linux {
		var l, w any
		json.Unmarshal(linux[i], &l)
		json.Unmarshal(win[i], &w)
		if !reflect.DeepEqual(l, w) {
			t.Errorf("result %d differs:\nlinux:   %s\nwindows: %s", i, linux[i], win[i])
		}
	}
	if !strings.Contains(string(win[2]), "Hello, Windows!") {
		t.Errorf("hello: %s", win[2])
	}
}

// TestWindowsRootsHold: a sandboxed tool of the Windows build reads inside its root in every
// Windows spelling and nothing outside it in any: drive paths, .. and ..\, UNC paths,
// drive-relative paths, alternate data streams, device names.
func TestWindowsRootsHold(t *testing.T) {
	wine, exe := wineServer(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	proj := filepath.Join(base, "proj")
	data := filepath.Join(proj, "data")
	writeTree(t, proj, map[string]string{
		"server.d/server.meta.json": `{"name":"winroots"}`,
		"tools/read/tool.meta.json": `{"name":"read","description":"cat a path","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}`,
		"tools/read/tool.sh":        "#!/usr/bin/env bash\r\ncat -- \"$(mcp_args_get .path)\"\r\n", // CRLF, as autocrlf checks it out
		"data/in.txt":               "inside\n",
	})
	if err := os.WriteFile(filepath.Join(base, "outside.txt"), []byte("SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := harness.Start(t, harness.Options{Binary: exe, Prefix: []string{wine}, Dir: proj,
		Args: []string{"--project-root", winePath(proj)}, Env: append(wineEnv(), "MCPBASH_ROOTS="+winePath(data))})
	c.Initialize("2025-06-18", nil)
	read := func(p string) (string, bool) {
		m := c.Call("tools/call", map[string]any{"name": "read", "arguments": map[string]string{"path": p}})
		var r struct {
			IsError bool `json:"isError"`
		}
		m.Decode(t, &r)
		return text(m), r.IsError
	}
	for _, p := range []string{winePath(data) + `\in.txt`, "/z" + data + "/in.txt", strings.ToUpper("/z"+data) + "/IN.TXT", winePath(data) + "/sub/../in.txt"} {
		if out, isErr := read(p); isErr || out != "inside" {
			t.Errorf("read %s inside the root: %q (isError %v)", p, out, isErr)
		}
	}
	for _, p := range []string{
		winePath(base) + `\outside.txt`, "/z" + base + "/outside.txt", winePath(data) + `\..\..\outside.txt`,
		winePath(data) + "/../../outside.txt", `..\..\outside.txt`, "../../../outside.txt",
		`\\localhost\Z$` + strings.ReplaceAll(base, "/", `\`) + `\outside.txt`, `\\server\share\outside.txt`,
		`Z:outside.txt`, `C:\windows\win.ini`, `C:/windows/win.ini`, winePath(data) + `\in.txt:stream`,
		winePath(data) + `\NUL`,
	} {
		out, isErr := read(p)
		if !isErr || strings.Contains(out, "SECRET") || strings.Contains(out, "mcp_args_get") ||
			!(strings.Contains(out, "No such file or directory") || strings.Contains(out, "Permission denied")) {
			t.Errorf("read %s outside the root: %q (isError %v)", p, out, isErr)
		}
	}
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWindowsNativeNeedsConsent: Windows has no OS confinement, so a native tool runs only
// with the operator's consent (MCPBASH_NATIVE_UNCONFINED), and says so; with it, the tool
// needs Git-Bash, which Wine does not have, and says that.
func TestWindowsNativeNeedsConsent(t *testing.T) {
	wine, exe := wineServer(t)
	proj := t.TempDir()
	writeTree(t, proj, map[string]string{
		"server.d/server.meta.json":   `{"name":"winnative"}`,
		"tools/native/tool.meta.json": `{"name":"native","description":"real bash","exec":"native","inputSchema":{"type":"object"}}`,
		"tools/native/tool.sh":        "#!/usr/bin/env bash\necho native\n",
	})
	call := func(env ...string) string {
		c := harness.Start(t, harness.Options{Binary: exe, Prefix: []string{wine}, Dir: proj,
			Args: []string{"--project-root", winePath(proj)}, Env: append(append(wineEnv(), "MCPBASH_TOOL_ALLOWLIST=*"), env...)})
		c.Initialize("2025-06-18", nil)
		return text(c.Call("tools/call", map[string]any{"name": "native", "arguments": map[string]any{}}))
	}
	if out := call(); !strings.Contains(out, "no OS confinement") || !strings.Contains(out, "MCPBASH_NATIVE_UNCONFINED=true") {
		t.Errorf("without consent: %q", out)
	}
	if out := call("MCPBASH_NATIVE_UNCONFINED=true"); !strings.Contains(out, "bash.exe not found") {
		t.Errorf("with consent, no Git-Bash: %q", out)
	}
}
