package builtins

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/mcp-bash/mcp-bash/interp/internal/printf"
	"github.com/mcp-bash/mcp-bash/interp/internal/testexpr"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// The programs a Linux host has beside the shell builtins of the same name (/usr/bin/printf,
// test, [, pwd): scripts reach them through xargs, env, timeout or their path, and type -a
// lists them. They are GNU coreutils' programs, not the builtins: what GNU does differently
// (printf %q quotes another way, %(fmt)T and %n do not exist; test has no -v, -R or -o OPTION)
// is refused or fails as GNU fails.
func init() {
	register("printf", printfProgram)
	register("test", func(ctx context.Context, env *Env, argv []string) int { return testProgram(env, "test", argv[1:]) })
	register("[", func(ctx context.Context, env *Env, argv []string) int { return testProgram(env, "[", argv[1:]) })
	register("pwd", pwdProgram)
	register("which", which)
}

// which is debianutils' which over the shell's command search (command -v's answer): -a
// prints every match; 1 when a name is not found, 2 on a bad option.
func which(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "which", 2, optSpec{short: "a"}, argv[1:])
	if !ok {
		return st
	}
	status := 0
	if len(fl.operands) == 0 {
		return 1
	}
	for _, name := range fl.operands {
		var found []string
		if strings.Contains(name, "/") {
			if fi, err := env.FS.Stat(env.Abs(name)); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				found = []string{name}
			}
		} else if env.LookPath != nil {
			found = env.LookPath(name, fl.has("a"))
		}
		if len(found) == 0 {
			status = 1
			continue
		}
		fmt.Fprintln(env.Stdout, strings.Join(found, "\n"))
	}
	return status
}

// printfProgram is GNU printf: no options but --help/--version (refused) and a leading --.
func printfProgram(ctx context.Context, env *Env, argv []string) int {
	args := argv[1:]
	if len(args) == 1 && (args[0] == "--help" || args[0] == "--version") {
		return errorf(env, 1, "printf", "unsupported option %s", args[0])
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return errorf(env, 1, "printf", "missing operand")
	}
	if d := gnuPrintfUnsupported(args[0]); d != "" {
		return errorf(env, 1, "printf", "%s: not supported by the sandbox's printf program (GNU printf differs from the shell's printf here; use the shell's printf)", d)
	}
	if len(args) > 1 && !hasConversion(args[0]) {
		// bash ignores them without a word; GNU says so.
		errorf(env, 0, "printf", "warning: ignoring excess arguments, starting with '%s'", args[1])
	}
	const maxOutput = 64 << 20 // as the shell's builtin is bounded
	// The output and the copies made on the way (about four times its size) must fit the budget.
	limit := min(int64(maxOutput), env.Budget.Remaining()/4)
	out, diags, st := printf.Format(args[0], args[1:], printf.Options{Now: env.Now, MaxOutput: int(max(limit, 1)), Stop: ctx.Err})
	for _, d := range diags {
		switch d.Kind {
		case printf.DiagUnsupported:
			return unsupported(env, "printf", strconv.Quote(args[0])+" ("+d.Text+")", nativeFix)
		case printf.DiagLimit:
			if limit < maxOutput {
				env.Budget.Exceed()
				return errorf(env, 1, "printf", "%v", env.Budget.Err())
			}
			return errorf(env, 1, "printf", "output larger than %d bytes is not available in the sandbox; run the tool with \"exec\": \"native\"", maxOutput)
		}
		errorf(env, 0, "printf", "%s", d.Text)
	}
	if _, err := env.Stdout.Write(out); err != nil {
		if ctx.Err() != nil {
			return 130
		}
		return errorf(env, 1, "printf", "write error: %s", describe(err))
	}
	return st
}

// gnuPrintfUnsupported returns the first directive of format GNU printf does not share with
// bash's printf (%q and %Q quote differently, %(fmt)T and %n do not exist), "" when none.
func gnuPrintfUnsupported(format string) string {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		// Flags, width, precision and the length modifiers bash skips (hjlLtz; q is a conversion).
		for j < len(format) && strings.IndexByte("-+ #0'123456789.*hjlLtz", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			return ""
		}
		switch format[j] {
		case '%':
		case 'q', 'Q', '(', 'n':
			return format[i : j+1]
		}
		i = j
	}
	return ""
}

