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
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/builtins"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/strerror"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// sdkFiles are the virtual files of SDKDir. Sourcing tool-sdk.sh turns on the strict mode the
// original's tool-sdk.sh turns on; the SDK functions themselves are built in.
var sdkFiles = map[string]string{
	"tool-sdk.sh": "# mcp-bash: the SDK is built into the sandbox; sourcing this file turns on strict mode, as the original's does.\nset -euo pipefail\n",
	"ui-sdk.sh":   "# mcp-bash: the SDK is built into the sandbox; sourcing this file is a no-op.\n",
}

type readOnly struct{ io.Reader }

func (readOnly) Write([]byte) (int, error) { return 0, syscall.EBADF }
func (readOnly) Close() error              { return nil }

// stdioDevice reports the paths the evaluator itself serves from the shell's descriptors
// (for stat: they exist).
func stdioDevice(p string) bool {
	switch p {
	case "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2",
		"/proc/self/fd/0", "/proc/self/fd/1", "/proc/self/fd/2":
		return true
	}
	return false
}

// sdkFile returns the content of a virtual SDK file.
func sdkFile(p string) (string, bool) {
	dir, base := path.Split(p)
	if strings.TrimSuffix(dir, "/") != SDKDir {
		return "", false
	}
	s, ok := sdkFiles[base]
	return s, ok
}

// evalFS is the evaluator's filesystem: the call's sandbox.FS plus the virtual SDK directory.
type evalFS struct{ c *call }

func (f evalFS) Open(name string, flag int, perm fs.FileMode) (eval.File, error) {
	if s, ok := sdkFile(name); ok && flag&(os.O_WRONLY|os.O_RDWR) == 0 {
		return readOnly{strings.NewReader(s)}, nil
	}
	file, err := f.c.fs.Open(name, flag, perm)
	if err != nil {
		return nil, sandboxError(err)
	}
	return file, nil
}

// refusal is an access the sandbox refused or limited: the shell's message says why, as the
// utilities' messages do; errors.Is still sees the underlying error.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }
func (r refusal) ShellMessage() string {
	var tm sandbox.ErrTooManyOpenFiles
	if errors.As(r.err, &tm) {
		return "Too many open files (sandbox: " + tm.Error() + ")"
	}
	return builtins.Describe(r.err)
}

func sandboxError(err error) error {
	var tm sandbox.ErrTooManyOpenFiles
	if sandbox.Reason(err) == "" && !errors.As(err, &tm) {
		return err
	}
	return refusal{err}
}

func (f evalFS) Stat(name string) (fs.FileInfo, error)  { return f.c.stat(name, true) }
func (f evalFS) Lstat(name string) (fs.FileInfo, error) { return f.c.stat(name, false) }

// ReadDir lists through the sandbox; outside the roots the listing is empty (not an error) so
// that globs stay literal, as in bash.
func (f evalFS) ReadDir(name string) ([]fs.DirEntry, error) {
	ents, err := f.c.fs.ReadDir(name)
	if err != nil {
		return nil, nil
	}
	return ents, nil
}

func (f evalFS) Access(name string, mode uint32) error {
	if _, err := f.c.stat(name, true); err == nil && (strings.HasPrefix(name, SDKDir) || isDev(name)) {
		if mode&sandbox.AccessWrite != 0 && !isDev(name) {
			return &fs.PathError{Op: "access", Path: name, Err: fs.ErrPermission}
		}
		return nil
	}
	return f.c.fs.Access(name, mode)
}

func (f evalFS) RealPath(name string) (string, error) { return f.c.fs.RealPath(name) }

func (f evalFS) Chmod(name string, mode fs.FileMode) error { return f.c.fs.Chmod(name, mode) }

type sdkFileInfo struct{ name string }

