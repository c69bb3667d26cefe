package bundle

import (
	"bufio"
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// Platform is a GOOS-GOARCH pair a bundle carries a server binary for.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "-" + p.Arch }

// mcpbOS is the platform's name in the MCPB manifest (Node's process.platform).
func (p Platform) mcpbOS() string {
	if p.OS == "windows" {
		return "win32"
	}
	return p.OS
}

// Supported lists the platforms a bundle can target: the ones the binary builds and runs on.
var Supported = []Platform{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"}}

// All is what --platform all means: every supported platform but windows-arm64. An MCP Bundle
// names one command per operating system (platform_overrides key by OS), so it can carry one
// Windows binary, and windows-amd64 also runs on Windows on Arm (under emulation).
var All = []Platform{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}}

// binaryName is the server's file name on p.
func (p Platform) binaryName() string {
	if p.OS == "windows" {
		return "mcp-bash.exe"
	}
	return "mcp-bash"
}

// Current is the running binary's platform.
func Current() Platform { return Platform{runtime.GOOS, runtime.GOARCH} }

// ParsePlatforms reads --platform: a comma-separated list of os-arch names (also os/arch),
// "all" for every platform in All, or "" for the running binary's platform.
func ParsePlatforms(s string) ([]Platform, error) {
	if strings.TrimSpace(s) == "" {
		return []Platform{Current()}, nil
	}
	var out []Platform
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if f == "all" {
			for _, p := range All {
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
			continue
		}
		if f == "darwin" || f == "linux" {
			// The original's platform names are operating systems: every architecture of one.
			for _, p := range Supported {
				if p.OS == f && !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
			continue
		}
		if f == "win32" || f == "windows" {
			// The original's name for Windows: the one Windows binary a bundle holds (it also
			// runs on Windows on Arm).
			f = "windows-amd64"
		}
		osName, arch, ok := strings.Cut(strings.ReplaceAll(f, "/", "-"), "-")
		p := Platform{osName, arch}
		if !ok || !slices.Contains(Supported, p) {
			return nil, &UsageError{fmt.Sprintf("unknown platform %q (one of %s, or all)", f, platformList(Supported))}
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil, &UsageError{"--platform names no platform"}
	}
	var windows []Platform
	for _, p := range out {
		if p.OS == "windows" {
			windows = append(windows, p)
		}
	}
	if len(windows) > 1 {
		return nil, &UsageError{fmt.Sprintf("a bundle holds one Windows binary (its manifest names one command per operating system), not %s; windows-amd64 also runs on Windows on Arm", platformList(windows))}
	}
	return out, nil
}

func platformList(ps []Platform) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.String()
	}
	return strings.Join(names, ", ")
}

// ModulePath is the Go module a source checkout must declare to build the server from.
const ModulePath = "github.com/mcp-bash/mcp-bash"

// IsSource reports whether dir is a checkout of this module with the server's main package.
func IsSource(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			if strings.Trim(strings.TrimSpace(mod), `"`) != ModulePath {
				return false
			}
			_, err := os.Stat(filepath.Join(dir, "cmd", "mcp-bash", "main.go"))
			return err == nil
		}
	}
	return false
}

