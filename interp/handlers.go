package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	shinterp "mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/builtins"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// stdio device paths served from the handler's own streams.
func stdioDevice(p string) (int, bool) {
	switch p {
	case "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return 0, true
	case "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return 1, true
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		return 2, true
	}
	return 0, false
}

type readOnly struct{ io.Reader }

func (readOnly) Write([]byte) (int, error) { return 0, syscall.EBADF }
func (readOnly) Close() error              { return nil }

type writeOnly struct{ io.Writer }

func (writeOnly) Read([]byte) (int, error) { return 0, syscall.EBADF }
func (writeOnly) Close() error             { return nil }

// sdkFile is the content of the virtual SDK files (sourcing them is intercepted anyway).
const sdkFile = "# mcp-bash: the SDK is built into the sandbox; sourcing this file is a no-op.\n"

func (c *call) open(ctx context.Context, name string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := shinterp.HandlerCtx(ctx)
	p := absIn(hc.Dir, name)
	if fd, ok := stdioDevice(p); ok {
		switch fd {
		case 0:
			if hc.Stdin == nil {
				return readOnly{bytes.NewReader(nil)}, nil
			}
			return readOnly{hc.Stdin}, nil
		case 1:
			return writeOnly{hc.Stdout}, nil
		default:
			return writeOnly{hc.Stderr}, nil
		}
	}
	if strings.HasPrefix(p, SDKDir+"/") && flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return readOnly{strings.NewReader(sdkFile)}, nil
	}
	f, err := c.fs.Open(p, flag, perm)
	if err != nil {
		var pe *fs.PathError
		if why := sandbox.Reason(err); why != "" && errors.As(err, &pe) {
			// Bash's words for a refused redirection, the path as the script wrote it, and why.
			// Still a *PathError: the interpreter treats any other error as fatal.
			return nil, &fs.PathError{Op: pe.Op, Path: name, Err: &redirectError{msg: "Permission denied (sandbox: " + why + ")", err: pe.Err}}
		}
		return nil, err
	}
	return f, nil
}

// redirectError is why a redirection was refused, as the script sees it; errors.Is sees the
// cause.
type redirectError struct {
	msg string
	err error
}

func (e *redirectError) Error() string { return e.msg }
func (e *redirectError) Unwrap() error { return e.err }

// readDir lists through the sandbox; outside the roots the listing is empty (not an error) so
// that globs stay literal, as in bash.
func (c *call) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	ents, err := c.fs.ReadDir(name)
	if err != nil {
		return nil, nil
	}
	return ents, nil
}

type sdkFileInfo struct{ name string }

func (s sdkFileInfo) Name() string               { return s.name }
func (sdkFileInfo) Size() int64                  { return int64(len(sdkFile)) }
func (sdkFileInfo) Mode() fs.FileMode            { return 0o444 }
func (sdkFileInfo) ModTime() time.Time           { return time.Unix(0, 0) }
func (sdkFileInfo) IsDir() bool                  { return false }
func (sdkFileInfo) Sys() any                     { return &syscall.Stat_t{} }
func (s sdkFileInfo) String() string             { return s.name }
func (sdkDirInfo) Name() string                  { return "sdk" }
func (sdkDirInfo) Size() int64                   { return 4096 }
func (sdkDirInfo) Mode() fs.FileMode             { return fs.ModeDir | 0o555 }
func (sdkDirInfo) ModTime() time.Time            { return time.Unix(0, 0) }
func (sdkDirInfo) IsDir() bool                   { return true }
func (sdkDirInfo) Sys() any                      { return &syscall.Stat_t{} }
func (sdkDirInfo) String() string                { return "sdk" }
func (d devInfo) Name() string                   { return path.Base(d.p) }
func (devInfo) Size() int64                      { return 0 }
func (devInfo) Mode() fs.FileMode                { return fs.ModeDevice | fs.ModeCharDevice | 0o666 }
func (devInfo) ModTime() time.Time               { return time.Unix(0, 0) }
func (devInfo) IsDir() bool                      { return false }
func (devInfo) Sys() any                         { return &syscall.Stat_t{} }
func (d devInfo) String() string                 { return d.p }
func (sdkDirInfo) Type() fs.FileMode             { return fs.ModeDir }
func (s sdkFileInfo) Type() fs.FileMode          { return 0 }
func (s sdkFileInfo) Info() (fs.FileInfo, error) { return s, nil }

