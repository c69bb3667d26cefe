// Command image writes the mcp-bash container image without a Docker daemon, reproducibly:
// the same inputs (binary, CA bundle, project, version, SOURCE_DATE_EPOCH) always give the same
// digest. The image holds the static binary, the build machine's CA roots, /etc/passwd and
// /etc/group with the non-root user 65532, and no shell. It is written as an OCI image layout
// (for registries, crane, skopeo, podman) and optionally as a tarball `docker load` reads.
//
// Usage (see `make image`):
//
//	SOURCE_DATE_EPOCH=1700000000 go run ./deploy/image -binary bin/mcp-bash -out dist/image -tar dist/image.tar
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Image layout constants.
const (
	UID        = 65532
	BinaryPath = "/usr/local/bin/mcp-bash"
	ProjectDir = "/project"
	HomeDir    = "/home/nonroot"
	CAPath     = "/etc/ssl/certs/ca-certificates.crt"
	Port       = "8080"
)

// Options are the image's inputs.
type Options struct {
	Binary   string // static mcp-bash binary (CGO_ENABLED=0, -trimpath)
	CABundle string // PEM bundle copied to CAPath
	Project  string // optional project directory copied to /project
	Version  string
	Revision string
	Arch     string
	// Epoch is every timestamp in the image (SOURCE_DATE_EPOCH).
	Epoch time.Time
}

func main() {
	var o Options
	var out, tarPath, tag string
	flag.StringVar(&o.Binary, "binary", "bin/mcp-bash", "static mcp-bash binary")
	flag.StringVar(&o.CABundle, "ca", "/etc/ssl/certs/ca-certificates.crt", "CA bundle (PEM) of the build machine")
	flag.StringVar(&o.Project, "project", "", "project directory to bake into "+ProjectDir+" (default: none; mount one)")
	flag.StringVar(&o.Version, "version", "0.0.0-dev", "image version label")
	flag.StringVar(&o.Revision, "revision", "", "source revision label")
	flag.StringVar(&o.Arch, "arch", "amd64", "image architecture (must match the binary)")
	flag.StringVar(&out, "out", "dist/image", "OCI image layout directory (must not exist or be empty)")
	flag.StringVar(&tarPath, "tar", "", "also write a docker-load tarball here")
	flag.StringVar(&tag, "tag", "", "tag of the tarball (default mcp-bash:<version>)")
	flag.Parse()
	epoch, err := EpochFromEnv(os.Getenv)
	if err != nil {
		fail(err)
	}
	o.Epoch = epoch
	img, err := Build(o)
	if err != nil {
		fail(err)
	}
	digest, err := WriteLayout(img, out, o.Version)
	if err != nil {
		fail(err)
	}
	if tarPath != "" {
		if tag == "" {
			tag = "mcp-bash:" + sanitizeTag(o.Version)
		}
		if err := WriteTarball(img, tarPath, tag); err != nil {
			fail(err)
		}
	}
	fmt.Printf("%s %s\n", digest, out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "image:", err)
	os.Exit(1)
}

// EpochFromEnv reads SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/);
// unset means the Unix epoch, so that an unconfigured build is still reproducible.
func EpochFromEnv(getenv func(string) string) (time.Time, error) {
	v := strings.TrimSpace(getenv("SOURCE_DATE_EPOCH"))
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a non-negative integer", v)
	}
	return time.Unix(n, 0).UTC(), nil
}

// sanitizeTag keeps a version usable as a tag ([A-Za-z0-9_.-], at most 128).
func sanitizeTag(v string) string {
	b := []byte(v)
	for i, c := range b {
		if !(c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '-'
		}
	}
	s := strings.TrimLeft(string(b), ".-")
	if s == "" {
		s = "dev"
	}
	return s[:min(len(s), 128)]
}

// entry is one file of a layer.
type entry struct {
	name     string // without leading /
	mode     int64
	uid      int
	typeflag byte
	data     []byte
}

