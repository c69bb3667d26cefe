package eval

import (
	"context"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// xtrace prints a command as set -x does: PS4 (expanded), then the assignments and words,
// quoted where needed.
func (r *Runner) xtrace(assigns []*syntax.Assign, args []string) {
	var b strings.Builder
	for _, as := range assigns {
		if as.Name == nil {
			continue
		}
		v, _ := r.scalar(as.Name.Value)
		b.WriteString(r.ps4())
		b.WriteString(as.Name.Value + "=" + traceAssigned(v) + "\n")
	}
	if len(args) > 0 {
		b.WriteString(r.ps4())
		for i, a := range args {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(quoteTrace(a))
		}
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(r.traceOut(), b.String())
}

// traceAssigned is an assigned value as xtrace shows it: nothing at all when it is empty.
func traceAssigned(v string) string {
	if v == "" {
		return ""
	}
	return quoteTrace(v)
}

func (r *Runner) xtraceText(s string) {
	_, _ = io.WriteString(r.traceOut(), r.ps4()+s+"\n")
}

// traceOut is where xtrace writes: the descriptor BASH_XTRACEFD names when it is open,
// else standard error.
func (r *Runner) traceOut() io.Writer {
	if v, ok := r.scalar("BASH_XTRACEFD"); ok && v != "" && isDigits(v) {
		if n, err := strconv.Atoi(v); err == nil {
			if f := r.fds.get(n); f != nil {
				return fdWriter{f}
			}
		}
	}
	return r.stderr()
}

func (r *Runner) xtraceArith(c *syntax.ArithmCmd) {
	if !r.opts.has(optXtrace) {
		return
	}
	text, err := r.arithText(c, c.X)
	if err != nil {
		return
	}
	r.xtraceText("(( " + text + " ))")
}

func (r *Runner) xtraceDecl(variant string, items []declArg) {
	args := []string{variant}
	for _, it := range items {
		if it.assign != nil {
			if it.assign.Array != nil && it.pre {
				// Bash traces an array value as its own assignment first.
				r.xtraceText(it.assign.Name.Value + "=" + traceItems(it.items))
				args = append(args, it.assign.Name.Value)
				continue
			}
			if it.pre && !it.assign.Naked {
				op := "="
				if it.assign.Append {
					op = "+="
				}
				args = append(args, it.assign.Name.Value+op+it.val)
				continue
			}
			args = append(args, r.cur.slice(it.assign.Pos(), it.assign.End()))
		} else {
			args = append(args, it.word)
		}
	}
	r.xtrace(nil, args)
	if variant == "export" || variant == "readonly" {
		// Bash traces the assignments of these two again as it performs them.
		for _, it := range items {
			if it.assign != nil && it.assign.Array == nil && it.pre && !it.assign.Naked {
				op := "="
				if it.assign.Append {
					op = "+="
				}
				r.xtraceText(it.assign.Name.Value + op + traceAssigned(it.val))
			}
		}
	}
}

// ps4 is the expanded PS4, its first character repeated for nesting levels.
func (r *Runner) ps4() string {
	v, ok := r.scalar("PS4")
	if !ok {
		return ""
	}
	if strings.ContainsAny(v, "$`\\") {
		saved := r.opts
		r.opts &^= optXtrace
		if _, stmts, err := parseString(r.ctx, "PS4", "__ps4=\""+strings.ReplaceAll(v, "\"", "\\\"")+"\"", 0, false); err == nil && len(stmts) == 1 {
			if ce, ok := stmts[0].Cmd.(*syntax.CallExpr); ok && len(ce.Assigns) == 1 {
				if s, err := r.expandString(ce.Assigns[0].Value, ctxPlain); err == nil {
					v = s
				}
			}
		}
		r.opts = saved
	}
	if v == "" {
		return ""
	}
	if r.traceLevel > 0 {
		return strings.Repeat(v[:1], r.traceLevel) + v
	}
	return v
}

// Shell is what a BuiltinFunc may use of the shell running it. A runner gives its hooks the
// same *Shell for every command (Runner.shell), so a hook may key what it makes for a shell on
// it; another runner (a subshell) has another.
type Shell struct{ r *Runner }

// shell is r's Shell (no allocation per command).
func (r *Runner) shell() *Shell {
	if r.sh.r != r {
		r.sh.r = r
	}
	return &r.sh
}

// Stdin, Stdout and Stderr are the command's streams after its redirections.
func (s *Shell) Stdin() io.Reader  { return s.r.stdin() }
func (s *Shell) Stdout() io.Writer { return s.r.stdout() }
func (s *Shell) Stderr() io.Writer { return s.r.stderr() }

// Dir is the working directory.
func (s *Shell) Dir() string { return s.r.dir }

// ErrorPrefix is how bash starts its error messages here ("script: line N: ").
func (s *Shell) ErrorPrefix() string { return s.r.prefix() }

// Umask is the shell's (virtual) file-creation mask.
func (s *Shell) Umask() fs.FileMode { return fs.FileMode(s.r.umask()) }

// Get reads a variable's value (element 0 of an array).
func (s *Shell) Get(name string) (string, bool) { return s.r.scalar(name) }

// Set assigns a variable as `name=value` would (the error ends the command as bash's
// assignment errors do).
func (s *Shell) Set(name, value string) error { return s.r.assign(name, value, 0) }

// Export marks a variable exported.
func (s *Shell) Export(name string) error {
	i, v := s.r.find(name)
	if i < 0 {
		i = 0
	}
	v.attrs |= attrExport
	return s.r.setVar(i, name, v)
}

// Environ lists the exported variables (K=V).
func (s *Shell) Environ() []string { return s.r.exported() }

// Exec runs a command through the shell's Exec hook (not functions or builtins) with the
// given environment (nil: the shell's exported variables) and streams, and returns its status.
func (s *Shell) Exec(ctx context.Context, argv []string, environ func() []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	r := s.r
	if r.c.cfg.Exec == nil || len(argv) == 0 {
		return 127, nil
	}
	if r.c.commands.Add(1) > r.c.limits.MaxCommands {
		return 1, &LimitError{Kind: LimitCommands, Max: r.c.limits.MaxCommands}
	}
	if environ == nil {
		environ = r.exported
	}
	p, found := argv[0], true
	if strings.IndexByte(p, '/') < 0 {
		var fp string
		if fp, found = r.lookPath(p); found {
			p = fp
		}
	}
	env := environ()
	if found && argListTooLong(p, argv, env) {
		// As execve fails for the utility that runs it (env, timeout, xargs, find -exec).
		_, _ = io.WriteString(stderr, p+": Argument list too long\n")
		return 126, nil
	}
	environ = func() []string { return env }
	st, err := r.c.cfg.Exec(ctx, &Command{Args: argv, Dir: r.dir, Path: r.pathVar(), Environ: environ, Stdin: stdin, Stdout: stdout,
		Stderr: stderr, OpenFD: r.openFD, Shell: s})
	if err == ErrNotFound {
		return 127, nil
	}
	return st, err
}

// declareFuncs handles declare -f / -F, export -f, readonly -f.
func (r *Runner) declareFuncs(variant string, o declOpts, items []declArg) int {
	names := make([]string, 0, len(items))
	for _, it := range items {
		if it.assign != nil {
			names = append(names, it.assign.Name.Value)
		} else {
			names = append(names, it.word)
		}
	}
	if len(names) == 0 {
		if o.funcNames {
			var b strings.Builder
			for _, n := range r.funcNames() {
				b.WriteString("declare -f" + r.funcAttrs(n) + " " + n + "\n")
			}
			return r.out(variant, b.String())
		}
		return r.out(variant, r.funcListing(true))
	}
	st := 0
	var b strings.Builder
	for _, n := range names {
		fn := r.funcs.m[n]
		if fn == nil {
			if o.funcNames || o.print || variant == "declare" || variant == "typeset" {
				st = 1
				continue
			}
			r.errorf("%s: %s: not a function", variant, n)
			st = 1
			continue
		}
		switch {
		case variant == "readonly" || o.set&attrReadonly != 0:
			r.setFuncAttr(n, func(f *funcDef) { f.readonly = true })
		case o.set&attrTrace != 0:
			r.setFuncAttr(n, func(f *funcDef) { f.trace = true })
		case variant == "export" || o.set&attrExport != 0:
			r.setFuncAttr(n, func(f *funcDef) { f.exported = !o.unexport })
		case o.funcNames:
			b.WriteString(n + "\n")
		default:
			def, err := r.funcText(fn)
			if err != nil {
				return r.raise(err)
			}
			b.WriteString(def)
		}
	}
	if c := r.out(variant, b.String()); c != 0 {
		return c
	}
	return st
}

func (r *Runner) funcAttrs(name string) string {
	f := r.funcs.m[name]
	s := ""
	if f.readonly {
		s += "r"
	}
	if f.trace {
		s += "t"
	}
	if f.exported {
		s += "x"
	}
	return s
}

func (r *Runner) setFuncAttr(name string, fn func(*funcDef)) {
	m := make(map[string]*funcDef, len(r.funcs.m))
	for k, v := range r.funcs.m {
		m[k] = v
	}
	nf := *m[name]
	fn(&nf)
	m[name] = &nf
	r.funcs = &funcTable{m: m, owner: r.id}
}

func (r *Runner) funcNames() []string {
	names := make([]string, 0, len(r.funcs.m))
	for n, f := range r.funcs.m {
		if !f.sdk {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// funcListing prints every function definition (set, declare -f).
func (r *Runner) funcListing(force bool) string {
	var b strings.Builder
	for _, n := range r.funcNames() {
		def, err := r.funcText(r.funcs.m[n])
		if err != nil {
			r.raise(err)
			return ""
		}
		b.WriteString(def)
	}
	return b.String()
}
