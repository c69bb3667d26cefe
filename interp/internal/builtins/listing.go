package builtins

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() {
	register("ls", ls)
	register("stat", stat)
	register("du", du)
}

// modeString renders a mode as ls does ("drwxr-xr-x", "lrwxrwxrwx").
func modeString(m fs.FileMode) string {
	b := []byte("-rwxrwxrwx")
	switch {
	case m&fs.ModeDir != 0:
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	case m&fs.ModeSocket != 0:
		b[0] = 's'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	}
	for i := 0; i < 9; i++ {
		if m&(1<<uint(8-i)) == 0 {
			b[i+1] = '-'
		}
	}
	special := func(i int, set bool, c byte) {
		if !set {
			return
		}
		if b[i] == 'x' {
			b[i] = c
		} else {
			b[i] = c - 'a' + 'A'
		}
	}
	special(3, m&fs.ModeSetuid != 0, 's')
	special(6, m&fs.ModeSetgid != 0, 's')
	special(9, m&fs.ModeSticky != 0, 't')
	return string(b)
}

// statT returns the raw stat fields (sandbox.StatOf).
func statT(fi fs.FileInfo) sandbox.StatT { return sandbox.StatOf(fi) }

// humanSize renders n as ls -h and du -h do: powers of 1024, one decimal below 10, rounded up.
func humanSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	v := float64(n)
	units := "KMGTPE"
	i := -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 10 {
		v = math.Ceil(v*10) / 10
		if v < 10 {
			return fmt.Sprintf("%.1f%c", v, units[i])
		}
	}
	v = math.Ceil(v)
	if v >= 1024 && i < len(units)-1 {
		return fmt.Sprintf("1.0%c", units[i+1])
	}
	return fmt.Sprintf("%.0f%c", v, units[i])
}

var lsSpec = optSpec{short: "laA1RdhtrSFpnCxLgoUGic", long: []string{"all:a", "almost-all:A", "recursive:R", "directory:d",
	"human-readable:h", "reverse:r", "classify:F", "numeric-uid-gid:n", "dereference:L", "color=?", "full-time",
	"group-directories-first", "indicator-style="}, permute: true}

type lsEntry struct {
	name string // as displayed
	path string // absolute
	fi   fs.FileInfo
}

type lister struct {
	env    *Env
	fl     *flagSet
	w      *bufio.Writer
	now    time.Time
	loc    *time.Location
	status int
}

func ls(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "ls", 2, lsSpec, argv[1:])
	if !ok {
		return st
	}
	l := &lister{env: env, fl: fl, w: bufio.NewWriter(env.Stdout), now: env.Now(), loc: envLocation(env)}
	defer l.w.Flush()
	targets := fl.operands
	if len(targets) == 0 {
		targets = []string{"."}
	}
	var files, dirs []lsEntry
	for _, t := range targets {
		p := env.Abs(t)
		fi, err := env.FS.Lstat(p)
		if err == nil && (fi.Mode()&fs.ModeSymlink != 0) && (!l.long() || fl.has("L")) && !fl.has("d") {
			sfi, serr := env.FS.Stat(p)
			switch {
			case serr == nil:
				fi = sfi
			case fl.has("L"):
				err = serr // -L must see the target; a dangling or escaping link fails
			}
		}
		if err != nil {
			l.w.Flush()
			l.status = errorf(env, 2, "ls", "cannot access '%s': %s", t, describe(err))
			continue
		}
		e := lsEntry{t, p, fi}
		if fi.IsDir() && !fl.has("d") {
			dirs = append(dirs, e)
		} else {
			files = append(files, e)
		}
	}
	l.sort(files)
	l.print(files)
	l.sort(dirs)
	for i, d := range dirs {
		if ctx.Err() != nil {
			return 130
		}
		if len(files) > 0 || i > 0 {
			l.w.WriteString("\n")
		}
		l.dir(ctx, d, len(targets) > 1 || fl.has("R"))
	}
	if ctx.Err() != nil {
		return 130 // -R through links (-L) can be endless: the call ended it
	}
	return l.status
}

func (l *lister) long() bool { return l.fl.has("l", "n", "g", "o", "full-time") }

