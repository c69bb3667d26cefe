package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

const fakeCA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// inputs writes a fake binary, CA bundle and project into a temp dir.
func inputs(t *testing.T) Options {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcp-bash")
	ca := filepath.Join(dir, "ca.crt")
	proj := filepath.Join(dir, "proj")
	must(t, os.WriteFile(bin, append([]byte("\x7fELF"), bytes.Repeat([]byte{1, 2, 3}, 1000)...), 0o755))
	must(t, os.WriteFile(ca, []byte(fakeCA), 0o644))
	must(t, os.MkdirAll(filepath.Join(proj, "tools/hello"), 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "tools/hello/tool.sh"), []byte("#!/bin/bash\necho hi\n"), 0o755))
	must(t, os.WriteFile(filepath.Join(proj, "tools/hello/tool.meta.json"), []byte(`{"name":"hello"}`), 0o644))
	return Options{Binary: bin, CABundle: ca, Project: proj, Version: "1.2.3", Revision: "abc", Arch: "amd64", Epoch: time.Unix(1700000000, 0).UTC()}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// tree hashes every file under dir (path → sha256).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	must(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	}))
	return out
}

func build(t *testing.T, o Options) (v1.Hash, string, string) {
	t.Helper()
	img, err := Build(o)
	must(t, err)
	out := filepath.Join(t.TempDir(), "layout")
	d, err := WriteLayout(img, out, o.Version)
	must(t, err)
	tb := filepath.Join(t.TempDir(), "image.tar")
	must(t, WriteTarball(img, tb, "mcp-bash:"+o.Version))
	return d, out, tb
}

// TestReproducible: the same inputs give byte-identical layouts and tarballs; a different
// SOURCE_DATE_EPOCH gives a different digest (so the epoch really is what is written).
func TestReproducible(t *testing.T) {
	o := inputs(t)
	d1, l1, t1 := build(t, o)
	d2, l2, t2 := build(t, o)
	if d1 != d2 {
		t.Fatalf("digests differ: %s %s", d1, d2)
	}
	a, b := tree(t, l1), tree(t, l2)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("layouts differ in files: %d %d", len(a), len(b))
	}
	for k, v := range a {
		if b[k] != v {
			t.Fatalf("layout file %s differs", k)
		}
	}
	ta, _ := os.ReadFile(t1)
	tb, _ := os.ReadFile(t2)
	if !bytes.Equal(ta, tb) {
		t.Fatal("tarballs differ")
	}
	o.Epoch = o.Epoch.Add(time.Second)
	if d3, _, _ := build(t, o); d3 == d1 {
		t.Fatal("a different epoch gave the same digest")
	}
}

func TestImageContent(t *testing.T) {
	o := inputs(t)
	_, out, tb := build(t, o)
	p, err := layout.FromPath(out)
	must(t, err)
	idx, err := p.ImageIndex()
	must(t, err)
	im, err := idx.IndexManifest()
	must(t, err)
	if len(im.Manifests) != 1 || im.Manifests[0].MediaType != "application/vnd.oci.image.manifest.v1+json" ||
		im.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "1.2.3" {
		t.Fatalf("index %+v", im)
	}
	img, err := p.Image(im.Manifests[0].Digest)
	must(t, err)
	cf, err := img.ConfigFile()
	must(t, err)
	c := cf.Config
	if c.User != "65532:65532" || strings.Join(c.Entrypoint, " ") != BinaryPath || strings.Join(c.Cmd, " ") != "serve --http 0.0.0.0:8080" ||
		cf.OS != "linux" || cf.Architecture != "amd64" || !cf.Created.Time.Equal(o.Epoch) || c.Labels["org.opencontainers.image.version"] != "1.2.3" {
		t.Fatalf("config %+v %+v", cf, c)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok {
		t.Fatal("port 8080 not exposed")
	}
	layers, err := img.Layers()
	must(t, err)
	if len(layers) != 2 {
		t.Fatalf("%d layers, want 2 (base, project)", len(layers))
	}
	files := map[string]*tar.Header{}
	content := map[string]string{}
	for _, l := range layers {
		mt, _ := l.MediaType()
		if mt != "application/vnd.oci.image.layer.v1.tar+gzip" {
			t.Fatalf("layer media type %s", mt)
		}
		rc, err := l.Uncompressed()
		must(t, err)
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			must(t, err)
			b, _ := io.ReadAll(tr)
			files[h.Name] = h
			content[h.Name] = string(b)
			if !h.ModTime.Equal(o.Epoch) || h.Uname != "" || h.Gname != "" {
				t.Fatalf("%s: time %v owner %q/%q", h.Name, h.ModTime, h.Uname, h.Gname)
			}
		}
		rc.Close()
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, want := range []string{"etc/passwd", "etc/group", "etc/ssl/certs/ca-certificates.crt", "usr/local/bin/mcp-bash", "home/nonroot/", "tmp/", "project/tools/hello/tool.sh"} {
		if files[want] == nil {
			t.Fatalf("image lacks %s (has %v)", want, names)
		}
	}
	for _, shell := range []string{"bin/sh", "bin/bash", "usr/bin/sh"} {
		if files[shell] != nil {
			t.Fatalf("image has a shell: %s", shell)
		}
	}
	if h := files["home/nonroot/"]; h.Uid != UID || h.Mode != 0o700 {
		t.Fatalf("home: uid %d mode %o", h.Uid, h.Mode)
	}
	if h := files["usr/local/bin/mcp-bash"]; h.Uid != 0 || h.Mode != 0o755 {
		t.Fatalf("binary: uid %d mode %o (the server must not own its own binary)", h.Uid, h.Mode)
	}
	if !strings.Contains(content["etc/passwd"], "nonroot:x:65532:65532:") || content["etc/ssl/certs/ca-certificates.crt"] != fakeCA {
		t.Fatalf("passwd %q", content["etc/passwd"])
	}
	if h := files["project/tools/hello/tool.sh"]; h.Mode != 0o755 || files["project/tools/hello/tool.meta.json"].Mode != 0o644 {
		t.Fatal("project modes not kept as executable/regular")
	}
	// The tarball is loadable: its manifest names the tag and the same config.
	timg, err := tarball.ImageFromPath(tb, nil)
	must(t, err)
	td, err := timg.ConfigName()
	must(t, err)
	cd, err := img.ConfigName()
	must(t, err)
	if td != cd {
		t.Fatalf("tarball config %s, layout config %s", td, cd)
	}
}

func TestInputsChecked(t *testing.T) {
	o := inputs(t)
	bad := o
	bad.Binary = o.CABundle
	if _, err := Build(bad); err == nil || !strings.Contains(err.Error(), "not an ELF") {
		t.Fatalf("non-ELF binary: %v", err)
	}
	bad = o
	bad.CABundle = o.Binary
	if _, err := Build(bad); err == nil || !strings.Contains(err.Error(), "no PEM") {
		t.Fatalf("bad CA bundle: %v", err)
	}
	must(t, os.Symlink("/etc/passwd", filepath.Join(o.Project, "link")))
	if _, err := Build(o); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("symlink in project: %v", err)
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "x"), nil, 0o644))
	o.Project = ""
	img, err := Build(o)
	must(t, err)
	if _, err := WriteLayout(img, dir, "v"); err == nil {
		t.Fatal("wrote into a non-empty directory")
	}
	for _, c := range []struct{ v, want string }{{"", "1970-01-01T00:00:00Z"}, {"1700000000", "2023-11-14T22:13:20Z"}} {
		e, err := EpochFromEnv(func(string) string { return c.v })
		if err != nil || e.Format(time.RFC3339) != c.want {
			t.Fatalf("epoch %q: %v %v", c.v, e, err)
		}
	}
	if _, err := EpochFromEnv(func(string) string { return "yesterday" }); err == nil {
		t.Fatal("bad SOURCE_DATE_EPOCH accepted")
	}
}

