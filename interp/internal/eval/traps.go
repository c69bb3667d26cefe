package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/signum"
)

// signals are Linux's signal names by number.
var signals = signum.List()

// trapOrder is the order trap -p lists: EXIT, signals by number, DEBUG, ERR, RETURN.
func trapOrder(name string) int {
	switch name {
	case "EXIT":
		return 0
	case "DEBUG":
		return 100
	case "ERR":
		return 101
	case "RETURN":
		return 102
	}
	n, _ := sigNumber(name)
	return n
}

// sigNumber parses a signal spec (INT, SIGINT, 2, EXIT, 0).
func sigNumber(s string) (int, bool) {
	if strings.TrimPrefix(strings.ToUpper(s), "SIG") == "EXIT" {
		return 0, true
	}
	n, ok := signum.Number(s)
	if !ok {
		return 0, false
	}
	return n, true
}

// trapName normalizes a trap spec to the key used in the table: EXIT, ERR, DEBUG, RETURN
// or SIGxxx.
func trapName(s string) (string, bool) {
	u := strings.ToUpper(s)
	switch u {
	case "ERR", "DEBUG", "RETURN", "EXIT":
		return u, true
	}
	n, ok := sigNumber(s)
	if !ok {
		return "", false
	}
	if n == 0 {
		return "EXIT", true
	}
	return "SIG" + signals[n], true
}

// traps is a shell's trap table. A subshell starts with the parent's table for display
// only (trap -p in $(...) shows them) and runs none of them but ignored signals.
type traps struct {
	m     map[string]string
	shown map[string]string
	// errDepth is the function depth at which ERR was set.
	errDepth int
}

func (t *traps) forSubshell(opts optSet) *traps {
	n := &traps{shown: t.m}
	if t.m == nil {
		n.shown = t.shown
	}
	for k, v := range t.m {
		// Ignored signals stay ignored; ERR survives with errtrace, RETURN with functrace.
		if v == "" && strings.HasPrefix(k, "SIG") || k == "ERR" && opts.has(optErrtrace) ||
			k == "RETURN" && opts.has(optFunctrace) {
			if n.m == nil {
				n.m = map[string]string{}
			}
			n.m[k] = v
		}
	}
	return n
}

func (t *traps) get(name string) (string, bool) {
	s, ok := t.m[name]
	return s, ok
}

func (r *Runner) setTrap(name, action string, reset bool) {
	m := make(map[string]string, len(r.traps.m)+1)
	for k, v := range r.traps.m {
		m[k] = v
	}
	if reset {
		delete(m, name)
	} else {
		m[name] = action
	}
	nt := &traps{m: m, errDepth: r.traps.errDepth}
	if name == "ERR" {
		nt.errDepth = r.funcDepth
	}
	r.traps = nt
	if r.sig != nil {
		r.sig.traps.Store(nt)
	}
}

// biTrap is the trap builtin.
func biTrap(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("trap", args[1:], "lp", false)
	if !ok {
		return 2
	}
	list, print := false, false
	for _, o := range opts {
		if o.c == 'l' {
			list = true
		} else {
			print = true
		}
	}
	if list {
		var b strings.Builder
		for i := 1; i < len(signals); i++ {
			b.WriteString(fmt.Sprintf("%2d) SIG%s", i, signals[i]))
			if i%5 == 0 {
				b.WriteByte('\n')
			} else {
				b.WriteByte('\t')
			}
		}
		b.WriteByte('\n')
		return r.out("trap", b.String())
	}
	if print || len(rest) == 0 {
		return r.printTraps(rest)
	}
	action := rest[0]
	specs := rest[1:]
	reset := false
	if len(specs) == 0 {
		// trap SIG: reset SIG; anything else is a usage error.
		if _, ok := trapName(action); !ok {
			r.usage("trap")
			return 2
		}
		specs, reset = rest, true
	} else if action == "-" {
		reset = true
	} else if _, err := strconv.Atoi(action); err == nil {
		// trap 2 3: a number first means reset those signals.
		specs, reset = rest, true
	}
	st := 0
	for _, s := range specs {
		name, ok := trapName(s)
		if !ok {
			r.errorf("trap: %s: invalid signal specification", s)
			st = 1
			continue
		}
		if name == "DEBUG" && !reset && action != "" {
			return biRefusedOpt(r, "trap ... DEBUG")
		}
		r.setTrap(name, action, reset)
	}
	return st
}

func (r *Runner) printTraps(names []string) int {
	m := r.traps.m
	if len(m) == 0 && r.traps.shown != nil {
		m = r.traps.shown
	}
	var keys []string
	if len(names) > 0 {
		for _, n := range names {
			k, ok := trapName(n)
			if !ok {
				r.errorf("trap: %s: invalid signal specification", n)
				return 1
			}
			keys = append(keys, k)
		}
	} else {
		for k := range m {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return trapOrder(a) - trapOrder(b) })
	}
	var b strings.Builder
	for _, k := range keys {
		v, ok := m[k]
		if !ok {
			continue
		}
		b.WriteString("trap -- " + quoteSingle(v) + " " + k + "\n")
	}
	return r.out("trap", b.String())
}

