package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// Symlink targets are resolved the way the kernel resolves them, never lexically: path.Join
// cancels "u/.." where the kernel first follows u, so "a/u/../../x" with u a link to the root
// leaves it although it looks like "x". Anything that follows a link outside os.Root (the
// operator's tools on the host, a native tool, an allowlisted command) sees the kernel's
// meaning, so a link a script makes must stay inside its own root under that meaning, now and
// after any later change the sandbox allows. Two rules make that hold by induction over the
// links in a root:
//
//   - form: a relative target is some leading ".." components followed only by names (a ".."
//     after a name is refused: the name may later become a link, and its ".." would then climb
//     from wherever that link points); an absolute target names a place inside the link's own
//     root without any ".." and is stored relative;
//   - depth: the leading ".." never climb above the root from the link's physical directory
//     (its parent resolved the kernel's way), and the rest, resolved the kernel's way through
//     the links that exist now, stays inside the root.
//
// A rename moves links, and a relative target means something else from the new place: a
// renamed link, and every link under a renamed directory, is checked again at its destination
// and the rename is refused when one would leave the root.

// maxLinkHops bounds symlink resolution, as the kernel's ELOOP limit does.
const maxLinkHops = 40

// maxRenameScan bounds how many entries a directory rename examines for links.
const maxRenameScan = 100000

var errEscapes = errors.New("resolves outside its root")

// splitPath splits a slash path into its components, dropping empty and "." ones.
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// resolvePhysical resolves comps (relative to the root of m) as the kernel would, following
// every symlink that exists now, and returns the physical components. A component that does not
// exist ends the walk: the rest is appended as it is when it only descends (what is created
// there later is checked when it is created), else the path is refused.
func (m *mount) resolvePhysical(r tree, comps []string) ([]string, error) {
	var out []string
	rest := append([]string(nil), comps...)
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			if len(out) == 0 {
				return nil, errEscapes
			}
			out = out[:len(out)-1]
			continue
		}
		cand := path.Join(append(append([]string(nil), out...), c)...)
		fi, err := r.Lstat(cand)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			for _, x := range rest {
				if x == ".." {
					return nil, fmt.Errorf("%w: it climbs out of %q, which does not exist", errEscapes, cand)
				}
			}
			return append(append(out, c), splitPath(strings.Join(rest, "/"))...), nil
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			out = append(out, c)
			continue
		}
		if hops++; hops > maxLinkHops {
			return nil, &fs.PathError{Op: "symlink", Path: cand, Err: syscall.ELOOP}
		}
		target, err := readLink(r, cand)
		if err != nil {
			return nil, err
		}
		if path.IsAbs(target) {
			// The kernel starts over at "/": only a place inside this root keeps it inside.
			t := path.Clean(target)
			if !isUnder(t, m.Path) {
				return nil, errEscapes
			}
			out = nil
			target = strings.TrimPrefix(strings.TrimPrefix(t, m.Path), "/")
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return out, nil
}

// linkForm splits a relative target into its leading ".." count and the names after them,
// refusing a ".." after a name.
func linkForm(target string) (int, []string, error) {
	comps := splitPath(target)
	up := 0
	for up < len(comps) && comps[up] == ".." {
		up++
	}
	for _, c := range comps[up:] {
		if c == ".." {
			return 0, nil, fmt.Errorf("'..' after a name in %q is refused in the sandbox (the name could later become a link and move what '..' means); write the target without it", target)
		}
	}
	return up, comps[up:], nil
}

