package builtins

import (
	"bufio"
	"context"
	"errors"
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

func init() { register("find", find) }

// findEntry is one visited file.
type findEntry struct {
	name  string // as printed: the starting point joined with the names below it
	abs   string
	start string
	fi    fs.FileInfo
	depth int
}

// findPred evaluates one expression node; it may print (actions) or prune.
type findPred func(f *finder, e *findEntry) bool

type finder struct {
	ctx                context.Context
	env                *Env
	w                  *bufio.Writer
	follow, depthFirst bool
	minDepth, maxDepth int
	prune, quit        bool
	status             int
	batches            []*execBatch
}

// findParser turns the expression arguments into a predicate tree.
type findParser struct {
	args      []string
	i         int
	f         *finder
	hasAction bool
}

// refusedFind are actions the sandbox does not offer: -execdir runs in each file's directory
// (commands run in the script's), -ok asks a terminal, the -f actions write to files.
var refusedFind = map[string]bool{"-execdir": true, "-ok": true, "-okdir": true,
	"-fprint": true, "-fprint0": true, "-fprintf": true, "-fls": true}

// execBatchMax bounds the names one "-exec ... {} +" command line gathers, as ARG_MAX does.
const execBatchMax = 128 << 10

// execBatch is one "-exec COMMAND {} +": names gathered, run when the batch fills and at the end.
type execBatch struct {
	argv  []string // before the {}
	names []string
	size  int
}

func find(ctx context.Context, env *Env, argv []string) int {
	f := &finder{ctx: ctx, env: env, w: bufio.NewWriter(env.Stdout), maxDepth: -1}
	defer f.w.Flush()
	args := argv[1:]
	for len(args) > 0 {
		switch args[0] {
		case "-L", "-follow":
			f.follow = true
		case "-H", "-P":
		default:
			goto paths
		}
		args = args[1:]
	}
paths:
	var starts []string
	for len(args) > 0 && !isFindExpr(args[0]) {
		starts, args = append(starts, args[0]), args[1:]
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	p := &findParser{args: args, f: f}
	pred, err := p.parse()
	if err != nil {
		return errorf(env, 1, "find", "%v", err)
	}
	if !p.hasAction {
		inner := pred
		pred = func(f *finder, e *findEntry) bool {
			if inner(f, e) {
				f.w.WriteString(e.name + "\n")
			}
			return true
		}
	}
	for _, s := range starts {
		if f.quit || ctx.Err() != nil {
			break
		}
		f.start(s, pred)
	}
	for _, b := range f.batches {
		if ctx.Err() == nil {
			f.flushBatch(b)
		}
	}
	if ctx.Err() != nil {
		return 130
	}
	return f.status
}

func isFindExpr(a string) bool {
	return (strings.HasPrefix(a, "-") && len(a) > 1) || a == "(" || a == "!" || a == ")" || a == ","
}

func (f *finder) start(s string, pred findPred) {
	abs := f.env.Abs(s)
	fi, err := f.env.FS.Lstat(abs)
	if err == nil && f.follow && fi.Mode()&fs.ModeSymlink != 0 {
		if sfi, serr := f.env.FS.Stat(abs); serr == nil {
			fi = sfi
		}
	}
	if err != nil {
		f.w.Flush()
		f.status = errorf(f.env, 1, "find", "%s: %s", localeQuote(f.env, s), describe(err))
		return
	}
	f.visit(&findEntry{name: s, abs: abs, start: s, fi: fi}, pred)
}

func (f *finder) visit(e *findEntry, pred findPred) {
	if f.quit || f.ctx.Err() != nil {
		return
	}
	inRange := e.depth >= f.minDepth && (f.maxDepth < 0 || e.depth <= f.maxDepth)
	f.prune = false
	if inRange && !f.depthFirst {
		pred(f, e)
	}
	descend := e.fi.IsDir() && !f.prune && (f.maxDepth < 0 || e.depth < f.maxDepth)
	if descend {
		ents, err := f.env.FS.ReadDir(e.abs)
		if err != nil {
			f.w.Flush()
			f.status = errorf(f.env, 1, "find", "%s: %s", localeQuote(f.env, e.name), describe(err))
		}
		for _, d := range ents {
			child := &findEntry{name: joinPath(e.name, d.Name()), abs: path.Join(e.abs, d.Name()), start: e.start, depth: e.depth + 1}
			fi, err := f.env.FS.Lstat(child.abs)
			if err != nil {
				continue
			}
			if f.follow && fi.Mode()&fs.ModeSymlink != 0 {
				if sfi, serr := f.env.FS.Stat(child.abs); serr == nil {
					fi = sfi
				}
			}
			child.fi = fi
			f.visit(child, pred)
		}
	}
	if inRange && f.depthFirst && !f.quit {
		pred(f, e)
	}
}

func (p *findParser) peek() string {
	if p.i < len(p.args) {
		return p.args[p.i]
	}
	return ""
}

func (p *findParser) parse() (findPred, error) {
	if len(p.args) == 0 {
		return func(*finder, *findEntry) bool { return true }, nil
	}
	pred, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.args) {
		return nil, fmt.Errorf("unexpected argument '%s'", p.args[p.i])
	}
	return pred, nil
}

func (p *findParser) or() (findPred, error) {
	left, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.peek() == "-o" || p.peek() == "-or" || p.peek() == "," {
		comma := p.peek() == ","
		p.i++
		right, err := p.and()
		if err != nil {
			return nil, err
		}
		l := left
		if comma {
			left = func(f *finder, e *findEntry) bool { l(f, e); return right(f, e) }
		} else {
			left = func(f *finder, e *findEntry) bool { return l(f, e) || right(f, e) }
		}
	}
	return left, nil
}

func (p *findParser) and() (findPred, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		switch p.peek() {
		case "", ")", "-o", "-or", ",":
			return left, nil
		case "-a", "-and":
			p.i++
		}
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		l := left
		left = func(f *finder, e *findEntry) bool { return l(f, e) && right(f, e) }
	}
}

