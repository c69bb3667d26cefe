package bundle

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
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
var Supported = []Platform{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// Current is the running binary's platform.
func Current() Platform { return Platform{runtime.GOOS, runtime.GOARCH} }

// ParsePlatforms reads --platform: a comma-separated list of os-arch names (also os/arch),
// "all" for every supported platform, or "" for the running binary's platform.
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
			for _, p := range Supported {
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
			return nil, &UsageError{"Windows is not a bundle target: the sandbox needs a Unix host (use darwin, linux, or os-arch names)"}
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
// and a cross-compiled one (go build, CGO_ENABLED=0) from a source checkout for the others.
type Builder struct {
	Self    string    // the running binary
	Source  string    // source checkout ("" when none)
	GoBin   string    // the go command ("" when none)
	Version string    // stamped into cross-built binaries (-X main.version)
	Log     io.Writer // progress lines, may be nil
}

// Check reports, before anything is built, why some platforms cannot be produced.
func (b *Builder) Check(ps []Platform) error {
	var missing []Platform
	for _, p := range ps {
		if p != Current() {
			missing = append(missing, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	why := ""
	switch {
	case b.Source == "":
		why = "no source checkout was found next to the running binary (pass --source DIR, a checkout of " + ModulePath + ")"
	case !IsSource(b.Source):
		why = b.Source + " is not a source checkout of " + ModulePath
	case b.GoBin == "":
		why = "the go command is not on PATH"
	default:
		return nil
	}
	return &UsageError{fmt.Sprintf("cannot build %s: %s; this binary can only bundle itself (%s)", platformList(missing), why, Current())}
}

// Binary returns the path of the server binary for p, building it into dir when needed.
func (b *Builder) Binary(ctx context.Context, p Platform, dir string) (string, error) {
	if p == Current() {
		return b.Self, nil
	}
	out := filepath.Join(dir, p.String(), "mcp-bash")
	if b.Log != nil {
		fmt.Fprintf(b.Log, "mcp-bash bundle: building %s from %s\n", p, b.Source)
	}
	cmd := exec.CommandContext(ctx, b.GoBin, "build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w -X main.version="+b.Version, "-o", out, "./cmd/mcp-bash")
	cmd.Dir = b.Source
	cmd.Env = append(os.Environ(), "GOOS="+p.OS, "GOARCH="+p.Arch, "CGO_ENABLED=0")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
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
