// Command evalsh runs a script with the evaluator over the host filesystem, as bash would:
//
//	evalsh [-euxo opt ...] script [args...]
//	evalsh [-euxo opt ...] -c 'code' [name [args...]]
//	evalsh < script
//
// It prints the script's stdout and stderr and exits with its status. It is a development
// tool for differential testing (the Oils spec harness); the sandbox never uses it.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"strings"
	"syscall"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval/internal/osfs"
	"github.com/mcp-bash/mcp-bash/interp/internal/strerror"
)

func main() {
	os.Exit(run())
}

func run() int {
	self, err := os.Executable()
	if err != nil {
		self = os.Args[0]
	}
	args := os.Args[1:]
	var pre []string // options to apply with `set` before the script
	var code string
	hasCode, fromStdin := false, false
	for len(args) > 0 {
		a := args[0]
		if a == "--" || a == "-" {
			args = args[1:]
			break
		}
		if a == "--norc" || a == "--noprofile" || a == "--posix" || a == "--login" {
			args = args[1:]
			continue
		}
		if a == "-o" || a == "+o" {
			if len(args) < 2 {
				return 2
			}
			pre = append(pre, a, args[1])
			args = args[2:]
			continue
		}
		if a == "-O" || a == "+O" {
			if len(args) < 2 {
				return 2
			}
			flag := "-s"
			if a[0] == '+' {
				flag = "-u"
			}
			pre = append(pre, "shopt", flag, args[1])
			args = args[2:]
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		// Single-letter flags, combined as bash takes them (-ec, -xs).
		args = args[1:]
		for _, c := range a[1:] {
			switch {
			case c == 'c' && a[0] == '-':
				hasCode = true
			case c == 's' && a[0] == '-':
				fromStdin = true
			case c == 'i' || c == 'l':
			default:
				pre = append(pre, string(a[0])+string(c))
			}
		}
	}
	if hasCode {
		if len(args) == 0 {
			fmt.Fprintln(os.Stderr, "evalsh: -c: option requires an argument")
			return 2
		}
		code, args = args[0], args[1:]
	}
	name := "bash"
	var src []byte
	switch {
	case hasCode:
		src = []byte(code)
		if len(args) > 0 {
			name, args = args[0], args[1:]
		}
	case len(args) > 0 && !fromStdin:
		name = args[0]
		data, err := os.ReadFile(name)
		if err != nil {
			// bash's words and statuses; under -e it exits with 1 instead.
			st := 127
			if fi, serr := os.Stat(name); serr == nil && fi.IsDir() {
				fmt.Fprintf(os.Stderr, "%s: %s: Is a directory\n", name, name)
				st = 126
			} else {
				fmt.Fprintf(os.Stderr, "bash: %s: %s\n", name, strerror.Words(err))
			}
			errexit := false
			for i, o := range pre {
				switch {
				case o == "-e" || o == "+e":
					errexit = o == "-e"
				case (o == "-o" || o == "+o") && i+1 < len(pre) && pre[i+1] == "errexit":
					errexit = o == "-o"
				}
			}
			if errexit {
				st = 1
			}
			return st
		}
		// bash's check_binary_file: a NUL before any newline in the first 80 bytes.
		if head, _, _ := strings.Cut(string(data[:min(len(data), 80)]), "\n"); strings.IndexByte(head, 0) >= 0 {
			fmt.Fprintf(os.Stderr, "%s: %s: cannot execute binary file\n", name, name)
			return 126
		}
		src, args = data, args[1:]
	default:
		data, err := io.ReadAll(os.Stdin)
		if err != nil {
			return 2
		}
		src = data
	}
	// Options given on the command line become a `set` prelude.
	var prelude strings.Builder
	for i := 0; i < len(pre); i++ {
		switch pre[i] {
		case "shopt":
			fmt.Fprintf(&prelude, "shopt %s %s\n", pre[i+1], pre[i+2])
			i += 2
		case "-o", "+o":
			fmt.Fprintf(&prelude, "set %s %s\n", pre[i], pre[i+1])
			i++
		default:
			fmt.Fprintf(&prelude, "set %s\n", pre[i])
		}
	}
	wd, _ := os.Getwd()
	env := os.Environ()
	env = append(env, "SH="+self)
	cfg := &eval.Config{
		FS:        osfs.FS{},
		Exec:      osfs.Exec(self),
		Lookup:    osfs.Lookup,
		LookupAll: osfs.LookupAll,
		Environ:   env,
		Dir:       wd,
		Name:      name,
		Args:      args,
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		Identity: eval.Identity{PID: os.Getpid(), PPID: os.Getppid(), UID: os.Getuid(), EUID: os.Geteuid(),
			GID: os.Getgid(), User: os.Getenv("USER")},
	}
	cfg.Identity.Hostname, _ = os.Hostname()
	cfg.Ulimit = hostUlimit
	// The process's umask is the one its parent gave it (bash -c under umask 027).
	um := processUmask()
	cfg.Umask = &um
	// On the host, ~name is the host's user database's, as bash's getpwnam.
	cfg.UserHome = func(name string) (string, bool) {
		u, err := user.Lookup(name)
		if err != nil {
			return "", false
		}
		return u.HomeDir, true
	}
	switch {
	case hasCode:
		cfg.Flags, cfg.Command = "c", code
	case fromStdin || len(os.Args) == 1:
		cfg.Flags = "s"
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if prelude.Len() > 0 {
		// The options must hold in the same shell as the script.
		src = append([]byte(prelude.String()), src...)
		// Keep line numbers: the prelude is one line per option.
		src = []byte(strings.Repeat("", 0) + string(src))
	}
	prog, err := eval.Parse(name, src)
	if err != nil {
		// mvdan.cc/sh's parser refused the text: bash may accept it, so it is a refusal.
		fmt.Fprintf(os.Stderr, "evalsh: refused: %s: %v\n", name, err)
		return 2
	}
	if f := prog.File(); f != nil {
		if refs := eval.Check(f); len(refs) > 0 {
			for _, r := range refs {
				fmt.Fprintln(os.Stderr, "evalsh: refused: "+r.String())
			}
			return osfs.RefusedStatus
		}
	}
	r := eval.New(cfg)
	st, err := r.Run(ctx, prog)
	if perr := prog.Err(); perr != nil && st != 0 && err == nil {
		// The parser stopped at text bash may well accept: the failure is the evaluator's
		// refusal as much as the script's (what validate reports for the sandbox). Said in
		// the report file only: the script's own stderr stays bash's.
		report("the parser rejects: " + perr.Error())
	}
	if err != nil {
		var re *eval.RefusalError
		if errors.As(err, &re) {
			fmt.Fprintln(os.Stderr, "evalsh: refused: "+re.Error())
			return osfs.RefusedStatus
		}
		fmt.Fprintln(os.Stderr, "evalsh: "+err.Error())
		return 98
	}
	return st
}

// hostUlimit is the host process's resource limits, as bash's ulimit shows them; only the
// limits that have no effect on what the evaluator does may be changed (they are recorded).
func hostUlimit(opt byte) (soft, hard int64, settable bool) {
	settable = strings.IndexByte("ceilqrxR", opt) >= 0
	if opt == 'p' {
		return 8, 8, false
	}
	r, ok := rlimitResources()[opt]
	if !ok {
		return eval.Unlimited, eval.Unlimited, false
	}
	cur, max, ok := getrlimit(r.id)
	if !ok {
		return eval.Unlimited, eval.Unlimited, settable
	}
	conv := func(v uint64) int64 {
		if v == rlimInfinity {
			return eval.Unlimited
		}
		return int64(v / r.unit)
	}
	return conv(cur), conv(max), settable
}

// rlimit is one of ulimit's resources: the host's RLIMIT_* number and ulimit's unit.
type rlimit struct {
	id   int
	unit uint64
}

// report records a refusal in $EVALSH_REPORT (a file the differential harness reads), if set.
func report(msg string) {
	p := os.Getenv("EVALSH_REPORT")
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintln(f, "evalsh: refused: "+msg)
	f.Close()
}
