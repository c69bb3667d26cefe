package sandbox

import (
	"net/url"
	"path/filepath"
	"strings"
)

// Host paths in the server's own bookkeeping (roots, URIs, lists in settings), the same on every
// OS but for what Windows spells differently. The pure functions take the OS as an argument so
// that the Windows rules are tested everywhere.

// FileURI is the file: URI of the host path p: file:///home/me on Unix, file:///C:/Users/me and
// file://server/share/dir on Windows.
func FileURI(p string) string { return fileURI(p, windowsHost) }

func fileURI(p string, windows bool) string {
	if !windows {
		return "file://" + p // as the original writes it
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if rest, ok := strings.CutPrefix(s, "//"); ok {
		host, tail, _ := strings.Cut(rest, "/")
		return (&url.URL{Scheme: "file", Host: host, Path: "/" + tail}).String()
	}
	return (&url.URL{Scheme: "file", Path: "/" + s}).String()
}

// PathOfFileURI is the host path a file: URI names, ok false when it names none here: on Unix
// the URI's path (the original ignores the authority); on Windows a drive path
// (file:///C:/x, file:///c:/x) or, with an authority other than localhost, a UNC path
// (file://server/share/x). The path is not checked further (vetRoot does that).
func PathOfFileURI(u *url.URL) (string, bool) { return pathOfFileURI(u, windowsHost) }

func pathOfFileURI(u *url.URL, windows bool) (string, bool) {
	if u == nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	if !windows {
		return u.Path, true
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		share := strings.TrimPrefix(u.Path, "/")
		if share == "" {
			return "", false
		}
		return `\\` + u.Host + `\` + strings.ReplaceAll(share, "/", `\`), true
	}
	p := strings.TrimPrefix(u.Path, "/")
	if len(p) >= 2 && isDriveLetter(p[0]) && p[1] == ':' && (len(p) == 2 || p[2] == '/') {
		return strings.ToUpper(p[:1]) + `:\` + strings.ReplaceAll(strings.TrimPrefix(p[2:], "/"), "/", `\`), true
	}
	return "", false // no drive: a rooted path has no meaning without one
}

// PathUnder reports whether the host path p is dir or below it (both clean and absolute),
// comparing names as the host's file system does.
func PathUnder(p, dir string) bool {
	_, ok := cutPathPrefix(ShellPath(p), ShellPath(dir))
	return ok
}

// IsVolumeRoot reports whether the host path p is a whole file system: / on Unix; a drive
// (C:\) or a share (\\server\share) on Windows.
func IsVolumeRoot(p string) bool {
	p = filepath.Clean(p)
	if !windowsHost {
		return p == "/"
	}
	v := filepath.VolumeName(p)
	return v != "" && strings.TrimRight(p[len(v):], `\/`) == ""
}

// SplitPathList splits a list of paths from a setting (MCPBASH_ROOTS): on ':' on Unix; on
// Windows on ';', and an element written in Git-Bash's form (/c/a:/d/b, as the original's
// users on Windows write it) on ':' with each path turned into its host form.
func SplitPathList(v string) []string { return splitPathList(v, windowsHost) }

func splitPathList(v string, windows bool) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	if !windows {
		for _, s := range strings.Split(v, ":") {
			add(s)
		}
		return out
	}
	for _, s := range strings.Split(v, ";") {
		if s = strings.TrimSpace(s); !strings.HasPrefix(s, "/") {
			add(s)
			continue
		}
		for _, m := range strings.Split(s, ":") {
			if h, ok := windowsHostPath(m); ok {
				m = h
			}
			add(m)
		}
	}
	return out
}
