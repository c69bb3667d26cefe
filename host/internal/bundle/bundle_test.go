package bundle

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func valid() map[string]any {
	return Manifest(Info{Name: "demo", Title: "Demo", Version: "1.2.3", Description: "d",
		Author: map[string]any{"name": "Ada"}, Tools: []Tool{{"hello", "hi"}}, Platforms: []Platform{{"linux", "amd64"}, {"darwin", "arm64"}}})
}

func TestGeneratedManifestIsValid(t *testing.T) {
	m := valid()
	// Round-trip through JSON, as a client reads it.
	b, _ := json.Marshal(m)
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if ps := Validate(back); len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if got := back["compatibility"].(map[string]any)["platforms"]; len(got.([]any)) != 2 {
		t.Errorf("platforms: %v", got)
	}
}

func TestValidateProblems(t *testing.T) {
	for _, tc := range []struct {
		name    string
		overlay string
		want    string
	}{
		{"missing author", `{"author":null}`, "author: must be an object, not null"},
		{"author name type", `{"author":{"name":5}}`, "author.name: must be a string, not a number"},
		{"author extra", `{"author":{"name":"a","twitter":"x"}}`, "author.twitter: unknown field"},
		{"bad version", `{"version":"v1"}`, `version: must be a semantic version such as 1.0.0, not "v1"`},
		{"keywords type", `{"keywords":"a,b"}`, "keywords: must be an array, not a string"},
		{"keyword item", `{"keywords":["a",1]}`, "keywords[1]: must be a string, not a number"},
		{"unknown top-level", `{"colour":"red"}`, "colour: unknown field"},
		{"server type", `{"server":{"type":"ruby"}}`, `server.type: must be one of binary, node, python, uv, not "ruby"`},
		{"command type", `{"server":{"mcp_config":{"command":["x"]}}}`, "server.mcp_config.command: must be a string, not an array"},
		{"env values", `{"server":{"mcp_config":{"env":{"A":1}}}}`, "server.mcp_config.env.A: must be a string, not a number"},
		{"override platform", `{"server":{"mcp_config":{"platform_overrides":{"macos":{}}}}}`, "server.mcp_config.platform_overrides.macos: unknown platform"},
		{"homepage", `{"homepage":"example.com"}`, `homepage: must be an absolute URL, not "example.com"`},
		{"platform enum", `{"compatibility":{"platforms":["beos"]}}`, `compatibility.platforms[0]: must be one of darwin, win32, linux, not "beos"`},
		{"user_config", `{"user_config":{"key":{"type":"secret","title":"K"}}}`, `user_config.key.description: is required`},
		{"user_config type", `{"user_config":{"key":{"type":"secret","title":"K","description":"d"}}}`, `user_config.key.type: must be one of`},
		{"prompt text", `{"prompts":[{"name":"p"}]}`, "prompts[0].text: is required"},
		{"icons size", `{"icons":[{"src":"i.png","size":"big"}]}`, `icons[0].size: must be WIDTHxHEIGHT`},
		{"localization", `{"localization":{"resources":"x.json","default_locale":"en-US"}}`, "localization.resources: must contain the ${locale} placeholder"},
		{"manifest_version", `{"manifest_version":"9"}`, `manifest_version: must be one of`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o map[string]any
			if err := json.Unmarshal([]byte(tc.overlay), &o); err != nil {
				t.Fatal(err)
			}
			ps := Validate(Merge(valid(), o))
			var all []string
			for _, p := range ps {
				all = append(all, p.String())
			}
			if !strings.Contains(strings.Join(all, "\n"), tc.want) {
				t.Errorf("want %q in:\n%s", tc.want, strings.Join(all, "\n"))
			}
		})
	}
	m := valid()
	delete(m, "author")
	delete(m, "server")
	ps := Validate(m)
	if len(ps) != 2 || ps[0].String() != "author: is required" || ps[1].String() != "server: is required" {
		t.Errorf("required: %v", ps)
	}
}

func TestParsePlatforms(t *testing.T) {
	ps, err := ParsePlatforms("linux-amd64, darwin/arm64,linux-amd64")
	if err != nil || len(ps) != 2 || ps[1] != (Platform{"darwin", "arm64"}) {
		t.Errorf("%v %v", ps, err)
	}
	if ps, _ := ParsePlatforms(""); len(ps) != 1 || ps[0] != Current() {
		t.Errorf("default: %v", ps)
	}
	if ps, _ := ParsePlatforms("all"); !slices.Equal(ps, All) || len(ps) != len(Supported)-1 {
		t.Errorf("all: %v", ps)
	}
	for _, tc := range []struct{ in, err string }{
		{"windows-386", "unknown platform"},
		{"freebsd-amd64", "unknown platform"},
		{",", "names no platform"},
		{"all,windows-arm64", "a bundle holds one Windows binary"},
		{"windows-amd64,windows/arm64", "not windows-amd64, windows-arm64"},
	} {
		if _, err := ParsePlatforms(tc.in); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
		}
	}
	if ps, err := ParsePlatforms("windows-arm64,linux-arm64"); err != nil || len(ps) != 2 {
		t.Errorf("windows-arm64 alone: %v %v", ps, err)
	}
	// The original's names: an operating system means each of its architectures.
	if ps, _ := ParsePlatforms("darwin"); len(ps) != 2 || ps[0].OS != "darwin" || ps[1].OS != "darwin" {
		t.Errorf("darwin: %v", ps)
	}
	if ps, err := ParsePlatforms("win32"); err != nil || len(ps) != 1 || ps[0] != (Platform{"windows", "amd64"}) {
		t.Errorf("win32: %v %v", ps, err)
	}
}