// hasConversion reports whether format has a directive that takes an argument (not %%).
func hasConversion(format string) bool {
	for i := 0; i < len(format)-1; i++ {
		if format[i] == '%' {
			if format[i+1] != '%' {
				return true
			}
			i++
		}
	}
	return false
}

// testProgram is GNU test and [ over the sandbox's files.
func testProgram(env *Env, name string, args []string) int {
	te := &testProgEnv{env: env}
	var ok bool
	var err error
	if name == "[" {
		ok, err = testexpr.Bracket(args, te)
	} else {
		ok, err = testexpr.Test(args, te)
	}
	if te.shellOnly != "" {
		// GNU test knows no such unary operator: it fails as GNU does.
		return errorf(env, 2, name, "'%s': unary operator expected", te.shellOnly)
	}
	if err != nil {
		errorf(env, 2, name, "%s", err.Error())
	}
	return testexpr.Status(ok, err)
}

// testProgEnv answers test's file operators from the sandbox; the shell-only operators
// (-v, -R, -o OPTION) are noted so the program fails as GNU test does.
type testProgEnv struct {
	env       *Env
	shellOnly string
}

func (t *testProgEnv) info(name string, follow bool) (testexpr.FileInfo, error) {
	uid := t.Euid()
	if isDevice(t.env, name) {
		return testexpr.FileInfo{Mode: fs.ModeDevice | fs.ModeCharDevice | 0o666, Uid: uid, Gid: uid}, nil
	}
	stat := t.env.FS.Stat
	if !follow {
		stat = t.env.FS.Lstat
	}
	fi, err := stat(t.env.Abs(name))
	if err != nil {
		return testexpr.FileInfo{}, err
	}
	out := testexpr.FileInfo{Mode: fi.Mode(), Size: fi.Size(), ModTime: fi.ModTime(), AccessTime: fi.ModTime(), Uid: uid, Gid: uid}
	st := sandbox.StatOf(fi)
	out.Dev, out.Ino, out.AccessTime = st.Dev, st.Ino, st.Atime
	return out, nil
}

func (t *testProgEnv) Stat(name string) (testexpr.FileInfo, error)  { return t.info(name, true) }
func (t *testProgEnv) Lstat(name string) (testexpr.FileInfo, error) { return t.info(name, false) }
func (t *testProgEnv) Access(name string, mode uint32) bool {
	if isDevice(t.env, name) {
		return true
	}
	return t.env.FS.Access(t.env.Abs(name), mode) == nil
}
func (t *testProgEnv) IsTerminal(int) bool { return false }
func (t *testProgEnv) IsSet(string) bool   { t.note("-v"); return false }
func (t *testProgEnv) IsNameref(string) bool {
	t.note("-R")
	return false
}
func (t *testProgEnv) Option(string) bool { t.note("-o"); return false }
func (t *testProgEnv) note(op string) {
	if t.shellOnly == "" {
		t.shellOnly = op
	}
}
func (t *testProgEnv) Euid() uint32 { return virtualID() }
func (t *testProgEnv) Egid() uint32 { return virtualID() }

func virtualID() uint32 {
	n, _ := strconv.ParseUint(sandbox.VirtualUID, 10, 32)
	return uint32(n)
}

// pwdProgram is GNU pwd: physical by default (-P), -L prints $PWD when it names the working
// directory without . or .. components.
func pwdProgram(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "pwd", 1, optSpec{short: "LP", long: []string{"logical:L", "physical:P"}}, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) > 0 {
		errorf(env, 0, "pwd", "ignoring non-option arguments")
	}
	logical := false // the last of -L and -P wins
	for _, o := range fl.opts {
		logical = o.name == "L"
	}
	if logical {
		if p := env.Getenv("PWD"); path.IsAbs(p) && !hasDotComponent(p) {
			if a, err := env.FS.RealPath(p); err == nil {
				if b, err := env.FS.RealPath(env.Dir); err == nil && a == b {
					fmt.Fprintln(env.Stdout, p)
					return 0
				}
			}
		}
	}
	p, err := env.FS.RealPath(env.Dir)
	if err != nil {
		return errorf(env, 1, "pwd", "couldn't find directory entry in '..' with matching i-node")
	}
	fmt.Fprintln(env.Stdout, p)
	return 0
}

func hasDotComponent(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == "." || c == ".." {
			return true
		}
	}
	return false
}
