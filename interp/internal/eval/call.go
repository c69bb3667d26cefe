package eval

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// callLine is the LINENO of a simple command: bash records the line its reader is on after
// the token following the command's first word.
func callLine(ce *syntax.CallExpr) syntax.Pos {
	// The second word (assignments first), or the only one; no slice: this runs per command.
	var last syntax.Node
	n := 0
	for _, a := range ce.Assigns {
		if n == 2 {
			break
		}
		last, n = a, n+1
	}
	for _, w := range ce.Args {
		if n == 2 {
			break
		}
		last, n = w, n+1
	}
	return last.End()
}

// callExpr runs a simple command.
func (r *Runner) callExpr(ce *syntax.CallExpr, redirs []*syntax.Redirect) {
	r.lineno = r.line(callLine(ce))
	r.countCommand()
	if r.flow != flowNone {
		return
	}
	switch {
	case r.bound:
		if len(r.boundAliases) > 0 && len(ce.Args) > 0 && r.aliasExpand(ce, redirs, r.boundAliases, false) {
			return
		}
	case r.shopts.has(shExpandAliases) && len(r.aliases) > 0 && len(ce.Args) > 0:
		if r.aliasExpand(ce, redirs, r.aliases, true) {
			return
		}
	}
	defer r.creditExpansion()
	r.substSeen = false
	args, err := r.expandFields(ce.Args)
	if err != nil {
		r.status = r.raise(err)
		if r.flow == flowNone {
			r.afterSimple()
		}
		return
	}
	// lone: the command a pipeline stage or a background job was forked for. Bash applies its
	// redirections in that process for good, so the descriptors they replace close there
	// (`pid=$(cmd > /dev/null & echo $!)` does not wait for cmd to close the substitution's
	// output).
	lone := r.stageCall == ce
	if r.stageCall != nil {
		if !lone || !r.stageKeeps || len(args) == 0 || args[0] != "jobs" || r.funcs.m["jobs"] != nil {
			r.seenJobs = nil
		}
		r.stageCall = nil
	}
	if len(args) == 0 {
		r.assignOnly(ce, redirs)
		return
	}
	if len(redirs) > 0 {
		// exec without a command makes its redirections the shell's own.
		permanent := (len(args) == 1 || len(args) == 2 && args[1] == "--") && args[0] == "exec" && r.funcs.m["exec"] == nil
		permanent = permanent || lone
		if r.opts.has(optXtrace) {
			r.xtrace(ce.Assigns, args)
		}
		rs, err := r.redirect(redirs, permanent)
		if err != nil {
			// A redirection error of exec fails the command; bash (not in posix mode) goes on.
			r.status = r.raise(err)
			if r.flow == flowNone {
				r.afterSimple()
			}
			return
		}
		rs.child = !r.runsInShell(args[0])
		defer rs.restore()
	}
	if len(ce.Assigns) > 0 {
		bltn := (args[0] == "eval" || args[0] == "source" || args[0] == ".") && r.funcs.m[args[0]] == nil
		r.scopes = append(r.scopes, &scope{vars: map[string]variable{}, owner: r.id, temp: true, bltnEnv: bltn, cmd: args[0]})
		n := len(r.scopes)
		defer func() {
			if len(r.scopes) >= n {
				r.scopes = r.scopes[:n-1]
			}
		}()
		for _, as := range ce.Assigns {
			if err := r.tempAssign(as); err != nil {
				r.status = r.raise(err)
				if r.flow != flowNone {
					return
				}
			}
		}
	}
	if r.opts.has(optXtrace) && len(redirs) == 0 {
		r.xtrace(ce.Assigns, args)
	}
	r.run(args)
	r.lastArg = args[len(args)-1]
	if r.flow == flowNone || r.flow == flowReturn {
		r.afterSimple()
	}
}

// creditExpansion gives back the memory charged for the expansion of one command.
func (r *Runner) creditExpansion() {
	if r.pendingCredit != 0 {
		r.c.mem.Add(-r.pendingCredit)
		r.pendingCredit = 0
	}
}