func (s sdkFileInfo) Name() string     { return s.name }
func (s sdkFileInfo) Size() int64      { return int64(len(sdkFiles[s.name])) }
func (sdkFileInfo) Mode() fs.FileMode  { return 0o444 }
func (sdkFileInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (sdkFileInfo) IsDir() bool        { return false }
func (sdkFileInfo) Sys() any           { return &sandbox.StatT{} }
func (s sdkFileInfo) String() string   { return s.name }
func (sdkDirInfo) Name() string        { return "sdk" }
func (sdkDirInfo) Size() int64         { return 4096 }
func (sdkDirInfo) Mode() fs.FileMode   { return fs.ModeDir | 0o555 }
func (sdkDirInfo) ModTime() time.Time  { return time.Unix(0, 0) }
func (sdkDirInfo) IsDir() bool         { return true }
func (sdkDirInfo) Sys() any            { return &sandbox.StatT{} }
func (sdkDirInfo) String() string      { return "sdk" }
func (d devInfo) Name() string         { return path.Base(d.p) }
func (devInfo) Size() int64            { return 0 }
func (devInfo) Mode() fs.FileMode      { return fs.ModeDevice | fs.ModeCharDevice | 0o666 }
func (devInfo) ModTime() time.Time     { return time.Unix(0, 0) }
func (devInfo) IsDir() bool            { return false }
func (devInfo) Sys() any               { return &sandbox.StatT{} }
func (d devInfo) String() string       { return d.p }

type sdkDirInfo struct{}
type devInfo struct{ p string }

func (c *call) stat(name string, follow bool) (fs.FileInfo, error) {
	if stdioDevice(name) {
		return devInfo{name}, nil
	}
	if name == SDKDir {
		return sdkDirInfo{}, nil
	}
	if _, ok := sdkFile(name); ok {
		return sdkFileInfo{path.Base(name)}, nil
	}
	if follow {
		return c.fs.Stat(name)
	}
	return c.fs.Lstat(name)
}

func isDev(p string) bool { return stdioDevice(p) || sandbox.IsDevice(p) }

// builtin finds the SDK's Go builtins (looked up by the evaluator after shell functions).
func (c *call) builtin(name string) eval.BuiltinFunc {
	switch {
	case name == sdk.BuiltinName:
		return c.fns.sdk
	case sdk.Has(name):
		return c.fns.sdkNamed
	}
	return nil
}

// sdkNamedBuiltin runs the SDK builtin args[0] names (every caller of a builtin gives its name
// as args[0]: a command, command, builtin, a command substitution), bound to c once (callFns).
func (c *call) sdkNamedBuiltin(ctx context.Context, sh *eval.Shell, args []string) (int, error) {
	st := c.state.Run(ctx, c.sdkEnv(sh), args)
	if st != 0 && sdk.Exits(args[0]) {
		// Ends the script or the subshell it is in, with EXIT traps, as the original's
		// `exit 1` does.
		return st, eval.ExitRequest{Status: st}
	}
	return st, nil
}

// sdkBuiltin is the SDK's dispatching builtin (sdk.BuiltinName), bound to c once (callFns).
func (c *call) sdkBuiltin(ctx context.Context, sh *eval.Shell, args []string) (int, error) {
	return c.state.Run(ctx, c.sdkEnv(sh), args[1:]), nil
}

// pureBuiltin: every SDK builtin only reads the shell (its variables through Getenv and
// Environ, its directory and descriptors): none sets a variable, option or trap, so a command
// substitution of one needs no subshell.
func pureBuiltin(name string) bool { return name == sdk.BuiltinName || sdk.Has(name) }

// lookup is command search for type, command -v and hash: the first of pathSearch (a
// utility or allowlisted command only where PATH names its directory), else a project's
// command; never the host's PATH.
func (c *call) lookup(name, pathVar, dir string) (string, bool) {
	if hits := c.pathSearch(name, pathVar, dir, false); len(hits) > 0 {
		return hits[0].path, true
	}
	if prog, _ := c.extCommand(name); prog != "" {
		return prog, true
	}
	return "", false
}

// lookupAll is every match of the command search, in PATH order (type -a).
func (c *call) lookupAll(name, pathVar, dir string) []string {
	var out []string
	for _, h := range c.pathSearch(name, pathVar, dir, true) {
		if h.exec {
			out = append(out, h.path)
		}
	}
	if len(out) == 0 {
		if prog, _ := c.extCommand(name); prog != "" {
			out = append(out, prog)
		}
	}
	return out
}

// isUtility reports whether command search finds name in /usr/bin: a utility or an
// allowlisted command.
func (c *call) isUtility(name string) bool {
	_, ok := builtins.Lookup(name)
	return ok || c.job.Policy.Allowed(name)
}

// utilDirs are where the sandbox's utilities and allowlisted commands are found by command
// search, as coreutils are on a usr-merged system.
var utilDirs = []string{"/usr/bin", "/bin"}

// pathHit is one match of the command search.
type pathHit struct {
	path       string // as bash names it: the PATH entry, "/", the name
	util, exec bool
}

// pathSearch walks PATH as bash does over what the sandbox has: /usr/bin and /bin hold the
// utilities and allowlisted commands, a directory inside the roots its files (the first
// non-executable one is kept, after the executable ones, as bash keeps it to report). It
// stops at the first executable match unless all.
func (c *call) pathSearch(name, pathVar, dir string, all bool) []pathHit {
	if strings.Contains(name, "/") || name == "" {
		return nil
	}
	util := c.isUtility(name)
	var hits []pathHit
	var noExec *pathHit
	for rest, more := pathVar, true; more; {
		var entry string
		entry, rest, more = strings.Cut(rest, ":") // no allocation: this runs for every command
		if entry == "" {
			entry = "."
		}
		d := absIn(dir, entry)
		found := strings.TrimSuffix(entry, "/") + "/" + name
		if slices.Contains(utilDirs, d) {
			if util {
				hits = append(hits, pathHit{path: found, util: true, exec: true})
				if !all {
					return hits
				}
			}
			continue
		}
		if !c.fs.Covers(d) {
			continue
		}
		fi, err := c.fs.Stat(path.Join(d, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if c.executable(path.Join(d, name), fi) {
			hits = append(hits, pathHit{path: found, exec: true})
			if !all {
				return hits
			}
		} else if noExec == nil {
			noExec = &pathHit{path: found}
		}
	}
	if noExec != nil && (all || len(hits) == 0 && !util && !c.hasExtCommand(name)) {
		hits = append(hits, *noExec)
	}
	return hits
}

// cmdCtx is where a command runs: the shell that runs it, its working directory, exported
// environment and streams (a utility's own, for xargs, env and timeout).
type cmdCtx struct {
	shell          *eval.Shell
	dir            string
	path           string // the shell's PATH, for command search
	environ        func() []string
	stdin          io.Reader
	stdout, stderr io.Writer
	openFD         func(n int) (io.ReadWriteCloser, error)
}

// env returns the exported variables, computed once.
func (cc *cmdCtx) getenv() func(string) string {
	var once sync.Once
	var env []string
	return func(k string) string {
		once.Do(func() { env = cc.environ() })
		v, _ := sandbox.Lookup(env, k)
		return v
	}
}

// exec runs every command that is not a function or a shell builtin: utility, script inside
// the roots, allowlisted external, project command, else 127.
func (c *call) exec(ctx context.Context, cmd *eval.Command) (int, error) {
	return c.command(ctx, cmdCtx{shell: cmd.Shell, dir: cmd.Dir, path: cmd.Path, environ: cmd.Environ, stdin: cmd.Stdin, stdout: cmd.Stdout,
		stderr: cmd.Stderr, openFD: cmd.OpenFD}, cmd.Args)
}

// binDirs are where scripts name common utilities by absolute path.
var binDirs = []string{"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"}

// command resolves and runs a non-function, non-builtin command.
func (c *call) command(ctx context.Context, cc cmdCtx, args []string) (int, error) {
	name := args[0]
	// The utilities and allowlisted commands are in /usr/bin and /bin: command search finds
	// them (and bash's bare name), as bash would, only when PATH names one of those.
	var hits []pathHit
	bare := !strings.Contains(name, "/")
	if bare {
		hits = c.pathSearch(name, cc.path, cc.dir, false)
	}
	onPath := !bare || len(hits) > 0 && hits[0].util
	// An allowlisted bash or sh is the operator's choice of the host's shell (confined as
	// every external command is); otherwise bash runs as a new sandboxed shell. Its bare name
	// is found where the utilities are; type and command -v do not show it (the host's bash
	// is not the script's business).
	if prog, ok := isShellCommand(name); ok && !c.job.Policy.Allowed(prog) && (!bare || prog == "sh" || c.utilDirOnPath(cc.path, cc.dir)) {
		return c.runShell(ctx, cc, prog, args)
	}
	if strings.Contains(name, "/") {
		if dir, base := path.Split(name); slices.Contains(binDirs, strings.TrimSuffix(dir, "/")) {
			if f, ok := builtins.Lookup(base); ok {
				if err := askedForHost(cc, base, args[1:]); err != nil {
					return 126, err
				}
				c.rec.Add(sandbox.Access{Op: "exec", Path: name, Allowed: true, Reason: "builtin"})
				return f(ctx, c.programEnv(cc), append([]string{base}, args[1:]...)), nil
			}
			if c.job.Policy.Allowed(base) {
				return c.external(ctx, cc, append([]string{base}, args[1:]...))
			}
			if _, err := c.fs.Stat(absIn(cc.dir, name)); err != nil && base != "" {
				// The host may well have /usr/bin/NAME; the sandbox's system directories
				// hold only its utilities, so say the sandbox is why it is missing.
				c.rec.Add(sandbox.Access{Op: "exec", Path: name, Allowed: false, Reason: "not allowed"})
				fmt.Fprintf(cc.stderr, "%s%s: No such file or directory (%s)\n", cc.errorPrefix(), name, notAvailable(base))
				return 127, nil
			}
		}
		return c.script(ctx, cc, args)
	}
	// A script in a PATH directory inside the roots, when it comes before the utility's
	// directory: bash runs it by the path it found.
	if len(hits) > 0 && !hits[0].util {
		return c.script(ctx, cc, append([]string{hits[0].path}, args[1:]...))
	}
	if f, ok := builtins.Lookup(name); ok && onPath {
		if err := askedForHost(cc, name, args[1:]); err != nil {
			return 126, err
		}
		c.rec.Add(sandbox.Access{Op: "exec", Path: name, Allowed: true, Reason: "builtin"})
		return f(ctx, c.programEnv(cc), args), nil
	}
	// An allowlisted host command comes before a project's wasm command of the same name: a
	// module a tool managed to put in bin/ must never receive what the operator allowlisted.
	if c.job.Policy.Allowed(name) && onPath {
		return c.external(ctx, cc, args)
	}
	if prog, run := c.extCommand(name); run != nil {
		c.rec.Add(sandbox.Access{Op: "exec", Path: prog, Allowed: true, Reason: "wasm command"})
		return run(ctx, c.programEnv(cc), args), nil
	}
	c.rec.Add(sandbox.Access{Op: "exec", Path: name, Allowed: false, Reason: "not allowed"})
	// bash's words, then why: the host's bash might have found the program, and the sandbox
	// never looks (the host's PATH is not the script's business), so a reader of the result
	// must be able to tell a sandbox refusal from a missing program. Status stays 127.
	note := c.missing(name)
	if _, shell := isShellCommand(name); shell {
		note = notOnPath
	} else if !c.isUtility(name) && c.pathInRoots(cc.path, cc.dir) {
		note = "not available in the sandbox, nor in a PATH directory inside the roots; fix: " + notOnPathFix(name)
	}
	fmt.Fprintf(cc.stderr, "%s%s: command not found (%s)\n", cc.errorPrefix(), name, note)
	return 127, nil
}

// askedForHost ends the run when hostname or uname -n/-a is about to answer with the sandbox's
// virtual machine, however the script named it (a variable, a library's function, eval): the
// tool would report made-up data as the host's. parseScript refuses the literal calls before a
// script runs; this catches the rest (docs/SANDBOX.md, What differs from Bash).
func askedForHost(cc cmdCtx, name string, args []string) error {
	why := ""
	switch name {
	case "hostname":
		why = "the sandbox answers with its virtual name"
	case "uname":
		for _, a := range args {
			if a == "--all" || a == "--nodename" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "an")) {
				why = "the sandbox answers with its virtual machine for " + a
			}
		}
	}
	if why == "" || cc.shell == nil {
		return nil
	}
	file, line := cc.shell.Pos()
	return &eval.RefusalError{Refusal: eval.Refusal{File: file, Line: line, Construct: name + " reporting the host (" + why + ")", Fix: hostFactFix}}
}

// pathInRoots reports whether PATH names a directory inside the roots (where a script may
// put its own commands).
func (c *call) pathInRoots(pathVar, dir string) bool {
	for _, entry := range strings.Split(pathVar, ":") {
		if entry == "" {
			entry = "."
		}
		if c.fs.Covers(absIn(dir, entry)) {
			return true
		}
	}
	return false
}

// notOnPathFix is the fix when PATH names directories inside the roots: the command may be
// a script the tool meant to put there.
func notOnPathFix(name string) string {
	return "put the script in a PATH directory inside the roots, or " + notAvailableFix(name)
}

// errorPrefix is what the shell puts before its messages ("tool.sh: line N: ").
func (cc *cmdCtx) errorPrefix() string {
	if cc.shell != nil {
		return cc.shell.ErrorPrefix()
	}
	return "mcp-bash: "
}

// notAvailableFix is how a tool gets a command the sandbox does not have; validate's finding
// and the run-time message say the same.
func notAvailableFix(name string) string {
	if NetworkClient(name) {
		// Allowlisting it would run it without the network: say what does give one.
		return name + " needs the network, which the sandbox and its allowlisted commands never have: download over https with " +
			"mcp_download_safe (hosts in MCPBASH_HTTPS_ALLOW_HOSTS), or set \"exec\": \"native\" with \"sandbox\": {\"network\": true} " +
			"(the server runs it when MCPBASH_TOOL_ALLOWLIST names the tool)"
	}
	return "add \"" + name + "\" to \"sandbox\": {\"allowCommands\": [...]} in tool.meta.json (it then runs on the host; " +
		"MCPBASH_SANDBOX_ALLOW_COMMANDS, when set, must list it too), or set \"exec\": \"native\""
}

// NetworkClient reports whether a command exists to talk to the network (curl, wget, ssh, ...):
// allowlisted, it runs without one (docs/SANDBOX.md, Network).
func NetworkClient(name string) bool {
	switch name {
	case "curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "ftp", "telnet", "aria2c", "http", "https", "xh", "ping", "dig", "nslookup", "host":
		return true
	}
	return false
}

// notOnPath says why command search did not find a utility.
const notOnPath = "PATH names neither /usr/bin nor /bin, where the sandbox has it"

// utilDirOnPath reports whether PATH names /usr/bin or /bin, where command search finds
// the utilities.
func (c *call) utilDirOnPath(pathVar, dir string) bool {
	for entry := range strings.SplitSeq(pathVar, ":") {
		if entry == "" {
			entry = "."
		}
		if slices.Contains(utilDirs, absIn(dir, entry)) {
			return true
		}
	}
	return false
}

// missing says why command search did not find name: for a utility, the PATH.
func (c *call) missing(name string) string {
	if c.isUtility(name) {
		return notOnPath
	}
	if name == "bash" {
		return "the sandbox runs bash itself, as a child shell, and command search does not show it"
	}
	return notAvailable(name)
}

// notAvailable is the note a refused command's message ends with.
func notAvailable(name string) string {
	return "not available in the sandbox; fix: " + notAvailableFix(name)
}

// executable reports whether the file p (fi) may run as a program: an execute bit, or on
// Windows, which has none, a file that begins as a program does (FS.Access: #! or MZ, as
// Git-Bash decides).
func (c *call) executable(p string, fi fs.FileInfo) bool {
	if fi.Mode().Perm()&0o111 != 0 {
		return true
	}
	return runtime.GOOS == "windows" && fi.Mode().IsRegular() && c.fs.Access(p, sandbox.AccessExec) == nil
}

// script runs a shell script inside the roots as bash runs an executable script: in a child
// shell of the evaluator with the exported environment, sharing the call's limits.
func (c *call) script(ctx context.Context, cc cmdCtx, args []string) (int, error) {
	p := absIn(cc.dir, args[0])
	fi, err := c.fs.Stat(p)
	if err != nil {
		// Not a refusal: bash fails the same way (the stat's own entry says why).
		c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: true, Reason: sandbox.ReasonNotFound})
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ENAMETOOLONG) {
			// bash's status for a path that exists in no form is 127, for any other failure 126.
			fmt.Fprintf(cc.stderr, "%s%s: %s\n", cc.errorPrefix(), args[0], strerror.Words(err))
			return 126, nil
		}
		fmt.Fprintf(cc.stderr, "%s%s: No such file or directory\n", cc.errorPrefix(), args[0])
		return 127, nil
	}
	if fi.IsDir() || !c.executable(p, fi) {
		c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: false, Reason: "not executable"})
		fmt.Fprintf(cc.stderr, "%s%s: Permission denied\n", cc.errorPrefix(), args[0])
		return 126, nil
	}
	head := make([]byte, 128)
	if f, err := c.fs.Open(p, os.O_RDONLY, 0); err == nil {
		n, _ := io.ReadFull(f, head)
		head = head[:n]
		f.Close()
	}
	if !isShellScript(head) || cc.shell == nil {
		c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: false, Reason: "not a shell script"})
		fmt.Fprintf(cc.stderr, "mcp-bash: %s: only shell scripts can run in the sandbox\n", args[0])
		return 126, nil
	}
	// A #!/bin/sh script runs under dash (or bash in POSIX mode) on the host, as the `sh`
	// command would: the sandbox does not reproduce either, so it refuses, as for `sh`. An env
	// line without -S hands env one argument ("FOO=1 bash"), which does not run bash at all.
	switch prog, plainEnv := shebangProg(head); {
	case prog == "sh":
		c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: false, Reason: "sh script"})
		return 126, shellRefusal(cc.shell, args[0]+": #!"+shebangLine(head)+" (a POSIX shell: dash, or bash in POSIX mode, which the sandbox does not reproduce; use #!/usr/bin/env bash)")
	case plainEnv:
		c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: false, Reason: "shebang"})
		return 126, shellRefusal(cc.shell, args[0]+": #!"+shebangLine(head)+" (env gets the rest of the line as one word; use #!/usr/bin/env -S ...)")
	}
	// The kernel passes the shebang's argument to bash before the script's path (`#!/bin/bash
	// -e`, `#!/usr/bin/env -S bash -eu`): its options apply, as `bash -e script` applies them.
	// Running without them would differ silently (a failing `cd` then `rm -rf ./*` under -e).
	var opts []string
	if sb := shebangArgs(head); len(sb) > 0 {
		inv, refused, usage := parseShellArgs(append(sb, p))
		if refused != nil || usage != "" || inv.hasCmd || inv.fromStdin || len(inv.operands) != 1 {
			c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: false, Reason: "shebang option"})
			return 126, shellRefusal(cc.shell, args[0]+": #! options "+strings.Join(sb, " "))
		}
		opts = inv.options
	}
	c.rec.Add(sandbox.Access{Op: "exec", Path: p, Allowed: true, Reason: "script"})
	pf, err := c.parseFile(ctx, p)
	return c.startShell(ctx, cc, pf, err, eval.Script{Name: args[0], Args: args[1:], Stdin: cc.stdin, Options: opts})
}

