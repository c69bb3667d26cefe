package sandbox

import (
	"io/fs"
	"path"
	"runtime"
	"strings"
	"unicode"
)

// Paths as scripts see them. The evaluator, the utilities and wasm guests work with slash
// paths rooted at /, as bash does. On Unix a host path is that path. On Windows a host path is
// shown the way Git-Bash (MSYS) shows it, so that a script written for Git-Bash reads the same:
//
//	C:\Users\me\proj          /c/Users/me/proj      (the drive letter in lower case)
//	\\server\share\dir        /unc/server/share/dir (MSYS writes //server/share, which a clean
//	                                                 slash path cannot keep: it is one /)
//
// Native tools on Windows run in Git-Bash itself and get MSYSPath's form (//server/share).

// windowsHost is whether host paths are Windows paths.
const windowsHost = runtime.GOOS == "windows"

// ShellPath is the path scripts see for the host path p (p itself on Unix).
func ShellPath(p string) string {
	if !windowsHost {
		return p
	}
	return windowsShellPath(p, false)
}

// MSYSPath is the path Git-Bash's bash.exe uses for the host path p (p itself on Unix): as
// ShellPath, but a UNC path keeps MSYS's //server/share form.
func MSYSPath(p string) string {
	if !windowsHost {
		return p
	}
	return windowsShellPath(p, true)
}

// windowsShellPath maps a Windows path to its slash form; anything that is not an absolute
// Windows path only has its backslashes turned into slashes.
func windowsShellPath(p string, msys bool) string {
	s := strings.ReplaceAll(p, `\`, "/")
	switch {
	case strings.HasPrefix(s, "//?/UNC/"):
		s = "//" + s[len("//?/UNC/"):]
	case strings.HasPrefix(s, "//?/") || strings.HasPrefix(s, "//./"):
		s = s[len("//?/"):]
	}
	switch {
	case len(s) >= 2 && isDriveLetter(s[0]) && s[1] == ':':
		rest := path.Clean("/" + s[2:])
		if rest == "/" {
			return "/" + strings.ToLower(s[:1])
		}
		return "/" + strings.ToLower(s[:1]) + rest
	case strings.HasPrefix(s, "//"):
		rest := path.Clean("/" + strings.TrimLeft(s, "/"))
		if msys {
			return "/" + rest
		}
		return "/unc" + rest
	}
	return s
}

// HostPathOf is the host path of the script path p, the inverse of ShellPath (p itself on
// Unix); ok is false for a path that names no host location (/, /unc, /unc/server on Windows).
func HostPathOf(p string) (string, bool) {
	if !windowsHost {
		return p, true
	}
	return windowsHostPath(p)
}

func windowsHostPath(p string) (string, bool) {
	p = path.Clean(p)
	if rest, ok := strings.CutPrefix(p, "/unc/"); ok {
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			return "", false
		}
		return `\\` + strings.ReplaceAll(rest, "/", `\`), true
	}
	if len(p) >= 2 && p[0] == '/' && isDriveLetter(p[1]) && (len(p) == 2 || p[2] == '/') {
		return strings.ToUpper(p[1:2]) + `:\` + strings.ReplaceAll(strings.TrimPrefix(p[2:], "/"), "/", `\`), true
	}
	return "", false
}

func isDriveLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// windowsSyntax rewrites a path a script gave on Windows into the slash form the sandbox works
// in, or refuses it. The evaluator joins a relative path to the working directory before the
// sandbox sees it, so a Windows absolute path arrives as one component of a longer path
// (/c/proj/C:\Windows\win.ini): the last component that starts a Windows absolute path (a drive
// letter and a separator, or two backslashes for UNC) starts the path. Backslashes are
// separators, as Windows reads them (otherwise tools\x would be a name in the sandbox and a
// path on the disk). Refused, with the reason: a drive-relative path (C:x, which Windows
// resolves against that drive's own working directory), any other colon (alternate data
// streams: file:stream), and names Windows alters or reserves (a trailing dot or space, which it
// strips, so tools. is tools; CON, NUL, COM1, ...).
func windowsSyntax(p string) (string, error) {
	refuse := func(why string) (string, error) {
		return "", &fs.PathError{Op: "open", Path: p, Err: &refused{why}}
	}
	comps := strings.Split(p, "/")
	start := 0
	for i, c := range comps {
		switch {
		case strings.HasPrefix(c, `\\`):
			start = i
			comps[i] = "/unc/" + strings.TrimLeft(c, `\`)
		case len(c) >= 2 && isDriveLetter(c[0]) && c[1] == ':':
			if len(c) > 2 && c[2] != '\\' {
				return refuse("a drive-relative path (" + c[:2] + " without a separator) is not supported; write " + c[:2] + `\...`)
			}
			if len(c) == 2 && i == len(comps)-1 {
				return refuse("a drive-relative path (" + c + ") is not supported; write " + c + `\`)
			}
			start = i
			comps[i] = "/" + strings.ToLower(c[:1]) + "/" + c[2:]
		}
	}
	s := path.Clean(strings.ReplaceAll(strings.Join(comps[start:], "/"), `\`, "/"))
	if !path.IsAbs(s) {
		s = "/" + s
	}
	for _, c := range strings.Split(s, "/") {
		switch {
		case c == "" || c == "." || c == "..":
		case strings.ContainsRune(c, ':'):
			return refuse("a colon in a name (" + c + ") names an alternate data stream on Windows")
		case strings.TrimRight(c, ". ") != c:
			return refuse("Windows drops a trailing dot or space from a name (" + c + ")")
		case reservedWindowsName(c):
			return refuse(c + " is a device name on Windows")
		}
	}
	return s, nil
}

// reservedWindowsName reports the names Windows keeps for devices, with or without an
// extension (NUL, nul.txt, COM1, ...).
func reservedWindowsName(c string) bool {
	base := strings.ToUpper(strings.TrimRight(strings.SplitN(c, ".", 2)[0], " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		r := rune(base[3])
		return unicode.IsDigit(r) || r == '¹' || r == '²' || r == '³'
	}
	return false
}

// foldNames is whether names of the host's file system match without regard to case (the
// defaults of Windows and macOS): a protected directory must not be written as TOOLS.
const foldNames = runtime.GOOS == "windows" || runtime.GOOS == "darwin"

// cutPathPrefix reports whether the slash path p is dir or below it, comparing names as the
// host's file system does, and returns the rest of p below dir ("" for dir itself). dir "/" or
// "." holds every path (absolute or relative, as p is).
func cutPathPrefix(p, dir string) (rest string, ok bool) { return cutPathPrefixFold(p, dir, foldNames) }

func cutPathPrefixFold(p, dir string, fold bool) (rest string, ok bool) {
	if dir == "/" || dir == "." {
		return strings.TrimPrefix(p, "/"), true
	}
	if !fold {
		if p == dir {
			return "", true
		}
		// Not CutPrefix(p, dir+"/"): that concatenation allocated on every lookup.
		if len(p) <= len(dir) || p[len(dir)] != '/' || p[:len(dir)] != dir {
			return "", false
		}
		return p[len(dir)+1:], true
	}
	dc := strings.Split(dir, "/")
	pc := strings.SplitN(p, "/", len(dc)+1)
	if len(pc) < len(dc) {
		return "", false
	}
	for i, c := range dc {
		if !strings.EqualFold(c, pc[i]) {
			return "", false
		}
	}
	if len(pc) > len(dc) {
		return pc[len(dc)], true
	}
	return "", true
}
