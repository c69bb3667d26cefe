package eval

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// lookPath finds the virtual path of an external command (never the host's PATH), without
// the hash table.
func (r *Runner) lookPath(name string) (string, bool) {
	if strings.Contains(name, "/") {
		p := r.absPath(name)
		if fi, err := r.c.fs.Stat(p); err == nil && !fi.IsDir() && r.c.fs.Access(p, 1) == nil {
			return name, true
		}
		return "", false
	}
	if r.c.cfg.Lookup == nil {
		return "", false
	}
	return r.c.cfg.Lookup(name, r.pathVar(), r.dir)
}

// lookPathAll is lookPath's every match in PATH order when all (type -a).
func (r *Runner) lookPathAll(name string, all bool) []string {
	if all && r.c.cfg.LookupAll != nil && !strings.Contains(name, "/") {
		return r.c.cfg.LookupAll(name, r.pathVar(), r.dir)
	}
	if p, ok := r.lookPath(name); ok {
		return []string{p}
	}
	return nil
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
	if _, hashed := r.hashed[name]; hashed && !all && r.opts.has(optHashall) {
		return append(out, "file")
	}
	if all {
		if len(r.lookPathAll(name, true)) > 0 {
			out = append(out, "file") // executable files only, as bash's type -a
		}
		return out
	}
	if _, ok := r.lookPath(name); ok {
		out = append(out, "file")
	}
	return out
}

// filePath is where type and command -v say a command is: the hash table's path (a hit)
// unless all (type -a) asks for the command search's.
func (r *Runner) filePath(name string, all bool) (path string, hashed bool) {
	if !all {
		if p, ok := r.hashSearch(name); ok {
			return p, true
		}
	}
	p, _ := r.lookPath(name)
	return p, false
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
			if p, ok := r.hashSearch(n); ok {
				b.WriteString(p + "\n")
			} else if ps := r.lookPathAll(n, all); len(ps) > 0 {
				b.WriteString(strings.Join(ps, "\n") + "\n")
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
				r.errorf("%s: %s: not found%s", args[0], n, r.missingNote(n))
			}
			st = 1
			continue
		}
		for _, k := range kinds {
			if k == "file" && all {
				// type -a lists every match of the command search.
				for _, p := range r.lookPathAll(n, true) {
					switch {
					case kindOnly:
						b.WriteString("file\n")
					case pathOnly:
						b.WriteString(p + "\n")
					default:
						b.WriteString(n + " is " + p + "\n")
					}
				}
				continue
			}
			switch {
			case kindOnly:
				if k == "file" {
					r.filePath(n, all) // a hit, as bash's search counts one
				}
				b.WriteString(k + "\n")
			case pathOnly:
				if k == "file" {
					p, _ := r.filePath(n, all)
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
					if p, hashed := r.filePath(n, all); hashed {
						b.WriteString(n + " is hashed (" + p + ")\n")
					} else {
						b.WriteString(n + " is " + p + "\n")
					}
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
		// command -V describes as type does, under its own name in messages.
		return biType(r, append([]string{"command"}, rest...))
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
				p, _ := r.filePath(n, false)
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
		// Only the search uses the standard path (glibc's confstr(_CS_PATH), as bash's
		// command -p); the command's environment keeps $PATH.
		saved := r.stdPath
		r.stdPath = "/bin:/usr/bin"
		defer func() { r.stdPath = saved }()
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
	// Options first, as bash's no_options: -- ends them, any other -x is invalid.
	if len(args) > 1 && args[1] == "--" {
		args = append(args[:1:1], args[2:]...)
	} else if len(args) > 1 && len(args[1]) > 1 && args[1][0] == '-' {
		r.errorf("builtin: %s: invalid option", args[1][:2])
		r.usage("builtin")
		return 2
	}
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