// FindSource returns the source checkout the running binary was built in (make build puts it
// in <checkout>/bin/), or "" when there is none nearby.
func FindSource(exe string) string {
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir := filepath.Dir(exe)
	for range 3 {
		if IsSource(dir) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}

// Builder produces one server binary per platform: the running binary for its own platform,
// a release binary of the same version when one is at hand (Binaries), and otherwise one
// cross-compiled from a source checkout (go build, CGO_ENABLED=0, the release's flags), several
// at once.
type Builder struct {
	Self   string // the running binary
	Source string // source checkout ("" when none)
	GoBin  string // the go command ("" when none)
	// Version and Commit are the running binary's, stamped into cross-built binaries
	// (-X main.version, -X main.commit); release binaries are reused only when they are Version.
	Version, Commit string
	// ReleaseDir is a GoReleaser dist/ folder whose binaries are used when its metadata.json
	// says they are Version ("" for none).
	ReleaseDir string
	// Jobs is how many builds run at once (0: GOMAXPROCS).
	Jobs int
	Log  io.Writer // progress lines, may be nil

	logMu sync.Mutex // builds log from their own goroutines; Log need not be safe for that
}

// plan splits ps into the binaries at hand and the platforms to build.
func (b *Builder) plan(ps []Platform) (have map[Platform]string, build []Platform) {
	have = map[Platform]string{}
	var release map[Platform]string
	for _, p := range ps {
		if p == Current() {
			have[p] = b.Self
			continue
		}
		if release == nil {
			release = b.releaseBinaries()
		}
		if path, ok := release[p]; ok {
			have[p] = path
			continue
		}
		build = append(build, p)
	}
	return have, build
}

// releaseBinaries finds the mcp-bash binaries of a GoReleaser dist/ folder (b.ReleaseDir),
// one folder down, when its metadata.json says they are this binary's version. The version
// comes from GoReleaser's record of the run, not the binaries: a -trimpath build does not record
// its -ldflags, so a binary's build information does not carry its -X main.version stamp.
func (b *Builder) releaseBinaries() map[Platform]string {
	out := map[Platform]string{}
	if b.ReleaseDir == "" || b.Version == "" || b.Version == "devel" {
		return out
	}
	if _, err := os.Stat(b.ReleaseDir); err != nil {
		return out // no release at hand: nothing to say
	}
	version, err := distVersion(b.ReleaseDir)
	if err != nil {
		b.logf("mcp-bash bundle: not using the release binaries in %s: %v\n", b.ReleaseDir, err)
		return out
	}
	if version != b.Version {
		b.logf("mcp-bash bundle: not using the release binaries in %s: they are version %s, this binary is %s\n", b.ReleaseDir, version, b.Version)
		return out
	}
	var paths []string
	for _, name := range []string{"mcp-bash", "mcp-bash.exe"} {
		m, _ := filepath.Glob(filepath.Join(b.ReleaseDir, "*", name))
		paths = append(paths, m...)
	}
	slices.Sort(paths)
	for _, path := range paths {
		p, ok := platformOf(path)
		if !ok || !slices.Contains(Supported, p) || filepath.Base(path) != p.binaryName() {
			continue
		}
		if _, dup := out[p]; !dup {
			out[p] = path
		}
	}
	return out
}

// distVersion reads the version of the release a GoReleaser dist/ folder holds (metadata.json).
func distVersion(dir string) (string, error) {
	f, err := os.Open(filepath.Join(dir, "metadata.json"))
	if err != nil {
		return "", fmt.Errorf("no metadata.json: it is not a GoReleaser dist/ folder")
	}
	defer f.Close()
	var meta struct {
		Version string `json:"version"`
	}
	// GoReleaser's metadata.json is a few hundred bytes; a larger one is not one.
	if err := json.NewDecoder(io.LimitReader(f, 64<<10)).Decode(&meta); err != nil || meta.Version == "" {
		return "", fmt.Errorf("metadata.json names no version")
	}
	return meta.Version, nil
}

// platformOf reads a Go binary's platform from its build information.
func platformOf(path string) (p Platform, ok bool) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return p, false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOOS":
			p.OS = s.Value
		case "GOARCH":
			p.Arch = s.Value
		}
	}
	return p, p.OS != "" && p.Arch != ""
}

func (b *Builder) logf(format string, args ...any) {
	if b.Log != nil {
		b.logMu.Lock()
		defer b.logMu.Unlock()
		fmt.Fprintf(b.Log, format, args...)
	}
}