func (p *findParser) unary() (findPred, error) {
	switch tok := p.peek(); tok {
	case "!", "-not":
		p.i++
		inner, err := p.unary()
		if err != nil {
			return nil, err
		}
		return func(f *finder, e *findEntry) bool { return !inner(f, e) }, nil
	case "(":
		p.i++
		inner, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, errors.New("invalid expression; I was expecting to find a ')' somewhere but did not see one")
		}
		p.i++
		return inner, nil
	case "":
		return nil, errors.New("invalid expression; expected an operand")
	}
	return p.primary()
}

func (p *findParser) arg(name string) (string, error) {
	if p.i >= len(p.args) {
		return "", fmt.Errorf("missing argument to '%s'", name)
	}
	p.i++
	return p.args[p.i-1], nil
}

func always(*finder, *findEntry) bool { return true }

func (p *findParser) primary() (findPred, error) {
	name := p.args[p.i]
	p.i++
	if refusedFind[name] {
		return nil, fmt.Errorf("%s is not available in the sandbox (pipe the names to xargs, or use a while-read loop)", name)
	}
	switch name {
	case "-print", "-print0", "-printf", "-prune", "-quit", "-ls":
		return p.action(name)
	case "-exec":
		return p.exec()
	case "-delete":
		p.hasAction = true
		p.f.depthFirst = true
		return findDelete, nil
	case "-maxdepth", "-mindepth":
		v, err := p.arg(name)
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid argument '%s' to '%s'", v, name)
		}
		if name == "-maxdepth" {
			p.f.maxDepth = n
		} else {
			p.f.minDepth = n
		}
		return always, nil
	case "-depth", "-d":
		p.f.depthFirst = true
		return always, nil
	case "-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-nowarn", "-warn", "-daystart":
		return always, nil
	case "-follow":
		p.f.follow = true
		return always, nil
	case "-regextype":
		_, err := p.arg(name)
		return always, err
	case "-true":
		return always, nil
	case "-false":
		return func(*finder, *findEntry) bool { return false }, nil
	case "-empty":
		return findEmpty, nil
	case "-readable", "-writable", "-executable":
		mode := map[string]uint32{"-readable": sandbox.AccessRead, "-writable": sandbox.AccessWrite, "-executable": sandbox.AccessExec}[name]
		return func(f *finder, e *findEntry) bool { return f.env.FS.Access(e.abs, mode) == nil }, nil
	}
	if !findTests[name] {
		return nil, fmt.Errorf("unknown predicate '%s'", name)
	}
	v, err := p.arg(name)
	if err != nil {
		return nil, err
	}
	return p.test(name, v)
}