func (l *lister) dir(ctx context.Context, d lsEntry, header bool) {
	ents, err := l.env.FS.ReadDir(d.path)
	if err != nil {
		l.w.Flush()
		l.status = errorf(l.env, 2, "ls", "cannot open directory '%s': %s", d.name, describe(err))
		return
	}
	if header {
		fmt.Fprintf(l.w, "%s:\n", d.name)
	}
	var items []lsEntry
	if l.fl.has("a") {
		for _, dot := range []string{".", ".."} {
			if fi, err := l.env.FS.Stat(path.Join(d.path, dot)); err == nil {
				items = append(items, lsEntry{dot, path.Join(d.path, dot), fi})
			}
		}
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && !l.fl.has("a", "A") {
			continue
		}
		p := path.Join(d.path, e.Name())
		fi, err := l.env.FS.Lstat(p)
		if err != nil {
			continue
		}
		if l.fl.has("L") && fi.Mode()&fs.ModeSymlink != 0 {
			if sfi, err := l.env.FS.Stat(p); err == nil {
				fi = sfi
			}
		}
		items = append(items, lsEntry{e.Name(), p, fi})
	}
	l.sort(items)
	if l.long() {
		var blocks int64
		for _, it := range items {
			blocks += statT(it.fi).Blocks
		}
		total := strconv.FormatInt((blocks+1)/2, 10)
		if l.fl.has("h") {
			total = humanSize(blocks * 512)
		}
		fmt.Fprintf(l.w, "total %s\n", total)
	}
	l.print(items)
	if !l.fl.has("R") {
		return
	}
	for _, it := range items {
		if it.fi.IsDir() && it.name != "." && it.name != ".." && ctx.Err() == nil {
			l.w.WriteString("\n")
			l.dir(ctx, lsEntry{joinPath(d.name, it.name), it.path, it.fi}, true)
		}
	}
}

func (l *lister) sort(items []lsEntry) {
	if l.fl.has("U") {
		return
	}
	slices.SortStableFunc(items, func(a, b lsEntry) int {
		switch {
		case l.fl.has("t"):
			if c := b.fi.ModTime().Compare(a.fi.ModTime()); c != 0 {
				return c
			}
		case l.fl.has("S"):
			if c := int(b.fi.Size() - a.fi.Size()); c != 0 {
				return c
			}
		}
		return strings.Compare(a.name, b.name)
	})
	if l.fl.has("r") {
		slices.Reverse(items)
	}
}

func (l *lister) suffix(fi fs.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsDir() && l.fl.has("F", "p"):
		return "/"
	case !l.fl.has("F"):
		return ""
	case m&fs.ModeSymlink != 0:
		return "@"
	case m&fs.ModeNamedPipe != 0:
		return "|"
	case m.IsRegular() && m&0o111 != 0:
		return "*"
	}
	return ""
}

func (l *lister) print(items []lsEntry) {
	if !l.long() {
		for _, it := range items {
			l.w.WriteString(it.name + l.suffix(it.fi) + "\n")
		}
		return
	}
	rows := make([][]string, len(items))
	widths := make([]int, 5)
	for i, it := range items {
		st := statT(it.fi)
		owner, group := sandbox.VirtualUser, sandbox.VirtualUser
		if l.fl.has("n") {
			owner, group = sandbox.VirtualUID, sandbox.VirtualUID
		}
		size := strconv.FormatInt(it.fi.Size(), 10)
		if l.fl.has("h") {
			size = humanSize(it.fi.Size())
		}
		if it.fi.Mode()&fs.ModeDevice != 0 {
			// A device shows its number where a file shows its size.
			major, minor := sandbox.DeviceNumbers(it.fi)
			size = fmt.Sprintf("%d, %d", major, minor)
		}
		row := []string{modeString(it.fi.Mode()), strconv.FormatUint(st.Nlink, 10), owner, group, size}
		if l.fl.has("g") {
			row[2] = ""
		}
		if l.fl.has("o", "G") {
			row[3] = ""
		}
		for c := range widths {
			widths[c] = max(widths[c], len(row[c]))
		}
		rows[i] = row
	}
	for i, it := range items {
		r := rows[i]
		fmt.Fprintf(l.w, "%s %*s ", r[0], widths[1], r[1])
		if r[2] != "" {
			fmt.Fprintf(l.w, "%-*s ", widths[2], r[2])
		}
		if r[3] != "" {
			fmt.Fprintf(l.w, "%-*s ", widths[3], r[3])
		}
		fmt.Fprintf(l.w, "%*s %s %s%s", widths[4], r[4], l.timeString(it.fi.ModTime()), it.name, l.suffix(it.fi))
		if it.fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := l.env.FS.Readlink(it.path); err == nil {
				l.w.WriteString(" -> " + target)
			}
		}
		l.w.WriteString("\n")
	}
}

// timeString is ls -l's date: the time for the last six months, else the year.
func (l *lister) timeString(t time.Time) string {
	t = t.In(l.loc)
	if l.fl.has("full-time") {
		return t.Format("2006-01-02 15:04:05.000000000 -0700")
	}
	if age := l.now.Sub(t); age < 0 || age > 182*24*time.Hour {
		return t.Format("Jan _2  2006")
	}
	return t.Format("Jan _2 15:04")
}