// assignOnly runs a command of assignments only: they persist; the status is the last
// command substitution's. Bash assigns first (expansions and their errors see the shell's own
// descriptors), then performs the redirections and undoes them.
func (r *Runner) assignOnly(ce *syntax.CallExpr, redirs []*syntax.Redirect) {
	for _, as := range ce.Assigns {
		if err := r.assignNode(as, 0, false); err != nil {
			r.status = r.raise(err)
			if r.flow == flowNone {
				r.afterSimple()
			}
			return
		}
		if as.Index == nil && as.Array == nil {
			r.localeAssigned(as.Name.Value)
		}
	}
	r.lastArg = ""
	r.status = 0
	if r.substSeen {
		r.status = r.substStatus
	}
	if len(redirs) > 0 {
		rs, err := r.redirect(redirs, false)
		if err != nil {
			r.status = r.raise(err)
			if r.flow == flowNone {
				r.afterSimple()
			}
			return
		}
		rs.restore()
	}
	r.afterSimple()
}

// tempAssign sets a prefix assignment (x=1 cmd) in the temporary scope, exported.
func (r *Runner) tempAssign(as *syntax.Assign) error {
	name := as.Name.Value
	val, err := r.expandString(as.Value, ctxAssignValue)
	if err != nil {
		return err
	}
	if _, v := r.find(name); v.attrs&attrReadonly != 0 {
		r.errorf("%s: readonly variable", name)
		return errStatus1
	}
	top := len(r.scopes) - 1
	v := variable{attrs: attrExport | attrTempenv, set: true, str: val}
	if as.Append {
		if old, ok := r.scalar(name); ok {
			v.str = old + val
		}
	}
	if r.isDynamic(name) {
		r.setDynamic(name, v.str)
	}
	return r.setVar(top, name, v)
}

// assignNode performs one assignment word (x=v, x+=v, a[i]=v, a=(...)).
func (r *Runner) assignNode(as *syntax.Assign, fl assignFlags, assocDecl bool) error {
	name := as.Name.Value
	if as.Append {
		fl |= asAppend
	}
	trace := r.opts.has(optXtrace)
	op := "="
	if as.Append {
		op = "+="
	}
	switch {
	case as.Array != nil && as.Index != nil:
		// a[i]=(...) and a[i]+=(...): bash refuses the list, as an assignment error that
		// abandons the rest of the line.
		return r.discardf("%s[%s]: cannot assign list to array member", name, r.cur.slice(as.Index.Pos(), as.Index.End()))
	case as.Array != nil:
		items, err := r.arrayItems(name, as.Array, assocDecl)
		if err != nil {
			return err
		}
		if trace {
			// A plain array assignment traces as written.
			r.xtraceText(r.cur.slice(as.Pos(), as.End()))
		}
		return r.assignArray(name, items, fl, assocDecl)
	case as.Index != nil:
		v, _, _ := r.lookupVar(name)
		isAssoc := v.attrs&attrAssoc != 0
		sub, err := r.assignSubscript(as, isAssoc)
		if err != nil {
			return err
		}
		val, err := r.expandString(as.Value, ctxAssignValue)
		if err != nil {
			return err
		}
		if trace {
			r.xtraceText(name + "[" + sub + "]" + op + traceAssigned(val))
		}
		return r.assignElem(name, sub, val, fl, !isAssoc)
	}
	val, err := r.expandString(as.Value, ctxAssignValue)
	if err != nil {
		return err
	}
	if trace {
		r.xtraceText(name + op + traceAssigned(val))
	}
	return r.assign(name, val, fl)
}

// assignSubscript is the expanded subscript of a[sub]=v.
func (r *Runner) assignSubscript(as *syntax.Assign, assoc bool) (string, error) {
	if w, ok := as.Index.(*syntax.Word); ok && assoc {
		return r.expandString(w, ctxPlain)
	}
	from := int(as.Name.End().Offset()) + 1
	to := int(as.Index.End().Offset())
	for to < len(r.cur.text) && r.cur.text[to] != ']' {
		to++
	}
	return r.spliceText(r.splicePlan(as.Index, from, to))
}

// arrayItems expands the elements of a=(...).
// arrayItemCost is what one element of an array literal costs while it is assigned (its
// arrayItem), charged with the command's expansion.
const arrayItemCost = 80

