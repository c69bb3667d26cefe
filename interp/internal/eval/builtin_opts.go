package eval

import (
	"fmt"
	"strings"
)

// biSet is the set builtin.
func biSet(r *Runner, args []string) int {
	args = args[1:]
	if len(args) == 0 {
		var b strings.Builder
		for _, n := range r.allVarNames() {
			v, ok := r.varForPrint(n)
			if !ok || (!v.set && !v.isArray()) {
				continue
			}
			s, err := r.setString(n, v)
			if err != nil {
				return r.raise(err)
			}
			b.WriteString(s)
			b.WriteByte('\n')
		}
		b.WriteString(r.funcListing(false))
		return r.out("set", b.String())
	}
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			r.params = append([]string(nil), args[1:]...)
			return 0
		}
		if a == "-" {
			r.opts &^= optXtrace | optVerbose
			args = args[1:]
			if len(args) > 0 {
				r.params = append([]string(nil), args...)
			}
			return 0
		}
		if a == "+" {
			// A lone + is ignored.
			args = args[1:]
			continue
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		on := a[0] == '-'
		for i := 1; i < len(a); i++ {
			c := a[i]
			if c == 'o' {
				var name string
				if len(args) > 1 {
					name = args[1]
					args = args[1:]
				} else {
					r.printSetO(on)
					continue
				}
				o, ok := setOptByName(name)
				if !ok {
					r.errorf("set: %s: invalid option name", name)
					r.usage("set")
					return 2
				}
				if st, done := r.setOpt(o, on); done {
					return st
				}
				continue
			}
			o, ok := setOptByLetter(c)
			if !ok {
				r.errorf("set: %c%c: invalid option", a[0], c)
				r.usage("set")
				return 2
			}
			if st, done := r.setOpt(o, on); done {
				return st
			}
		}
		args = args[1:]
	}
	if len(args) > 0 {
		r.params = append([]string(nil), args...)
	}
	return 0
}

// setOpt turns a set -o option on or off; done reports a refusal.
func (r *Runner) setOpt(o optInfo, on bool) (int, bool) {
	if on && !o.supported {
		return biRefusedOpt(r, "set -o "+o.name), true
	}
	if on {
		r.opts |= o.bit
		if o.bit == optErrexit {
			r.errexitSuspended = false
		}
	} else {
		r.opts &^= o.bit
	}
	return 0, false
}

func biRefusedOpt(r *Runner, what string) int {
	ref := Refusal{File: r.cur.name, Line: r.lineno, Construct: what, Fix: DefaultFix}
	return r.raise(r.fatal(&RefusalError{Refusal: ref}))
}

// printSetO prints `set -o` (on) or `set +o` (off) listings.
func (r *Runner) printSetO(table bool) {
	var b strings.Builder
	for _, o := range setOptions {
		on := r.opts.has(o.bit)
		if table {
			fmt.Fprintf(&b, "%-15s\t%s\n", o.name, onOff(on))
		} else {
			sign := "+"
			if on {
				sign = "-"
			}
			fmt.Fprintf(&b, "set %so %s\n", sign, o.name)
		}
	}
	r.out("set", b.String())
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// biShopt is the shopt builtin.
func biShopt(r *Runner, args []string) int {
	opts, names, ok := r.parseOpts("shopt", args[1:], "pqsuo", false)
	if !ok {
		return 2
	}
	var p, q, s, u, o bool
	for _, op := range opts {
		switch op.c {
		case 'p':
			p = true
		case 'q':
			q = true
		case 's':
			s = true
		case 'u':
			u = true
		case 'o':
			o = true
		}
	}
	if s && u {
		r.errorf("shopt: cannot set and unset shell options simultaneously")
		return 1
	}
	table := shoptOptions
	get := func(bit optSet) bool { return r.shopts.has(bit) }
	if o {
		table = setOptions
		get = func(bit optSet) bool { return r.opts.has(bit) }
	}
	find := func(name string) (optInfo, bool) {
		for _, t := range table {
			if t.name == name {
				return t, true
			}
		}
		return optInfo{}, false
	}
	var b strings.Builder
	line := func(t optInfo) {
		on := get(t.bit)
		if p {
			if o {
				fmt.Fprintf(&b, "set %so %s\n", map[bool]string{true: "-", false: "+"}[on], t.name)
			} else {
				fmt.Fprintf(&b, "shopt %s %s\n", map[bool]string{true: "-s", false: "-u"}[on], t.name)
			}
		} else {
			fmt.Fprintf(&b, "%-15s\t%s\n", t.name, onOff(on))
		}
	}
	if len(names) == 0 {
		if s || u {
			if q {
				return 0
			}
			for _, t := range table {
				if get(t.bit) == s {
					line(t)
				}
			}
			return r.out("shopt", b.String())
		}
		if q {
			return 0
		}
		for _, t := range table {
			line(t)
		}
		return r.out("shopt", b.String())
	}
	st := 0
	for _, n := range names {
		t, ok := find(n)
		if !ok {
			if o {
				r.errorf("shopt: %s: invalid option name", n)
			} else {
				r.errorf("shopt: %s: invalid shell option name", n)
			}
			st = 1
			continue
		}
		switch {
		case s || u:
			if o {
				if code, done := r.setOpt(t, s); done {
					return code
				}
				continue
			}
			if s && !t.supported {
				return biRefusedOpt(r, "shopt -s "+t.name)
			}
			if s {
				r.shopts |= t.bit
			} else {
				r.shopts &^= t.bit
			}
		case q:
			if !get(t.bit) {
				st = 1
			}
		default:
			line(t)
			if !get(t.bit) {
				st = 1
			}
		}
	}
	if c := r.out("shopt", b.String()); c != 0 {
		return c
	}
	return st
}