// Check reports, before anything is built, why some platforms cannot be produced.
func (b *Builder) Check(ps []Platform) error {
	_, missing := b.plan(ps)
	if len(missing) == 0 {
		return nil
	}
	why := ""
	switch {
	case b.Source == "":
		why = "no source checkout was found next to the running binary (pass --source DIR, a checkout of " + ModulePath + ", or --binaries DIR with release binaries of version " + b.Version + ")"
	case !IsSource(b.Source):
		why = b.Source + " is not a source checkout of " + ModulePath
	case b.GoBin == "":
		why = "the go command is not on PATH"
	default:
		return nil
	}
	return &UsageError{fmt.Sprintf("cannot build %s: %s; this binary can only bundle itself (%s)", platformList(missing), why, Current())}
}

// Binaries returns the server binary of every platform in ps: the running binary, release
// binaries of this version, and the others built into dir, b.Jobs (else GOMAXPROCS) at a time,
// with a line on b.Log as each starts and ends. The first failure cancels the other builds.
func (b *Builder) Binaries(ctx context.Context, ps []Platform, dir string) (map[Platform]string, error) {
	have, build := b.plan(ps)
	for _, p := range ps {
		switch path := have[p]; {
		case path == "":
		case path == b.Self:
			b.logf("mcp-bash bundle: %s: this binary\n", p)
		default:
			b.logf("mcp-bash bundle: %s: release binary %s (%s)\n", p, path, b.Version)
		}
	}
	if len(build) == 0 {
		return have, nil
	}
	jobs := b.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, len(build))
	b.logf("mcp-bash bundle: building %d platform(s) from %s, %d at a time\n", len(build), b.Source, jobs)
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(jobs)
	var mu sync.Mutex
	done := 0
	for _, p := range build {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err // another build failed while this one waited for a slot
			}
			b.logf("mcp-bash bundle: %s: building\n", p)
			t0 := time.Now()
			out, err := b.build(gctx, p, dir)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			have[p] = out
			done++
			b.logf("mcp-bash bundle: %s: built in %.1fs (%d of %d)\n", p, time.Since(t0).Seconds(), done, len(build))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	b.logf("mcp-bash bundle: built %d platform(s) in %.1fs\n", len(build), time.Since(start).Seconds())
	return have, nil
}

// build cross-compiles the server for p into dir/<os-arch>/, with the release's flags.
func (b *Builder) build(ctx context.Context, p Platform, dir string) (string, error) {
	out := filepath.Join(dir, p.String(), p.binaryName())
	ldflags := "-s -w -X main.version=" + b.Version
	if b.Commit != "" {
		ldflags += " -X main.commit=" + b.Commit
	}
	cmd := exec.CommandContext(ctx, b.GoBin, "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, "./cmd/mcp-bash")
	cmd.Dir = b.Source
	cmd.Env = append(os.Environ(), "GOOS="+p.OS, "GOARCH="+p.Arch, "CGO_ENABLED=0")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("building %s: %v\n%s", p, err, strings.TrimSpace(buf.String()))
	}
	return out, nil
}

// launcher is the entry point of a bundle with several binaries: it starts the one for the
// machine it runs on.
func launcher(ps []Platform) string {
	var b strings.Builder
	b.WriteString(`#!/bin/sh
# Generated by mcp-bash bundle: start the mcp-bash binary built for this machine.
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 1
case "$(uname -s)-$(uname -m)" in
`)
	unames := map[string]string{"linux": "Linux", "darwin": "Darwin"}
	arches := map[string]string{"amd64": "x86_64|%s-amd64", "arm64": "aarch64|%s-arm64"}
	for _, p := range ps {
		if p.OS == "windows" {
			continue // started through the manifest's platform_overrides, not this script
		}
		k := unames[p.OS]
		alt := strings.SplitN(arches[p.Arch], "|", 2)
		fmt.Fprintf(&b, "%s-%s|"+alt[1]+") platform=%s ;;\n", k, alt[0], k, p)
	}
	b.WriteString(`*) platform=none ;;
esac
bin="$dir/bin/$platform/mcp-bash"
if [ ! -x "$bin" ]; then
  echo "mcp-bash: this bundle has no server binary for $(uname -s) $(uname -m)" >&2
  exit 1
fi
exec "$bin" "$@"
`)
	return b.String()
}