// Hosting secrets never enter a bundle: auth.json, the API keys file it names, api-keys and
// tenants.json; every other project file does.
func TestProjectFilesLeaveSecretsOut(t *testing.T) {
	t.Run("files", func(t *testing.T) { testProjectFilesLeaveSecretsOut(t, "server.d/api-keys", "server.d/api-keys") })
	// server.d/api-keys as a directory of key files: none of them is packed.
	t.Run("api-keys directory", func(t *testing.T) { testProjectFilesLeaveSecretsOut(t, "server.d/api-keys/a", "server.d/api-keys") })
}

func testProjectFilesLeaveSecretsOut(t *testing.T, apiKeys, warned string) {
	root := t.TempDir()
	for name, body := range map[string]string{
		"server.d/server.meta.json": `{"name":"s"}`, "server.d/auth.json": `{"apiKeysFile":"../secrets/keys"}`,
		"secrets/keys": "k", apiKeys: "k", "server.d/tenants.json": "{}", "tools/t/tool.sh": "echo",
		"data/tenants.json": "not a secret here",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var warn strings.Builder
	files, err := projectFiles(root, "", &warn)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, strings.TrimPrefix(f.Name, ProjectDir+"/"))
	}
	want := "data/tenants.json server.d/server.meta.json tools/t/tool.sh"
	if strings.Join(got, " ") != want {
		t.Errorf("files %v, want %s", got, want)
	}
	for _, s := range []string{"server.d/auth.json", "secrets/keys", warned, "server.d/tenants.json"} {
		if !strings.Contains(warn.String(), "left out "+s+": secrets are never bundled") {
			t.Errorf("no warning for %s: %s", s, warn.String())
		}
	}
}

// Where each platform's binary lands and what starts it: one platform is the entry point
// itself; several get the launcher, and Windows its own command.
func TestLayoutAndManifest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ps       []Platform
		entry    string
		bins     map[Platform]string
		override string // win32 command, "" for none
	}{
		{name: "linux alone", ps: []Platform{{"linux", "arm64"}}, entry: "server/mcp-bash",
			bins: map[Platform]string{{"linux", "arm64"}: "server/mcp-bash"}},
		{name: "windows alone", ps: []Platform{{"windows", "amd64"}}, entry: "server/mcp-bash.exe",
			bins: map[Platform]string{{"windows", "amd64"}: "server/mcp-bash.exe"}},
		{name: "all", ps: All, entry: "server/mcp-bash", bins: map[Platform]string{
			{"linux", "amd64"}: "server/bin/linux-amd64/mcp-bash", {"linux", "arm64"}: "server/bin/linux-arm64/mcp-bash",
			{"darwin", "amd64"}: "server/bin/darwin-amd64/mcp-bash", {"darwin", "arm64"}: "server/bin/darwin-arm64/mcp-bash",
			{"windows", "amd64"}: "server/bin/windows-amd64/mcp-bash.exe"},
			override: "${__dirname}/server/bin/windows-amd64/mcp-bash.exe"},
		{name: "unix only", ps: []Platform{{"linux", "amd64"}, {"darwin", "arm64"}}, entry: "server/mcp-bash", bins: map[Platform]string{
			{"linux", "amd64"}: "server/bin/linux-amd64/mcp-bash", {"darwin", "arm64"}: "server/bin/darwin-arm64/mcp-bash"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ep, bins := archivePaths(tc.ps)
			if ep != tc.entry || !maps.Equal(bins, tc.bins) {
				t.Fatalf("entry %q bins %v, want %q %v", ep, bins, tc.entry, tc.bins)
			}
			m := Manifest(Info{Name: "demo", Version: "1.0.0", Description: "d", Author: map[string]any{"name": "A"}, Platforms: tc.ps})
			if ps := Validate(m); len(ps) != 0 {
				t.Fatalf("problems: %v", ps)
			}
			srv := m["server"].(map[string]any)
			cfg := srv["mcp_config"].(map[string]any)
			if srv["entry_point"] != tc.entry || cfg["command"] != "${__dirname}/"+tc.entry {
				t.Errorf("entry_point %v command %v", srv["entry_point"], cfg["command"])
			}
			got := ""
			if o, ok := cfg["platform_overrides"].(map[string]any); ok {
				got = o["win32"].(map[string]any)["command"].(string)
			}
			if got != tc.override {
				t.Errorf("win32 override %q, want %q", got, tc.override)
			}
			// Every path the manifest names is in an archive with these binaries.
			var files []entry
			for _, b := range bins {
				files = append(files, entry{Name: b})
			}
			if len(bins) > 1 {
				files = append(files, entry{Name: EntryPoint})
			}
			if ps := archiveProblems(m, files); len(ps) != 0 {
				t.Errorf("archive problems: %v", ps)
			}
			if ps := archiveProblems(m, files[:0]); len(ps) == 0 || ps[0].Field != "server.entry_point" {
				t.Errorf("an empty archive: %v", ps)
			}
		})
	}
}

// The launcher is valid POSIX sh and names every platform but Windows (which the manifest
// starts directly).
func TestLauncher(t *testing.T) {
	s := launcher(All)
	for _, want := range []string{"Linux-x86_64|Linux-amd64) platform=linux-amd64 ;;", "Darwin-aarch64|Darwin-arm64) platform=darwin-arm64 ;;"} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %q in:\n%s", want, s)
		}
	}
	if strings.Contains(s, "windows") {
		t.Errorf("the launcher names windows:\n%s", s)
	}
	if sh, err := exec.LookPath("sh"); err == nil {
		if out, err := exec.Command(sh, "-n", "-c", s).CombinedOutput(); err != nil {
			t.Errorf("sh -n: %v %s", err, out)
		}
	}
}