func (r *Runner) arrayItems(name string, ae *syntax.ArrayExpr, assocDecl bool) ([]arrayItem, error) {
	v, _, _ := r.lookupVar(name)
	isAssoc := assocDecl || v.attrs&attrAssoc != 0
	// An associative literal whose first element has no [key] is a list of key value pairs;
	// otherwise an element without [key] is an error that assignArray reports.
	pairs := isAssoc && len(ae.Elems) > 0 && ae.Elems[0].Index == nil
	var items []arrayItem
	var loose []string // assoc elements without [key]: key value pairs
	for _, el := range ae.Elems {
		if el.Index == nil {
			fs, err := r.expandFields([]*syntax.Word{el.Value})
			if err != nil {
				return nil, err
			}
			if pairs {
				loose = append(loose, fs...)
				continue
			}
			if err := r.chargeExpansion(int64(len(fs)) * arrayItemCost); err != nil {
				return nil, err
			}
			items = slices.Grow(items, len(fs))
			for _, f := range fs {
				items = append(items, arrayItem{val: f})
			}
			continue
		}
		if pairs {
			// Bash takes [k]=v as a plain word among the pairs: not worth reproducing.
			return nil, r.refuseErr(el.Pos(), "a [key]=value element after a key-value pair in an associative array literal")
		}
		if !isAssoc && el.Value != nil && braceCount(r, el.Value) > 1 {
			// Bash brace-expands the whole element, and the results are plain values.
			return nil, r.refuseErr(el.Pos(), "brace expansion in the value of a [index]=value element of an indexed array literal")
		}
		it := arrayItem{hasKey: true}
		var err error
		if w, ok := el.Index.(*syntax.Word); ok && isAssoc {
			it.key, err = r.expandString(w, ctxPlain)
		} else {
			from := int(el.Index.Pos().Offset())
			for from > 0 && r.cur.text[from-1] != '[' {
				from--
			}
			to := int(el.Index.End().Offset())
			for to < len(r.cur.text) && r.cur.text[to] != ']' {
				to++
			}
			// Bash expands every value first and evaluates an indexed array's subscripts
			// as it assigns, each seeing the elements assigned before it.
			sp, src := r.splicePlan(el.Index, from, to), r.cur
			it.keyText = r.cur.text[from:to]
			it.lazyKey = func() (string, int64, error) {
				saved := r.cur
				r.cur = src
				defer func() { r.cur = saved }()
				key, err := r.spliceText(sp)
				if err != nil {
					return key, 0, err
				}
				n, err := r.arithSubscript(key)
				return key, n, err
			}
		}
		if err != nil {
			return nil, err
		}
		if el.Value != nil {
			// [k]+=v appends to the element.
			if end := int(el.Index.End().Offset()); end+2 < len(r.cur.text) {
				rest := r.cur.text[end:min(end+4, len(r.cur.text))]
				it.appendVal = strings.Contains(strings.SplitN(rest, "=", 2)[0], "+")
			}
			ctx := ctxAssignValue
			if isAssoc {
				// bash 5.2 does not tilde-expand the values of an associative literal.
				ctx = ctxNoTilde
			}
			if it.val, err = r.expandString(el.Value, ctx); err != nil {
				return nil, err
			}
		}
		items = append(items, it)
	}
	for i := 0; i < len(loose); i += 2 {
		it := arrayItem{hasKey: true, key: loose[i]}
		if i+1 < len(loose) {
			it.val = loose[i+1]
		}
		items = append(items, it)
	}
	return items, nil
}

// run dispatches an expanded command: function, Go builtin hook, shell builtin, else the
// Exec hook.
func (r *Runner) run(args []string) {
	name := args[0]
	// bash looks a function up by any name, a slash in it too (ble.sh's ble/util/... style).
	if fn := r.funcs.m[name]; fn != nil {
		r.callFunc(fn, args)
		return
	}
	if strings.IndexByte(name, '/') < 0 {
		if b := r.hookBuiltin(name); b != nil {
			r.runHook(b, args)
			return
		}
		if b, ok := builtinTable[name]; ok {
			r.status = b(r, args)
			return
		}
	}
	r.execExternal(args)
}

// runsInShell tells whether a command runs in the shell process in bash (a function or a
// shell builtin) rather than in a child.
func (r *Runner) runsInShell(name string) bool {
	if r.funcs.m[name] != nil {
		return true
	}
	if strings.IndexByte(name, '/') >= 0 {
		return false
	}
	_, ok := builtinTable[name]
	return ok
}

func (r *Runner) hookBuiltin(name string) BuiltinFunc {
	if r.c.cfg.Builtin == nil {
		return nil
	}
	return r.c.cfg.Builtin(name)
}

func (r *Runner) runHook(b BuiltinFunc, args []string) {
	st, err := b(r.ctx, r.shell(), args)
	if err != nil {
		r.status = r.raise(err)
		return
	}
	r.status = st & 0xff
}

