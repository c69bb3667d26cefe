package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// A script that runs `bash` (bash -c '...', bash file args, bash -s, bash <<EOF) gets a new
// shell of the evaluator, in-process, with the semantics of a new bash process: only exported
// variables and export -f functions are inherited, options start from bash's defaults plus the
// invocation flags, `exit` ends only the child, and it gets a new virtual pid. It shares the
// call's sandbox FS, limits, cancellation and output caps (eval.Shell.RunScript).
//
// `sh` is refused: on Debian it is dash and elsewhere bash in POSIX mode, and the evaluator
// does not reproduce posix mode, so running it as bash would silently differ.

// isShellCommand reports whether name runs bash or sh (bare or from a usual bin directory).
func isShellCommand(name string) (prog string, ok bool) {
	dir, base := path.Split(name)
	if dir != "" && !slices.Contains(binDirs, strings.TrimSuffix(dir, "/")) {
		return "", false
	}
	if base == "bash" || base == "sh" {
		return base, true
	}
	return "", false
}

// shellInvocation is a parsed bash command line.
type shellInvocation struct {
	command   string // the -c string
	hasCmd    bool
	fromStdin bool // -s, or no script operand
	options   []string
	operands  []string
}

// refusedShellOption is an invocation option whose behaviour the evaluator does not reproduce.
type refusedShellOption struct{ opt string }

// parseShellArgs parses bash's invocation options (bash 5.2: single-letter set flags, -o/+o,
// -c, -s, --, and the long options). A usage error is a message with status 2.
func parseShellArgs(args []string) (inv shellInvocation, refused *refusedShellOption, usage string) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" {
			i++
			break
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		if strings.HasPrefix(a, "--") {
			switch a {
			case "--norc", "--noprofile", "--noediting":
				// Only read by interactive or login shells: no effect on a script.
				continue
			}
			return inv, &refusedShellOption{a}, ""
		}
		on := a[0] == '-'
		for j := 1; j < len(a); j++ {
			c := a[j]
			switch {
			case c == 'c' && on:
				inv.hasCmd = true
			case c == 's' && on:
				inv.fromStdin = true
			case c == 'o':
				if i+1 >= len(args) {
					// bash lists the options here; a script has no use for that listing.
					return inv, &refusedShellOption{a}, ""
				}
				i++
				name := args[i]
				o, known := eval.SetOption(name)
				if !known {
					return inv, nil, fmt.Sprintf("bash: %s: invalid option name", name)
				}
				if !o && on {
					return inv, &refusedShellOption{a[:1] + "o " + name}, ""
				}
				inv.options = append(inv.options, a[:1]+"o", name)
			default:
				o, known := eval.SetOptionLetter(c)
				if !known {
					// -i, -l, -r, -D, -O, -v ... and unknown letters.
					return inv, &refusedShellOption{a[:1] + string(c)}, ""
				}
				if !o && on {
					return inv, &refusedShellOption{a[:1] + string(c)}, ""
				}
				inv.options = append(inv.options, a[:1]+string(c))
			}
		}
	}
	rest := args[i:]
	if inv.hasCmd {
		if len(rest) == 0 {
			return inv, nil, "bash: -c: option requires an argument"
		}
		inv.command, rest = rest[0], rest[1:]
		inv.fromStdin = false
	} else if len(rest) == 0 {
		inv.fromStdin = true
	}
	inv.operands = rest
	return inv, nil, ""
}

// stdinIsScript is the standard input of a shell that reads its script from it: bash reads the
// script line by line, so a command of the script that reads stdin gets the lines after its
// own; the evaluator reads the whole script first, so such a read ends the call with a
// refusal instead of going on with different data.
type stdinIsScript struct {
	c     *call
	sh    *eval.Shell
	where string
}

func (s stdinIsScript) Read([]byte) (int, error) {
	err := shellRefusal(s.sh, s.where+" reading its own standard input (the script)")
	var re *eval.RefusalError
	if errors.As(err, &re) {
		s.c.record(re.Refusal)
	}
	s.c.cancel(err)
	return 0, err
}

