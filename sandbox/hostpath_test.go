package sandbox

import (
	"net/url"
	"slices"
	"testing"
)

func TestFileURIs(t *testing.T) {
	for _, tc := range []struct {
		path    string
		windows bool
		uri     string
	}{
		{"/home/me/proj", false, "file:///home/me/proj"},
		{`C:\Users\me\proj`, true, "file:///C:/Users/me/proj"},
		{`\\server\share\dir`, true, "file://server/share/dir"},
	} {
		uri := fileURI(tc.path, tc.windows)
		if uri != tc.uri {
			t.Errorf("URI of %s = %s, want %s", tc.path, uri, tc.uri)
		}
		u, err := url.Parse(uri)
		if err != nil {
			t.Fatal(err)
		}
		if back, ok := pathOfFileURI(u, tc.windows); !ok || back != tc.path {
			t.Errorf("path of %s = %q %v, want %s", uri, back, ok, tc.path)
		}
	}
	for _, tc := range []struct {
		uri     string
		windows bool
		path    string
		ok      bool
	}{
		{"file:///c:/x/y", true, `C:\x\y`, true},
		{"file://localhost/C:/x", true, `C:\x`, true},
		{"file:///C:", true, `C:\`, true},
		{"file:///x/y", true, "", false},    // rooted, no drive
		{"file:///C:x", true, "", false},    // drive-relative
		{"file://server/", true, "", false}, // a server without a share
		{"https://x/y", true, "", false},
		{"file:///etc/x", false, "/etc/x", true},
	} {
		u, _ := url.Parse(tc.uri)
		p, ok := pathOfFileURI(u, tc.windows)
		if p != tc.path || ok != tc.ok {
			t.Errorf("path of %s = %q %v, want %q %v", tc.uri, p, ok, tc.path, tc.ok)
		}
	}
}

func TestSplitPathList(t *testing.T) {
	for _, tc := range []struct {
		v       string
		windows bool
		want    []string
	}{
		{"/a:/b::rel", false, []string{"/a", "/b", "rel"}},
		{`C:\a;D:\b; rel ;`, true, []string{`C:\a`, `D:\b`, "rel"}},
		{"/c/a:/d/b", true, []string{`C:\a`, `D:\b`}},
		{`/c/a;E:\x`, true, []string{`C:\a`, `E:\x`}},
	} {
		if got := splitPathList(tc.v, tc.windows); !slices.Equal(got, tc.want) {
			t.Errorf("split %q (windows %v) = %q, want %q", tc.v, tc.windows, got, tc.want)
		}
	}
}