// execExternal hands a command to the Exec hook.
func (r *Runner) execExternal(args []string) {
	if r.c.cfg.Exec == nil {
		r.notFound(args[0])
		return
	}
	argv := args
	var hashed string
	wasHashed, useHash := false, !r.tempPath()
	if useHash {
		hashed, wasHashed = r.hashSearch(args[0])
	}
	if wasHashed {
		// A path set by hash -p runs instead of what the command search finds.
		if p, ok := r.lookPath(args[0]); !ok || p != hashed {
			argv = append([]string{hashed}, args[1:]...)
		}
	}
	// bash puts the path it runs in the command's environment as _ (last).
	p, found := argv[0], true
	if strings.IndexByte(p, '/') < 0 {
		var fp string
		if fp, found = r.lookPath(p); found {
			p = fp
		}
	}
	env := append(slices.DeleteFunc(r.exported(), func(kv string) bool { return strings.HasPrefix(kv, "_=") }), "_="+p)
	if found && argListTooLong(p, argv, env) {
		r.errorf("%s: Argument list too long", p)
		r.status = 126
		return
	}
	cmd := &Command{Args: argv, Dir: r.dir, Path: r.pathVar(), Environ: func() []string { return env }, Stdin: r.stdin(),
		Stdout: r.stdout(), Stderr: r.stderr(), OpenFD: r.openFD, Shell: r.shell()}
	st, err := r.c.cfg.Exec(r.ctx, cmd)
	r.ranProgram = true
	if errors.Is(err, ErrNotFound) {
		r.notFound(argv[0])
		return
	}
	if err == nil && !wasHashed && useHash {
		r.remember(args[0])
	}
	if err != nil {
		r.status = r.raise(err)
		return
	}
	if cerr := r.checkCtx(); cerr != nil {
		r.status = r.raise(cerr)
		return
	}
	r.status = st & 0xff
}

// remember enters a command found through PATH in the hash table, as running it does in bash.
func (r *Runner) remember(name string) {
	if strings.IndexByte(name, '/') >= 0 || r.c.cfg.Lookup == nil || !r.opts.has(optHashall) {
		return
	}
	if p, ok := r.lookPath(name); ok {
		r.hashInsert(name, p, 1) // the search that found it is its first hit
	}
}

// missingNote is " (why)" for a command name the search does not find, "" when the
// embedder gives no reason or the name is a path.
func (r *Runner) missingNote(name string) string {
	if r.c.cfg.Missing == nil || strings.IndexByte(name, '/') >= 0 {
		return ""
	}
	if why := r.c.cfg.Missing(name); why != "" {
		return " (" + why + ")"
	}
	return ""
}

func (r *Runner) notFound(name string) {
	if strings.IndexByte(name, '/') >= 0 {
		r.errorf("%s: No such file or directory", name)
	} else {
		r.errorf("%s: command not found", name)
	}
	r.status = 127
}

// openFD opens /dev/fd/N of the shell's table for a command (process substitution).
func (r *Runner) openFD(n int) (io.ReadWriteCloser, error) {
	f := r.fds.get(n)
	if f == nil {
		return nil, errBadFD
	}
	f.ref()
	return &fdHandle{f: f}, nil
}

// fdHandle is a reference to an open file description handed out of the shell.
type fdHandle struct {
	f      *ofile
	closed bool
}

func (h *fdHandle) Read(p []byte) (int, error)  { return h.f.Read(p) }
func (h *fdHandle) Write(p []byte) (int, error) { return h.f.Write(p) }
func (h *fdHandle) Close() error {
	if !h.closed {
		h.closed = true
		h.f.release()
	}
	return nil
}

