package eval

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// dynamicNames are the variables whose value the shell computes when read.
var dynamicNames = []string{"_", "BASH_ARGV0", "BASH_COMMAND", "BASHPID", "BASHOPTS", "BASH_LINENO", "BASH_SOURCE", "BASH_SUBSHELL", "DIRSTACK",
	"EPOCHREALTIME", "EPOCHSECONDS", "FUNCNAME", "GROUPS", "LINENO", "PIPESTATUS", "RANDOM", "SECONDS",
	"SHELLOPTS", "SRANDOM"}

func (r *Runner) isDynamic(name string) bool {
	switch name {
	case "_":
		return !r.unsetSpecial[name]
	case "BASH_ARGV0", "BASH_COMMAND", "BASHPID", "BASHOPTS", "BASH_LINENO", "BASH_SOURCE", "BASH_SUBSHELL", "DIRSTACK", "EPOCHREALTIME",
		"EPOCHSECONDS", "FUNCNAME", "GROUPS", "LINENO", "PIPESTATUS", "RANDOM", "SECONDS", "SHELLOPTS", "SRANDOM":
		return !r.unsetSpecial[name]
	}
	return false
}

func strVar(s string) variable { return variable{set: true, str: s} }

func arrVar(vals []string) variable {
	return variable{attrs: attrArray, set: true, arr: &indexed{vals: vals}}
}

// dynamicVar computes a dynamic variable's value.
func (r *Runner) dynamicVar(name string) (variable, bool) {
	if name == "_" && !r.unsetSpecial["_"] {
		return strVar(r.lastArg), true
	}
	if len(name) < 5 || name[0] < 'B' || name[0] > 'S' {
		return variable{}, false
	}
	if !r.isDynamic(name) {
		return variable{}, false
	}
	switch name {
	case "BASH_COMMAND":
		return strVar(r.bashCommand()), true
	case "BASHPID":
		return variable{attrs: attrInteger, set: true, str: strconv.Itoa(r.bashpid)}, true
	case "BASHOPTS":
		return variable{attrs: attrReadonly, set: true, str: r.bashoptsValue()}, true
	case "SHELLOPTS":
		return variable{attrs: attrReadonly, set: true, str: r.shelloptsValue()}, true
	case "BASH_SUBSHELL":
		return strVar(strconv.Itoa(r.subLevel)), true
	case "LINENO":
		return strVar(strconv.Itoa(r.lineno)), true
	case "RANDOM":
		return variable{attrs: attrInteger, set: true, str: strconv.Itoa(r.nextRandom())}, true
	case "SRANDOM":
		r.c.rngMu.Lock()
		n := r.c.random().Uint32()
		r.c.rngMu.Unlock()
		return variable{attrs: attrInteger, set: true, str: strconv.FormatUint(uint64(n), 10)}, true
	case "SECONDS":
		return variable{attrs: attrInteger, set: true, str: strconv.FormatInt(int64(r.c.now().Sub(r.secondsBase)/time.Second), 10)}, true
	case "EPOCHSECONDS":
		return strVar(strconv.FormatInt(r.c.now().Unix(), 10)), true
	case "EPOCHREALTIME":
		t := r.c.now()
		return strVar(fmt.Sprintf("%d.%06d", t.Unix(), t.Nanosecond()/1000)), true
	case "GROUPS":
		return arrVar([]string{strconv.Itoa(r.c.cfg.Identity.GID)}), true
	case "PIPESTATUS":
		if r.pipestatus == nil {
			return arrVar([]string{strconv.Itoa(r.psOne)}), true
		}
		vals := make([]string, len(r.pipestatus))
		for i, s := range r.pipestatus {
			vals[i] = strconv.Itoa(s)
		}
		return arrVar(vals), true
	case "BASH_ARGV0":
		return strVar(r.arg0), true
	case "FUNCNAME":
		// Only a function call makes FUNCNAME: a file sourced at the top level leaves it empty.
		if len(r.frames) == 0 || r.funcDepth == 0 {
			return variable{attrs: attrArray}, true
		}
		vals := make([]string, 0, len(r.frames)+1)
		for i := len(r.frames) - 1; i >= 0; i-- {
			vals = append(vals, r.frames[i].name)
		}
		return arrVar(append(vals, "main")), true
	case "BASH_SOURCE":
		vals := make([]string, 0, len(r.frames)+1)
		for i := len(r.frames) - 1; i >= 0; i-- {
			vals = append(vals, r.frames[i].src.name)
		}
		return arrVar(append(vals, r.scriptName())), true
	case "BASH_LINENO":
		vals := make([]string, 0, len(r.frames)+1)
		for i := len(r.frames) - 1; i >= 0; i-- {
			vals = append(vals, strconv.Itoa(r.frames[i].callAt))
		}
		return arrVar(append(vals, "0")), true
	case "DIRSTACK":
		return arrVar(append([]string{r.pwdValue()}, r.dirs...)), true
	}
	return variable{}, false
}

// scriptName is the bottom of BASH_SOURCE.
func (r *Runner) scriptName() string { return r.arg0 }

// setDynamic handles an assignment to a dynamic variable; true means it was consumed.
func (r *Runner) setDynamic(name, val string) bool {
	if !r.isDynamic(name) {
		return false
	}
	switch name {
	case "_":
		r.lastArg = val
	case "BASH_ARGV0":
		r.arg0 = val
	case "RANDOM":
		r.seedRandom(val)
	case "SECONDS":
		n, _ := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		r.secondsBase = r.c.now().Add(-time.Duration(n) * time.Second)
	}
	return true
}