// findTests are the tests that take one argument.
var findTests = map[string]bool{"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true,
	"-iwholename": true, "-regex": true, "-iregex": true, "-type": true, "-xtype": true, "-mtime": true, "-mmin": true,
	"-atime": true, "-amin": true, "-ctime": true, "-cmin": true, "-size": true, "-newer": true, "-anewer": true,
	"-cnewer": true, "-perm": true, "-user": true, "-group": true, "-uid": true, "-gid": true, "-links": true}

// test builds the tests that take one argument.
func (p *findParser) test(name, v string) (findPred, error) {
	switch name {
	case "-name", "-iname":
		icase := name == "-iname"
		return func(f *finder, e *findEntry) bool { return globMatch(v, baseOf(e.name), icase) }, nil
	case "-path", "-ipath", "-wholename", "-iwholename":
		icase := strings.HasPrefix(name, "-i")
		return func(f *finder, e *findEntry) bool { return globMatch(v, e.name, icase) }, nil
	case "-regex", "-iregex":
		expr := "^(?:" + v + ")$"
		if name == "-iregex" {
			expr = "(?i)" + expr
		}
		re, err := sandbox.CompileRegexp(expr)
		if err != nil {
			return nil, fmt.Errorf("invalid regular expression '%s': %v", v, err)
		}
		return func(f *finder, e *findEntry) bool { return re.MatchString(e.name) }, nil
	case "-type", "-xtype":
		for _, t := range strings.Split(v, ",") {
			if len(t) != 1 || !strings.Contains("fdlpscb", t) {
				return nil, fmt.Errorf("unknown argument to -type: %s", v)
			}
		}
		return func(f *finder, e *findEntry) bool { return strings.Contains(v, typeChar(e.fi)) }, nil
	case "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin":
		return p.timeTest(name, v)
	case "-size":
		return sizeTest(v)
	case "-newer", "-anewer", "-cnewer":
		fi, err := p.f.env.FS.Stat(p.f.env.Abs(v))
		if err != nil {
			return nil, fmt.Errorf("'%s': %s", v, describe(err))
		}
		ref := fi.ModTime()
		return func(f *finder, e *findEntry) bool { return e.fi.ModTime().After(ref) }, nil
	case "-perm":
		return permTest(v)
	case "-user", "-group":
		return func(*finder, *findEntry) bool { return v == sandbox.VirtualUser || v == sandbox.VirtualUID }, nil
	case "-uid", "-gid":
		return func(*finder, *findEntry) bool { return v == sandbox.VirtualUID }, nil
	case "-links":
		cmp, n, err := findNumber(v)
		if err != nil {
			return nil, err
		}
		return func(f *finder, e *findEntry) bool { return cmp(int64(statT(e.fi).Nlink), n) }, nil
	}
	return nil, fmt.Errorf("unknown predicate '%s'", name)
}

func (p *findParser) action(name string) (findPred, error) {
	p.hasAction = p.hasAction || name != "-prune"
	switch name {
	case "-print":
		return func(f *finder, e *findEntry) bool { f.w.WriteString(e.name + "\n"); return true }, nil
	case "-print0":
		return func(f *finder, e *findEntry) bool { f.w.WriteString(e.name + "\x00"); return true }, nil
	case "-prune":
		return func(f *finder, e *findEntry) bool { f.prune = !f.depthFirst; return true }, nil
	case "-quit":
		return func(f *finder, e *findEntry) bool { f.quit = true; return true }, nil
	case "-ls":
		return func(f *finder, e *findEntry) bool {
			fmt.Fprintf(f.w, "%s %s %s %s\n", modeString(e.fi.Mode()), strconv.FormatInt(e.fi.Size(), 10),
				e.fi.ModTime().In(envLocation(f.env)).Format("Jan _2 15:04"), e.name)
			return true
		}, nil
	}
	format, err := p.arg(name)
	if err != nil {
		return nil, err
	}
	return func(f *finder, e *findEntry) bool { f.w.WriteString(findPrintf(f, e, format)); return true }, nil
}