// shebangArgs returns what the kernel passes to a shell script's interpreter before the
// script's path: the rest of the #! line after the interpreter as one argument
// (`#!/bin/bash -e -u` gives bash "-e -u", which it refuses as bash does), or, through
// `env -S`, the words after the program.
func shebangArgs(head []byte) []string {
	line, ok := bytes.CutPrefix(head, []byte("#!"))
	if !ok {
		return nil
	}
	line, _, _ = bytes.Cut(line, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return nil
	}
	if path.Base(fields[0]) == "env" {
		if len(fields) > 3 && fields[1] == "-S" {
			return fields[3:]
		}
		return nil
	}
	rest := strings.TrimLeft(string(line), " \t")
	rest = strings.TrimLeft(rest[len(fields[0]):], " \t")
	if rest = strings.TrimRight(rest, " \t\r"); rest != "" {
		return []string{rest}
	}
	return nil
}

// startShell runs a parsed script (sc's Name, Args, Stdin, Options and Flags set) in a new
// shell with cc's directory, exported environment and output, after its parse error or static
// refusal if any.
func (c *call) startShell(ctx context.Context, cc cmdCtx, pf *parsed, err error, sc eval.Script) (int, error) {
	if err != nil {
		fmt.Fprintf(cc.stderr, "bash: %v\n", err)
		return 2, nil
	}
	if perr := pf.prog.Err(); perr != nil && !pf.prog.CondErr() {
		// A new shell's script with a syntax error: bash words its errors differently and
		// accepts some text the parser rejects (a[5 + 3] is a command to it), so a status 2
		// with a message of our own would be a silent difference. As for eval, the call ends.
		text := pf.prog.ErrText()
		if text == "" {
			text = perr.Error()
		}
		rerr := shellRefusal(cc.shell, "a new shell's script text the engine cannot parse ("+text+")")
		var re *eval.RefusalError
		if errors.As(rerr, &re) {
			re.Refusal.Fix = "fix the syntax of the text (bash may accept it: then run the tool with the native engine)"
			c.record(re.Refusal)
			c.cancel(re)
		}
		return 2, nil
	}
	if pf.refused != nil {
		// The whole call ends, as it does for a refusal of its own script: a parent that went
		// on past the child's status would present what follows as bash's.
		c.record(*pf.refused)
		c.cancel(&eval.RefusalError{Refusal: *pf.refused})
		return 2, nil
	}
	sc.Program, sc.Dir, sc.Environ, sc.Stdout, sc.Stderr = pf.prog, cc.dir, cc.environ(), cc.stdout, cc.stderr
	sc.Define = []*eval.Program{c.sdk.prelude}
	return cc.shell.RunScript(ctx, sc)
}

