package eval

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-bash/mcp-bash/interp/internal/printf"
)

// builtinFn is a shell builtin: it runs in the shell with its redirections applied and
// returns the exit status (control flow goes through r.flow).
type builtinFn func(r *Runner, args []string) int

// builtinTable is fixed at init.
var builtinTable map[string]builtinFn

// usages are bash's usage lines.
var usages = map[string]string{
	"read":      "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]",
	"mapfile":   "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]",
	"readarray": "readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]",
	"declare":   "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]",
	"typeset":   "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]",
	"local":     "local [option] name[=value] ...",
	"export":    "export [-fn] [name[=value] ...] or export -p",
	"readonly":  "readonly [-aAf] [name[=value] ...] or readonly -p",
	"unset":     "unset [-f] [-v] [-n] [name ...]",
	"set":       "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]",
	"shopt":     "shopt [-pqsu] [-o] [optname ...]",
	"cd":        "cd [-L|[-P [-e]] [-@]] [dir]",
	"pwd":       "pwd [-LP]",
	"pushd":     "pushd [-n] [+N | -N | dir]",
	"popd":      "popd [-n] [+N | -N]",
	"dirs":      "dirs [-clpv] [+N] [-N]",
	"getopts":   "getopts optstring name [arg ...]",
	"printf":    "printf [-v var] format [arguments]",
	"trap":      "trap [-lp] [[arg] signal_spec ...]",
	"wait":      "wait [-fn] [-p var] [id ...]",
	"type":      "type [-afptP] name [name ...]",
	"command":   "command [-pVv] command [arg ...]",
	"hash":      "hash [-lr] [-p pathname] [-dt] [name ...]",
	"umask":     "umask [-p] [-S] [mode]",
	"ulimit":    "ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]",
	"alias":     "alias [-p] [name[=value] ... ]",
	"unalias":   "unalias [-a] name [name ...]",
	"exec":      "exec [-cl] [-a name] [command [argument ...]] [redirection ...]",
	"source":    "source filename [arguments]",
	".":         ". filename [arguments]",
	"eval":      "eval [arg ...]",
	"times":     "times",
	"builtin":   "builtin [shell-builtin [arg ...]]",
	"kill":      "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]",
	"caller":    "caller [expr]",
	"let":       "let arg [arg ...]",
	"return":    "return [n]",
	"exit":      "exit [n]",
	"shift":     "shift [n]",
	"break":     "break [n]",
	"continue":  "continue [n]",
	"echo":      "echo [-neE] [arg ...]",
	"test":      "test [expr]",
	"jobs":      "jobs [-lnprs] [jobspec ...] or jobs -x command [args]",
	"disown":    "disown [-h] [-ar] [jobspec ... | pid ...]",
}

// optVal is one parsed option of a builtin.
type optVal struct {
	c    byte
	plus bool
	arg  string
}

// parseOpts parses a builtin's options as bash's internal_getopt does: clustered letters,
// arguments attached or separate, "--" ends the options. spec lists the letters, each
// followed by ':' when it takes an argument; plus allows +x forms. On an error it prints
// bash's message and usage, and returns ok=false (status 2).
func (r *Runner) parseOpts(name string, args []string, spec string, plus bool) (opts []optVal, rest []string, ok bool) {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || (a[0] != '-' && !(plus && a[0] == '+')) {
			break
		}
		if a == "-" {
			break
		}
		isPlus := a[0] == '+'
		for j := 1; j < len(a); j++ {
			c := a[j]
			k := strings.IndexByte(spec, c)
			if k < 0 || c == ':' {
				r.errorf("%s: %c%c: invalid option", name, a[0], c)
				r.usage(name)
				return nil, nil, false
			}
			if k+1 < len(spec) && spec[k+1] == ':' {
				var arg string
				if j+1 < len(a) {
					arg = a[j+1:]
				} else if i+1 < len(args) {
					i++
					arg = args[i]
				} else {
					r.errorf("%s: %c%c: option requires an argument", name, a[0], c)
					r.usage(name)
					return nil, nil, false
				}
				opts = append(opts, optVal{c: c, plus: isPlus, arg: arg})
				break
			}
			opts = append(opts, optVal{c: c, plus: isPlus})
		}
		i++
	}
	return opts, args[i:], true
}

func (r *Runner) usage(name string) {
	if u, ok := usages[name]; ok {
		fmt.Fprintf(r.stderr(), "%s: usage: %s\n", name, u)
	}
}