// runTrapString runs a trap action in the current shell, keeping $?.
func (r *Runner) runTrapString(action string) {
	if action == "" {
		return
	}
	saved := r.status
	src, stmts, clean, err := r.parseCached(action)
	if err != nil {
		if le := (*LimitError)(nil); errors.As(err, &le) {
			r.status = r.raise(err)
			return
		}
		if cerr := r.checkCtx(); cerr != nil {
			r.status = r.raise(cerr)
			return
		}
		r.status = r.raise(r.syntaxRefusal("trap", err))
		return
	}
	// LINENO in a trap counts from the line that triggered it.
	src = src.withLineBase(r.lineno - 1)
	if !clean {
		if refs := checkStmts(src, stmts); len(refs) > 0 {
			r.status = r.raise(r.fatal(&RefusalError{Refusal: refs[0]}))
			return
		}
	}
	// A trap that signals its own shell runs inside itself, as in bash (where it overflows the
	// stack): each level counts against MaxCallDepth, so it ends at the depth limit.
	if err := r.enter(); err != nil {
		r.status = r.raise(err)
		return
	}
	savedSrc := r.cur
	r.cur = src
	r.inTrap++
	r.stmtsRead(stmts)
	r.inTrap--
	r.cur = savedSrc
	r.leave()
	if r.flow == flowNone || r.flow == flowDiscard {
		r.flow = flowNone
		r.status = saved
	}
}

// runExitTrap runs the EXIT trap once, when the shell ends.
func (r *Runner) runExitTrap() {
	action, ok := r.traps.get("EXIT")
	if !ok || r.flow == flowAbort {
		return
	}
	r.setTrap("EXIT", "", true)
	st := r.status
	if r.flow == flowExit {
		st = r.exitStatus
	}
	r.flow = flowNone
	r.status = st
	r.runTrapString(action)
	if r.flow == flowExit || r.flow == flowAbort {
		return
	}
	r.flow, r.exitStatus = flowExit, st
}

// runExitTrapAfterSignal runs the EXIT trap of a shell that may have ended by a signal (kill,
// or the end of timeout's time): bash runs it before it dies, so the trap gets a context of
// its own, which the run's end still ends, and the shell's status stays the signal's.
func (r *Runner) runExitTrapAfterSignal() {
	if _, ok := r.traps.get("EXIT"); !ok || r.ctx.Err() == nil || r.c.runCtx == nil ||
		r.c.runCtx.Err() != nil || r.c.fatal() != nil || errors.Is(context.Cause(r.ctx), errRunDone) {
		r.runExitTrap()
		return
	}
	st := r.exitStatus
	if r.flow != flowExit {
		st = 128 + 15
	}
	ctx, cancel := context.WithCancelCause(r.c.runCtx)
	defer cancel(errRunDone)
	r.ctx = ctx
	// Traps of signals that came before the fatal one run first; the EXIT trap's $? is the
	// status of the last command that ended before the signal.
	r.flow, r.status = flowNone, r.statusBefore
	r.takeSignals()
	if r.flow == flowNone {
		r.runExitTrap()
	}
	if r.flow != flowAbort {
		r.flow, r.exitStatus = flowExit, st
	}
}

// runErrTrap runs the ERR trap after a failed command.
func (r *Runner) runErrTrap() {
	action, ok := r.traps.get("ERR")
	if !ok || action == "" || r.inTrap > 0 {
		return
	}
	if r.funcDepth > r.traps.errDepth && !r.opts.has(optErrtrace) {
		// Functions do not inherit the ERR trap without set -E.
		return
	}
	r.runTrapString(action)
}

// runReturnTrap runs the RETURN trap, if one is set, when a function or sourced file returns
// (callFunc keeps it from functions that do not trace).
func (r *Runner) runReturnTrap() {
	action, ok := r.traps.get("RETURN")
	if !ok || action == "" || r.inTrap > 0 {
		return
	}
	st := r.status
	r.runTrapString(action)
	if r.flow == flowNone {
		r.status = st
	}
}

// parseCached parses text run at run time (traps, eval), caching by text.
func (r *Runner) parseCached(text string) (*source, []*syntax.Stmt, bool, error) {
	if err := r.checkText(len(text)); err != nil {
		return nil, nil, false, err
	}
	return r.c.parsed.parse(r.ctx, r.cur.name, text)
}

// checkText bounds a text the shell is about to parse at run time by the script size limit:
// eval "$(cat big)" is a script as much as bash -c's argument is, and parsing it runs before
// anything can check the call's end.
func (r *Runner) checkText(n int) error {
	if int64(n) > r.c.limits.MaxScriptBytes {
		return r.fatal(&LimitError{Kind: LimitScript, Max: r.c.limits.MaxScriptBytes})
	}
	return nil
}