func isShellScript(head []byte) bool {
	if !bytes.HasPrefix(head, []byte("#!")) {
		return !bytes.Contains(head, []byte{0}) // no shebang: bash runs it as a script
	}
	prog, _ := shebangProg(head)
	return prog == "bash" || prog == "sh"
}

// shebangLine is a script's #! line without the #!.
func shebangLine(head []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimPrefix(head, []byte("#!")), []byte("\n"))
	return strings.TrimSpace(string(line))
}

// shebangProg is the program a #! line names (through env: the program env would run), and
// whether it is an env line without -S that has more than one word after env.
func shebangProg(head []byte) (prog string, plainEnv bool) {
	fields := strings.Fields(shebangLine(head))
	if len(fields) == 0 {
		return "", false
	}
	prog = path.Base(fields[0])
	if prog == "env" && len(fields) > 1 {
		prog = path.Base(fields[len(fields)-1])
		if fields[1] == "-S" && len(fields) > 2 {
			return path.Base(fields[2]), false
		}
		return prog, len(fields) > 2
	}
	return prog, false
}

// external runs an allowlisted host command with a fixed environment (never the script's
// exports, so LD_PRELOAD and friends cannot ride along), in its own process group, killed with
// the call.
func (c *call) external(ctx context.Context, cc cmdCtx, args []string) (int, error) {
	if c.job.Policy.Layer != "" {
		// A host program writes the roots itself, past the layer, and reads them without the
		// call's own writes: it cannot take part in a review.
		c.rec.Add(sandbox.Access{Op: "exec", Path: args[0], Allowed: false, Reason: reviewExternalReason})
		fmt.Fprintf(cc.stderr, "mcp-bash: %s: %s; fix: set the tool's \"writeMode\" to \"direct\" (when the operator allows it), or do this with the sandbox's own utilities\n", args[0], reviewExternalReason)
		return 126, nil
	}
	bin, err := exec.LookPath(args[0])
	if err != nil {
		c.rec.Add(sandbox.Access{Op: "exec", Path: args[0], Allowed: false, Reason: "not installed"})
		fmt.Fprintf(cc.stderr, "mcp-bash: %s: allowlisted but not installed on the host\n", args[0])
		return 127, nil
	}
	// The empty home exists before the rules are made (confinement grants only what exists).
	home, err := c.scratch.emptyHome()
	if err != nil {
		fmt.Fprintf(cc.stderr, "mcp-bash: scratch directory: %v\n", err)
		return 126, nil
	}
	argv := append([]string{bin}, args[1:]...)
	reason := "external (leaves the sandbox)"
	if c.job.Confiner != nil {
		wrapped, err := c.job.Confiner.Wrap(c.confineRules(home), argv)
		if err != nil {
			c.rec.Add(sandbox.Access{Op: "exec", Path: bin, Allowed: false, Reason: "cannot be confined: " + err.Error()})
			fmt.Fprintf(cc.stderr, "mcp-bash: %s: %v\n", args[0], err)
			return 126, nil
		}
		reason = "external (leaves the sandbox, " + c.job.Confiner.Describe() + ")"
		argv = wrapped
	}
	c.rec.Add(sandbox.Access{Op: "exec", Path: bin, Allowed: true, Reason: reason})
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = externalEnv(home, c.scratch.tmp)
	cmd.Dir = c.work
	if fi, err := c.fs.Stat(cc.dir); err == nil && fi.IsDir() {
		if host, ok := sandbox.HostPathOf(cc.dir); ok {
			cmd.Dir = host
		}
	}
	// A redirected file goes to the child as the file itself (as bash does), not a pipe.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = sandbox.HostReader(cc.stdin), sandbox.HostWriter(cc.stdout), sandbox.HostWriter(cc.stderr)
	cmd.WaitDelay = time.Second
	g, _, err := sandbox.StartGroup(cmd, nil)
	if err == nil {
		err = cmd.Wait()
		g.Close()
	}
	if st, ok := sandbox.ExitStatus(err); ok {
		return st, nil
	}
	fmt.Fprintf(cc.stderr, "mcp-bash: %s: %v\n", args[0], err)
	return 126, nil
}

