package builtins

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcp-bash/mcp-bash/interp/internal/pgroup"
	"github.com/mcp-bash/mcp-bash/interp/internal/signum"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

func init() {
	register("env", envUtil)
	register("printenv", printenv)
	register("yes", yes)
	register("uname", uname)
	register("hostname", hostname)
	register("whoami", func(ctx context.Context, env *Env, argv []string) int {
		fmt.Fprintln(env.Stdout, sandbox.VirtualUser)
		return 0
	})
	register("id", id)
	register("timeout", timeout)
	register("echo", echo) // what xargs, env and timeout run by default; scripts get the shell's echo
}

func echo(ctx context.Context, env *Env, argv []string) int {
	args, newline, escapes := argv[1:], true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		newline = newline && !strings.Contains(args[0], "n")
		if strings.Contains(args[0], "e") {
			escapes = true
		}
		if strings.Contains(args[0], "E") {
			escapes = false
		}
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if escapes {
		var stop bool
		if s, stop = echoEscapes(s); stop {
			newline = false
		}
	}
	if newline {
		s += "\n"
	}
	io.WriteString(env.Stdout, s)
	return 0
}

// echoEscapes decodes GNU echo -e's escapes: \\ \a \b \c (stop) \e \f \n \r \t \v, \0NNN
// (up to three octal digits) and \xHH (one or two hex digits); any other backslash stays.
func echoEscapes(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, false
	}
	simple := map[byte]byte{'\\': '\\', 'a': 7, 'b': 8, 'e': 0x1b, 'f': 12, 'n': '\n', 'r': '\r', 't': '\t', 'v': 11}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		c := s[i+1]
		if v, ok := simple[c]; ok {
			b.WriteByte(v)
			i++
			continue
		}
		switch {
		case c == 'c':
			return b.String(), true
		case c == '0':
			n, j := 0, i+2
			for ; j < len(s) && j < i+5 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(n))
			i = j - 1
		case c == 'x' && i+2 < len(s) && isHex(s[i+2]):
			n, j := 0, i+2
			for ; j < len(s) && j < i+4 && isHex(s[j]); j++ {
				n = n*16 + hexDigit(s[j])
			}
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
		}
	}
	return b.String(), false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexDigit(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// withVars returns a copy of env whose variables are exactly vars (NAME=VALUE, later wins).
func withVars(env *Env, vars []string) *Env {
	sub := *env
	sub.Getenv = func(k string) string {
		v, _ := sandbox.Lookup(vars, k)
		return v
	}
	sub.Environ = func() []string { return slices.Clone(vars) }
	return &sub
}

func environ(env *Env) []string {
	if env.Environ == nil {
		return nil
	}
	return env.Environ()
}

// envUtil prints the environment or runs a command with changed variables: utilities directly,
// other commands (bash, scripts) through Exec, both with the new variables (an allowlisted
// external gets its fixed environment whatever env says).
func envUtil(ctx context.Context, env *Env, argv []string) int {
	args := argv[1:]
	vars := slices.Clone(environ(env))
	end := "\n"
	optsDone := false // after --, only assignments and the command
	for len(args) > 0 {
		a := args[0]
		switch {
		case optsDone:
			if !strings.Contains(a, "=") || strings.HasPrefix(a, "=") {
				return envRun(ctx, env, vars, args, end)
			}
			vars = append(vars, a)
		case a == "-i" || a == "-" || a == "--ignore-environment":
			vars = nil
		case a == "-0" || a == "--null":
			end = "\x00"
		case (a == "-u" || a == "--unset") && len(args) > 1:
			vars = slices.DeleteFunc(vars, func(v string) bool { return strings.HasPrefix(v, args[1]+"=") })
			args = args[1:]
		case strings.HasPrefix(a, "-u") && len(a) > 2:
			vars = slices.DeleteFunc(vars, func(v string) bool { return strings.HasPrefix(v, a[2:]+"=") })
		case a == "--":
			optsDone = true
		case strings.HasPrefix(a, "-") && len(a) > 1:
			return errorf(env, 125, "env", "unsupported option %s", a)
		case strings.Contains(a, "=") && !strings.HasPrefix(a, "="):
			vars = append(vars, a)
		default:
			return envRun(ctx, env, vars, args, end)
		}
		args = args[1:]
	}
	return envRun(ctx, env, vars, args, end)
}

func envRun(ctx context.Context, env *Env, vars, args []string, end string) int {
	if len(args) == 0 {
		w := bufio.NewWriter(env.Stdout)
		for _, v := range vars {
			w.WriteString(v + end)
		}
		w.Flush()
		return 0
	}
	sub := withVars(env, vars)
	if f, ok := Lookup(args[0]); ok {
		return f(ctx, sub, args)
	}
	if env.Exec == nil {
		return errorf(env, 126, "env", "cannot run '%s': running commands is not available here", args[0])
	}
	return env.Exec(ctx, args, sub.Environ, env.Stdin, env.Stdout, env.Stderr)
}

func printenv(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "printenv", 2, optSpec{short: "0", long: []string{"null:0"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	end := "\n"
	if fl.has("0") {
		end = "\x00"
	}
	vars := environ(env)
	if len(fl.operands) == 0 {
		for _, v := range vars {
			io.WriteString(env.Stdout, v+end)
		}
		return 0
	}
	status := 0
	for _, name := range fl.operands {
		if v, ok := sandbox.Lookup(vars, name); ok && !strings.Contains(name, "=") {
			io.WriteString(env.Stdout, v+end)
		} else {
			status = 1
		}
	}
	return status
}

// yes writes until its output fails or the call's context ends.
func yes(ctx context.Context, env *Env, argv []string) int {
	s := "y"
	if len(argv) > 1 {
		s = strings.Join(argv[1:], " ")
	}
	chunk := []byte(strings.Repeat(s+"\n", max(1, 8192/(len(s)+1))))
	for ctx.Err() == nil {
		if _, err := env.Stdout.Write(chunk); err != nil {
			return 1
		}
	}
	return 130
}

// The virtual machine identity a script sees.
const (
	unameKernel  = "Linux"
	unameRelease = "6.0.0-mcp"
	unameVersion = "#1 SMP"
	unameMachine = "x86_64"
	unameOS      = "GNU/Linux"
)

func uname(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "uname", 1, optSpec{short: "asnrvmpio", long: []string{"all:a", "kernel-name:s",
		"nodename:n", "kernel-release:r", "kernel-version:v", "machine:m", "processor:p", "hardware-platform:i", "operating-system:o"}}, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) > 0 {
		return errorf(env, 1, "uname", "extra operand '%s'", fl.operands[0])
	}
	vals := map[byte]string{'s': unameKernel, 'n': sandbox.VirtualHostname, 'r': unameRelease, 'v': unameVersion,
		'm': unameMachine, 'p': unameMachine, 'i': unameMachine, 'o': unameOS}
	order := "snrvmpio"
	want := map[byte]bool{}
	for _, o := range fl.opts {
		if o.name == "a" {
			for _, c := range []byte("snrvmo") {
				want[c] = true
			}
			continue
		}
		want[o.name[0]] = true
	}
	if len(want) == 0 {
		want['s'] = true
	}
	var parts []string
	for i := 0; i < len(order); i++ {
		if want[order[i]] {
			parts = append(parts, vals[order[i]])
		}
	}
	fmt.Fprintln(env.Stdout, strings.Join(parts, " "))
	return 0
}

func hostname(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "hostname", 1, optSpec{short: "sfAi", long: []string{"short:s", "fqdn:f", "long:f"}}, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) > 0 {
		return errorf(env, 1, "hostname", "you must be root to change the host name")
	}
	if fl.has("i") {
		fmt.Fprintln(env.Stdout, "127.0.0.1")
		return 0
	}
	fmt.Fprintln(env.Stdout, sandbox.VirtualHostname)
	return 0
}

func id(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "id", 1, optSpec{short: "ugGnrz", long: []string{"user:u", "group:g", "groups:G", "name:n", "real:r", "zero:z"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	for _, u := range fl.operands {
		if u != sandbox.VirtualUser && u != sandbox.VirtualUID {
			return errorf(env, 1, "id", "'%s': no such user", u)
		}
	}
	switch {
	case fl.has("u", "g", "G") && fl.has("n"):
		fmt.Fprintln(env.Stdout, sandbox.VirtualUser)
	case fl.has("u", "g", "G"):
		fmt.Fprintln(env.Stdout, sandbox.VirtualUID)
	case fl.has("n"):
		return errorf(env, 1, "id", "cannot print only names or real IDs in default format")
	default:
		u, n := sandbox.VirtualUID, sandbox.VirtualUser
		fmt.Fprintf(env.Stdout, "uid=%s(%s) gid=%s(%s) groups=%s(%s)\n", u, n, u, n, u, n)
	}
	return 0
}

// timeout runs a command under a derived context; 124 means the time ran out.
func timeout(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "timeout", 125, optSpec{short: "s:k:v", long: []string{"signal:s", "kill-after:k",
		"preserve-status", "foreground", "verbose:v"}}, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) < 2 {
		return errorf(env, 125, "timeout", "missing operand")
	}
	d, ok := parseSleep(fl.operands[0])
	if !ok {
		return errorf(env, 125, "timeout", "invalid time interval '%s'", fl.operands[0])
	}
	sig := 15
	if v, ok := fl.val("s", "signal"); ok {
		if sig, ok = signum.Number(v); !ok {
			errorf(env, 0, "timeout", "'%s': invalid signal", v)
			fmt.Fprintln(env.Stderr, "Try 'timeout --help' for more information.")
			return 125
		}
	}
	if env.Exec == nil {
		return errorf(env, 125, "timeout", "running commands is not available here")
	}
	tctx, cancel := ctx, context.CancelFunc(func() {})
	if d > 0 {
		tctx, cancel = context.WithTimeout(ctx, d)
	}
	defer cancel()
	// The command runs in a process group of its own, which the end of its time signals
	// whole: a shell's background jobs end with it (they go on if it returns in time).
	tctx, group := pgroup.New(tctx, sig)
	rc := env.Exec(tctx, fl.operands[1:], env.Environ, env.Stdin, env.Stdout, env.Stderr)
	if errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		group.Kill()
		switch {
		case sig == 9:
			// GNU timeout is in its command's group, and KILL ends it too: bash reports the
			// killed timeout with its pid and command line, status 137.
			return unsupported(env, "timeout", "-s KILL at the end of its time (bash reports the timeout it kills, with its pid)", "leave -s out (TERM), or run the tool with the native engine")
		case sig == 0 || signum.IgnoredByDefault(sig) || signum.Stops(sig):
			// The signal does not end the command, which GNU timeout then waits for (or stops).
			return unsupported(env, "timeout", "-s "+cmp.Or(signum.Name(sig), "0")+" at the end of its time (a signal that does not end the command)", "leave -s out (TERM), or run the tool with the native engine")
		}
		if fl.has("v") {
			errorf(env, 0, "timeout", "sending signal %s to command '%s'", signum.Name(sig), fl.operands[1])
		}
		if fl.has("preserve-status") {
			return 128 + sig
		}
		return 124
	}
	return rc
}
