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
	"strings"
	"syscall"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval/internal/osfs"
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
	hasCode := false
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			args = args[1:]
			break
		}
		if a == "--norc" || a == "--noprofile" || a == "--posix" || a == "-i" || a == "-l" || a == "--login" {
			args = args[1:]
			continue
		}
		if a == "-c" {
			if len(args) < 2 {
				fmt.Fprintln(os.Stderr, "evalsh: -c: option requires an argument")
				return 2
			}
			code, hasCode = args[1], true
			args = args[2:]
			break
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
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') && !strings.ContainsAny(a[1:], "c") {
			pre = append(pre, a)
			args = args[1:]
			continue
		}
		break
	}
	name := "bash"
	var src []byte
	switch {
	case hasCode:
		src = []byte(code)
		if len(args) > 0 {
			name, args = args[0], args[1:]
		}
	case len(args) > 0:
		name = args[0]
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bash: %s: %s\n", name, strings.TrimPrefix(err.Error(), "open "+name+": "))
			return 127
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
	if hasCode {
		cfg.Flags = "c"
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
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
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