type sdkDirInfo struct{}
type devInfo struct{ p string }

var sdkFiles = []string{"tool-sdk.sh", "ui-sdk.sh"}

func (c *call) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	if _, ok := stdioDevice(name); ok {
		return devInfo{name}, nil
	}
	if name == SDKDir {
		return sdkDirInfo{}, nil
	}
	if dir, base := path.Split(name); strings.TrimSuffix(dir, "/") == SDKDir && slices.Contains(sdkFiles, base) {
		return sdkFileInfo{base}, nil
	}
	if follow {
		return c.fs.Stat(name)
	}
	return c.fs.Lstat(name)
}

func (c *call) access(ctx context.Context, name string, am shinterp.AccessMode) error {
	mode := uint32(am)
	if _, err := c.stat(ctx, name, true); err == nil && (strings.HasPrefix(name, SDKDir) || isDev(name)) {
		if mode&sandbox.AccessWrite != 0 && !isDev(name) {
			return &fs.PathError{Op: "access", Path: name, Err: fs.ErrPermission}
		}
		return nil
	}
	return c.fs.Access(name, mode)
}

func isDev(p string) bool {
	_, ok := stdioDevice(p)
	return ok || p == sandbox.DevNull
}

var framePool = sync.Pool{New: func() any { return new([]uintptr) }}

// callHandler sees every simple command after expansion: it enforces the command and depth
// limits and reroutes builtins that would consult the host (type, command -v, hash, source).
func (c *call) callHandler(ctx context.Context, args []string) ([]string, error) {
	if c.commands.Add(1) > c.limits.MaxCommands {
		return nil, ErrCommandLimit
	}
	// Counted here, where every command passes, so a function of the same name cannot skip it.
	if len(args) > 0 && args[0] == jobBuiltin && c.jobs.Add(1) > c.limits.MaxJobs {
		c.cancel(ErrJobLimit)
		return nil, ErrJobLimit
	}
	// Recursion guard: Go stack frames grow with Bash call depth; stop long before the Go
	// stack limit would kill the process. Unwinding costs microseconds, so it is sampled:
	// between two samples the depth can grow by at most depthSample levels.
	if c.commands.Load()%depthSample != 0 {
		return c.reroute(args)
	}
	bp := framePool.Get().(*[]uintptr)
	if cap(*bp) < c.maxFrames+1 {
		*bp = make([]uintptr, c.maxFrames+1)
	}
	n := runtime.Callers(0, (*bp)[:c.maxFrames+1])
	framePool.Put(bp)
	if n > c.maxFrames {
		return nil, ErrDepthLimit
	}
	return c.reroute(args)
}

// depthSample is how often (in commands) the call depth is measured.
const depthSample = 8

