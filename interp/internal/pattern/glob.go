package pattern

import "strings"

// HasMagic reports whether a glob segment has an unquoted special character
// (so filename expansion applies): *, ?, a closed [...], or with extglob one
// of ?( *( +( @( !(.
func HasMagic(seg string, extglob bool) bool {
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; c {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if _, n := parseBracket(seg[i:], Options{}); n > 0 {
				return true
			}
		case '+', '@', '!':
			if extglob && i+1 < len(seg) && seg[i+1] == '(' {
				return true
			}
		}
	}
	return false
}

// Unescape removes the backslashes that quote characters in a pattern, giving
// the literal text of a segment without magic.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
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

// SplitPath splits a filename pattern at its slashes. A leading "/" gives a
// first segment "" (the root); repeated slashes give empty segments, which
// match nothing but the directory itself.
func SplitPath(pat string) []string { return strings.Split(pat, "/") }

// IsGlobstar reports whether seg is "**", which with globstar matches any
// number of directories (and, as the last segment, files too).
func IsGlobstar(seg string) bool { return seg == "**" }

// GlobOptions are the shell options that decide which directory entries a
// segment pattern may name.
type GlobOptions struct {
	DotGlob    bool // dotglob: * ? [..] match a leading '.'
	SkipDots   bool // globskipdots (on by default in Bash 5.2): never . or ..
	ExtGlob    bool
	NoCaseGlob bool
	MaxSteps   int
}

// Segment is one compiled filename-pattern segment.
type Segment struct {
	p        *Pattern
	dotFirst bool
	// wildFirst: the segment starts with *, ? or [...] (not an extglob group), which never
	// matches a name's leading '.' without dotglob, not even by matching nothing before a
	// literal '.' (`*.*` does not match `.tmp`: fnmatch's FNM_PERIOD).
	wildFirst bool
}

// CompileSegment compiles one segment of a filename pattern.
func CompileSegment(seg string, o GlobOptions) (*Segment, error) {
	p, err := Compile(seg, Options{ExtGlob: o.ExtGlob, NoCase: o.NoCaseGlob, Period: !o.DotGlob, MaxSteps: o.MaxSteps})
	if err != nil {
		return nil, err
	}
	first := strings.TrimPrefix(seg, `\`)
	wild := seg != "" && (seg[0] == '*' || seg[0] == '?' || seg[0] == '[') &&
		!(o.ExtGlob && len(seg) > 1 && seg[1] == '(' && seg[0] != '[')
	return &Segment{p: p, dotFirst: strings.HasPrefix(first, "."), wildFirst: wild && !o.DotGlob}, nil
}

// MatchName reports whether a directory entry name matches the segment,
// with Bash's rules for "." and "..": never with globskipdots, otherwise
// only when the pattern starts with a '.'.
func (s *Segment) MatchName(name string, o GlobOptions) (bool, error) {
	if name == "." || name == ".." {
		if o.SkipDots || !s.dotFirst {
			return false, nil
		}
	}
	if s.wildFirst && strings.HasPrefix(name, ".") {
		return false, nil
	}
	return s.p.Match(name)
}