// checkLink validates target for a link at rel (inside m, opened as r) and returns the text to
// store: absolute targets inside the root become relative to the link's physical directory.
func (f *FS) checkLink(m *mount, r tree, rel, target string) (string, error) {
	if target == "" || strings.ContainsRune(target, 0) {
		return "", errors.New("empty link target")
	}
	dir, err := m.resolvePhysical(r, splitPath(path.Dir(rel)))
	if err != nil {
		return "", fmt.Errorf("the link's directory %w", err)
	}
	if path.IsAbs(target) {
		for _, c := range strings.Split(target, "/") {
			if c == ".." {
				return "", fmt.Errorf("'..' in the absolute target %q is refused in the sandbox; name the place without it", target)
			}
		}
		abs := path.Clean(target)
		tm, trel, ok := f.lookup(abs)
		switch {
		case !ok:
			return "", fmt.Errorf("target %s is outside the roots", target)
		case tm != m:
			// os.Root never follows a link out of its root, so such a link could not be used.
			return "", fmt.Errorf("target %s is in another root", target)
		}
		parts := splitPath(trel)
		if _, err := m.resolvePhysical(r, parts); err != nil {
			return "", fmt.Errorf("target %s %w", target, err)
		}
		// os.Root refuses absolute link targets; the same place, relative, works.
		up := strings.Repeat("../", len(dir))
		if t := up + strings.Join(parts, "/"); t != "" {
			return strings.TrimSuffix(t, "/"), nil
		}
		return ".", nil
	}
	up, names, err := linkForm(target)
	if err != nil {
		return "", err
	}
	if up > len(dir) {
		return "", fmt.Errorf("target %s %w", target, errEscapes)
	}
	if _, err := m.resolvePhysical(r, append(dir[:len(dir)-up:len(dir)-up], names...)); err != nil {
		return "", fmt.Errorf("target %s %w", target, err)
	}
	return target, nil
}

// checkMove validates every relative link that a rename of rel1 to rel2 (both in m) would move:
// rel1 itself when it is a link, else every link below it (at most maxRenameScan entries).
func (f *FS) checkMove(m *mount, r tree, rel1, rel2 string) error {
	fi, err := r.Lstat(rel1)
	if err != nil {
		return nil // the rename itself will fail
	}
	newDir, err := m.resolvePhysical(r, splitPath(path.Dir(rel2)))
	if err != nil {
		return fmt.Errorf("the destination's directory %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := readLink(r, rel1)
		if err != nil || path.IsAbs(target) {
			return nil // an absolute target means the same from anywhere
		}
		return moved(target, len(newDir), path.Base(rel2))
	}
	if !fi.IsDir() {
		return nil
	}
	seen := 0
	// depth is the number of directories between the moved directory (exclusive) and a link's
	// directory; the link's new physical depth is len(newDir)+1+depth.
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		ents, err := r.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if seen++; seen > maxRenameScan {
				return fmt.Errorf("it holds more than %d entries, too many to check its links", maxRenameScan)
			}
			p := dir + "/" + e.Name()
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				target, err := readLink(r, p)
				if err != nil {
					return err
				}
				if path.IsAbs(target) {
					continue
				}
				if err := moved(target, len(newDir)+1+depth, p); err != nil {
					return err
				}
			case e.IsDir():
				if err := walk(p, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(rel1, 0)
}

// moved checks a relative link's target from a new directory depth.
func moved(target string, depth int, name string) error {
	up, _, err := linkForm(target)
	if err != nil {
		return fmt.Errorf("link %s: %w", name, err)
	}
	if up > depth {
		return fmt.Errorf("link %s -> %s would then resolve outside its root", name, target)
	}
	return nil
}

// refused is a denial that carries the sandbox's reason; it matches fs.ErrPermission.
type refused struct{ reason string }

func (r *refused) Error() string { return "permission denied: " + r.reason }
func (r *refused) Unwrap() error { return fs.ErrPermission }

// Reason returns the sandbox's reason for refusing an operation, or "" (utilities and
// redirections add it to their message, so a script's author sees why `ln -s`, `mv`, `mkdir` or
// `> file` failed: "outside the roots", "read-only root", ...).
func Reason(err error) string {
	var r *refused
	if errors.As(err, &r) {
		return r.reason
	}
	var d *denied
	if errors.As(err, &d) {
		return d.reason
	}
	return ""
}

// readLink reads the link rel of r as a slash path. On Windows a link's target is a Windows
// path (..\tools), which os.Root follows with backslashes as separators: the sandbox's checks
// must read it the same way, and a target with a volume or a leading separator (C:\x,
// \\server\share, \x) is absolute, which os.Root refuses to follow, as it refuses /x on Unix.
func readLink(r interface{ Readlink(string) (string, error) }, rel string) (string, error) {
	t, err := r.Readlink(rel)
	if err != nil || !windowsHost {
		return t, err
	}
	t = strings.ReplaceAll(t, `\`, "/")
	if len(t) >= 2 && t[1] == ':' {
		return "/" + t, nil
	}
	return t, nil
}
