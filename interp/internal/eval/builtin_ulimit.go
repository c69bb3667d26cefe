package eval

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ulimit reports and sets the run's resource limits as bash's builtin does, over what
// Config.Ulimit says the limits are: the sandbox's own limits of the call, not the host
// process's. A change the run cannot honour is refused rather than pretended.

// Unlimited is a resource limit of none (RLIM_INFINITY).
const Unlimited int64 = -1

// ulimitRes is one resource of bash's ulimit table (Linux), in -a order.
type ulimitRes struct {
	opt         byte
	desc, units string
}

var ulimitTable = []ulimitRes{
	{'R', "real-time non-blocking time", "microseconds"},
	{'c', "core file size", "blocks"},
	{'d', "data seg size", "kbytes"},
	{'e', "scheduling priority", ""},
	{'f', "file size", "blocks"},
	{'i', "pending signals", ""},
	{'l', "max locked memory", "kbytes"},
	{'m', "max memory size", "kbytes"},
	{'n', "open files", ""},
	{'p', "pipe size", "512 bytes"},
	{'q', "POSIX message queues", "bytes"},
	{'r', "real-time priority", ""},
	{'s', "stack size", "kbytes"},
	{'t', "cpu time", "seconds"},
	{'u', "max user processes", ""},
	{'v', "virtual memory", "kbytes"},
	{'x', "file locks", ""},
}

func ulimitResource(c byte) (ulimitRes, bool) {
	for _, u := range ulimitTable {
		if u.opt == c {
			return u, true
		}
	}
	return ulimitRes{}, false
}

// ulimitValue is a resource's soft and hard limits, in the units ulimit shows.
type ulimitValue struct{ soft, hard int64 }

// ulimitGet is the shell's current limits of a resource: its own setting, else the run's.
func (r *Runner) ulimitGet(c byte) (ulimitValue, bool) {
	if v, ok := r.ulimits[c]; ok {
		return v, true
	}
	soft, hard, _ := r.c.cfg.Ulimit(c)
	return ulimitValue{soft, hard}, true
}

type ulimitCmd struct {
	opt byte
	arg *string
}

func biUlimit(r *Runner, args []string) int {
	if r.c.cfg.Ulimit == nil {
		return biRefused(r, args)
	}
	hard, soft, all := false, false, false
	var cmds []ulimitCmd
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		last := -1
		for j := 1; j < len(a); j++ {
			switch c := a[j]; {
			case c == 'H':
				hard = true
			case c == 'S':
				soft = true
			case c == 'a':
				all = true
			default:
				if _, ok := ulimitResource(c); !ok {
					r.errorf("ulimit: -%c: invalid option", c)
					r.usage("ulimit")
					return 2
				}
				cmds = append(cmds, ulimitCmd{opt: c})
				last = len(cmds) - 1
			}
		}
		// A resource option takes the next word as its new value, unless it is an option.
		if last >= 0 && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			cmds[last].arg = &args[i]
		}
	}
	if i < len(args) {
		if len(cmds) == 0 {
			cmds = append(cmds, ulimitCmd{opt: 'f'})
		}
		cmds[len(cmds)-1].arg = &args[i]
	}
	if all {
		// Bash writes the table and checks the write once: one complaint, status 1.
		for _, u := range ulimitTable {
			if st := r.ulimitPrint(u, hard, true, true); st != 0 {
				return st
			}
		}
		return 0
	}
	if len(cmds) == 0 {
		cmds = append(cmds, ulimitCmd{opt: 'f'})
	}
	verbose := len(cmds) > 1
	status := 0
	for _, c := range cmds {
		u, _ := ulimitResource(c.opt)
		if c.arg == nil {
			// Bash checks no write here (only -a's): a failed one is neither said nor counted.
			r.ulimitPrint(u, hard, verbose, false)
			continue
		}
		if st := r.ulimitSet(u, *c.arg, hard, soft); st != 0 {
			if r.flow != flowNone {
				return st
			}
			status = st
		}
	}
	return status
}

// ulimitPrint prints one limit: its value, or with verbose bash's table line.
func (r *Runner) ulimitPrint(u ulimitRes, hard, verbose, check bool) int {
	v, _ := r.ulimitGet(u.opt)
	n := v.soft
	if hard {
		n = v.hard
	}
	val := "unlimited"
	if n != Unlimited {
		val = strconv.FormatInt(n, 10)
	}
	line := val + "\n"
	if verbose {
		unit := fmt.Sprintf("(-%c) ", u.opt)
		if u.units != "" {
			unit = fmt.Sprintf("(%s, -%c) ", u.units, u.opt)
		}
		line = fmt.Sprintf("%-20s %20s%s\n", u.desc, unit, val)
	}
	if !check {
		_, _ = io.WriteString(r.stdout(), line)
		return 0
	}
	return r.out("ulimit", line)
}

// ulimitSet sets a limit (both, or the -H or -S one) to word: a number in the resource's
// units, unlimited, hard or soft.
func (r *Runner) ulimitSet(u ulimitRes, word string, hard, soft bool) int {
	if !hard && !soft {
		hard, soft = true, true
	}
	cur, _ := r.ulimitGet(u.opt)
	var n int64
	switch word {
	case "unlimited":
		n = Unlimited
	case "hard":
		n = cur.hard
	case "soft":
		n = cur.soft
	default:
		v, err := strconv.ParseInt(word, 10, 64)
		if err != nil || v < 0 || word == "" || strings.ContainsAny(word, "+- ") {
			r.errorf("ulimit: %s: invalid number", word)
			return 1
		}
		n = v
	}
	above := func(a, b int64) bool { return b != Unlimited && (a == Unlimited || a > b) }
	next := cur
	switch {
	case hard && above(n, cur.hard):
		// Raising a hard limit needs privileges the sandbox's user does not have.
		r.errorf("ulimit: %s: cannot modify limit: Operation not permitted", u.desc)
		return 1
	case !hard && above(n, cur.hard):
		r.errorf("ulimit: %s: cannot modify limit: Invalid argument", u.desc)
		return 1
	}
	if hard {
		next.hard = n
	}
	if soft {
		next.soft = n
	}
	if next == cur {
		return 0
	}
	if _, _, settable := r.c.cfg.Ulimit(u.opt); !settable {
		return r.raise(r.fatal(&RefusalError{Refusal: Refusal{File: r.cur.name, Line: r.lineno,
			Construct: "ulimit -" + string(u.opt) + " " + word + " (changing the " + u.desc + " limit, which the sandbox enforces itself)",
			Fix:       "leave the limit as the sandbox sets it (ulimit -" + string(u.opt) + " shows it), or " + DefaultFix}}))
	}
	// Subshells share the map: every change makes a new one.
	m := make(map[byte]ulimitValue, len(r.ulimits)+1)
	for k, v := range r.ulimits {
		m[k] = v
	}
	m[u.opt] = next
	r.ulimits = m
	return 0
}