// out writes builtin output to stdout; a write error is reported as bash does (a closed
// pipe is the writer's SIGPIPE and stays silent).
func (r *Runner) out(name, s string) int {
	if s == "" {
		return 0
	}
	if _, err := io.WriteString(r.stdout(), s); err != nil {
		if errors.Is(err, syscall.EPIPE) {
			return 141
		}
		if r.ctx.Err() != nil {
			return 1
		}
		r.errorf("%s: write error: %s", name, errText(err))
		return 1
	}
	return 0
}

func init() {
	builtinTable = map[string]builtinFn{
		":":         func(*Runner, []string) int { return 0 },
		"true":      func(*Runner, []string) int { return 0 },
		"false":     func(*Runner, []string) int { return 1 },
		"echo":      biEcho,
		"printf":    biPrintf,
		"exit":      biExit,
		"return":    biReturn,
		"break":     biBreak,
		"continue":  biBreak,
		"shift":     biShift,
		"set":       biSet,
		"shopt":     biShopt,
		"unset":     biUnset,
		"declare":   biDeclare,
		"typeset":   biDeclare,
		"local":     biDeclare,
		"export":    biDeclare,
		"readonly":  biDeclare,
		"eval":      biEval,
		"source":    biSource,
		".":         biSource,
		"test":      biTest,
		"[":         biTest,
		"type":      biType,
		"command":   biCommand,
		"builtin":   biBuiltin,
		"hash":      biHash,
		"cd":        biCd,
		"pwd":       biPwd,
		"pushd":     biPushd,
		"popd":      biPopd,
		"dirs":      biDirs,
		"let":       biLet,
		"trap":      biTrap,
		"wait":      biWait,
		"kill":      biKill,
		"caller":    biCaller,
		"alias":     biAlias,
		"unalias":   biUnalias,
		"exec":      biExec,
		"umask":     biUmask,
		"times":     biTimes,
		"read":      biRead,
		"mapfile":   biMapfile,
		"readarray": biMapfile,
		"getopts":   biGetopts,
		"enable":    biRefused,
		"compgen":   biCompgen,
		"complete":  biRefused,
		"compopt":   biRefused,
		"bind":      biRefused,
		"history":   biRefused,
		"fc":        biRefused,
		"suspend":   biRefused,
		"ulimit":    biUlimit,
		"coproc":    biRefused,
		"jobs":      biJobs,
		"fg":        biRefused,
		"bg":        biRefused,
		"disown":    biDisown,
		"logout":    biLogout,
		"help":      biRefused,
	}
}

// biRefused refuses a builtin the sandbox does not run as bash would.
func biRefused(r *Runner, args []string) int {
	ref := Refusal{File: r.cur.name, Line: r.lineno, Construct: "the " + args[0] + " builtin", Fix: DefaultFix}
	return r.raise(r.fatal(&RefusalError{Refusal: ref}))
}

func biLogout(r *Runner, args []string) int {
	r.errorf("logout: not login shell: use `exit'")
	return 1
}

