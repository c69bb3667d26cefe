// Command sbom writes an SPDX 2.3 (JSON) software bill of materials for a Go binary: the main
// module, every module linked into it and the Go standard library, as the Go toolchain recorded
// them in the binary (what `go version -m BINARY` prints). It reads binaries of any GOOS and
// GOARCH. The release pipeline (.goreleaser.yaml, "sboms") runs it once per binary.
//
// The document is reproducible: its creation time is SOURCE_DATE_EPOCH (the commit's time in
// the release; required, so that no run stamps the wall clock) and its namespace is derived from
// the binary's SHA-256.
//
// Usage:
//
//	SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) go run ./deploy/sbom -o mcp-bash.spdx.json bin/mcp-bash
package main

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "", "the SBOM file to write (default: standard output)")
	version := flag.String("version", "", "the main module's version, when the binary was stamped with one at link time (-X main.version) rather than by the go command")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: sbom [-o FILE] BINARY   (SOURCE_DATE_EPOCH must be set)")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	created, err := epoch(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		fail(err)
	}
	doc, err := FromBinary(flag.Arg(0), *version, created)
	if err != nil {
		fail(err)
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		fail(err)
	}
	data = append(data, '\n')
	if *out == "" {
		_, err = os.Stdout.Write(data)
	} else {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sbom:", err)
	os.Exit(1)
}

// epoch reads SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/).
func epoch(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, errors.New("SOURCE_DATE_EPOCH is not set: set it to the commit's time (git log -1 --format=%ct) so that the SBOM is reproducible")
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a non-negative integer", v)
	}
	return time.Unix(n, 0).UTC(), nil
}

// Document is the part of SPDX 2.3 this tool writes.
type Document struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      CreationInfo   `json:"creationInfo"`
	Packages          []Package      `json:"packages"`
	Relationships     []Relationship `json:"relationships"`
}

type CreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type Package struct {
	SPDXID                string        `json:"SPDXID"`
	Name                  string        `json:"name"`
	VersionInfo           string        `json:"versionInfo,omitempty"`
	PackageFileName       string        `json:"packageFileName,omitempty"`
	Supplier              string        `json:"supplier"`
	DownloadLocation      string        `json:"downloadLocation"`
	FilesAnalyzed         bool          `json:"filesAnalyzed"`
	Checksums             []Checksum    `json:"checksums,omitempty"`
	LicenseConcluded      string        `json:"licenseConcluded"`
	LicenseDeclared       string        `json:"licenseDeclared"`
	CopyrightText         string        `json:"copyrightText"`
	PrimaryPackagePurpose string        `json:"primaryPackagePurpose,omitempty"`
	Comment               string        `json:"comment,omitempty"`
	ExternalRefs          []ExternalRef `json:"externalRefs,omitempty"`
}

type Checksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type ExternalRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type Relationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

const noAssertion = "NOASSERTION"

// Creator names this tool in the document's creation info.
const Creator = "github.com/mcp-bash/mcp-bash/deploy/sbom"

// FromBinary reads the build information of the Go binary at path and describes it; version,
// when not empty, is the main module's version (a release stamps it with -X, and builds with
// -buildvcs=false, so the binary's own record says "(devel)").
func FromBinary(path, version string, created time.Time) (*Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bi, err := buildinfo.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: no Go build information (%v)", path, err)
	}
	sum := sha256.Sum256(data)
	if version != "" {
		bi.Main.Version = "v" + strings.TrimPrefix(version, "v")
	}
	return describe(bi, path, hex.EncodeToString(sum[:]), created), nil
}

func describe(bi *debug.BuildInfo, path, sha string, created time.Time) *Document {
	name := bi.Path
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var goos, goarch string
	for _, s := range bi.Settings {
		switch s.Key {
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	doc := &Document{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		Name:              fmt.Sprintf("%s %s %s/%s", name, bi.Main.Version, goos, goarch),
		DocumentNamespace: "https://" + bi.Main.Path + "/spdx/" + name + "-" + sha,
		CreationInfo:      CreationInfo{Created: created.Format(time.RFC3339), Creators: []string{"Tool: " + Creator}},
	}
	main := Package{
		SPDXID: "SPDXRef-Package-main", Name: bi.Path, VersionInfo: bi.Main.Version, PackageFileName: fileName(path),
		Supplier: noAssertion, DownloadLocation: noAssertion, Checksums: []Checksum{{"SHA256", sha}},
		LicenseConcluded: noAssertion, LicenseDeclared: noAssertion, CopyrightText: noAssertion,
		PrimaryPackagePurpose: "APPLICATION", Comment: fmt.Sprintf("Go binary for %s/%s built with %s", goos, goarch, bi.GoVersion),
		ExternalRefs: purl(bi.Main.Path, bi.Main.Version),
	}
	doc.Packages = append(doc.Packages, main)
	doc.Relationships = append(doc.Relationships, Relationship{"SPDXRef-DOCUMENT", "DESCRIBES", main.SPDXID})
	add := func(id, name, version, comment string) {
		doc.Packages = append(doc.Packages, Package{SPDXID: id, Name: name, VersionInfo: version, Supplier: noAssertion,
			DownloadLocation: noAssertion, LicenseConcluded: noAssertion, LicenseDeclared: noAssertion, CopyrightText: noAssertion,
			PrimaryPackagePurpose: "LIBRARY", Comment: comment, ExternalRefs: purl(name, version)})
		doc.Relationships = append(doc.Relationships, Relationship{main.SPDXID, "DEPENDS_ON", id})
	}
	add("SPDXRef-Package-stdlib", "stdlib", bi.GoVersion, "the Go standard library and runtime")
	for i, d := range bi.Deps {
		m, notes := d, []string(nil)
		if d.Replace != nil {
			m = d.Replace
		}
		if m.Sum != "" {
			notes = append(notes, "go.sum "+m.Sum)
		}
		if d.Replace != nil {
			notes = append(notes, "replaces "+d.Path+" "+d.Version)
		}
		add(fmt.Sprintf("SPDXRef-Package-%d-%s", i+1, idString(m.Path)), m.Path, m.Version, strings.Join(notes, "; "))
	}
	return doc
}

// purl is the package URL of a Go module (pkg:golang/PATH@VERSION).
func purl(path, version string) []ExternalRef {
	if version == "" || version == "(devel)" {
		return nil
	}
	return []ExternalRef{{"PACKAGE-MANAGER", "purl", "pkg:golang/" + path + "@" + version}}
}

// idString keeps the characters an SPDX identifier allows ([A-Za-z0-9.-]).
func idString(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b[i] = '-'
		}
	}
	return string(b)
}

func fileName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}