// reroute sends builtins that would consult the host to the sandbox's own implementations.
func (c *call) reroute(args []string) ([]string, error) {
	if msg := deepArgs(args); msg != "" {
		return []string{"__mcpbash_refuse", msg}, nil
	}
	// `builtin eval ...`, `command source ...` reach those builtins without passing through
	// here again: look through the wrapper, so that their text gets the same checks and
	// rewrites (array arithmetic refused, $$ virtual) as the unwrapped builtin.
	if (args[0] == "builtin" || args[0] == "command") && len(args) > 2 {
		switch args[1] {
		case "eval", "let", "source", ".", "builtin", "command":
			inner, err := c.reroute(args[1:])
			if err != nil || inner[0] != args[1] {
				return inner, err
			}
			return append([]string{args[0]}, inner...), nil
		}
	}
	switch args[0] {
	case "source", ".":
		if len(args) > 1 && (strings.HasPrefix(args[1], SDKDir+"/") || strings.HasPrefix(args[1], "${MCP_SDK}")) {
			if path.Base(args[1]) == "tool-sdk.sh" {
				return []string{"set", "-euo", "pipefail"}, nil
			}
			return []string{"true"}, nil
		}
		return append([]string{"__mcpbash_source"}, args[1:]...), nil
	case "printf", "echo":
		// The interpreter's printf and echo miss precision, %q, %e, -v, -e escapes and more.
		return append([]string{"__mcpbash_" + args[0]}, args[1:]...), nil
	case "read":
		// Bash shows a read -p prompt only on a terminal; tool input never is one.
		for i := 1; i < len(args); i++ {
			if args[i] == "-p" && i+1 < len(args) {
				return append(append([]string{"read"}, args[1:i]...), args[i+2:]...), nil
			}
			if strings.HasPrefix(args[i], "-p") && len(args[i]) > 2 {
				return append(append([]string{"read"}, args[1:i]...), args[i+1:]...), nil
			}
		}
	case "type":
		return append([]string{"__mcpbash_type"}, args[1:]...), nil
	case "hash":
		return append([]string{"__mcpbash_hash"}, args[1:]...), nil
	case "command":
		if len(args) > 1 && (args[1] == "-v" || args[1] == "-V") {
			return append([]string{"__mcpbash_command"}, args[1:]...), nil
		}
	case "let":
		for _, a := range args[1:] {
			if x, err := syntax.NewParser().Arithmetic(strings.NewReader(a)); err == nil {
				if pos, bad := unsupportedArith(x); bad {
					return []string{"__mcpbash_refuse", arithMessage("let", pos)}, nil
				}
			}
		}
	case "eval":
		src := strings.Join(args[1:], " ")
		if f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), ""); err == nil {
			if pos, bad := unsupportedArith(f); bad {
				return []string{"__mcpbash_refuse", arithMessage("eval", pos)}, nil
			}
			c.addFuncs(funcNames(f))
			if hasProcSubst(f) {
				_ = c.scratch.Ensure()
			}
			if needsRewrite(src) && rewrite(f) {
				var b strings.Builder
				if syntax.NewPrinter().Print(&b, f) == nil {
					return []string{"eval", b.String()}, nil
				}
			}
		}
	}
	return args, nil
}

// status turns an exit status into the handler's error value.
func status(n int) error {
	if n == 0 {
		return nil
	}
	if n < 0 || n > 255 {
		n = 1
	}
	return shinterp.ExitStatus(uint8(n))
}

// exported lists the exported variables of a handler context, as a child process would see.
func exported(env expand.Environ) []string {
	var out []string
	for name, vr := range env.Each {
		if vr.Exported && vr.IsSet() && vr.Kind == expand.String {
			out = append(out, name+"="+vr.Str)
		}
	}
	return out
}

// cmdCtx is where a command runs: the interpreter's handler context, or a utility's (xargs,
// env, timeout) with its own stdio.
type cmdCtx struct {
	dir            string
	env            expand.Environ
	stdin          io.Reader
	stdout, stderr io.Writer
}

func fromHandler(hc shinterp.HandlerContext) cmdCtx {
	return cmdCtx{dir: hc.Dir, env: hc.Env, stdin: hc.Stdin, stdout: hc.Stdout, stderr: hc.Stderr}
}

// binDirs are where scripts name common utilities by absolute path.
var binDirs = []string{"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"}

// exec resolves every command that is not a function or interpreter builtin: SDK builtin,
// utility builtin, script inside the roots, allowlisted external, else 127. It never reaches
// mvdan's DefaultExecHandler.
func (c *call) exec(ctx context.Context, args []string) error {
	hc := shinterp.HandlerCtx(ctx)
	name := args[0]
	if sdk.Has(name) {
		st := c.state.Run(ctx, c.sdkIO(hc), args)
		if st != 0 && sdk.Exits(name) {
			// `exit N` run by the interpreter itself: ends the script or the subshell it is in,
			// with EXIT traps, as the original's `exit 1` does.
			return hc.Builtin(ctx, []string{"exit", strconv.Itoa(st)})
		}
		return status(st)
	}
	switch name {
	case sdk.BuiltinName:
		return status(c.state.Run(ctx, c.sdkIO(hc), args[1:]))
	case "__mcpbash_source":
		return c.source(ctx, hc, args[1:])
	case "__mcpbash_type":
		return status(c.typeCmd(hc, args[1:], "type"))
	case "__mcpbash_command":
		return status(c.typeCmd(hc, args[1:], "command"))
	case "__mcpbash_echo":
		s, _ := echoArgs(args[1:])
		io.WriteString(hc.Stdout, s)
		return nil
	case "__mcpbash_printf":
		return c.printf(ctx, hc, args[1:])
	case jobBuiltin:
		return nil // counted by callHandler
	case "__mcpbash_refuse":
		fmt.Fprintln(hc.Stderr, "mcp-bash: "+strings.Join(args[1:], " "))
		return status(2)
	case "__mcpbash_hash":
		for _, a := range args[1:] {
			if !strings.HasPrefix(a, "-") && c.resolve(a) == "" {
				fmt.Fprintf(hc.Stderr, "bash: hash: %s: not found\n", a)
				return status(1)
			}
		}
		return nil
	}
	return c.command(ctx, fromHandler(hc), args)
}