// runShell runs `bash ...` as a new sandboxed shell.
func (c *call) runShell(ctx context.Context, cc cmdCtx, prog string, args []string) (int, error) {
	if cc.shell == nil {
		fmt.Fprintf(cc.stderr, "mcp-bash: %s: cannot start a shell here\n", args[0])
		return 126, nil
	}
	if prog == "sh" {
		c.rec.Add(sandbox.Access{Op: "exec", Path: args[0], Allowed: false, Reason: "sh (posix mode) not supported"})
		return 126, shellRefusal(cc.shell, args[0]+" (a POSIX shell: dash, or bash in POSIX mode, which the sandbox does not reproduce; use bash)")
	}
	inv, refused, usage := parseShellArgs(args[1:])
	if refused != nil {
		c.rec.Add(sandbox.Access{Op: "exec", Path: args[0], Allowed: false, Reason: "option " + refused.opt})
		return 126, shellRefusal(cc.shell, args[0]+" "+refused.opt)
	}
	if usage != "" {
		fmt.Fprintln(cc.stderr, usage)
		return 2, nil
	}
	name, params := args[0], inv.operands
	stdin := cc.stdin
	flags := ""
	var pf *parsed
	var err error
	switch {
	case inv.hasCmd:
		flags = "c"
		if len(params) > 0 {
			name, params = params[0], params[1:]
		}
		if int64(len(inv.command)) > c.limits.MaxScriptBytes {
			fmt.Fprintf(cc.stderr, "mcp-bash: bash -c: %v (%d bytes)\n", ErrScriptLimit, len(inv.command))
			return 2, nil
		}
		pf, err = parseScript(ctx, name, []byte(inv.command))
	case inv.fromStdin:
		var data []byte
		if stdin != nil {
			data, err = io.ReadAll(io.LimitReader(stdin, c.limits.MaxScriptBytes+1))
			if err != nil {
				fmt.Fprintf(cc.stderr, "bash: reading the script from standard input: %v\n", err)
				return 2, nil
			}
		}
		if int64(len(data)) > c.limits.MaxScriptBytes {
			fmt.Fprintf(cc.stderr, "mcp-bash: bash -s: %v\n", ErrScriptLimit)
			return 2, nil
		}
		stdin, flags = stdinIsScript{c: c, sh: cc.shell, where: strings.Join(args, " ")}, "s"
		pf, err = parseScript(ctx, "bash", data)
	default:
		name, params = params[0], params[1:]
		p := absIn(cc.dir, name)
		if fi, serr := c.fs.Stat(p); serr != nil || fi.IsDir() {
			// Not a refusal: bash fails the same way (the stat's own entry says why).
			c.rec.Add(sandbox.Access{Op: "read", Path: p, Allowed: true, Reason: sandbox.ReasonNotFound})
			// Under -e bash exits with 1 instead (it has already set errexit when it fails).
			st := 127
			if serr == nil {
				fmt.Fprintf(cc.stderr, "%s: %s: Is a directory\n", name, name)
				st = 126
			} else {
				fmt.Fprintf(cc.stderr, "bash: %s: No such file or directory\n", name)
			}
			if inv.errexit() {
				st = 1
			}
			return st, nil
		}
		if c.binaryScript(p) {
			fmt.Fprintf(cc.stderr, "%s: %s: cannot execute binary file\n", name, name)
			return 126, nil
		}
		pf, err = c.parseFile(ctx, p)
	}
	c.rec.Add(sandbox.Access{Op: "exec", Path: args[0], Allowed: true, Reason: "sandboxed shell"})
	return c.startShell(ctx, cc, pf, err, eval.Script{Name: name, Args: params, Stdin: stdin, Options: inv.options, Flags: flags,
		Command: inv.command})
}

// errexit reports whether the invocation's options leave -e on.
func (inv *shellInvocation) errexit() bool {
	on := false
	for i, o := range inv.options {
		switch {
		case o == "-e" || o == "+e":
			on = o == "-e"
		case (o == "-o" || o == "+o") && i+1 < len(inv.options) && inv.options[i+1] == "errexit":
			on = o == "-o"
		}
	}
	return on
}

// shellRefusal ends the run with a refusal at the command that starts the shell: a shell that
// would run with different behaviour must not run at all.
func shellRefusal(sh *eval.Shell, construct string) error {
	file, line := sh.Pos()
	return &eval.RefusalError{Refusal: eval.Refusal{File: file, Line: line, Construct: construct, Fix: eval.DefaultFix}}
}

// binaryScript is bash's check_binary_file on a script it is given to run: a NUL byte in its
// first 80 bytes before any newline makes it "cannot execute binary file" (status 126).
func (c *call) binaryScript(p string) bool {
	f, err := c.fs.Open(p, os.O_RDONLY, 0)
	if err != nil {
		return false // parseFile reports it
	}
	defer f.Close()
	head := make([]byte, 80)
	n, _ := io.ReadFull(f, head)
	for _, b := range head[:n] {
		switch b {
		case '\n':
			return false
		case 0:
			return true
		}
	}
	return false
}