// reviewExternalReason refuses host commands in review mode.
const reviewExternalReason = "host commands cannot run in review mode (their writes would bypass the review layer, and they would not see the call's own writes)"

// externalEnv is the whole environment of an allowlisted host command: an allowlist, never the
// script's exports (so no LD_PRELOAD, GIT_*, PYTHON*, BASH_ENV, NODE_OPTIONS, *_CONFIG* ...
// redirection), with HOME and every XDG base directory at an empty read-only directory (many
// programs execute what their configuration says: git aliases and hooks, ssh ProxyCommand,
// pip, npm scripts) and git's system configuration off.
func externalEnv(home, tmp string) []string {
	return append([]string{"PATH=" + hostProgramPath(), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_CACHE_HOME=" + home, "XDG_STATE_HOME=" + home,
		"XDG_CONFIG_DIRS=" + home, "GIT_CONFIG_NOSYSTEM=1"}, hostSystemEnv()...)
}

// confineRules are what a confined external command may use: the read-write roots and the
// call's scratch dir, the read-only roots, the tool's directory and the empty home (home, made
// by emptyHome); no network.
func (c *call) confineRules(home string) sandbox.ConfineRules {
	r := c.job.Policy.ConfineRules()
	r.RW = append([]string{c.work}, r.RW...)
	if c.job.Policy.ToolDir != "" {
		r.RO = append(r.RO, c.job.Policy.ToolDir)
	}
	r.RO = append(r.RO, home)
	return r
}