// command resolves and runs a non-function, non-builtin command.
func (c *call) command(ctx context.Context, cc cmdCtx, args []string) error {
	name := args[0]
	if strings.Contains(name, "/") {
		if dir, base := path.Split(name); slices.Contains(binDirs, strings.TrimSuffix(dir, "/")) {
			if f, ok := builtins.Lookup(base); ok {
				c.rec.Add(sandbox.Access{Op: "exec", Path: name, Allowed: true, Reason: "builtin"})
				return status(f(ctx, c.builtinEnv(cc), append([]string{base}, args[1:]...)))
			}
			if c.job.Policy.Allowed(base) {
				return c.external(ctx, cc, append([]string{base}, args[1:]...))
			}
		}
		return c.script(ctx, cc, args)
	}
	if f, ok := builtins.Lookup(name); ok {
		c.rec.Add(sandbox.Access{Op: "exec", Path: name, Allowed: true, Reason: "builtin"})
		return status(f(ctx, c.builtinEnv(cc), args))
	}
	// An allowlisted host command comes before a project's wasm command of the same name: a
	// module a tool managed to put in bin/ must never receive what the operator allowlisted.
	if c.job.Policy.Allowed(name) {
		return c.external(ctx, cc, args)
	}
	if prog := c.extCommand(name); prog != "" {
		return c.runExt(ctx, cc, prog, args)
	}
	c.rec.Add(sandbox.Access{Op: "exec", Path: name, Allowed: false, Reason: "not allowed"})
	fmt.Fprintf(cc.stderr, "mcp-bash: %s: command not found or not allowed in the sandbox (allow it with sandbox.allowCommands in tool.meta.json)\n", name)
	return status(127)
}

// resolve names what a command word would run: "function", "builtin", "keyword", a virtual
// path for utilities and allowlisted externals, or "" when nothing would run.
func (c *call) resolve(name string) string {
	switch {
	case isKeyword(name):
		return "keyword"
	case c.isFunc(name):
		return "function"
	case shinterp.IsBuiltin(name):
		return "builtin"
	case sdk.Has(name):
		return "function" // as after sourcing the original's SDK
	}
	if _, ok := builtins.Lookup(name); ok {
		return "/usr/bin/" + name
	}
	if c.job.Policy.Allowed(name) {
		return "/usr/bin/" + name
	}
	if prog := c.extCommand(name); prog != "" {
		return prog
	}
	return ""
}

func isKeyword(s string) bool {
	switch s {
	case "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done",
		"in", "function", "time", "{", "}", "!", "[[", "]]", "coproc":
		return true
	}
	return false
}

// typeCmd implements `type [-t|-p|-P|-a] NAME...` and `command -v|-V NAME...` without looking
// at the host.
func (c *call) typeCmd(hc shinterp.HandlerContext, args []string, mode string) int {
	tflag, pflag, verbose := false, false, mode == "type"
	var names []string
	for _, a := range args {
		switch a {
		case "-t":
			tflag = true
		case "-p", "-P":
			pflag = true
		case "-a", "-f":
		case "-v":
			verbose = false
		case "-V":
			verbose = true
		default:
			names = append(names, a)
		}
	}
	rc := 0
	for _, n := range names {
		what := c.resolve(n)
		switch {
		case what == "":
			rc = 1
			if verbose && mode == "type" {
				fmt.Fprintf(hc.Stderr, "bash: type: %s: not found\n", n)
			} else if verbose {
				fmt.Fprintf(hc.Stderr, "bash: command: %s: not found\n", n)
			}
		case tflag:
			t := what
			if strings.HasPrefix(what, "/") {
				t = "file"
			}
			fmt.Fprintln(hc.Stdout, t)
		case pflag:
			if strings.HasPrefix(what, "/") {
				fmt.Fprintln(hc.Stdout, what)
			}
		case !verbose:
			if strings.HasPrefix(what, "/") {
				fmt.Fprintln(hc.Stdout, what)
			} else {
				fmt.Fprintln(hc.Stdout, n)
			}
		default:
			switch what {
			case "function":
				fmt.Fprintf(hc.Stdout, "%s is a function\n", n)
			case "builtin":
				fmt.Fprintf(hc.Stdout, "%s is a shell builtin\n", n)
			case "keyword":
				fmt.Fprintf(hc.Stdout, "%s is a shell keyword\n", n)
			default:
				fmt.Fprintf(hc.Stdout, "%s is %s\n", n, what)
			}
		}
	}
	return rc
}

