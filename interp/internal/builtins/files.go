package builtins

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() {
	register("mkdir", mkdir)
	register("rm", rm)
	register("rmdir", rmdir)
	register("touch", touch)
	register("cp", cp)
	register("mv", mv)
	register("ln", ln)
	register("mktemp", mktemp)
	register("chmod", chmod)
}

func mkdir(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "mkdir", 1, optSpec{short: "pm:v", long: []string{"parents:p", "mode:m", "verbose:v"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	mode, hasMode := fs.FileMode(0o777), false
	if m, ok := fl.val("m"); ok {
		v, ok := parseMode(m, 0o777)
		if !ok {
			return errorf(env, 1, "mkdir", "invalid mode '%s'", m)
		}
		mode, hasMode = v, true
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "mkdir", "missing operand")
	}
	status := 0
	for _, d := range fl.operands {
		p := env.Abs(d)
		var err error
		if hasMode && mode&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
			// The sandbox refuses these bits (sandbox.FS.Chmod): refuse before creating, so
			// a failed mkdir leaves nothing behind.
			if err = env.FS.Chmod(p, mode); err != nil {
				status = errorf(env, 1, "mkdir", "cannot create directory %s: %s", localeQuote(env, d), describe(err))
				continue
			}
		}
		if fl.has("p") {
			if fi, serr := env.FS.Stat(p); serr == nil && fi.IsDir() {
				continue
			}
			err = env.FS.MkdirAll(p, env.Perm(0o777))
		} else {
			err = env.FS.Mkdir(p, env.Perm(0o777))
		}
		if err == nil && !hasMode {
			err = fixPerm(env, p, 0o777)
		}
		if err == nil && hasMode {
			err = env.FS.Chmod(p, mode)
		}
		if err != nil {
			status = errorf(env, 1, "mkdir", "cannot create directory %s: %s", localeQuote(env, d), describe(err))
			continue
		}
		if fl.has("v") {
			fmt.Fprintf(env.Stdout, "mkdir: created directory '%s'\n", d)
		}
	}
	return status
}