// hasExtCommand reports whether the job's Commands has a program called name.
func (c *call) hasExtCommand(name string) bool {
	prog, _ := c.extCommand(name)
	return prog != ""
}

// sdkEnv is what an SDK builtin sees: the shell's stdio, directory and filesystem, with the
// shell's own variables (not only the exported ones) behind Getenv, as the original's SDK
// functions, being shell functions, see them. It is built lean (no command search, no
// budget: SDK builtins use neither) because every SDK call of every tool builds one.
func (c *call) sdkEnv(sh *eval.Shell) *engine.Env {
	fns := c.sdkShell(sh)
	return &engine.Env{
		Stdin: sh.Stdin(), Stdout: sh.Stdout(), Stderr: sh.Stderr(), Dir: sh.Dir(), FS: c.fs, Umask: sh.Umask(),
		Getenv: fns.getenv, Environ: fns.environ, Now: now, Exec: fns.exec,
	}
}

// sdkShellFns are the functions of an SDK builtin's environment that depend only on the call
// and the shell running it (sdkEnv): Getenv, Environ and Exec.
type sdkShellFns struct {
	sh      *eval.Shell
	getenv  func(string) string
	environ func() []string
	exec    func(ctx context.Context, argv []string, environ func() []string, in io.Reader, out, errw io.Writer) int
}