var statSpec = optSpec{short: "Lc:t", long: []string{"dereference:L", "format:c", "printf=", "terse:t"}, permute: true}

func stat(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "stat", 1, statSpec, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "stat", "missing operand")
	}
	format, custom := fl.val("c")
	end := "\n"
	if pf, ok := fl.val("printf"); ok {
		format, custom, end = unescapeC(pf), true, ""
	}
	status := 0
	for _, f := range fl.operands {
		p := env.Abs(f)
		get := env.FS.Lstat
		if fl.has("L") {
			get = env.FS.Stat
		}
		fi, err := get(p)
		if err != nil {
			status = errorf(env, 1, "stat", "cannot statx '%s': %s", f, describe(err))
			continue
		}
		if !custom {
			fmt.Fprint(env.Stdout, statDefault(env, f, p, fi))
			continue
		}
		fmt.Fprint(env.Stdout, statFormat(env, format, f, p, fi)+end)
	}
	return status
}

// fileKind is what a file of mode m is, as find's letter and in stat's words (%F); anything
// that is no other kind is a regular file.
func fileKind(m fs.FileMode) (letter, words string) {
	switch {
	case m.IsDir():
		return "d", "directory"
	case m&fs.ModeSymlink != 0:
		return "l", "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "p", "fifo"
	case m&fs.ModeSocket != 0:
		return "s", "socket"
	case m&fs.ModeCharDevice != 0:
		return "c", "character special file"
	case m&fs.ModeDevice != 0:
		return "b", "block special file"
	}
	return "f", "regular file"
}

// fileType is stat's %F.
func fileType(fi fs.FileInfo) string {
	letter, words := fileKind(fi.Mode())
	if letter == "f" && fi.Size() == 0 {
		return "regular empty file"
	}
	return words
}

// unixMode is the st_mode permission and special bits (the %a value).
func unixMode(m fs.FileMode) uint32 {
	v := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return v
}

func statTime(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2006-01-02 15:04:05.000000000 -0700")
}

// statFormat expands stat -c's % sequences.
func statFormat(env *Env, format, name, p string, fi fs.FileInfo) string {
	st := statT(fi)
	loc := envLocation(env)
	atime, ctime := st.Atime, st.Ctime
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 >= len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		switch format[i] {
		case 'n':
			b.WriteString(name)
		case 'N':
			b.WriteString("'" + name + "'")
			if fi.Mode()&fs.ModeSymlink != 0 {
				if t, err := env.FS.Readlink(p); err == nil {
					b.WriteString(" -> '" + t + "'")
				}
			}
		case 's':
			b.WriteString(strconv.FormatInt(fi.Size(), 10))
		case 'a':
			b.WriteString(strconv.FormatUint(uint64(unixMode(fi.Mode())), 8))
		case 'A':
			b.WriteString(modeString(fi.Mode()))
		case 'f':
			b.WriteString(strconv.FormatUint(uint64(st.Mode), 16))
		case 'F':
			b.WriteString(fileType(fi))
		case 'Y':
			b.WriteString(strconv.FormatInt(fi.ModTime().Unix(), 10))
		case 'y':
			b.WriteString(statTime(fi.ModTime(), loc))
		case 'X':
			b.WriteString(strconv.FormatInt(atime.Unix(), 10))
		case 'x':
			b.WriteString(statTime(atime, loc))
		case 'Z':
			b.WriteString(strconv.FormatInt(ctime.Unix(), 10))
		case 'z':
			b.WriteString(statTime(ctime, loc))
		case 'W':
			b.WriteString("0")
		case 'w':
			b.WriteString("-")
		case 'U':
			b.WriteString(sandbox.VirtualUser)
		case 'u', 'g':
			b.WriteString(sandbox.VirtualUID)
		case 'G':
			b.WriteString(sandbox.VirtualUser)
		case 'i':
			b.WriteString(strconv.FormatUint(st.Ino, 10))
		case 'h':
			b.WriteString(strconv.FormatUint(st.Nlink, 10))
		case 'b':
			b.WriteString(strconv.FormatInt(st.Blocks, 10))
		case 'B':
			b.WriteString("512")
		case 'o':
			b.WriteString(strconv.FormatInt(int64(st.Blksize), 10))
		case 'd':
			b.WriteString(strconv.FormatUint(st.Dev, 10))
		case 'D':
			b.WriteString(strconv.FormatUint(st.Dev, 16))
		case 't':
			major, _ := sandbox.DeviceNumbers(fi)
			b.WriteString(strconv.FormatUint(uint64(major), 16))
		case 'T':
			_, minor := sandbox.DeviceNumbers(fi)
			b.WriteString(strconv.FormatUint(uint64(minor), 16))
		case '%':
			b.WriteByte('%')
		default:
			// GNU stat prints ? for a directive it does not know.
			b.WriteByte('?')
		}
	}
	return b.String()
}