// unsetDynamic makes a dynamic variable an ordinary one (bash: it loses its special
// properties when unset).
func (r *Runner) unsetDynamic(name string) {
	if !r.isDynamic(name) {
		return
	}
	m := make(map[string]bool, len(r.unsetSpecial)+1)
	for k, v := range r.unsetSpecial {
		m[k] = v
	}
	m[name] = true
	r.unsetSpecial = m
}

// watchVar reports variables whose change the shell tracks.
func (r *Runner) watchVar(name string) bool {
	return name == "OPTIND" || name == "PATH" || name == "GLOBIGNORE"
}

func (r *Runner) varChanged(name string, v *variable) {
	switch name {
	case "OPTIND":
		r.optChar = 0
	case "PATH":
		r.hashed, r.hashOwned = nil, false // bash forgets remembered commands when PATH is assigned
	case "GLOBIGNORE":
		// bash's setup_glob_ignore: patterns turn dotglob on, unsetting GLOBIGNORE turns it
		// off, and an empty value leaves it as it is (GLOBIGNORE= after GLOBIGNORE=*.txt
		// still globs dot files).
		if v == nil || !v.set {
			r.shopts &^= shDotglob
		} else if s, _ := varScalar(v); s != "" {
			r.shopts |= shDotglob
		}
	}
}

// localeAssigned is called after an assignment statement or a declaration builtin set name:
// for a locale category, bash calls setlocale (a prefix binding for a program does not).
func (r *Runner) localeAssigned(name string) {
	if !localeCategory(name) {
		return
	}
	if v, ok := r.scalar(name); ok {
		r.setlocale(name, v)
	}
}

// localeCategory is a variable whose assignment makes bash call setlocale and warn when it
// fails (LANG never warns: bash resets the categories from it quietly).
func localeCategory(name string) bool {
	switch name {
	case "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME":
		return true
	}
	return false
}

// setlocale warns as bash does when a script names a locale the sandbox does not have: its
// only locales are C, POSIX and C.UTF-8, those of a minimal host (glibc's C.utf8 with any
// spelling of the codeset). A category other than LC_ALL is set only while LC_ALL is empty.
func (r *Runner) setlocale(name, val string) {
	if val == "" || sandboxLocale(val) {
		return
	}
	if name != "LC_ALL" {
		if all, ok := r.scalar("LC_ALL"); ok && all != "" {
			return
		}
	}
	r.errorf("warning: setlocale: %s: cannot change locale (%s): No such file or directory", name, val)
}

func sandboxLocale(l string) bool {
	if l == "C" || l == "POSIX" {
		return true
	}
	cs, ok := strings.CutPrefix(l, "C.")
	return ok && strings.EqualFold(strings.ReplaceAll(cs, "-", ""), "utf8")
}

// Base is the part of a shell's initial variables that many runs share (the environment
// and the shell's own variables): the engine builds it once per environment. It is never
// written; each run keeps its changes in its own global scope.
type Base struct {
	vars map[string]variable
	// funcs are the functions every run starts with (Define's, shared; nil: none).
	funcs *funcTable
}

// NewBase builds the shared initial variables from an environment (K=V, all exported) and
// the virtual identity. The functions of defs (the SDK prelude) are every run's from the
// start, as if each run had Define'd them: they are shared, and a run that defines a
// function works on its own copy of the table.
func NewBase(environ []string, id Identity, defs ...*Program) *Base {
	b := newBase(environ, id)
	if len(defs) > 0 {
		b.funcs = &funcTable{m: map[string]*funcDef{}}
		for _, p := range defs {
			definePrelude(b.funcs.m, p)
		}
	}
	return b
}

func newBase(environ []string, id Identity) *Base {
	g := make(map[string]variable, len(environ)+24)
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !validName(k) {
			continue
		}
		g[k] = variable{attrs: attrExport, set: true, str: v}
	}
	set := func(k, v string, a attr) {
		old, ok := g[k]
		if ok {
			a |= old.attrs
		}
		g[k] = variable{attrs: a, set: true, str: v}
	}
	setDefault := func(k, v string) {
		if _, ok := g[k]; !ok {
			g[k] = strVar(v)
		}
	}
	set("BASH", "/bin/bash", 0)
	set("BASH_VERSION", "5.2.15(1)-release", 0)
	versinfo := &indexed{vals: []string{"5", "2", "15", "1", "release", "x86_64-pc-linux-gnu"}}
	versinfo.frozen.Store(true)
	g["BASH_VERSINFO"] = variable{attrs: attrArray | attrReadonly, set: true, arr: versinfo}
	set("IFS", " \t\n", 0)
	set("PS4", "+ ", 0)
	set("OPTIND", "1", attrInteger)
	set("OPTERR", "1", 0)
	set("PPID", strconv.Itoa(id.PPID), attrInteger|attrReadonly)
	set("UID", strconv.Itoa(id.UID), attrInteger|attrReadonly)
	set("EUID", strconv.Itoa(id.EUID), attrInteger|attrReadonly)
	if id.Hostname != "" {
		setDefault("HOSTNAME", id.Hostname)
	}
	set("HOSTTYPE", "x86_64", 0)
	set("MACHTYPE", "x86_64-pc-linux-gnu", 0)
	set("OSTYPE", "linux-gnu", 0)
	setDefault("PATH", "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.")
	lvl := 1
	if v, ok := g["SHLVL"]; ok {
		if n, err := strconv.Atoi(v.str); err == nil {
			lvl = n + 1
		}
	}
	set("SHLVL", strconv.Itoa(lvl), attrExport)
	if _, ok := g["OLDPWD"]; !ok {
		g["OLDPWD"] = variable{attrs: attrExport}
	}
	setDefault("SHELL", "/bin/bash")
	// bash's own default when the environment has none (a new shell under env -i has it).
	setDefault("TERM", "dumb")
	return &Base{vars: g}
}