// sdkShell is sh's sdkShellFns, made again only when a different shell (a subshell, a pipeline
// element) runs an SDK builtin: a script's SDK calls run in the same shell (pureBuiltin), which
// gives its hooks one *Shell (eval.Shell). The functions capture only c and sh, so those made
// for sh are those any later builtin of sh would make; a pooled call starts without them.
func (c *call) sdkShell(sh *eval.Shell) sdkShellFns {
	c.sdkMu.Lock()
	defer c.sdkMu.Unlock()
	if c.sdkFns.sh != sh {
		c.sdkFns = sdkShellFns{
			sh: sh,
			getenv: func(k string) string {
				v, _ := sh.Get(k)
				return v
			},
			environ: sh.Environ,
			exec: func(ctx context.Context, argv []string, environ func() []string, in io.Reader, out, errw io.Writer) int {
				cc := cmdCtx{shell: sh, dir: sh.Dir(), environ: sh.Environ, stdin: sh.Stdin(), stdout: sh.Stdout(), stderr: sh.Stderr()}
				return c.programEnv(cc).Exec(ctx, argv, environ, in, out, errw)
			},
		}
	}
	return c.sdkFns
}

// umaskOf is the file-creation mask of the shell running a utility (bash's default without one).
func umaskOf(sh *eval.Shell) fs.FileMode {
	if sh == nil {
		return 0o022
	}
	return sh.Umask()
}