// source runs the interpreter's own `source` on a file resolved through the sandbox, so the
// builtin never searches the host PATH.
func (c *call) source(ctx context.Context, hc shinterp.HandlerContext, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(hc.Stderr, "bash: source: filename argument required")
		return status(2)
	}
	p := absIn(hc.Dir, args[0])
	if !strings.Contains(args[0], "/") {
		// bash looks in PATH first; our PATH is virtual, so only the working directory counts.
		p = absIn(hc.Dir, args[0])
	}
	fi, err := c.fs.Stat(p)
	if err != nil || fi.IsDir() {
		fmt.Fprintf(hc.Stderr, "bash: %s: No such file or directory\n", args[0])
		return status(1)
	}
	if fi.Size() > c.limits.MaxScriptBytes {
		fmt.Fprintf(hc.Stderr, "bash: %s: file exceeds %d bytes\n", args[0], c.limits.MaxScriptBytes)
		return status(1)
	}
	target := p
	if data, err := c.fs.ReadFile(p); err == nil {
		if err := nestingError(args[0], string(data)); err != nil {
			fmt.Fprintln(hc.Stderr, "mcp-bash: "+err.Error())
			return status(2)
		}
		if f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(data), p); err == nil {
			if pos, bad := unsupportedArith(f); bad {
				fmt.Fprintln(hc.Stderr, "mcp-bash: "+arithMessage(p, pos))
				return status(2)
			}
			c.addFuncs(funcNames(f))
			if hasProcSubst(f) {
				_ = c.scratch.Ensure()
			}
			// A rewritten copy ($$ and friends made virtual) is sourced from the private pipe
			// directory, which the interpreter opens directly and scripts cannot write to.
			if needsRewrite(string(data)) && rewrite(f) {
				var b strings.Builder
				if syntax.NewPrinter().Print(&b, f) == nil {
					_ = c.scratch.Ensure()
					tmp, err := os.CreateTemp(c.fifoDir, sandbox.PipePrefix+"src-*")
					if err == nil {
						_, werr := tmp.WriteString(b.String())
						tmp.Close()
						if werr == nil {
							target = tmp.Name()
							defer os.Remove(target)
						}
					}
				}
			}
		}
	}
	return hc.Builtin(ctx, append([]string{"source", target}, args[1:]...))
}

// script runs a shell script inside the roots as a child shell (its own Runner with the same
// sandbox), as bash would run an executable script.
func (c *call) script(ctx context.Context, hc cmdCtx, args []string) error {
	p := absIn(hc.dir, args[0])
	fi, err := c.fs.Stat(p)
	if err != nil {
		c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: false, Reason: "not found"})
		fmt.Fprintf(hc.stderr, "bash: %s: No such file or directory\n", args[0])
		return status(127)
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: false, Reason: "not executable"})
		fmt.Fprintf(hc.stderr, "bash: %s: Permission denied\n", args[0])
		return status(126)
	}
	head := make([]byte, 128)
	if f, err := c.fs.Open(p, os.O_RDONLY, 0); err == nil {
		n, _ := io.ReadFull(f, head)
		head = head[:n]
		f.Close()
	}
	if !isShellScript(head) {
		c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: false, Reason: "not a shell script"})
		fmt.Fprintf(hc.stderr, "mcp-bash: %s: only shell scripts can run in the sandbox\n", args[0])
		return status(126)
	}
	c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: true, Reason: "script"})
	file, err := c.parseFile(p)
	if err != nil {
		fmt.Fprintf(hc.stderr, "bash: %v\n", err)
		return status(2)
	}
	env := exported(hc.env)
	env = append(env, "__MCPBASH_TMPDIR="+hc.env.Get("TMPDIR").String(), "TMPDIR="+c.fifoDir,
		"__mcpbash_pid="+sandbox.VirtualPID, "__mcpbash_ppid="+sandbox.VirtualPPID)
	r, err := c.newRunner(hc.dir, expand.ListEnviron(env...), hc.stdin, hc.stdout, hc.stderr, args[1:]...)
	if err != nil {
		return err
	}
	err = r.Run(ctx, file)
	if errors.Is(err, ErrCommandLimit) || errors.Is(err, ErrDepthLimit) {
		return err
	}
	if st, ok := exitStatusOf(err); ok {
		return status(int(st))
	}
	return err
}

