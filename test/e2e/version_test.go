package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// --version, the version verb and its JSON form report the one version the binary was built
// with, never a placeholder; serverInfo.version is the project's, or the binary's without one.
func TestVersionEverywhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, e, code := runCLI(t, dir, nil, "version", "--json")
	var v struct{ Version, Commit, Go, Platform string }
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		t.Fatalf("version --json: code %d stdout %q stderr %q", code, out, e)
	}
	if v.Version == "" || v.Version == "0.1.0-dev" || strings.HasPrefix(v.Version, "v") || !strings.HasPrefix(v.Go, "go1.") || !strings.Contains(v.Platform, "/") {
		t.Fatalf("version --json: %+v", v)
	}
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if o, _, code := runCLI(t, dir, nil, args...); code != 0 || o != "mcp-bash "+v.Version+"\n" {
			t.Errorf("%v: code %d %q, want %q", args, code, o, "mcp-bash "+v.Version)
		}
	}

	// A project reports its own version (the original's rule: server.meta.json, VERSION,
	// package.json, else 0.0.0); with no project, the built-in getting-started server is
	// mcp-bash itself and reports the binary's.
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"project without a version", writeProject(t, map[string]string{"server.d/server.meta.json": `{"name":"unversioned"}`}), "0.0.0"},
		{"project with a VERSION file", writeProject(t, map[string]string{"server.d/server.meta.json": `{"name":"v"}`, "VERSION": "3.1.4\n"}), "3.1.4"},
		{"no project", t.TempDir(), v.Version},
	} {
		c := harness.Start(t, harness.Options{Dir: tc.dir})
		var r struct {
			ServerInfo struct{ Name, Version string } `json:"serverInfo"`
		}
		c.Initialize("2025-11-25", nil).Decode(t, &r)
		c.CloseStdin()
		_ = c.Wait(5 * time.Second)
		if r.ServerInfo.Version != tc.want {
			t.Errorf("%s: serverInfo %+v, want version %q", tc.name, r.ServerInfo, tc.want)
		}
	}
}