// programEnv is what an in-process program (a utility, an SDK builtin, a wasm command) sees of
// the command that runs it: the one interface of them all (engine.Program).
func (c *call) programEnv(cc cmdCtx) *engine.Env {
	stdin := cc.stdin
	if stdin == nil {
		stdin = bytes.NewReader(nil)
	}
	return &engine.Env{
		Stdin: stdin, Stdout: cc.stdout, Stderr: cc.stderr, Dir: cc.dir, FS: c.fs, Budget: c.budget, OpenFD: cc.openFD,
		Umask:   umaskOf(cc.shell),
		Getenv:  cc.getenv(),
		Environ: cc.environ,
		Now:     now,
		Refuse: func(construct, fix string) {
			r := eval.Refusal{Construct: construct, Fix: fix}
			if cc.shell != nil {
				r.File, r.Line = cc.shell.Pos()
			}
			c.record(r)
			c.cancel(&eval.RefusalError{Refusal: r})
		},
		LookPath: func(name string, all bool) []string {
			if all {
				return c.lookupAll(name, cc.path, cc.dir)
			}
			if p, ok := c.lookup(name, cc.path, cc.dir); ok {
				return []string{p}
			}
			return nil
		},
		Exec: func(ctx context.Context, argv []string, environ func() []string, in io.Reader, out, errw io.Writer) int {
			if len(argv) == 0 {
				return 0
			}
			if cc.shell == nil {
				return 127
			}
			// Through the shell: counted against the command limit, resolved as the shell
			// resolves commands that are not functions or builtins.
			st, err := cc.shell.Exec(ctx, argv, environ, in, out, errw)
			if err != nil {
				var re *eval.RefusalError
				if errors.As(err, &re) {
					// A refusal (bash -i, sh) reached through env or xargs: reported as the
					// shell reports its own.
					c.record(re.Refusal)
				}
				c.cancel(err)
				return 1
			}
			return st
		},
	}
}