func isShellScript(head []byte) bool {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return !bytes.Contains(head, []byte{0}) // no shebang: bash runs it as a script
	}
	line, _, _ := bytes.Cut(head[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return false
	}
	prog := path.Base(fields[0])
	if prog == "env" && len(fields) > 1 {
		prog = path.Base(fields[len(fields)-1])
		if fields[1] == "-S" && len(fields) > 2 {
			prog = path.Base(fields[2])
		}
	}
	return prog == "bash" || prog == "sh"
}

// external runs an allowlisted host command with a fixed environment (never the script's
// exports, so LD_PRELOAD and friends cannot ride along), in its own process group, killed with
// the call.
func (c *call) external(ctx context.Context, hc cmdCtx, args []string) error {
	bin, err := exec.LookPath(args[0])
	if err != nil {
		c.rec.Add(sandbox.Access{Op: "exec", Path: args[0], Allowed: false, Reason: "not installed"})
		fmt.Fprintf(hc.stderr, "mcp-bash: %s: allowlisted but not installed on the host\n", args[0])
		return status(127)
	}
	// The empty home exists before the rules are made (confinement grants only what exists).
	home, err := c.scratch.emptyHome()
	if err != nil {
		fmt.Fprintf(hc.stderr, "mcp-bash: scratch directory: %v\n", err)
		return status(126)
	}
	argv := append([]string{bin}, args[1:]...)
	reason := "external (leaves the sandbox)"
	if c.job.Confiner != nil {
		wrapped, err := c.job.Confiner.Wrap(c.confineRules(), argv)
		if err != nil {
			c.rec.Add(sandbox.Access{Op: "exec", Path: bin, Allowed: false, Reason: "cannot be confined: " + err.Error()})
			fmt.Fprintf(hc.stderr, "mcp-bash: %s: %v\n", args[0], err)
			return status(126)
		}
		if len(wrapped) != len(argv) {
			reason = "external (leaves the sandbox, confined by Landlock)"
		}
		argv = wrapped
	}
	c.rec.Add(sandbox.Access{Op: "exec", Path: bin, Allowed: true, Reason: reason})
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = externalEnv(home, c.tmpDir)
	cmd.Dir = c.work
	if fi, err := c.fs.Stat(hc.dir); err == nil && fi.IsDir() {
		cmd.Dir = hc.dir
	}
	// A redirected file goes to the child as the file itself (as bash does), not a pipe.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = sandbox.HostReader(hc.stdin), sandbox.HostWriter(hc.stdout), sandbox.HostWriter(hc.stderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if st, ok := sandbox.ExitStatus(err); ok {
		return status(st)
	}
	fmt.Fprintf(hc.stderr, "mcp-bash: %s: %v\n", args[0], err)
	return status(126)
}

// externalEnv is the whole environment of an allowlisted host command: an allowlist, never the
// script's exports (so no LD_PRELOAD, GIT_*, PYTHON*, BASH_ENV, NODE_OPTIONS, *_CONFIG* ...
// redirection), with HOME and every XDG base directory at an empty read-only directory (many
// programs execute what their configuration says: git aliases and hooks, ssh ProxyCommand,
// pip, npm scripts) and git's system configuration off.
func externalEnv(home, tmp string) []string {
	return []string{"PATH=" + sandbox.VirtualPath, "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_CACHE_HOME=" + home, "XDG_STATE_HOME=" + home,
		"XDG_CONFIG_DIRS=" + home, "GIT_CONFIG_NOSYSTEM=1"}
}