// callFunc runs a shell function.
func (r *Runner) callFunc(fn *funcDef, args []string) {
	// FUNCNEST > 0 bounds the nesting as bash does: the call is an error that abandons the
	// current command line.
	if v, ok := r.scalar("FUNCNEST"); ok {
		if max, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && max > 0 && r.funcDepth >= max {
			r.status = r.raise(r.discardf("%s: maximum function nesting level exceeded (%d)", fn.name, r.funcDepth))
			return
		}
	}
	if err := r.enter(); err != nil {
		r.status = r.raise(err)
		return
	}
	defer r.leave()
	savedParams, savedSrc, savedLoop, savedLine := r.params, r.cur, r.loopDepth, r.lineno
	r.params = args[1:]
	r.frames = append(r.frames, frame{name: fn.name, src: fn.src, callAt: r.lineno})
	fs := &scope{owner: r.id, fn: true}
	if t := r.scopes[len(r.scopes)-1]; t.temp && !t.bltnEnv && t.cmd == fn.name && t.owner == r.id && len(t.vars) > 0 {
		// Bash makes a function call's prefix assignments (v=x f) variables of the
		// function's own context: a local of the name is the same variable, and unsetting it
		// from a function it calls uncovers the caller's, not the prefix's.
		fs.vars = t.vars
		r.scopes[len(r.scopes)-1] = &scope{vars: map[string]variable{}, owner: r.id, temp: true, cmd: t.cmd}
	}
	r.scopes = append(r.scopes, fs)
	n := len(r.scopes)
	r.funcDepth++
	r.loopDepth = 0
	r.cur = fn.src
	savedBound, savedAliases := r.bound, r.boundAliases
	r.bound, r.boundAliases = true, fn.aliases
	// A function that does not trace (declare -t, set -T) runs without the RETURN trap; bash
	// puts it back after unless the body set one.
	savedRet, clearedRet := "", false
	if !fn.trace && !r.opts.has(optFunctrace) {
		if a, ok := r.traps.get("RETURN"); ok {
			savedRet, clearedRet = a, true
			r.setTrap("RETURN", "", true)
		}
	}
	if len(fn.body.Redirs) > 0 {
		r.bodyRedirLine = r.line(fn.body.Pos())
	}
	r.stmt(fn.body)
	r.bodyRedirLine = 0
	r.bound, r.boundAliases = savedBound, savedAliases
	if r.flow == flowReturn {
		r.flow = flowNone
	}
	r.runReturnTrap()
	if _, set := r.traps.get("RETURN"); clearedRet && !set {
		r.setTrap("RETURN", savedRet, false)
	}
	r.cur = savedSrc
	r.loopDepth = savedLoop
	r.lineno = savedLine
	r.funcDepth--
	if so := r.scopes[n-1].savedOpts; so != nil {
		r.opts = *so
	}
	popped := r.scopes[n-1]
	r.scopes = r.scopes[:n-1]
	if err := r.propagateReturn(popped); err != nil {
		r.status = r.raise(err)
	}
	r.frames = r.frames[:len(r.frames)-1]
	r.params = savedParams
}

// pathVar is the path commands are searched in: $PATH, or bash's standard path under
// `command -p`.
func (r *Runner) pathVar() string {
	if r.stdPath != "" {
		return r.stdPath
	}
	p, _ := r.scalar("PATH")
	return p
}

// tempPath reports whether PATH is bound by a prefix assignment (PATH=x cmd, also around a
// function call): bash then neither uses nor fills the hash table for the search.
func (r *Runner) tempPath() bool {
	for i := len(r.scopes) - 1; i >= 0; i-- {
		if v, ok := r.scopes[i].get("PATH"); ok {
			return r.scopes[i].temp || v.attrs&attrTempenv != 0
		}
	}
	return false
}

// traceItems renders array assignment elements as xtrace shows them: ('a' 'b c').
func traceItems(items []arrayItem) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(' ')
		}
		if it.hasKey {
			// Bash single-quotes the subscripts of a declaration's array value.
			k := it.key
			if it.lazyKey != nil {
				k = it.keyText
			}
			b.WriteString("[" + quoteSingle(k) + "]=")
		}
		b.WriteString(quoteSingle(it.val))
	}
	b.WriteByte(')')
	return b.String()
}

// Linux's execve limits, which bash's commands meet on a system with the usual 8 MiB stack:
// a string of 128 KiB or more (MAX_ARG_STRLEN counts its NUL), or strings and pointers over a
// quarter of the stack, fail with E2BIG. A builtin or a function takes any length.
const (
	maxArgStrlen = 128 << 10
	maxArgSpace  = 8 << 20 / 4
)

// argListTooLong reports whether execve would refuse path with argv and env (E2BIG).
func argListTooLong(path string, argv, env []string) bool {
	total := len(path) + 1 + (max(len(argv), 1)+len(env))*8
	for _, list := range [2][]string{argv, env} {
		for _, s := range list {
			if len(s)+1 > maxArgStrlen {
				return true
			}
			total += len(s) + 1
		}
	}
	return total > maxArgSpace
}
