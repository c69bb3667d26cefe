package eval

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// pwdValue is the logical working directory: $PWD when it names the working directory,
// else the directory itself (bash ignores a PWD that lies).
func (r *Runner) pwdValue() string {
	v, ok := r.scalar("PWD")
	if !ok || v == "" || !path.IsAbs(v) {
		return r.dir
	}
	if v == r.dir {
		return v
	}
	a, err1 := r.c.fs.RealPath(v)
	b, err2 := r.c.fs.RealPath(r.dir)
	if err1 != nil || err2 != nil || a != b {
		return r.dir
	}
	return v
}

// chdir changes the working directory to an absolute logical path (physical: resolve
// symbolic links first). It updates PWD and OLDPWD.
func (r *Runner) chdir(name, target string, physical bool) bool {
	if physical {
		real, err := r.c.fs.RealPath(target)
		if err != nil {
			r.errorf("cd: %s: %s", name, errText(err))
			return false
		}
		target = real
	}
	fi, err := r.c.fs.Stat(target)
	if err != nil {
		r.errorf("cd: %s: %s", name, errText(err))
		return false
	}
	if !fi.IsDir() {
		r.errorf("cd: %s: Not a directory", name)
		return false
	}
	if err := r.c.fs.Access(target, 1); err != nil {
		r.errorf("cd: %s: Permission denied", name)
		return false
	}
	old := r.pwdValue()
	if err := r.assign("OLDPWD", old, 0); err != nil {
		r.raise(err)
		return false
	}
	r.dir = target
	if err := r.assign("PWD", target, 0); err != nil {
		r.raise(err)
		return false
	}
	return true
}

// logicalJoin makes dir absolute against the logical working directory, folding . and ..
// textually (cd -L); each directory a ".." leaves must exist, as bash checks. ok is false
// when one does not.
func (r *Runner) logicalJoin(dir string) string {
	p, _ := r.logicalPath(dir)
	return p
}