// confineRules are what a confined external command may use: the read-write roots and the
// call's scratch dir, the read-only roots and the tool's directory; no network.
func (c *call) confineRules() sandbox.ConfineRules {
	r := sandbox.ConfineRules{RW: []string{c.work}}
	for _, root := range c.job.Policy.Roots {
		if root.Protected {
			// Read-only inside a read-write root: Landlock cannot take rights away, so that
			// root is split (confine.Rules.Protect).
			r.Protect = append(r.Protect, root.Path)
			continue
		}
		if root.Mode == sandbox.ReadWrite {
			r.RW = append(r.RW, root.Path)
		} else {
			r.RO = append(r.RO, root.Path)
		}
	}
	if c.job.Policy.ToolDir != "" {
		r.RO = append(r.RO, c.job.Policy.ToolDir)
	}
	r.RO = append(r.RO, c.scratch.home)
	return r
}

func (c *call) sdkIO(hc shinterp.HandlerContext) sdk.IO {
	return sdk.IO{
		Stdin: hc.Stdin, Stdout: hc.Stdout, Stderr: hc.Stderr, Dir: hc.Dir,
		Getenv:  func(k string) string { return hc.Env.Get(k).String() },
		Environ: func() []string { return exported(hc.Env) },
		ReadFile: func(name string) ([]byte, error) {
			return c.fs.ReadFile(absIn(hc.Dir, name))
		},
		WriteFile: func(name string, data []byte) error {
			return c.fs.WriteFile(absIn(hc.Dir, name), data, 0o644)
		},
		AppendFile: func(name string, data []byte) error {
			f, err := c.fs.Open(absIn(hc.Dir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				return err
			}
			_, err = f.Write(data)
			f.Close()
			return err
		},
		RealPath: func(name string) (string, error) { return c.fs.RealPath(absIn(hc.Dir, name)) },
		Now:      now,
		Exec:     c.builtinEnv(fromHandler(hc)).Exec,
		Filters:  &c.e.filters,
	}
}

func (c *call) builtinEnv(cc cmdCtx) *builtins.Env {
	stdin := cc.stdin
	if stdin == nil {
		stdin = bytes.NewReader(nil)
	}
	return &builtins.Env{
		Stdin: stdin, Stdout: cc.stdout, Stderr: cc.stderr, Dir: cc.dir, FS: c.fs, Budget: c.budget,
		Getenv:  func(k string) string { return cc.env.Get(k).String() },
		Environ: func() []string { return exported(cc.env) },
		Now:     now,
		Exec: func(ctx context.Context, argv []string, in io.Reader, out, errw io.Writer) int {
			if len(argv) == 0 {
				return 0
			}
			sub := cmdCtx{dir: cc.dir, env: cc.env, stdin: in, stdout: out, stderr: errw}
			if c.commands.Add(1) > c.limits.MaxCommands {
				return 1
			}
			err := c.command(ctx, sub, argv)
			if err == nil {
				return 0
			}
			if st, ok := exitStatusOf(err); ok {
				return int(st)
			}
			return 1
		},
	}
}

var varNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?$`) })

// printf runs Bash's printf; -v VAR assigns through the interpreter's own eval.
func (c *call) printf(ctx context.Context, hc shinterp.HandlerContext, args []string) error {
	target := ""
	for len(args) > 0 {
		switch {
		case args[0] == "-v" && len(args) > 1:
			target, args = args[1], args[2:]
			continue
		case args[0] == "--":
			args = args[1:]
		}
		break
	}
	if len(args) == 0 {
		fmt.Fprintln(hc.Stderr, "printf: usage: printf [-v var] format [arguments]")
		return status(2)
	}
	out, errs := bashPrintf(args[0], args[1:], now)
	for _, e := range errs {
		fmt.Fprintln(hc.Stderr, "bash: "+e)
	}
	if target != "" {
		if !varNameRE().MatchString(target) {
			fmt.Fprintf(hc.Stderr, "bash: printf: `%s': not a valid identifier\n", target)
			return status(2)
		}
		if err := hc.Builtin(ctx, []string{"eval", target + "=" + shellQuote(out)}); err != nil {
			return err
		}
	} else {
		io.WriteString(hc.Stdout, out)
	}
	if len(errs) > 0 {
		return status(1)
	}
	return nil
}