// realBinary builds the static binary of the module at root as `make image` does.
func realBinary(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcp-bash")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=1.2.3", "-o", bin, "./cmd/mcp-bash")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestImageServes unpacks the image built from the real binary and a project (its layers
// flattened into a directory, as a container runtime would) and runs the image's own binary
// with the image's project: it answers initialize and a tools/call over HTTP.
func TestImageServes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/mcp-bash")
	}
	root, err := filepath.Abs("../..")
	must(t, err)
	o := inputs(t)
	o.Binary = realBinary(t, root)
	must(t, os.WriteFile(filepath.Join(o.Project, "tools/hello/tool.sh"), []byte("#!/usr/bin/env bash\nprintf 'hello from the image'\n"), 0o755))
	img, err := Build(o)
	must(t, err)
	fsRoot := t.TempDir()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		must(t, err)
		dst := filepath.Join(fsRoot, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			must(t, os.MkdirAll(dst, 0o755))
		case tar.TypeReg:
			must(t, os.MkdirAll(filepath.Dir(dst), 0o755))
			b, err := io.ReadAll(tr)
			must(t, err)
			must(t, os.WriteFile(dst, b, fs.FileMode(h.Mode)&0o755|0o600))
		}
	}
	srv := harness.StartHTTP(t, harness.Options{
		Binary: filepath.Join(fsRoot, BinaryPath),
		Dir:    filepath.Join(fsRoot, ProjectDir),
		Env:    []string{"MCPBASH_PROJECT_ROOT=" + filepath.Join(fsRoot, ProjectDir)},
	})
	post := func(body, sid string) (*http.Response, string) {
		req, err := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		must(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		must(t, err)
		return resp, string(b)
	}
	resp, body := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"image-test","version":"1"}}}`, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(body, `"serverInfo"`) {
		t.Fatalf("initialize: %d %q %s\n%s", resp.StatusCode, sid, body, srv.Stderr())
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	if resp, body := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{}}}`, sid); resp.StatusCode != http.StatusOK || !strings.Contains(body, "hello from the image") {
		t.Fatalf("tools/call: %d %s\n%s", resp.StatusCode, body, srv.Stderr())
	}
}

// TestRealBinaryTwice builds the real static binary twice (as `make image` does) and the image
// from each: the digests are equal.
func TestRealBinaryTwice(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/mcp-bash")
	}
	root, err := filepath.Abs("../..")
	must(t, err)
	o := inputs(t)
	o.Project = ""
	var digests []v1.Hash
	for range 2 {
		o.Binary = realBinary(t, root)
		d, _, _ := build(t, o)
		digests = append(digests, d)
	}
	if digests[0] != digests[1] {
		t.Fatalf("digests differ: %v", digests)
	}
}