// numArg parses a builtin's numeric argument as bash does (leading/trailing blanks, sign).
func numArg(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// statusArg is the status exit and return leave with: the last status without an operand,
// else the operand (after an optional "--") modulo 256, or 2 with bash's complaint when it is
// not a number.
func statusArg(r *Runner, args []string) (int, bool) {
	if len(args) < 2 {
		return r.status, true
	}
	rest := args[1:]
	if rest[0] == "--" && len(rest) > 1 {
		rest = rest[1:]
	}
	n, ok := numArg(rest[0])
	if !ok {
		r.errorf("%s: %s: numeric argument required", args[0], rest[0])
		return 2, true
	}
	if len(rest) > 1 {
		return r.tooManyArgs(args[0]), false
	}
	return int(n & 0xff), true
}

// tooManyArgs is bash's no_args: an operand too many for exit, return, break, continue or
// shift abandons the command line (status 1), as an expansion error does.
func (r *Runner) tooManyArgs(name string) int {
	r.errorf("%s: too many arguments", name)
	if r.subLevel == 0 && strings.Contains(r.flags, "c") {
		// A bash -c shell's string is one parse_and_execute, which DISCARD leaves whole.
		r.flow, r.exitStatus = flowExit, 1
		return 1
	}
	r.flow = flowDiscard
	return 1
}

func biExit(r *Runner, args []string) int {
	st, ok := statusArg(r, args)
	if !ok {
		return st
	}
	r.flow, r.exitStatus = flowExit, st
	return st
}

func biReturn(r *Runner, args []string) int {
	if r.funcDepth == 0 && r.sourceDepth == 0 {
		r.errorf("return: can only `return' from a function or sourced script")
		return 2
	}
	st, ok := statusArg(r, args)
	if !ok {
		return st
	}
	r.flow = flowReturn
	r.status = st
	return st
}

func biBreak(r *Runner, args []string) int {
	name := args[0]
	if r.loopDepth == 0 {
		// Before its operands are read (break_builtin's check_loop_level): `break x` outside
		// a loop is only this complaint.
		r.errorf("%s: only meaningful in a `for', `while', or `until' loop", name)
		return 0
	}
	n := int64(1)
	if len(args) > 1 {
		var ok bool
		n, ok = numArg(args[1])
		if !ok {
			r.errorf("%s: %s: numeric argument required", name, args[1])
			r.flow, r.exitStatus = flowExit, 128
			return 128
		}
		if len(args) > 2 {
			return r.tooManyArgs(name)
		}
		if n < 1 {
			r.errorf("%s: %d: loop count out of range", name, n)
			// Bash then leaves every enclosing loop (also for continue).
			r.flow, r.flowN = flowBreak, r.loopDepth
			return 1
		}
	}
	if n > int64(r.loopDepth) {
		n = int64(r.loopDepth)
	}
	if name == "break" {
		r.flow = flowBreak
	} else {
		r.flow = flowContinue
	}
	r.flowN = int(n)
	return 0
}

func biShift(r *Runner, args []string) int {
	n := int64(1)
	if len(args) > 1 {
		var ok bool
		n, ok = numArg(args[1])
		if !ok {
			r.errorf("shift: %s: numeric argument required", args[1])
			return 1
		}
		if len(args) > 2 {
			return r.tooManyArgs("shift")
		}
		if n < 0 {
			r.errorf("shift: %s: shift count out of range", args[1])
			return 1
		}
	}
	if n > int64(len(r.params)) {
		if r.shopts.has(shShiftVerbose) {
			r.errorf("shift: shift count out of range")
		}
		return 1
	}
	r.params = r.params[n:]
	return 0
}

func biEcho(r *Runner, args []string) int {
	return r.out("echo", string(printf.Echo(args[1:])))
}

// biPrintf is printf [-v var] format [arguments].
func biPrintf(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("printf", args[1:], "v:", false)
	if !ok {
		return 2
	}
	target := ""
	for _, o := range opts {
		target = o.arg
	}
	if len(rest) == 0 {
		r.usage("printf")
		return 2
	}
	if target != "" {
		base := target
		if k := strings.IndexByte(target, '['); k > 0 && strings.HasSuffix(target, "]") {
			base = target[:k]
		}
		if !validName(base) {
			r.errorf("printf: `%s': not a valid identifier", target)
			return 2
		}
	}
	// The output, and the paddings and copies made on the way (about four times its size),
	// must fit what the call may still hold: a width from the arguments never allocates past it.
	maxOut := max(min(r.c.limits.MaxMemory-r.c.mem.Load(), 4*(64<<20))/4, 1)
	out, diags, st := printf.Format(rest[0], rest[1:], printf.Options{
		Now: r.c.now, Start: r.c.start, Loc: r.timeZone(), MaxOutput: int(maxOut),
		SetVar: func(name string, v int64) error { return r.assign(name, strconv.FormatInt(v, 10), 0) },
		Stop:   r.checkCtx,
	})
	if err := r.checkCtx(); err != nil {
		return r.raise(err) // the call ended while an argument was quoted
	}
	for _, d := range diags {
		switch d.Kind {
		case printf.DiagUnsupported:
			return biRefusedOpt(r, "printf "+strconv.Quote(rest[0])+" ("+d.Text+")")
		case printf.DiagLimit:
			return r.raise(r.fatal(&LimitError{Kind: LimitMemory, Max: r.c.limits.MaxMemory}))
		}
		r.errorf("printf: %s", d.Text)
	}
	if target != "" {
		if err := r.assignText(target, string(out)); err != nil {
			return r.raise(err)
		}
		return st
	}
	if c := r.out("printf", string(out)); c != 0 {
		return c
	}
	return st
}

// timeZone is the shell's TZ for printf %(fmt)T (UTC when unset or unknown). Only an
// exported TZ counts: bash's localtime reads the environment, not the shell variable.
func (r *Runner) timeZone() *time.Location {
	v, _, ok := r.lookupVar("TZ")
	if !ok || v.attrs&attrExport == 0 {
		return time.UTC
	}
	tz, ok := varScalar(&v)
	if !ok || tz == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(strings.TrimPrefix(tz, ":"))
	if err != nil {
		return time.UTC
	}
	return loc
}
