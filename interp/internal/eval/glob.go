package eval

import (
	"path"
	"slices"
	"strings"

	"github.com/mcp-bash/mcp-bash/interp/internal/pattern"
)

// glob performs pathname expansion of a pattern (backslash-escaped), through the FS. It
// returns the sorted matches, none when nothing matches.
func (r *Runner) glob(pat string) ([]string, error) {
	abs := strings.HasPrefix(pat, "/")
	comps := splitPattern(pat)
	var base string
	if abs {
		base = "/"
	}
	results := []string{base}
	for i, comp := range comps {
		if err := r.checkCtx(); err != nil {
			return nil, err
		}
		last := i == len(comps)-1
		if comp == "" {
			// A doubled or trailing slash.
			if last {
				// ** matched the working directory itself as "": it has no name to end
				// with a slash (bash lists **/ without it).
				results = slices.DeleteFunc(results, func(s string) bool { return s == "" })
				for j := range results {
					results[j] += "/"
				}
			}
			continue
		}
		var next []string
		if !hasGlobMeta(comp, r.shopts.has(shExtglob)) {
			lit := unescapeGlob(comp)
			for _, res := range results {
				p := joinGlob(res, lit)
				if last {
					if _, err := r.c.fs.Lstat(r.absPath(p)); err != nil {
						continue
					}
				}
				next = append(next, p)
			}
			results = next
			continue
		}
		if comp == "**" && r.shopts.has(shGlobstar) {
			for _, res := range results {
				more, err := r.globStar(res, last)
				if err != nil {
					return nil, err
				}
				next = append(next, more...)
			}
			results = next
			continue
		}
		for _, res := range results {
			dir := res
			if dir == "" {
				dir = "."
			}
			ents, err := r.c.fs.ReadDir(r.absPath(dir))
			if err != nil {
				continue
			}
			var names []string
			cands := make([]string, 0, len(ents)+2)
			if !r.shopts.has(shGlobskipdots) && strings.HasPrefix(comp, ".") {
				// A directory lists . and .. too; bash matches them only with globskipdots
				// off, and only by a pattern that starts with a dot.
				cands = append(cands, ".", "..")
			}
			for _, ent := range ents {
				cands = append(cands, ent.Name())
			}
			for _, name := range cands {
				if !r.globName(comp, name) {
					continue
				}
				if !last && !r.isDir(joinGlob(res, name)) {
					continue
				}
				names = append(names, name)
			}
			slices.Sort(names)
			for _, n := range names {
				next = append(next, joinGlob(res, n))
			}
		}
		results = next
		if len(results) == 0 {
			return nil, nil
		}
	}
	if len(results) == 1 && results[0] == base {
		return nil, nil
	}
	if ign, ok := r.scalar("GLOBIGNORE"); ok && ign != "" {
		pats := splitGlobIgnore(ign)
		results = slices.DeleteFunc(results, func(p string) bool {
			b := path.Base(p)
			if b == "." || b == ".." {
				return true
			}
			for _, pat := range pats {
				if pat != "" && r.matchPattern(pat, p, false) {
					return true
				}
			}
			return false
		})
		if len(results) == 0 {
			return nil, nil
		}
	}
	slices.Sort(results)
	// Each ** of a pattern walks every depth, so **/**/x reaches a path once for each way of
	// splitting it; bash lists each path once.
	results = slices.Compact(results)
	n := 0
	for _, s := range results {
		n += len(s) + 16
	}
	if err := r.charge(int64(n)); err != nil {
		return nil, err
	}
	r.pendingCredit += int64(n)
	return results, nil
}

// globName reports whether a directory entry matches one pattern component.
func (r *Runner) globName(comp, name string) bool {
	o := pattern.GlobOptions{DotGlob: r.shopts.has(shDotglob), SkipDots: r.shopts.has(shGlobskipdots),
		ExtGlob: r.shopts.has(shExtglob), NoCaseGlob: r.shopts.has(shNocaseglob)}
	seg, err := pattern.CompileSegment(comp, o)
	if err != nil {
		return false
	}
	ok, err := seg.MatchName(name, o)
	return err == nil && ok
}

// globStar expands ** : the directory itself and every directory below (files too when **
// is the last component).
func (r *Runner) globStar(base string, last bool) ([]string, error) {
	var out []string
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if err := r.checkCtx(); err != nil {
			return err
		}
		if depth > 256 {
			return nil
		}
		d := dir
		if d == "" {
			d = "."
		}
		ents, err := r.c.fs.ReadDir(r.absPath(d))
		if err != nil {
			return nil
		}
		names := make([]string, 0, len(ents))
		for _, ent := range ents {
			names = append(names, ent.Name())
		}
		slices.Sort(names)
		for _, name := range names {
			if strings.HasPrefix(name, ".") && !r.shopts.has(shDotglob) {
				continue
			}
			p := joinGlob(dir, name)
			fi, err := r.c.fs.Lstat(r.absPath(p))
			if err != nil {
				continue
			}
			if fi.IsDir() {
				if last {
					out = append(out, p)
				} else {
					out = append(out, p+"/")
				}
				if err := walk(p, depth+1); err != nil {
					return err
				}
			} else if last {
				out = append(out, p)
			}
		}
		return nil
	}
	if !last {
		out = append(out, base)
	} else if base != "" {
		// "dir/**" lists the directory itself first, with its slash.
		out = append(out, joinGlob(base, ""))
	}
	if err := walk(base, 0); err != nil {
		return nil, err
	}
	for i, p := range out {
		if last && i == 0 && base != "" {
			continue
		}
		out[i] = strings.TrimSuffix(p, "/")
		if out[i] == "" && !last {
			out[i] = base
		}
	}
	return out, nil
}

// splitGlobIgnore splits GLOBIGNORE at its colons, except those inside a bracket expression
// ([[:alnum:]]*), as bash does.
func splitGlobIgnore(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(s) && (s[j] == '!' || s[j] == '^') {
				j++
			}
			if j < len(s) && s[j] == ']' {
				j++
			}
			for j < len(s) && s[j] != ']' {
				if s[j] == '[' && j+1 < len(s) && (s[j+1] == ':' || s[j+1] == '=' || s[j+1] == '.') {
					if k := strings.Index(s[j+2:], string(s[j+1])+"]"); k >= 0 {
						j += 2 + k + 2
						continue
					}
				}
				j++
			}
			if j < len(s) {
				i = j
			}
		case ':':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func (r *Runner) isDir(p string) bool {
	fi, err := r.c.fs.Stat(r.absPath(p))
	return err == nil && fi.IsDir()
}

func joinGlob(dir, name string) string {
	switch {
	case dir == "":
		return name
	case strings.HasSuffix(dir, "/"):
		return dir + name
	}
	return dir + "/" + name
}

// splitPattern splits a pattern at unescaped slashes (a slash inside brackets still
// separates, as in bash).
func splitPattern(pat string) []string {
	pat = strings.TrimPrefix(pat, "/")
	var out []string
	start := 0
	for i := 0; i < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '/':
			out = append(out, pat[start:i])
			start = i + 1
		}
	}
	return append(out, pat[start:])
}

// unescapeGlob removes pattern backslashes.
func unescapeGlob(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
