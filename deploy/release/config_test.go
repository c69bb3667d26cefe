// Package release holds the release dry run (dry-run.sh, make release-snapshot) and the checks
// on .goreleaser.yaml that need no build: the settings a reproducible release depends on, and
// that README.md's download links name archives the pipeline writes.
package release

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// config is the part of .goreleaser.yaml these checks read; unknown fields are ignored here
// (GoReleaser itself checks the file strictly when it runs).
type config struct {
	Builds   []build
	Archives []struct {
		Formats         []string
		FormatOverrides []struct {
			Goos    string
			Formats []string
		} `json:"format_overrides"`
		NameTemplate string `json:"name_template"`
		BuildsInfo   struct {
			Mtime string
		} `json:"builds_info"`
		Files []struct {
			Src  string
			Info struct{ Mtime string }
		}
	}
	Checksum struct {
		Algorithm string
	}
	Sboms []struct {
		Env []string
	}
}

type build struct {
	ID           string
	Goos, Goarch []string
	Flags        []string
	Ldflags      []string
	ModTimestamp string `json:"mod_timestamp"`
	Hooks        struct {
		Post []struct {
			Cmd string
			Env []string
		}
	}
}

func load(t *testing.T) config {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c config
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Builds) == 0 || len(c.Archives) == 0 {
		t.Fatalf("no builds or archives in .goreleaser.yaml")
	}
	return c
}

// Every input that could vary between two builds of one commit is pinned to the commit.
func TestConfigReproducible(t *testing.T) {
	c := load(t)
	const commitTime = "{{ .CommitTimestamp }}"
	for _, b := range c.Builds {
		for _, f := range []string{"-trimpath", "-buildvcs=false"} {
			if !slices.Contains(b.Flags, f) {
				t.Errorf("build %s: no %s", b.ID, f)
			}
		}
		if b.ModTimestamp != commitTime {
			t.Errorf("build %s: mod_timestamp %q, want %q", b.ID, b.ModTimestamp, commitTime)
		}
		for _, l := range b.Ldflags {
			if strings.Contains(l, ".Date") || strings.Contains(l, ".Now") || strings.Contains(l, ".Timestamp") {
				t.Errorf("build %s: ldflags stamp the build time: %s", b.ID, l)
			}
		}
		for _, h := range b.Hooks.Post {
			if !slices.Contains(h.Env, "SOURCE_DATE_EPOCH="+commitTime) {
				t.Errorf("build %s: hook %q without SOURCE_DATE_EPOCH=%s", b.ID, h.Cmd, commitTime)
			}
		}
	}
	for _, a := range c.Archives {
		if a.BuildsInfo.Mtime != "{{ .CommitDate }}" {
			t.Errorf("archive %s: binaries' mtime %q", a.NameTemplate, a.BuildsInfo.Mtime)
		}
		for _, f := range a.Files {
			if f.Info.Mtime != "{{ .CommitDate }}" {
				t.Errorf("archive %s: %s's mtime %q", a.NameTemplate, f.Src, f.Info.Mtime)
			}
		}
	}
	for _, s := range c.Sboms {
		if !slices.Contains(s.Env, "SOURCE_DATE_EPOCH="+commitTime) {
			t.Errorf("sbom without SOURCE_DATE_EPOCH=%s", commitTime)
		}
	}
	if c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum algorithm %q", c.Checksum.Algorithm)
	}
}

// README.md's releases/latest/download links name archives the pipeline writes, and every
// operating system it releases for has one.
func TestReadmeLinksNameArchives(t *testing.T) {
	c := load(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The archive names the pipeline writes, with the architecture left open (the README
	// links compute it with uname -m).
	a := c.Archives[0]
	if strings.Contains(a.NameTemplate, "Version") {
		t.Fatalf("archive name %q carries the version: latest/download links would break", a.NameTemplate)
	}
	names := map[string]string{} // os -> name with ARCH for the architecture
	for _, b := range c.Builds {
		for _, goos := range b.Goos {
			ext := strings.Join(a.Formats, "")
			for _, o := range a.FormatOverrides {
				if o.Goos == goos {
					ext = strings.Join(o.Formats, "")
				}
			}
			name := strings.NewReplacer("{{ .ProjectName }}", "mcp-bash", "{{ .Os }}", goos, "{{ .Arch }}", "ARCH").Replace(a.NameTemplate)
			if strings.Contains(name, "{{") {
				t.Fatalf("archive name template %q: fields this test does not know", a.NameTemplate)
			}
			names[goos] = name + "." + ext
		}
	}
	links := regexp.MustCompile(`releases/latest/download/(mcp-bash_[a-z]+_)(\$\(uname -m[^)]*\)|[a-z0-9]+)(\.[a-z.]+)`).FindAllStringSubmatch(string(readme), -1)
	linked := map[string]bool{}
	for _, l := range links {
		goos := strings.TrimSuffix(strings.TrimPrefix(l[1], "mcp-bash_"), "_")
		want, ok := names[goos]
		got := l[1] + "ARCH" + l[3]
		if !ok || got != want {
			t.Errorf("README links %s, the pipeline writes %q for %s", l[0], want, goos)
		}
		if !strings.HasPrefix(l[2], "$(") && !slices.ContainsFunc(c.Builds, func(b build) bool { return slices.Contains(b.Goarch, l[2]) }) {
			t.Errorf("README links %s: no build for %s", l[0], l[2])
		}
		linked[goos] = true
	}
	for goos := range names {
		if !linked[goos] {
			t.Errorf("README has no download link for %s", goos)
		}
	}
}
