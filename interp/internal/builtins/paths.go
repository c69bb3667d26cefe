package builtins

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

func init() {
	register("basename", basename)
	register("dirname", dirname)
	register("realpath", realpath)
	register("readlink", readlink)
}

// baseOf is basename(1)'s rule: trailing slashes are ignored, "/" stays "/".
func baseOf(s string) string {
	if s == "" {
		return ""
	}
	t := strings.TrimRight(s, "/")
	if t == "" {
		return "/"
	}
	return t[strings.LastIndexByte(t, '/')+1:]
}

// dirOf is dirname(1)'s rule.
func dirOf(s string) string {
	t := strings.TrimRight(s, "/")
	if t == "" {
		if s == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndexByte(t, '/')
	if i < 0 {
		return "."
	}
	d := strings.TrimRight(t[:i], "/")
	if d == "" {
		return "/"
	}
	return d
}

func basename(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "basename", 1, optSpec{short: "as:z", long: []string{"multiple:a", "suffix:s", "zero:z"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	args := fl.operands
	suffix, multi := fl.val("s")
	multi = multi || fl.has("a")
	if len(args) == 0 {
		return errorf(env, 1, "basename", "missing operand")
	}
	if !multi {
		if len(args) > 2 {
			return errorf(env, 1, "basename", "extra operand '%s'", args[2])
		}
		if len(args) == 2 {
			suffix, args = args[1], args[:1]
		}
	}
	end := "\n"
	if fl.has("z") {
		end = "\x00"
	}
	for _, a := range args {
		b := baseOf(a)
		if suffix != "" && b != suffix {
			b = strings.TrimSuffix(b, suffix)
		}
		fmt.Fprint(env.Stdout, b+end)
	}
	return 0
}

func dirname(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "dirname", 1, optSpec{short: "z", long: []string{"zero:z"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "dirname", "missing operand")
	}
	end := "\n"
	if fl.has("z") {
		end = "\x00"
	}
	for _, a := range fl.operands {
		fmt.Fprint(env.Stdout, dirOf(a)+end)
	}
	return 0
}

// canonical resolves p through the sandbox: mode 'e' needs every component, 'f' all but the
// last, 'm' none (missing parts are appended lexically).
func canonical(env *Env, p string, mode byte) (string, error) {
	real, err := env.FS.RealPath(p)
	if err == nil || mode == 'e' {
		return real, err
	}
	if mode == 'f' {
		dir, base := path.Split(p)
		rd, derr := env.FS.RealPath(path.Clean(dir))
		if derr != nil || base == "" {
			return "", err
		}
		return path.Join(rd, base), nil
	}
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i := len(comps) - 1; i >= 0; i-- {
		prefix := "/" + strings.Join(comps[:i], "/")
		if rp, perr := env.FS.RealPath(prefix); perr == nil {
			return path.Join(append([]string{rp}, comps[i:]...)...), nil
		}
	}
	return p, nil
}

var realpathSpec = optSpec{short: "emsqLPz", long: []string{"canonicalize-existing:e", "canonicalize-missing:m",
	"strip:s", "no-symlinks:s", "quiet:q", "logical:L", "physical:P", "zero:z", "relative-to=", "relative-base="}, permute: true}

func realpath(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "realpath", 1, realpathSpec, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "realpath", "missing operand")
	}
	mode := byte('f')
	for _, o := range fl.opts {
		if o.name == "e" || o.name == "m" {
			mode = o.name[0]
		}
	}
	resolve := func(p string) (string, error) {
		if fl.has("s") {
			return env.Abs(p), nil
		}
		return canonical(env, env.Abs(p), mode)
	}
	relTo, hasRel := fl.val("relative-to")
	if hasRel {
		r, err := resolve(relTo)
		if err != nil {
			return errorf(env, 1, "realpath", "%s: %s", relTo, describe(err))
		}
		relTo = r
	}
	end := "\n"
	if fl.has("z") {
		end = "\x00"
	}
	status := 0
	for _, a := range fl.operands {
		r, err := resolve(a)
		if err != nil {
			status = 1
			if !fl.has("q") {
				errorf(env, 1, "realpath", "%s: %s", a, describe(err))
			}
			continue
		}
		if hasRel {
			if rel, err := filepath.Rel(relTo, r); err == nil {
				r = rel
			}
		}
		fmt.Fprint(env.Stdout, r+end)
	}
	return status
}

var readlinkSpec = optSpec{short: "femnqsvz", long: []string{"canonicalize:f", "canonicalize-existing:e", "canonicalize-missing:m",
	"no-newline:n", "quiet:q", "silent:s", "verbose:v", "zero:z"}, permute: true}

func readlink(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "readlink", 1, readlinkSpec, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) == 0 {
		return errorf(env, 1, "readlink", "missing operand")
	}
	mode := byte(0)
	for _, o := range fl.opts {
		if o.name == "f" || o.name == "e" || o.name == "m" {
			mode = o.name[0]
		}
	}
	end := "\n"
	switch {
	case fl.has("z"):
		end = "\x00"
	case fl.has("n") && len(fl.operands) == 1:
		end = ""
	}
	status := 0
	for _, a := range fl.operands {
		p := env.Abs(a)
		var r string
		var err error
		if mode == 0 {
			r, err = env.FS.Readlink(p)
		} else {
			r, err = canonical(env, p, mode)
		}
		if err != nil {
			status = 1
			if fl.has("v") {
				errorf(env, 1, "readlink", "%s: %s", a, describe(err))
			}
			continue
		}
		fmt.Fprint(env.Stdout, r+end)
	}
	return status
}
