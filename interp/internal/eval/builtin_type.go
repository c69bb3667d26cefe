package eval

import (
	"io"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// lookPath finds the virtual path of an external command (never the host's PATH).
func (r *Runner) lookPath(name string) (string, bool) {
	if strings.Contains(name, "/") {
		p := r.absPath(name)
		if fi, err := r.c.fs.Stat(p); err == nil && !fi.IsDir() && r.c.fs.Access(p, 1) == nil {
			return name, true
		}
		return "", false
	}
	if p, ok := r.hashed[name]; ok {
		return p, true
	}
	if r.c.cfg.Lookup == nil {
		return "", false
	}
	p, _ := r.scalar("PATH")
	return r.c.cfg.Lookup(name, p)
}

// commandKind classifies a name as bash's type does.
func (r *Runner) commandKinds(name string, all bool) []string {
	var out []string
	if _, ok := r.aliases[name]; ok && r.shopts.has(shExpandAliases) {
		out = append(out, "alias")
		if !all {
			return out
		}
	}
	if syntax.IsKeyword(name) || name == "[[" || name == "]]" || name == "coproc" {
		out = append(out, "keyword")
		if !all {
			return out
		}
	}
	if r.funcs.m[name] != nil {
		out = append(out, "function")
		if !all {
			return out
		}
	}
	if r.hookBuiltin(name) != nil {
		out = append(out, "function")
		if !all {
			return out
		}
	}
	if _, ok := builtinTable[name]; ok {
		out = append(out, "builtin")
		if !all {
			return out
		}
	}
	if _, ok := r.lookPath(name); ok {
		out = append(out, "file")
	}
	return out
}

// biType is the type builtin.
func biType(r *Runner, args []string) int {
	opts, names, ok := r.parseOpts("type", args[1:], "afptP", false)
	if !ok {
		return 2
	}
	var all, noFunc, pathOnly, kindOnly, forcePath bool
	for _, o := range opts {
		switch o.c {
		case 'a':
			all = true
		case 'f':
			noFunc = true
		case 'p':
			pathOnly = true
		case 't':
			kindOnly = true
		case 'P':
			forcePath = true
		}
	}
	st := 0
	var b strings.Builder
	for _, n := range names {
		if forcePath {
			if p, ok := r.lookPath(n); ok {
				b.WriteString(p + "\n")
			} else {
				st = 1
			}
			continue
		}
		kinds := r.commandKinds(n, all || noFunc)
		if noFunc {
			// -f: what the name would be without its function.
			kinds = slices.DeleteFunc(kinds, func(k string) bool { return k == "function" })
			if !all && len(kinds) > 1 {
				kinds = kinds[:1]
			}
		}
		if len(kinds) == 0 {
			if !kindOnly && !pathOnly {
				r.errorf("type: %s: not found", n)
			}
			st = 1
			continue
		}
		for _, k := range kinds {
			switch {
			case kindOnly:
				b.WriteString(k + "\n")
			case pathOnly:
				if k == "file" {
					p, _ := r.lookPath(n)
					b.WriteString(p + "\n")
				}
			default:
				switch k {
				case "alias":
					b.WriteString(n + " is aliased to `" + r.aliases[n] + "'\n")
				case "keyword":
					b.WriteString(n + " is a shell keyword\n")
				case "function":
					if fn := r.funcs.m[n]; fn != nil {
						def, err := r.funcText(fn)
						if err != nil {
							return r.raise(err)
						}
						b.WriteString(n + " is a function\n" + def)
					} else {
						b.WriteString(n + " is a function\n")
					}
				case "builtin":
					b.WriteString(n + " is a shell builtin\n")
				case "file":
					p, _ := r.lookPath(n)
					b.WriteString(n + " is " + p + "\n")
				}
			}
			if !all {
				break
			}
		}
	}
	if c := r.out("type", b.String()); c != 0 {
		return c
	}
	return st
}

// biCommand is command [-pVv] name args.
func biCommand(r *Runner, args []string) int {
	opts, rest, ok := r.parseOpts("command", args[1:], "pvV", false)
	if !ok {
		return 2
	}
	var v, vv, p bool
	for _, o := range opts {
		switch o.c {
		case 'p':
			p = true
		case 'v':
			v = true
		case 'V':
			vv = true
		}
	}
	if len(rest) == 0 {
		return 0
	}
	if vv {
		saved := r.stderr()
		_ = saved
		return biType(r, append([]string{"type"}, rest...))
	}
	if v {
		st := 0
		var b strings.Builder
		for _, n := range rest {
			kinds := r.commandKinds(n, false)
			// The status is the last name's (bash swallows earlier failures).
			st = 0
			if len(kinds) == 0 {
				st = 1
				continue
			}
			switch kinds[0] {
			case "alias":
				b.WriteString("alias " + n + "=" + quoteSingleAlways(r.aliases[n]) + "\n")
			case "file":
				p, _ := r.lookPath(n)
				b.WriteString(p + "\n")
			default:
				b.WriteString(n + "\n")
			}
		}
		if c := r.out("command", b.String()); c != 0 {
			return c
		}
		return st
	}
	// Run bypassing shell functions (-p: with the default PATH).
	name := rest[0]
	if p {
		saved := r.scopes
		r.scopes = append(slices.Clip(r.scopes), &scope{vars: map[string]variable{
			"PATH": {attrs: attrExport, set: true, str: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}}, owner: r.id, temp: true})
		defer func() { r.scopes = saved }()
	}
	if strings.IndexByte(name, '/') < 0 {
		if b := r.hookBuiltin(name); b != nil {
			r.runHook(b, rest)
			return r.status
		}
		if b, ok := builtinTable[name]; ok {
			return b(r, rest)
		}
	}
	r.execExternal(rest)
	return r.status
}

// biBuiltin runs a shell builtin, bypassing functions.
func biBuiltin(r *Runner, args []string) int {
	if len(args) < 2 {
		return 0
	}
	name := args[1]
	if b, ok := builtinTable[name]; ok {
		return b(r, args[1:])
	}
	if b := r.hookBuiltin(name); b != nil {
		r.runHook(b, args[1:])
		return r.status
	}
	r.errorf("builtin: %s: not a shell builtin", name)
	return 1
}

// biHash remembers command locations (virtual paths).
func biHash(r *Runner, args []string) int {
	opts, names, ok := r.parseOpts("hash", args[1:], "lrp:dt", false)
	if !ok {
		return 2
	}
	var list, reset, del, show bool
	var setPath string
	for _, o := range opts {
		switch o.c {
		case 'l':
			list = true
		case 'r':
			reset = true
		case 'p':
			setPath = o.arg
		case 'd':
			del = true
		case 't':
			show = true
		}
	}
	if reset {
		r.hashed = nil
	}
	copyHash := func() map[string]string {
		m := make(map[string]string, len(r.hashed)+1)
		for k, v := range r.hashed {
			m[k] = v
		}
		return m
	}
	if len(names) == 0 {
		if reset {
			return 0
		}
		if len(r.hashed) == 0 {
			_, _ = io.WriteString(r.stderr(), "hash: hash table empty\n") // bash names no file or line here
			return 0
		}
		keys := make([]string, 0, len(r.hashed))
		for k := range r.hashed {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var b strings.Builder
		if list {
			for _, k := range keys {
				b.WriteString("builtin hash -p " + r.hashed[k] + " " + k + "\n")
			}
		} else {
			b.WriteString("hits\tcommand\n")
			for _, k := range keys {
				b.WriteString("   1\t" + r.hashed[k] + "\n")
			}
		}
		return r.out("hash", b.String())
	}
	st := 0
	var b strings.Builder
	for _, n := range names {
		switch {
		case setPath != "":
			m := copyHash()
			m[n] = setPath
			r.hashed = m
		case del:
			if _, ok := r.hashed[n]; !ok {
				r.errorf("hash: %s: not found", n)
				st = 1
				continue
			}
			m := copyHash()
			delete(m, n)
			r.hashed = m
		case show:
			p, ok := r.hashed[n]
			if !ok {
				r.errorf("hash: %s: not found", n)
				st = 1
				continue
			}
			if len(names) > 1 {
				b.WriteString(n + "\t")
			}
			b.WriteString(p + "\n")
		default:
			if strings.Contains(n, "/") {
				continue
			}
			if _, ok := builtinTable[n]; ok {
				continue
			}
			if r.funcs.m[n] != nil {
				continue
			}
			p, ok := r.lookPath(n)
			if !ok {
				r.errorf("hash: %s: not found", n)
				st = 1
				continue
			}
			m := copyHash()
			m[n] = p
			r.hashed = m
		}
	}
	if c := r.out("hash", b.String()); c != 0 {
		return c
	}
	return st
}