// exec parses "-exec COMMAND ;" (true when the command exits 0) and "-exec COMMAND {} +"
// (always true; the names run in batches). Commands run through the sandbox's command
// resolution, as xargs runs them, with find's stdin.
func (p *findParser) exec() (findPred, error) {
	p.hasAction = true
	var argv []string
	for p.i < len(p.args) {
		a := p.args[p.i]
		p.i++
		switch {
		case a == ";":
			if len(argv) == 0 {
				return nil, errors.New("missing argument to `-exec'")
			}
			return func(f *finder, e *findEntry) bool {
				cmd := make([]string, len(argv))
				for i, s := range argv {
					cmd[i] = strings.ReplaceAll(s, "{}", e.name)
				}
				return f.run(cmd) == 0
			}, nil
		case a == "+" && len(argv) > 0 && argv[len(argv)-1] == "{}":
			if len(argv) == 1 {
				return nil, errors.New("missing argument to `-exec'")
			}
			for _, s := range argv[:len(argv)-1] {
				if strings.Contains(s, "{}") {
					return nil, errors.New("only one instance of {} is supported with -exec ... +")
				}
			}
			b := &execBatch{argv: argv[:len(argv)-1]}
			p.f.batches = append(p.f.batches, b)
			return func(f *finder, e *findEntry) bool {
				if b.size+len(e.name)+1 > execBatchMax && len(b.names) > 0 {
					f.flushBatch(b)
				}
				b.names = append(b.names, e.name)
				b.size += len(e.name) + 1
				return true
			}, nil
		}
		argv = append(argv, a)
	}
	return nil, errors.New("missing argument to `-exec'")
}

// run runs one command line after what find printed so far.
func (f *finder) run(argv []string) int {
	f.w.Flush()
	if f.env.Exec == nil {
		f.status = errorf(f.env, 1, "find", "%s: commands cannot be run here", argv[0])
		return 1
	}
	return f.env.Exec(f.ctx, argv, f.env.Environ, f.env.Stdin, f.env.Stdout, f.env.Stderr)
}

// flushBatch runs a "-exec ... {} +" batch; a failing command makes find's status 1.
func (f *finder) flushBatch(b *execBatch) {
	if len(b.names) == 0 {
		return
	}
	argv := append(slices.Clone(b.argv), b.names...)
	b.names, b.size = nil, 0
	if f.run(argv) != 0 {
		f.status = 1
	}
}

// findDelete removes a file or an empty directory (-delete implies -depth, so a directory's
// entries go first).
func findDelete(f *finder, e *findEntry) bool {
	if e.name == "." {
		return true
	}
	if err := f.env.FS.Remove(e.abs); err != nil {
		f.w.Flush()
		f.status = errorf(f.env, 1, "find", "cannot delete %s: %s", localeQuote(f.env, e.name), describe(err))
		return false
	}
	return true
}

// typeChar is find's letter for what fi is (-type, %y).
func typeChar(fi fs.FileInfo) string {
	letter, _ := fileKind(fi.Mode())
	return letter
}

func findEmpty(f *finder, e *findEntry) bool {
	switch {
	case e.fi.IsDir():
		ents, err := f.env.FS.ReadDir(e.abs)
		return err == nil && len(ents) == 0
	case e.fi.Mode().IsRegular():
		return e.fi.Size() == 0
	}
	return false
}

// findNumber reads find's [+-]N into a comparison.
func findNumber(v string) (func(a, b int64) bool, int64, error) {
	cmp := func(a, b int64) bool { return a == b }
	switch {
	case strings.HasPrefix(v, "+"):
		cmp, v = func(a, b int64) bool { return a > b }, v[1:]
	case strings.HasPrefix(v, "-"):
		cmp, v = func(a, b int64) bool { return a < b }, v[1:]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("invalid argument '%s'", v)
	}
	return cmp, n, nil
}

func (p *findParser) timeTest(name, v string) (findPred, error) {
	cmp, n, err := findNumber(v)
	if err != nil {
		return nil, err
	}
	unit := 24 * time.Hour
	if strings.HasSuffix(name, "min") {
		unit = time.Minute
	}
	now := p.f.env.Now()
	return func(f *finder, e *findEntry) bool {
		t := e.fi.ModTime()
		st := statT(e.fi)
		switch name[1] {
		case 'a':
			t = st.Atime
		case 'c':
			t = st.Ctime
		}
		age := now.Sub(t)
		if unit == time.Minute {
			// -mmin rounds the age up to whole minutes.
			return cmp(int64(math.Ceil(age.Minutes())), n)
		}
		return cmp(int64(math.Floor(float64(age)/float64(unit))), n)
	}, nil
}

