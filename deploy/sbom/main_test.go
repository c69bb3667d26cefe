package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

var spdxID = regexp.MustCompile(`^SPDXRef-[A-Za-z0-9.-]+$`)

// checkDocument holds a document to the SPDX 2.3 rules this tool must keep: required fields,
// unique well-formed identifiers, relationships between elements that exist.
func checkDocument(t *testing.T, doc *Document) map[string]Package {
	t.Helper()
	if doc.SPDXVersion != "SPDX-2.3" || doc.DataLicense != "CC0-1.0" || doc.SPDXID != "SPDXRef-DOCUMENT" || doc.Name == "" ||
		!strings.HasPrefix(doc.DocumentNamespace, "https://") || len(doc.CreationInfo.Creators) == 0 {
		t.Fatalf("document header: %+v", doc)
	}
	if _, err := time.Parse(time.RFC3339, doc.CreationInfo.Created); err != nil || !strings.HasSuffix(doc.CreationInfo.Created, "Z") {
		t.Fatalf("created %q is not an RFC 3339 UTC time", doc.CreationInfo.Created)
	}
	byID := map[string]Package{}
	for _, p := range doc.Packages {
		if !spdxID.MatchString(p.SPDXID) {
			t.Errorf("package id %q is not an SPDX identifier", p.SPDXID)
		}
		if _, dup := byID[p.SPDXID]; dup {
			t.Errorf("package id %q twice", p.SPDXID)
		}
		if p.Name == "" || p.DownloadLocation == "" || p.LicenseConcluded == "" || p.LicenseDeclared == "" || p.CopyrightText == "" || p.Supplier == "" {
			t.Errorf("package %s misses a required field: %+v", p.SPDXID, p)
		}
		byID[p.SPDXID] = p
	}
	described := 0
	for _, r := range doc.Relationships {
		if r.Element != "SPDXRef-DOCUMENT" {
			if _, ok := byID[r.Element]; !ok {
				t.Errorf("relationship from unknown element %q", r.Element)
			}
		}
		if _, ok := byID[r.Related]; !ok {
			t.Errorf("relationship to unknown element %q", r.Related)
		}
		if r.Type == "DESCRIBES" {
			described++
		}
	}
	if described != 1 {
		t.Errorf("%d DESCRIBES relationships, want 1", described)
	}
	return byID
}

func TestDescribe(t *testing.T) {
	created := time.Unix(1700000000, 0).UTC()
	for _, tc := range []struct {
		name     string
		bi       *debug.BuildInfo
		packages int
		want     map[string]string // package name -> version
		comments map[string]string // package name -> comment
	}{
		{name: "modules and a replacement", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Path: "example.com/app/cmd/app",
			Main: debug.Module{Path: "example.com/app", Version: "v1.2.3"},
			Deps: []*debug.Module{
				{Path: "github.com/a/b", Version: "v0.1.0", Sum: "h1:abc="},
				{Path: "golang.org/x/sys", Version: "v0.30.0", Replace: &debug.Module{Path: "example.com/fork/sys", Version: "v0.30.1", Sum: "h1:def="}},
				{Path: "github.com/a/b_c~d", Version: "v2.0.0+incompatible"},
			},
			Settings: []debug.BuildSetting{{Key: "GOOS", Value: "windows"}, {Key: "GOARCH", Value: "arm64"}}},
			packages: 5,
			want:     map[string]string{"example.com/app/cmd/app": "v1.2.3", "stdlib": "go1.26.8", "github.com/a/b": "v0.1.0", "example.com/fork/sys": "v0.30.1", "github.com/a/b_c~d": "v2.0.0+incompatible"},
			comments: map[string]string{"example.com/fork/sys": "go.sum h1:def=; replaces golang.org/x/sys v0.30.0", "github.com/a/b": "go.sum h1:abc="}},
		{name: "a development build has no purl", bi: &debug.BuildInfo{GoVersion: "go1.26.8", Path: "example.com/app",
			Main: debug.Module{Path: "example.com/app", Version: "(devel)"}},
			packages: 2, want: map[string]string{"example.com/app": "(devel)", "stdlib": "go1.26.8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := describe(tc.bi, "dist/app.exe", strings.Repeat("ab", 32), created)
			byID := checkDocument(t, doc)
			if len(doc.Packages) != tc.packages || len(byID) != tc.packages {
				t.Fatalf("%d packages, want %d", len(doc.Packages), tc.packages)
			}
			for _, p := range doc.Packages {
				if v, ok := tc.want[p.Name]; !ok || v != p.VersionInfo {
					t.Errorf("package %s %s, want version %q", p.Name, p.VersionInfo, v)
				}
				if c, ok := tc.comments[p.Name]; ok && c != p.Comment {
					t.Errorf("package %s comment %q, want %q", p.Name, p.Comment, c)
				}
				module := p.Name
				if p.SPDXID == "SPDXRef-Package-main" {
					module = tc.bi.Main.Path // the purl names the main package's module
				}
				if hasPurl := len(p.ExternalRefs) > 0; hasPurl != (p.VersionInfo != "(devel)") {
					t.Errorf("package %s version %s: purl %v", p.Name, p.VersionInfo, p.ExternalRefs)
				} else if hasPurl && p.ExternalRefs[0].Locator != "pkg:golang/"+module+"@"+p.VersionInfo {
					t.Errorf("purl %q", p.ExternalRefs[0].Locator)
				}
			}
			if doc.Packages[0].PackageFileName != "app.exe" || doc.CreationInfo.Created != "2023-11-14T22:13:20Z" {
				t.Errorf("main package file %q, created %q", doc.Packages[0].PackageFileName, doc.CreationInfo.Created)
			}
			// The same input gives the same bytes: nothing in the document comes from the clock or a map.
			a, _ := json.Marshal(doc)
			b, _ := json.Marshal(describe(tc.bi, "dist/app.exe", strings.Repeat("ab", 32), created))
			if string(a) != string(b) {
				t.Fatal("two documents of the same binary differ")
			}
		})
	}
}

func TestFromBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	doc, err := FromBinary(self, "1.2.3", time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	byID := checkDocument(t, doc)
	main := byID["SPDXRef-Package-main"]
	if main.VersionInfo != "v1.2.3" || len(main.Checksums) != 1 || main.Checksums[0].Value != hex.EncodeToString(sum[:]) {
		t.Fatalf("main package %+v, want version v1.2.3 and the file's SHA-256", main)
	}
	if std := byID["SPDXRef-Package-stdlib"]; std.VersionInfo != runtime.Version() {
		t.Fatalf("stdlib %q, want %q", std.VersionInfo, runtime.Version())
	}

	notGo := filepath.Join(t.TempDir(), "script.sh")
	os.WriteFile(notGo, []byte("#!/bin/sh\necho hi\n"), 0o755)
	for _, path := range []string{notGo, filepath.Join(t.TempDir(), "missing")} {
		if _, err := FromBinary(path, "", time.Unix(0, 0)); err == nil {
			t.Errorf("FromBinary(%s): no error", path)
		}
	}
}

func TestEpoch(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{in: "1700000000", want: 1700000000},
		{in: " 0 ", want: 0},
		{in: "", err: "SOURCE_DATE_EPOCH is not set"},
		{in: "yesterday", err: "not a non-negative integer"},
		{in: "-5", err: "not a non-negative integer"},
	} {
		got, err := epoch(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("epoch(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got.Unix() != tc.want {
			t.Errorf("epoch(%q) = %v, %v", tc.in, got, err)
		}
	}
}