// specials are the setuid, setgid and sticky bits.
const specials = fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// specialBits maps the octal 07000 bits of a numeric mode to their fs.FileMode bits.
func specialBits(v uint64) fs.FileMode {
	var m fs.FileMode
	if v&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if v&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if v&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// parseMode reads an octal mode or a symbolic one ([ugoa]*[+-=][rwxXst]*, comma separated)
// applied to base.
func parseMode(s string, base fs.FileMode) (fs.FileMode, bool) {
	if v, err := strconv.ParseUint(s, 8, 32); err == nil {
		return fs.FileMode(v&0o777) | specialBits(v), v <= 0o7777
	}
	mode := base & (fs.ModePerm | specials)
	for _, clause := range strings.Split(s, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		whoSet := clause[:len(clause)-len(who)]
		if who == "" || strings.IndexByte("+-=", who[0]) < 0 {
			return 0, false
		}
		mask := fs.FileMode(0)
		for _, w := range whoSet {
			mask |= map[rune]fs.FileMode{'u': 0o700, 'g': 0o070, 'o': 0o007, 'a': 0o777}[w]
		}
		if mask == 0 {
			mask = 0o777
		}
		op, perms := who[0], who[1:]
		bits := fs.FileMode(0)
		// s and t are the special bits: s sets setuid for u and setgid for g, t the sticky bit.
		if strings.ContainsRune(perms, 's') {
			if mask&0o700 != 0 {
				bits |= fs.ModeSetuid
			}
			if mask&0o070 != 0 {
				bits |= fs.ModeSetgid
			}
		}
		if strings.ContainsRune(perms, 't') && (whoSet == "" || strings.ContainsAny(whoSet, "ao")) {
			bits |= fs.ModeSticky
		}
		// The special bits follow their class: setuid u, setgid g, sticky o.
		if mask&0o700 != 0 {
			mask |= fs.ModeSetuid
		}
		if mask&0o070 != 0 {
			mask |= fs.ModeSetgid
		}
		if mask&0o007 != 0 {
			mask |= fs.ModeSticky
		}
		for _, p := range perms {
			switch p {
			case 'r':
				bits |= 0o444
			case 'w':
				bits |= 0o222
			case 'x', 'X':
				bits |= 0o111
			case 's', 't':
			default:
				return 0, false
			}
		}
		switch op {
		case '+':
			mode |= bits & mask
		case '-':
			mode &^= bits & mask
		case '=':
			mode = mode&^mask | bits&mask
		}
	}
	return mode, true
}

func chmod(ctx context.Context, env *Env, argv []string) int {
	args := argv[1:]
	recursive := false
	for len(args) > 0 && (args[0] == "-R" || args[0] == "-f" || args[0] == "-v" || args[0] == "--") {
		recursive = recursive || args[0] == "-R"
		if args = args[1:]; len(args) > 0 && args[0] == "--" {
			args = args[1:]
			break
		}
	}
	if len(args) < 2 {
		return errorf(env, 1, "chmod", "missing operand")
	}
	status := 0
	for _, f := range args[1:] {
		walkTree(ctx, env, env.Abs(f), recursive, func(p string, fi fs.FileInfo) {
			m, ok := parseMode(args[0], fi.Mode())
			if !ok {
				status = errorf(env, 1, "chmod", "invalid mode: '%s'", args[0])
				return
			}
			if err := env.FS.Chmod(p, m); err != nil {
				status = errorf(env, 1, "chmod", "changing permissions of '%s': %s", f, describe(err))
			}
		}, func(err error) { status = errorf(env, 1, "chmod", "cannot access '%s': %s", f, describe(err)) })
	}
	return status
}

// walkTree calls fn for p and, when recursive, everything below it (symlinks not followed).
func walkTree(ctx context.Context, env *Env, p string, recursive bool, fn func(string, fs.FileInfo), fail func(error)) {
	if ctx.Err() != nil {
		return
	}
	fi, err := env.FS.Lstat(p)
	if err != nil {
		fail(err)
		return
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return
	}
	fn(p, fi)
	if !recursive || !fi.IsDir() {
		return
	}
	ents, err := env.FS.ReadDir(p)
	if err != nil {
		fail(err)
		return
	}
	for _, e := range ents {
		walkTree(ctx, env, path.Join(p, e.Name()), true, fn, fail)
	}
}

func rm(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "rm", 1, optSpec{short: "rRfdv", long: []string{"recursive:r", "force:f", "dir:d", "verbose:v", "no-preserve-root", "preserve-root"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	force, recursive := fl.has("f"), fl.has("r", "R")
	if len(fl.operands) == 0 && !force {
		return errorf(env, 1, "rm", "missing operand")
	}
	status := 0
	for _, f := range fl.operands {
		if ctx.Err() != nil {
			return 130
		}
		p := env.Abs(f)
		if p == "/" {
			status = errorf(env, 1, "rm", "it is dangerous to operate recursively on '/'")
			continue
		}
		if b := path.Base(strings.TrimRight(f, "/")); b == "." || b == ".." {
			status = errorf(env, 1, "rm", "refusing to remove '.' or '..' directory: skipping '%s'", f)
			continue
		}
		fi, err := env.FS.Lstat(p)
		if err != nil {
			if !force || !errors.Is(err, fs.ErrNotExist) {
				status = errorf(env, 1, "rm", "cannot remove '%s': %s", f, describe(err))
			}
			continue
		}
		switch {
		case fi.IsDir() && recursive:
			err = env.FS.RemoveAll(p)
		case fi.IsDir() && !fl.has("d"):
			err = &fs.PathError{Op: "remove", Path: p, Err: syscall.EISDIR}
		default:
			err = env.FS.Remove(p)
		}
		if err != nil {
			status = errorf(env, 1, "rm", "cannot remove '%s': %s", f, describe(err))
		} else if fl.has("v") {
			fmt.Fprintf(env.Stdout, "removed '%s'\n", f)
		}
	}
	return status
}

func rmdir(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "rmdir", 1, optSpec{short: "pv", long: []string{"parents:p", "verbose:v", "ignore-fail-on-non-empty"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "rmdir", "missing operand")
	}
	status := 0
	for _, d := range fl.operands {
		d = strings.TrimRight(d, "/")
		for {
			err := env.FS.Remove(env.Abs(d))
			if err == nil {
				if fi, serr := env.FS.Lstat(env.Abs(d)); serr == nil && !fi.IsDir() {
					err = syscall.ENOTDIR
				}
			}
			if err != nil {
				if !(fl.has("ignore-fail-on-non-empty") && errors.Is(err, syscall.ENOTEMPTY)) {
					status = errorf(env, 1, "rmdir", "failed to remove '%s': %s", d, describe(err))
				}
				break
			}
			if !fl.has("p") || !strings.Contains(d, "/") {
				break
			}
			if d = path.Dir(d); d == "/" || d == "." {
				break
			}
		}
	}
	return status
}

func touch(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "touch", 1, optSpec{short: "acmd:t:r:h", long: []string{"no-create:c", "date:d", "reference:r", "no-dereference:h"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	when := env.Now()
	if d, ok := fl.val("d"); ok {
		t, err := parseDate(d, env)
		if err != nil {
			return errorf(env, 1, "touch", "invalid date format '%s'", d)
		}
		when = t
	}
	if s, ok := fl.val("t"); ok {
		t, err := parseTouchStamp(s, env)
		if err != nil {
			return errorf(env, 1, "touch", "invalid date format '%s'", s)
		}
		when = t
	}
	if ref, ok := fl.val("r"); ok {
		fi, err := env.FS.Stat(env.Abs(ref))
		if err != nil {
			return errorf(env, 1, "touch", "failed to get attributes of '%s': %s", ref, describe(err))
		}
		when = fi.ModTime()
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "touch", "missing file operand")
	}
	_, explicit := fl.val("d")
	for _, o := range []string{"t", "r"} {
		if _, ok := fl.val(o); ok {
			explicit = true
		}
	}
	status := 0
	for _, f := range fl.operands {
		if !explicit {
			when = env.Now()
		}
		if err := touchOne(env, env.Abs(f), when, !explicit, fl); err != nil {
			status = errorf(env, 1, "touch", "cannot touch '%s': %s", f, describe(err))
		}
	}
	return status
}

// touchOne sets p's times to when; now says when is the current time, read again once a new
// file exists: creating it set its directory's time, which must not be later than the file's
// (find -newer), as with GNU touch, whose file times come after the creation.
func touchOne(env *Env, p string, when time.Time, now bool, fl *flagSet) error {
	fi, err := env.FS.Stat(p)
	if err != nil {
		if fl.has("c") {
			return nil
		}
		f, err := env.FS.Open(p, os.O_WRONLY|os.O_CREATE, env.Perm(0o666))
		if err != nil {
			return err
		}
		f.Close()
		if err := fixPerm(env, p, 0o666); err != nil {
			return err
		}
		if now {
			when = env.Now()
		}
		return env.FS.Chtimes(p, when, when)
	}
	atime, mtime := when, when
	if fl.has("a") && !fl.has("m") {
		mtime = fi.ModTime()
	}
	if fl.has("m") && !fl.has("a") {
		atime = accessTime(fi)
	}
	return env.FS.Chtimes(p, atime, mtime)
}

func accessTime(fi fs.FileInfo) time.Time {
	return sandbox.StatOf(fi).Atime
}

// parseTouchStamp reads touch -t [[CC]YY]MMDDhhmm[.ss] in the script's time zone.
func parseTouchStamp(s string, env *Env) (time.Time, error) {
	main, sec, _ := strings.Cut(s, ".")
	if sec == "" {
		sec = "00"
	}
	switch len(main) {
	case 8:
		main = strconv.Itoa(env.Now().Year()) + main
	case 10:
		yy, _ := strconv.Atoi(main[:2])
		cc := "20"
		if yy >= 69 {
			cc = "19"
		}
		main = cc + main
	case 12:
	default:
		return time.Time{}, errors.New("invalid")
	}
	return time.ParseInLocation("200601021504.05", main+"."+sec, envLocation(env))
}

// copyFile copies one regular file through the sandbox.
func copyFile(ctx context.Context, env *Env, src, dst string, mode fs.FileMode) error {
	in, err := env.FS.Open(src, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := env.FS.Open(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode.Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(out, ctxRead(ctx, in))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// copier copies files and trees for cp and mv.
type copier struct {
	ctx      context.Context
	env      *Env
	preserve bool // -p: mode and times
	links    bool // copy symlinks as symlinks (-R without -L, -a, mv)
	force    bool
}

func (c *copier) copy(src, dst string) error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	stat := c.env.FS.Stat
	if c.links {
		stat = c.env.FS.Lstat
	}
	fi, err := stat(src)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := c.env.FS.Readlink(src)
		if err != nil {
			return err
		}
		c.env.FS.Remove(dst)
		return c.env.FS.Symlink(target, dst)
	case fi.IsDir():
		if err := c.copyDir(src, dst, fi); err != nil {
			return err
		}
	default:
		err := copyFile(c.ctx, c.env, src, dst, fi.Mode())
		if err != nil && c.force && errors.Is(err, fs.ErrPermission) {
			if c.env.FS.Remove(dst) == nil {
				err = copyFile(c.ctx, c.env, src, dst, fi.Mode())
			}
		}
		if err != nil {
			return err
		}
	}
	if c.preserve {
		c.env.FS.Chmod(dst, fi.Mode().Perm())
		return c.env.FS.Chtimes(dst, accessTime(fi), fi.ModTime())
	}
	return nil
}

func (c *copier) copyDir(src, dst string, fi fs.FileInfo) error {
	if dfi, err := c.env.FS.Stat(dst); err != nil {
		if err := c.env.FS.Mkdir(dst, fi.Mode().Perm()|0o700); err != nil {
			return err
		}
	} else if !dfi.IsDir() {
		return &fs.PathError{Op: "copy", Path: dst, Err: syscall.ENOTDIR}
	}
	ents, err := c.env.FS.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := c.copy(path.Join(src, e.Name()), path.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	if !c.preserve {
		return c.env.FS.Chmod(dst, fi.Mode().Perm())
	}
	return nil
}

// targets pairs each source with its destination path: inside DEST when it is a directory
// (or when there are several sources).
func targets(env *Env, name string, operands []string) ([][2]string, error) {
	if len(operands) == 0 {
		return nil, errors.New("missing file operand")
	}
	if len(operands) == 1 {
		return nil, fmt.Errorf("missing destination file operand after '%s'", operands[0])
	}
	srcs, dst := operands[:len(operands)-1], operands[len(operands)-1]
	d := env.Abs(dst)
	fi, err := env.FS.Stat(d)
	isDir := err == nil && fi.IsDir()
	if !isDir && len(srcs) > 1 {
		return nil, fmt.Errorf("target '%s' is not a directory", dst)
	}
	var out [][2]string
	for _, s := range srcs {
		t := d
		if isDir {
			t = path.Join(d, path.Base(strings.TrimRight(s, "/")))
		}
		out = append(out, [2]string{s, t})
	}
	return out, nil
}

// inside reports whether p is q or below it.
func inside(p, q string) bool { return p == q || strings.HasPrefix(p, strings.TrimSuffix(q, "/")+"/") }

func cp(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "cp", 1, optSpec{short: "rRpafnvLPdT", long: []string{"recursive:R", "archive:a", "force:f",
		"no-clobber:n", "verbose:v", "dereference:L", "no-dereference:P", "preserve=?", "no-target-directory:T"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	pairs, err := targets(env, "cp", fl.operands)
	if err != nil {
		st := errorf(env, 1, "cp", "%v", err)
		if len(fl.operands) < 2 {
			fmt.Fprintln(env.Stderr, "Try 'cp --help' for more information.") // a usage error in GNU's words
		}
		return st
	}
	recursive := fl.has("r", "R", "a")
	c := &copier{ctx: ctx, env: env, preserve: fl.has("p", "a", "preserve"), force: fl.has("f"),
		links: (recursive || fl.has("P", "d")) && !fl.has("L")}
	status := 0
	for _, pr := range pairs {
		src, dst := env.Abs(pr[0]), pr[1]
		fi, err := env.FS.Stat(src)
		if err != nil {
			status = errorf(env, 1, "cp", "cannot stat '%s': %s", pr[0], describe(err))
			continue
		}
		if fi.IsDir() && !recursive {
			status = errorf(env, 1, "cp", "-r not specified; omitting directory '%s'", pr[0])
			continue
		}
		if fi.IsDir() && inside(dst, src) {
			status = errorf(env, 1, "cp", "cannot copy a directory, '%s', into itself, '%s'", pr[0], dst)
			continue
		}
		if dfi, err := env.FS.Stat(dst); err == nil {
			if os.SameFile(fi, dfi) {
				status = errorf(env, 1, "cp", "'%s' and '%s' are the same file", pr[0], dst)
				continue
			}
			if fl.has("n") {
				continue
			}
		}
		if err := c.copy(src, dst); err != nil {
			status = errorf(env, 1, "cp", "cannot copy '%s' to '%s': %s", pr[0], dst, describe(err))
			continue
		}
		if fl.has("v") {
			fmt.Fprintf(env.Stdout, "'%s' -> '%s'\n", pr[0], dst)
		}
	}
	return status
}

func mv(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "mv", 1, optSpec{short: "fnviT", long: []string{"force:f", "no-clobber:n", "verbose:v", "no-target-directory:T"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	pairs, err := targets(env, "mv", fl.operands)
	if err != nil {
		st := errorf(env, 1, "mv", "%v", err)
		if len(fl.operands) < 2 {
			fmt.Fprintln(env.Stderr, "Try 'mv --help' for more information.") // a usage error in GNU's words
		}
		return st
	}
	status := 0
	for _, pr := range pairs {
		src, dst := env.Abs(pr[0]), pr[1]
		if _, err := env.FS.Lstat(src); err != nil {
			status = errorf(env, 1, "mv", "cannot stat '%s': %s", pr[0], describe(err))
			continue
		}
		if inside(dst, src) && dst != src {
			status = errorf(env, 1, "mv", "cannot move '%s' to a subdirectory of itself, '%s'", pr[0], dst)
			continue
		}
		if _, err := env.FS.Lstat(dst); err == nil && fl.has("n") {
			continue
		}
		if err := moveOne(ctx, env, src, dst); err != nil {
			status = errorf(env, 1, "mv", "cannot move '%s' to '%s': %s", pr[0], dst, describe(err))
			continue
		}
		if fl.has("v") {
			fmt.Fprintf(env.Stdout, "renamed '%s' -> '%s'\n", pr[0], dst)
		}
	}
	return status
}

// moveOne renames, or copies then removes across roots (rename fails with EXDEV there).
func moveOne(ctx context.Context, env *Env, src, dst string) error {
	err := env.FS.Rename(src, dst)
	if !errors.Is(err, syscall.EXDEV) {
		return err
	}
	c := &copier{ctx: ctx, env: env, preserve: true, links: true}
	if err := c.copy(src, dst); err != nil {
		return err
	}
	return env.FS.RemoveAll(src)
}

func ln(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "ln", 1, optSpec{short: "sfnvTrP", long: []string{"symbolic:s", "force:f", "no-dereference:n", "verbose:v", "no-target-directory:T", "relative:r"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	if !fl.has("s") {
		return unsupported(env, "ln", "without -s (a hard link)", "use ln -s")
	}
	ops := fl.operands
	switch len(ops) {
	case 0:
		return errorf(env, 1, "ln", "missing file operand")
	case 1:
		ops = append(ops, ".")
	}
	targetsList, dest := ops[:len(ops)-1], ops[len(ops)-1]
	d := env.Abs(dest)
	stat := env.FS.Stat
	if fl.has("n", "T") {
		stat = env.FS.Lstat
	}
	fi, err := stat(d)
	isDir := err == nil && fi.IsDir() && !fl.has("T")
	if len(targetsList) > 1 && !isDir {
		return errorf(env, 1, "ln", "target '%s' is not a directory", dest)
	}
	status := 0
	for _, t := range targetsList {
		link := d
		if isDir {
			link = path.Join(d, path.Base(t))
		}
		if fl.has("f") {
			if lfi, err := env.FS.Lstat(link); err == nil && !lfi.IsDir() {
				env.FS.Remove(link)
			}
		}
		if err := env.FS.Symlink(t, link); err != nil {
			status = errorf(env, 1, "ln", "failed to create symbolic link '%s' -> '%s': %s", link, t, describe(err))
			continue
		}
		if fl.has("v") {
			fmt.Fprintf(env.Stdout, "'%s' -> '%s'\n", link, t)
		}
	}
	return status
}

func mktemp(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "mktemp", 1, optSpec{short: "dtqup:", long: []string{"directory:d", "quiet:q", "dry-run:u", "tmpdir=?", "suffix="}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	tmpl, explicit := "tmp.XXXXXXXXXX", len(fl.operands) > 0
	if explicit {
		tmpl = fl.operands[0]
	}
	x := len(tmpl) - len(strings.TrimRight(tmpl, "X"))
	if x < 3 {
		return errorf(env, 1, "mktemp", "too few X's in template '%s'", tmpl)
	}
	suffix, _ := fl.val("suffix")
	dir, useDir := fl.val("p", "tmpdir")
	if !explicit || fl.has("t") || useDir {
		useDir = true
		// GNU: -t prefers TMPDIR to -p; --tmpdir prefers its own argument.
		if tmp := env.Getenv("TMPDIR"); tmp != "" && (dir == "" || fl.has("t")) {
			dir = tmp
		}
		if dir == "" {
			dir = "/tmp"
		}
		switch {
		case fl.has("t") && strings.Contains(tmpl, "/"):
			return errorf(env, 1, "mktemp", "invalid template, %s, contains directory separator", localeQuote(env, tmpl))
		case strings.HasPrefix(tmpl, "/"):
			return errorf(env, 1, "mktemp", "invalid template, %s; with --tmpdir, it may not be absolute", localeQuote(env, tmpl))
		}
		// The template is put in the directory as it is (GNU's file_name_concat): never
		// cleaned, so `.XXXXXX` stays a hidden name in the directory, not a suffix of it.
		tmpl = strings.TrimRight(dir, "/") + "/" + tmpl
	}
	base := tmpl[:len(tmpl)-x]
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for try := 0; try < 100; try++ {
		b := make([]byte, x)
		rand.Read(b)
		for i := range b {
			b[i] = letters[int(b[i])%len(letters)]
		}
		name := base + string(b) + suffix
		p := env.Abs(name)
		var err error
		switch {
		case fl.has("u"):
			_, err = env.FS.Lstat(p)
			if err != nil {
				err = nil
			} else {
				err = fs.ErrExist
			}
		case fl.has("d"):
			err = env.FS.Mkdir(p, 0o700)
		default:
			var f io.Closer
			if f, err = env.FS.Open(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
				f.Close()
			}
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			if fl.has("q") {
				return 1
			}
			return errorf(env, 1, "mktemp", "failed to create %s via template '%s': %s",
				map[bool]string{true: "directory", false: "file"}[fl.has("d")], tmpl+suffix, describe(err))
		}
		fmt.Fprintln(env.Stdout, name)
		return 0
	}
	return errorf(env, 1, "mktemp", "failed to create a unique name from '%s'", tmpl)
}