func statDefault(env *Env, name, p string, fi fs.FileInfo) string {
	f := "  File: %N\n  Size: %s\tBlocks: %b          IO Block: %o   %F\nDevice: %Dh/%dd\tInode: %i  Links: %h\n" +
		"Access: (0%a/%A)  Uid: ( %u/    %U)   Gid: ( %g/    %G)\nAccess: %x\nModify: %y\nChange: %z\n Birth: %w\n"
	if fi.Mode()&fs.ModeSymlink == 0 {
		f = strings.Replace(f, "%N", "%n", 1)
	}
	return statFormat(env, f, name, p, fi)
}

// unescapeC decodes the backslash escapes of stat --printf.
func unescapeC(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`, `\r`, "\r", `\"`, `"`, `\0`, "\x00")
	return r.Replace(s)
}

var duSpec = optSpec{short: "shbkamcd:xLPB:", long: []string{"summarize:s", "human-readable:h", "bytes:b", "all:a",
	"total:c", "max-depth:d", "apparent-size", "one-file-system:x", "dereference:L", "block-size:B"}, permute: true}

type duWalker struct {
	env      *Env
	fl       *flagSet
	apparent bool
	unit     int64
	maxDepth int
	w        *bufio.Writer
	status   int
	seen     map[uint64]bool
}

func du(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "du", 1, duSpec, argv[1:])
	if !ok {
		return st
	}
	d := &duWalker{env: env, fl: fl, apparent: fl.has("b", "apparent-size"), unit: 1024, maxDepth: -1,
		w: bufio.NewWriter(env.Stdout), seen: map[uint64]bool{}}
	defer d.w.Flush()
	switch {
	case fl.has("b"):
		d.unit = 1
	case fl.has("m"):
		d.unit = 1 << 20
	}
	if v, ok := fl.val("B"); ok {
		n, ok := parseCount(v)
		if !ok || n == 0 {
			return errorf(env, 1, "du", "invalid block size '%s'", v)
		}
		d.unit = n
	}
	if v, ok := fl.val("d"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return errorf(env, 1, "du", "invalid maximum depth '%s'", v)
		}
		d.maxDepth = n
	}
	if fl.has("s") {
		d.maxDepth = 0
	}
	targets := fl.operands
	if len(targets) == 0 {
		targets = []string{"."}
	}
	var total int64
	for _, t := range targets {
		if ctx.Err() != nil {
			return 130
		}
		total += d.walk(ctx, t, env.Abs(t), 0, true)
	}
	if fl.has("c") {
		d.emit(total, "total")
	}
	return d.status
}

func (d *duWalker) size(fi fs.FileInfo) int64 {
	if d.apparent {
		return fi.Size()
	}
	return statT(fi).Blocks * 512
}

func (d *duWalker) emit(n int64, name string) {
	var s string
	switch {
	case d.fl.has("h"):
		s = humanSize(n)
	default:
		s = strconv.FormatInt((n+d.unit-1)/d.unit, 10)
	}
	d.w.WriteString(s + "\t" + name + "\n")
}

// walk returns the usage below p, printing directories (and files with -a) within maxDepth.
func (d *duWalker) walk(ctx context.Context, name, p string, depth int, top bool) int64 {
	get := d.env.FS.Lstat
	if d.fl.has("L") {
		get = d.env.FS.Stat
	}
	fi, err := get(p)
	if err != nil {
		d.w.Flush()
		d.status = errorf(d.env, 1, "du", "cannot access '%s': %s", name, describe(err))
		return 0
	}
	st := statT(fi)
	if st.Nlink > 1 && !fi.IsDir() {
		if d.seen[st.Ino] {
			return 0 // hard links count once, as du counts them
		}
		d.seen[st.Ino] = true
	}
	n := d.size(fi)
	show := d.maxDepth < 0 || depth <= d.maxDepth
	if !fi.IsDir() {
		if top || (d.fl.has("a") && show) {
			d.emit(n, name)
		}
		return n
	}
	ents, err := d.env.FS.ReadDir(p)
	if err != nil {
		d.w.Flush()
		d.status = errorf(d.env, 1, "du", "cannot read directory '%s': %s", name, describe(err))
	}
	for _, e := range ents {
		if ctx.Err() != nil {
			return n
		}
		n += d.walk(ctx, joinPath(name, e.Name()), path.Join(p, e.Name()), depth+1, false)
	}
	if show {
		d.emit(n, name)
	}
	return n
}
