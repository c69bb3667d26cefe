package sandbox

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// The Windows path rules are plain string functions, tested on every OS; the FS applies them
// only on Windows (where the Wine run exercises them end to end).

func TestWindowsShellPath(t *testing.T) {
	for _, tc := range []struct{ host, shell, msys string }{
		{`C:\Users\me\proj`, "/c/Users/me/proj", "/c/Users/me/proj"},
		{`d:\`, "/d", "/d"},
		{`Z:\work\x\..\y`, "/z/work/y", "/z/work/y"},
		{`\\server\share\dir`, "/unc/server/share/dir", "//server/share/dir"},
		{`\\?\C:\long\path`, "/c/long/path", "/c/long/path"},
		{`\\?\UNC\srv\sh\x`, "/unc/srv/sh/x", "//srv/sh/x"},
		{`C:/mixed\seps`, "/c/mixed/seps", "/c/mixed/seps"},
	} {
		if got := windowsShellPath(tc.host, false); got != tc.shell {
			t.Errorf("shell path of %s = %s, want %s", tc.host, got, tc.shell)
		}
		if got := windowsShellPath(tc.host, true); got != tc.msys {
			t.Errorf("MSYS path of %s = %s, want %s", tc.host, got, tc.msys)
		}
	}
	for _, tc := range []struct {
		shell, host string
		ok          bool
	}{
		{"/c/Users/me", `C:\Users\me`, true}, {"/c", `C:\`, true}, {"/z/a/../b", `Z:\b`, true},
		{"/unc/srv/share/x", `\\srv\share\x`, true}, {"/unc/srv/share", `\\srv\share`, true},
		{"/unc/srv", "", false}, {"/unc", "", false}, {"/", "", false}, {"/tmp", "", false}, {"/cc/x", "", false},
	} {
		got, ok := windowsHostPath(tc.shell)
		if got != tc.host || ok != tc.ok {
			t.Errorf("host path of %s = %q %v, want %q %v", tc.shell, got, ok, tc.host, tc.ok)
		}
	}
}

// TestWindowsSyntax: what a script writes in Windows syntax becomes the sandbox's slash path,
// wherever the evaluator joined it to the working directory, or is refused with the reason.
func TestWindowsSyntax(t *testing.T) {
	for _, tc := range []struct{ in, want, refused string }{
		{"/c/proj/file.txt", "/c/proj/file.txt", ""},
		{`/c/proj/C:\Windows\win.ini`, "/c/Windows/win.ini", ""},
		{`C:\Windows\win.ini`, "/c/Windows/win.ini", ""},
		{"/c/proj/C:/Windows/win.ini", "/c/Windows/win.ini", ""},
		{`/c/proj/sub\..\..\..\etc\x`, "/etc/x", ""},
		{`/c/proj/tools\x.sh`, "/c/proj/tools/x.sh", ""},
		{`/c/proj/\\server\share\f`, "/unc/server/share/f", ""},
		{`/c/proj/D:\a/b`, "/d/a/b", ""},
		{`/c/proj/C:secret`, "", "drive-relative"},
		{`/c/proj/C:`, "", "drive-relative"},
		{"/c/proj/file.txt:stream", "", "alternate data stream"},
		{"/c/proj/tools.", "", "trailing dot or space"},
		{"/c/proj/tools /x", "", "trailing dot or space"},
		{"/c/proj/NUL", "", "device name"},
		{"/c/proj/com1.txt", "", "device name"},
		{"/c/proj/con/x", "", "device name"},
		{"/c/proj/console", "/c/proj/console", ""},
		{"/c/proj/./a/../b", "/c/proj/b", ""},
	} {
		got, err := windowsSyntax(tc.in)
		switch {
		case tc.refused != "":
			if err == nil || !errors.Is(err, fs.ErrPermission) || !strings.Contains(Reason(err), tc.refused) {
				t.Errorf("%s: got %q, %v; want a refusal about %q", tc.in, got, err, tc.refused)
			}
		case err != nil || got != tc.want:
			t.Errorf("%s: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestCutPathPrefixFolds(t *testing.T) {
	for _, tc := range []struct {
		p, dir string
		fold   bool
		rest   string
		ok     bool
	}{
		{"/p/tools/x", "/p/tools", false, "x", true},
		{"/p/TOOLS/x", "/p/tools", false, "", false},
		{"/p/TOOLS/x", "/p/tools", true, "x", true},
		{"TOOLS/x", "tools", true, "x", true},
		{"toolſ/x", "tools", true, "x", true}, // NTFS folds ſ to S: a byte-wise prefix would miss it
		{"/p/toolsx", "/p/tools", true, "", false},
		{"/p/tools", "/p/tools", true, "", true},
		{"/x/y", "/", true, "x/y", true},
		{"/p/tools", "/p/tools", false, "", true},
		{"/p/toolsx", "/p/tools", false, "", false},
		{"/p/tool", "/p/tools", false, "", false},
		{"/q/tools/x", "/p/tools", false, "", false},
		{"/p/tools/", "/p/tools", false, "", true},
	} {
		rest, ok := cutPathPrefixFold(tc.p, tc.dir, tc.fold)
		if rest != tc.rest || ok != tc.ok {
			t.Errorf("cut(%q, %q, fold %v) = %q %v, want %q %v", tc.p, tc.dir, tc.fold, rest, ok, tc.rest, tc.ok)
		}
	}
}