// sizeTest is -size [+-]N[cwbkMG]: the size rounded up to the unit (512-byte blocks by
// default), as GNU find compares it.
func sizeTest(v string) (findPred, error) {
	unit := int64(512)
	if v != "" {
		if u, ok := map[byte]int64{'c': 1, 'w': 2, 'b': 512, 'k': 1024, 'M': 1 << 20, 'G': 1 << 30}[v[len(v)-1]]; ok {
			unit, v = u, v[:len(v)-1]
		}
	}
	cmp, n, err := findNumber(v)
	if err != nil {
		return nil, fmt.Errorf("invalid -size argument")
	}
	return func(f *finder, e *findEntry) bool {
		return cmp((e.fi.Size()+unit-1)/unit, n)
	}, nil
}

// permTest is -perm MODE (exact), -MODE (all bits set) and /MODE (any bit set).
func permTest(v string) (findPred, error) {
	kind := byte(0)
	if v != "" && (v[0] == '-' || v[0] == '/') {
		kind, v = v[0], v[1:]
	}
	m, ok := parseMode(v, 0)
	if !ok {
		return nil, fmt.Errorf("invalid mode '%s'", v)
	}
	return func(f *finder, e *findEntry) bool {
		perm := e.fi.Mode().Perm()
		switch kind {
		case '-':
			return perm&m == m
		case '/':
			return m == 0 || perm&m != 0
		}
		return perm == m
	}, nil
}

// findPrintf expands -printf directives.
func findPrintf(f *finder, e *findEntry, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' && i+1 < len(format) {
			i++
			b.WriteString(map[byte]string{'n': "\n", 't': "\t", '0': "\x00", '\\': "\\", 'r': "\r", 'a': "\a"}[format[i]])
			continue
		}
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			b.WriteString(format[i:])
			break
		}
		spec := format[i+1 : j]
		val, next := findDirective(f, e, format, j)
		b.WriteString(fmt.Sprintf("%"+spec+"s", val))
		i = next
	}
	return b.String()
}

// findDirective renders the directive at format[j], returning the index of its last byte.
func findDirective(f *finder, e *findEntry, format string, j int) (string, int) {
	st := statT(e.fi)
	switch format[j] {
	case 'p':
		return e.name, j
	case 'f':
		return baseOf(e.name), j
	case 'h':
		return dirOf(e.name), j
	case 'P':
		return strings.TrimPrefix(strings.TrimPrefix(e.name, e.start), "/"), j
	case 'H':
		return e.start, j
	case 's':
		return strconv.FormatInt(e.fi.Size(), 10), j
	case 'd':
		return strconv.Itoa(e.depth), j
	case 'm':
		return strconv.FormatUint(uint64(unixMode(e.fi.Mode())), 8), j
	case 'M':
		return modeString(e.fi.Mode()), j
	case 'y':
		return typeChar(e.fi), j
	case 'u', 'g':
		return sandbox.VirtualUser, j
	case 'U', 'G':
		return sandbox.VirtualUID, j
	case 'i':
		return strconv.FormatUint(st.Ino, 10), j
	case 'n':
		return strconv.FormatUint(uint64(st.Nlink), 10), j
	case 'k':
		return strconv.FormatInt((st.Blocks+1)/2, 10), j
	case 'b':
		return strconv.FormatInt(st.Blocks, 10), j
	case 'l':
		if e.fi.Mode()&fs.ModeSymlink != 0 {
			t, _ := f.env.FS.Readlink(e.abs)
			return t, j
		}
		return "", j
	case 't':
		return e.fi.ModTime().In(envLocation(f.env)).Format("Mon Jan _2 15:04:05.0000000000 2006"), j
	case 'T', 'A', 'C':
		if j+1 >= len(format) {
			return "", j
		}
		t := e.fi.ModTime().In(envLocation(f.env))
		if k := format[j+1]; k == '@' {
			return fmt.Sprintf("%d.%010d", t.Unix(), t.Nanosecond()*10), j + 1
		}
		return strftime(t, "%"+string(format[j+1])), j + 1
	case '%':
		return "%", j
	}
	return "%" + string(format[j]), j
}