func (r *Runner) logicalPath(dir string) (string, bool) {
	full := dir
	if !path.IsAbs(dir) {
		full = r.pwdValue() + "/" + dir
	}
	var stack []string
	for _, c := range strings.Split(full, "/") {
		switch c {
		case "", ".":
		case "..":
			cur := "/" + strings.Join(stack, "/")
			if fi, err := r.c.fs.Stat(cur); err != nil || !fi.IsDir() {
				return path.Clean(full), false
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		default:
			stack = append(stack, c)
		}
	}
	return "/" + strings.Join(stack, "/"), true
}

func biCd(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("cd", args[1:], "LPe@", false)
	if !ok {
		return 2
	}
	physical := r.opts.has(optPhysical)
	for _, o := range opts {
		switch o.c {
		case 'L':
			physical = false
		case 'P':
			physical = true
		}
	}
	if len(rest) > 1 {
		r.errorf("cd: too many arguments")
		return 1
	}
	var dir string
	printDir := false
	if len(rest) == 0 {
		h, ok := r.scalar("HOME")
		if !ok {
			r.errorf("cd: HOME not set")
			return 1
		}
		dir = h
		if dir == "" {
			return 0
		}
	} else {
		dir = rest[0]
	}
	if dir == "-" {
		o, ok := r.scalar("OLDPWD")
		if !ok || o == "" {
			r.errorf("cd: OLDPWD not set")
			return 1
		}
		dir, printDir = o, true
	}
	if dir == "" {
		return 0
	}
	target := ""
	if !path.IsAbs(dir) && !strings.HasPrefix(dir, "./") && !strings.HasPrefix(dir, "../") && dir != "." && dir != ".." {
		if cdpath, ok := r.scalar("CDPATH"); ok && cdpath != "" {
			for _, base := range strings.Split(cdpath, ":") {
				useBase := base
				if useBase == "" {
					useBase = "."
				}
				cand := r.logicalJoin(path.Join(useBase, dir))
				if fi, err := r.c.fs.Stat(cand); err == nil && fi.IsDir() {
					target = cand
					printDir = base != ""
					break
				}
			}
		}
	}
	if target == "" {
		var ok bool
		target, ok = r.logicalPath(dir)
		if !ok && !physical {
			r.errorf("cd: %s: No such file or directory", dir)
			return 1
		}
		if physical && !path.IsAbs(dir) {
			target = r.dir + "/" + dir
		}
	}
	if !r.chdir(dir, target, physical) {
		return 1
	}
	if printDir {
		return r.out("cd", r.pwdValue()+"\n")
	}
	return 0
}

func biPwd(r *Runner, args []string) int {
	opts, _, ok := r.parseOpts("pwd", args[1:], "LP", false)
	if !ok {
		return 2
	}
	physical := r.opts.has(optPhysical)
	for _, o := range opts {
		physical = o.c == 'P'
	}
	d := r.pwdValue()
	if physical {
		real, err := r.c.fs.RealPath(r.dir)
		if err != nil {
			r.errorf("pwd: error retrieving current directory: %s", errText(err))
			return 1
		}
		d = real
	}
	return r.out("pwd", d+"\n")
}

// dirsList is the directory stack, current directory first.
func (r *Runner) dirsList() []string { return append([]string{r.pwdValue()}, r.dirs...) }

// dirAt is ~+N / ~-N: entry N of the stack from the top (or the bottom).
func (r *Runner) dirAt(n int, fromBottom bool) (string, bool) {
	l := r.dirsList()
	if fromBottom {
		n = len(l) - 1 - n
	}
	if n < 0 || n >= len(l) {
		return "", false
	}
	return l[n], true
}

func (r *Runner) tildeShort(p string) string {
	if h, ok := r.scalar("HOME"); ok && h != "" && h != "/" {
		if p == h {
			return "~"
		}
		if strings.HasPrefix(p, h+"/") {
			return "~" + p[len(h):]
		}
	}
	return p
}

// stackIndex reads a +N or -N operand of dirs, pushd or popd as an index into a directory
// stack of l entries (-N counts from the bottom). isIdx is false for any other operand; ok is
// false, after bash's complaint, when the index is out of range.
func (r *Runner) stackIndex(name, a string, l int) (n int, isIdx, ok bool) {
	if len(a) < 2 || (a[0] != '+' && a[0] != '-') || !isDigits(a[1:]) {
		return 0, false, true
	}
	n, _ = strconv.Atoi(a[1:])
	if a[0] == '-' {
		n = l - 1 - n
	}
	if n < 0 || n >= l {
		r.errorf("%s: %s: directory stack index out of range", name, a)
		return 0, true, false
	}
	return n, true, true
}

// badStackNumber is an operand that looks like +N or -N but is no number: bash's pushd and
// popd reject it (status 2) rather than take it as a directory.
func badStackNumber(a string) bool {
	return len(a) >= 2 && (a[0] == '+' || a[0] == '-') && !isDigits(a[1:])
}

func biDirs(r *Runner, args []string) int {
	clear, long, perLine, verbose := false, false, false, false
	idx, hasIdx := 0, false
	for _, a := range args[1:] {
		if n, isIdx, ok := r.stackIndex("dirs", a, len(r.dirsList())); !ok {
			return 1
		} else if isIdx {
			idx, hasIdx = n, true
			continue
		}
		if !strings.HasPrefix(a, "-") || len(a) < 2 {
			r.errorf("dirs: %s: invalid argument", a)
			r.usage("dirs")
			return 2
		}
		for _, c := range a[1:] {
			switch c {
			case 'c':
				clear = true
			case 'l':
				long = true
			case 'p':
				perLine = true
			case 'v':
				verbose, perLine = true, true
			default:
				r.errorf("dirs: -%c: invalid option", c)
				r.usage("dirs")
				return 2
			}
		}
	}
	if clear {
		r.dirs = nil
		return 0
	}
	l := r.dirsList()
	show := func(p string) string {
		if long {
			return p
		}
		return r.tildeShort(p)
	}
	if hasIdx {
		return r.out("dirs", show(l[idx])+"\n")
	}
	var b strings.Builder
	for i, p := range l {
		switch {
		case verbose:
			fmt.Fprintf(&b, "%2d  %s\n", i, show(p))
		case perLine:
			b.WriteString(show(p) + "\n")
		default:
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(show(p))
		}
	}
	if !perLine {
		b.WriteByte('\n')
	}
	return r.out("dirs", b.String())
}

func biPushd(r *Runner, args []string) int {
	noCd := false
	var rest []string
	for i, a := range args[1:] {
		if a == "--" {
			rest = append(rest, args[i+2:]...)
			break
		}
		if a == "-n" {
			noCd = true
			continue
		}
		if badStackNumber(a) {
			r.errorf("pushd: %s: invalid number", a)
			r.usage("pushd")
			return 2
		}
		rest = append(rest, a)
	}
	l := r.dirsList()
	if len(rest) == 0 {
		if len(l) < 2 {
			r.errorf("pushd: no other directory")
			return 1
		}
		l[0], l[1] = l[1], l[0]
		if !noCd && !r.chdir(l[0], l[0], false) {
			return 1
		}
		r.dirs = append([]string(nil), l[1:]...)
		return biDirs(r, []string{"dirs"})
	}
	a := rest[0]
	if n, isIdx, ok := r.stackIndex("pushd", a, len(l)); !ok {
		return 1
	} else if isIdx {
		rot := append(append([]string(nil), l[n:]...), l[:n]...)
		if !noCd && !r.chdir(rot[0], rot[0], false) {
			return 1
		}
		r.dirs = rot[1:]
		return biDirs(r, []string{"dirs"})
	}
	old := r.pwdValue()
	if !noCd {
		if !r.chdir(a, r.logicalJoin(a), r.opts.has(optPhysical)) {
			return 1
		}
		r.dirs = append([]string{old}, r.dirs...)
	} else {
		// -n keeps the directory as written.
		r.dirs = append([]string{a}, r.dirs...)
	}
	return biDirs(r, []string{"dirs"})
}

func biPopd(r *Runner, args []string) int {
	noCd := false
	idx := 0
	opts := true
	for _, a := range args[1:] {
		if opts && a == "--" {
			opts = false
			continue
		}
		if opts && a == "-n" {
			noCd = true
			continue
		}
		if badStackNumber(a) {
			r.errorf("popd: %s: invalid number", a)
			r.usage("popd")
			return 2
		}
		if a == "" {
			// bash's popd passes over it but then counts the index from the bottom (its
			// direction is the operand's empty first character).
			r.status = r.raise(r.refuseHere("popd with an empty operand", "drop the empty operand, or name the entry with +N or -N"))
			return r.status
		}
		if n, isIdx, ok := r.stackIndex("popd", a, len(r.dirsList())); !ok {
			return 1
		} else if isIdx {
			idx = n
			continue
		}
		r.errorf("popd: %s: invalid argument", a)
		r.usage("popd")
		return 2
	}
	if len(r.dirs) == 0 {
		r.errorf("popd: directory stack empty")
		return 1
	}
	l := r.dirsList()
	if idx == 0 && !noCd {
		if !r.chdir(l[1], l[1], false) {
			return 1
		}
		r.dirs = append([]string(nil), l[2:]...)
	} else {
		if noCd && idx == 0 {
			idx = 1
		}
		l = append(l[:idx:idx], l[idx+1:]...)
		r.dirs = append([]string(nil), l[1:]...)
	}
	return biDirs(r, []string{"dirs"})
}
