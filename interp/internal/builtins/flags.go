package builtins

import (
	"fmt"
	"strings"
)

// opt is one parsed option: name is the short letter ("n") or the long name ("lines"); digits
// ("-5" for head/tail) come back as name "#".
type opt struct {
	name, val string
}

// optSpec describes a utility's options, getopt style, so every utility parses them the same
// way GNU tools do (clustered letters, -nVALUE or -n VALUE, --long=VALUE or --long VALUE).
type optSpec struct {
	// short lists the letters; a letter followed by ':' takes a value, '::' an optional
	// value that must be attached (sed -i[SUFFIX]).
	short string
	// long lists long names; "name=" takes a value, "name=?" an optional attached value.
	// "name:x" makes the long name an alias of short letter x (same value rules as x).
	long []string
	// permute lets options follow operands, as GNU getopt does unless POSIXLY_CORRECT.
	permute bool
	// digits accepts -N as a count (head -5).
	digits bool
}

// usageError is an option-parsing failure; the message is ready for "NAME: message".
type usageError string

func (e usageError) Error() string { return string(e) }

// shortArg reports whether letter c exists and how it takes a value: 0 none, 1 required,
// 2 optional-attached.
func (s optSpec) shortArg(c byte) (int, bool) {
	i := strings.IndexByte(s.short, c)
	if i < 0 || c == ':' {
		return 0, false
	}
	switch {
	case strings.HasPrefix(s.short[i+1:], "::"):
		return 2, true
	case strings.HasPrefix(s.short[i+1:], ":"):
		return 1, true
	}
	return 0, true
}

// longArg finds a long option (exact, else an unambiguous prefix, as getopt_long allows).
func (s optSpec) longArg(name string) (canon string, kind int, err error) {
	type cand struct {
		name  string
		kind  int
		alias byte
	}
	var found []cand
	for _, l := range s.long {
		c := cand{name: l}
		if n, a, ok := strings.Cut(l, ":"); ok {
			c.name, c.alias = n, a[0]
			c.kind, _ = s.shortArg(c.alias)
		} else if n, ok := strings.CutSuffix(l, "=?"); ok {
			c.name, c.kind = n, 2
		} else if n, ok := strings.CutSuffix(l, "="); ok {
			c.name, c.kind = n, 1
		}
		if c.name == name {
			found = []cand{c}
			break
		}
		if strings.HasPrefix(c.name, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		return "", 0, usageError("unsupported option --" + name)
	case 1:
		c := found[0]
		if c.alias != 0 {
			return string(c.alias), c.kind, nil
		}
		return c.name, c.kind, nil
	}
	return "", 0, usageError(fmt.Sprintf("option '--%s' is ambiguous", name))
}

// parse splits args (without argv[0]) into options, in order, and operands.
func (s optSpec) parse(args []string) ([]opt, []string, error) {
	var opts []opt
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, append(operands, args[i+1:]...), nil
		case len(a) < 2 || a[0] != '-':
			if !s.permute {
				return opts, append(operands, args[i:]...), nil
			}
			operands = append(operands, a)
		case a[1] == '-':
			name, val, hasVal := strings.Cut(a[2:], "=")
			canon, kind, err := s.longArg(name)
			if err != nil {
				return nil, nil, err
			}
			switch {
			case kind == 0 && hasVal:
				return nil, nil, usageError(fmt.Sprintf("option '--%s' doesn't allow an argument", name))
			case kind == 1 && !hasVal:
				if i+1 >= len(args) {
					return nil, nil, usageError(fmt.Sprintf("option '--%s' requires an argument", name))
				}
				i++
				val = args[i]
			}
			opts = append(opts, opt{canon, val})
		case s.digits && a[1] >= '0' && a[1] <= '9':
			opts = append(opts, opt{"#", a[1:]})
		default:
			for j := 1; j < len(a); j++ {
				kind, ok := s.shortArg(a[j])
				if !ok {
					return nil, nil, usageError(fmt.Sprintf("unsupported option -%c", a[j]))
				}
				if kind == 0 {
					opts = append(opts, opt{name: string(a[j])})
					continue
				}
				val := a[j+1:]
				if val == "" && kind == 1 {
					if i+1 >= len(args) {
						return nil, nil, usageError(fmt.Sprintf("option requires an argument -- '%c'", a[j]))
					}
					i++
					val = args[i]
				}
				opts = append(opts, opt{string(a[j]), val})
				break
			}
		}
	}
	return opts, operands, nil
}

// flagSet is the common case: options looked up by name after parsing.
type flagSet struct {
	opts     []opt
	operands []string
}

// parseFlags parses args with spec; on error it prints "name: message" and returns the status.
func parseFlags(env *Env, name string, status int, spec optSpec, args []string) (*flagSet, int, bool) {
	opts, operands, err := spec.parse(args)
	if err != nil {
		return nil, errorf(env, status, name, "%v", err), false
	}
	return &flagSet{opts, operands}, 0, true
}

// has reports whether any of the names was given.
func (f *flagSet) has(names ...string) bool {
	for _, o := range f.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

// val returns the last value given for any of the names.
func (f *flagSet) val(names ...string) (string, bool) {
	v, ok := "", false
	for _, o := range f.opts {
		for _, n := range names {
			if o.name == n {
				v, ok = o.val, true
			}
		}
	}
	return v, ok
}

// vals returns every value given for any of the names, in order.
func (f *flagSet) vals(names ...string) []string {
	var out []string
	for _, o := range f.opts {
		for _, n := range names {
			if o.name == n {
				out = append(out, o.val)
			}
		}
	}
	return out
}