// Build assembles the image: a base layer (binary, CA roots, users, directories) and, when a
// project is given, a project layer.
func Build(o Options) (v1.Image, error) {
	bin, err := os.ReadFile(o.Binary)
	if err != nil {
		return nil, fmt.Errorf("binary: %w", err)
	}
	if !bytes.HasPrefix(bin, []byte("\x7fELF")) {
		return nil, fmt.Errorf("binary %s is not an ELF executable", o.Binary)
	}
	ca, err := os.ReadFile(o.CABundle)
	if err != nil {
		return nil, fmt.Errorf("CA bundle: %w", err)
	}
	if !bytes.Contains(ca, []byte("-----BEGIN CERTIFICATE-----")) {
		return nil, fmt.Errorf("CA bundle %s has no PEM certificate", o.CABundle)
	}
	base := []entry{
		dir("etc", 0o755), dir("etc/ssl", 0o755), dir("etc/ssl/certs", 0o755),
		file(strings.TrimPrefix(CAPath, "/"), 0o644, ca),
		file("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")),
		file("etc/group", 0o644, []byte("root:x:0:\nnonroot:x:65532:\n")),
		dir("home", 0o755), {name: strings.TrimPrefix(HomeDir, "/"), mode: 0o700, uid: UID, typeflag: tar.TypeDir},
		dir(strings.TrimPrefix(ProjectDir, "/"), 0o755),
		dir("tmp", 0o1777),
		dir("usr", 0o755), dir("usr/local", 0o755), dir("usr/local/bin", 0o755),
		file(strings.TrimPrefix(BinaryPath, "/"), 0o755, bin),
	}
	layers := [][]entry{base}
	if o.Project != "" {
		proj, err := projectEntries(o.Project)
		if err != nil {
			return nil, err
		}
		layers = append(layers, proj)
	}
	img := empty.Image
	img = mutate.MediaType(img, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	var history []v1.History
	for i, l := range layers {
		data, err := tarOf(l, o.Epoch)
		if err != nil {
			return nil, err
		}
		layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
			tarball.WithMediaType(types.OCILayer))
		if err != nil {
			return nil, err
		}
		if img, err = mutate.AppendLayers(img, layer); err != nil {
			return nil, err
		}
		what := "mcp-bash binary, CA roots, users"
		if i == 1 {
			what = "project " + filepath.Base(o.Project)
		}
		history = append(history, v1.History{Created: v1.Time{Time: o.Epoch}, CreatedBy: "deploy/image: " + what})
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture = o.Arch
	cf.OS = "linux"
	cf.Created = v1.Time{Time: o.Epoch}
	cf.History = history
	cf.Config = v1.Config{
		Entrypoint:   []string{BinaryPath},
		Cmd:          []string{"serve", "--http", "0.0.0.0:" + Port},
		User:         fmt.Sprintf("%d:%d", UID, UID),
		WorkingDir:   ProjectDir,
		ExposedPorts: map[string]struct{}{Port + "/tcp": {}},
		Env: []string{
			"PATH=/usr/local/bin",
			"HOME=" + HomeDir,
			"SSL_CERT_FILE=" + CAPath,
			"MCPBASH_PROJECT_ROOT=" + ProjectDir,
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "mcp-bash",
			"org.opencontainers.image.description": "MCP server for bash tool projects (sandboxed, multi-tenant hosting)",
			"org.opencontainers.image.version":     o.Version,
			"org.opencontainers.image.revision":    o.Revision,
			"org.opencontainers.image.created":     o.Epoch.Format(time.RFC3339),
		},
	}
	return mutate.ConfigFile(img, cf)
}

func dir(name string, mode int64) entry { return entry{name: name, mode: mode, typeflag: tar.TypeDir} }

func file(name string, mode int64, data []byte) entry {
	return entry{name: name, mode: mode, typeflag: tar.TypeReg, data: data}
}

// projectEntries copies a project directory (regular files and directories only: a symlink
// would point at the build machine) under /project, read-only for the server's user.
func projectEntries(root string) ([]entry, error) {
	var out []entry
	prefix := strings.TrimPrefix(ProjectDir, "/")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel == "." {
			return nil
		}
		name := path.Join(prefix, filepath.ToSlash(rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out = append(out, dir(name, 0o755))
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			mode := int64(0o644)
			if info.Mode()&0o111 != 0 {
				mode = 0o755
			}
			out = append(out, file(name, mode, data))
		default:
			return fmt.Errorf("project %s: %s is not a regular file or directory", root, rel)
		}
		return nil
	})
	return out, err
}

// tarOf writes entries as a tar stream with fixed metadata: sorted names, the epoch as every
// time, numeric owners only, USTAR headers (no PAX access/change times).
func tarOf(entries []entry, epoch time.Time) ([]byte, error) {
	sort.Slice(entries, func(i, j int) bool { return entries[i].name < entries[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i, e := range entries {
		if i > 0 && entries[i-1].name == e.name {
			return nil, fmt.Errorf("duplicate image path %s", e.name)
		}
		h := &tar.Header{
			Typeflag: e.typeflag,
			Name:     e.name,
			Mode:     e.mode,
			Uid:      e.uid,
			Gid:      e.uid,
			ModTime:  epoch,
			Format:   tar.FormatUSTAR,
		}
		if e.typeflag == tar.TypeDir {
			h.Name += "/"
		} else {
			h.Size = int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("%s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteLayout writes img as an OCI image layout in dir (which must not exist or be empty) and
// returns the manifest digest.
func WriteLayout(img v1.Image, dir, version string) (v1.Hash, error) {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return v1.Hash{}, fmt.Errorf("%s is not empty (remove it first)", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return v1.Hash{}, err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": sanitizeTag(version),
	})); err != nil {
		return v1.Hash{}, err
	}
	return img.Digest()
}

// WriteTarball writes a tarball `docker load` and `podman load` read.
func WriteTarball(img v1.Image, path, tag string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return err
	}
	return tarball.WriteToFile(path, ref, img)
}
