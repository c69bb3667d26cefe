package shquote

import "strings"

// HasMetas reports whether s needs quoting to be read back as one word
// (Bash's sh_contains_shell_metas).
func HasMetas(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\'', '"', '\\', '|', '&', ';', '(', ')', '<', '>', '!', '{', '}',
			'*', '[', '?', ']', '^', '$', '`':
			return true
		case '~':
			if i == 0 || s[i-1] == '=' || s[i-1] == ':' {
				return true
			}
		case '#':
			if i == 0 {
				return true
			}
		}
	}
	return false
}

// Double quotes s as declare -p prints values: "..." with \ before " $ ` \,
// or $'...' when s has non-printable characters.
func Double(s string) string {
	if needsANSI(s) {
		return ANSI(s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("\"$`\\", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// Reusable quotes s as the set builtin lists values: unchanged when it has no
// shell metacharacters, ” when empty, else as Single.
func Reusable(s string) string {
	if s == "" {
		return "''"
	}
	if needsANSI(s) {
		return ANSI(s)
	}
	if !HasMetas(s) {
		return s
	}
	return Single(s)
}

// Attrs are a variable's attributes.
type Attrs struct {
	Indexed, Assoc, Func, Integer, Nameref, Readonly, Trace, Export, Capcase, Lower, Upper bool
}

// Flags returns the attribute letters in Bash's order ("airx"), or "-" when
// there are none (declare -p then prints "--").
func (a Attrs) Flags() string {
	var b strings.Builder
	for _, f := range []struct {
		on bool
		c  byte
	}{{a.Indexed, 'a'}, {a.Assoc, 'A'}, {a.Func, 'f'}, {a.Integer, 'i'}, {a.Nameref, 'n'}, {a.Readonly, 'r'},
		{a.Trace, 't'}, {a.Export, 'x'}, {a.Capcase, 'c'}, {a.Lower, 'l'}, {a.Upper, 'u'}} {
		if f.on {
			b.WriteByte(f.c)
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

func (a Attrs) none() bool { return a.Flags() == "-" }

// Elem is an array element: Key is the decimal index of an indexed array or
// the key of an associative one.
type Elem struct{ Key, Value string }

// Var describes a variable for the listings. For arrays, Elems holds the
// elements in Bash's order (index order; for associative arrays the order of
// Bash's hash table, which is the caller's to reproduce).
type Var struct {
	Name  string
	Attrs Attrs
	Set   bool // has a value (declare x without value: false)
	Value string
	Elems []Elem
}

// arrayBody formats (…) as declare -p and set print it; associative arrays
// get Bash's trailing space.
func arrayBody(v Var) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, e := range v.Elems {
		if i > 0 && !v.Attrs.Assoc {
			b.WriteByte(' ')
		}
		key := e.Key
		if v.Attrs.Assoc && (HasMetas(key) || needsANSI(key)) {
			key = Double(key)
		}
		b.WriteString("[" + key + "]=" + Double(e.Value))
		if v.Attrs.Assoc {
			b.WriteByte(' ')
		}
	}
	b.WriteByte(')')
	return b.String()
}

func isArray(v Var) bool { return v.Attrs.Indexed || v.Attrs.Assoc }

// DeclareP formats v as declare -p (and export -p, readonly -p) print it,
// without the newline.
func DeclareP(v Var) string {
	s := "declare -" + v.Attrs.Flags() + " " + v.Name
	switch {
	case isArray(v):
		if len(v.Elems) > 0 {
			s += "=" + arrayBody(v)
		}
	case v.Set:
		s += "=" + Double(v.Value)
	}
	return s
}

// SetLine formats v as the set builtin (no arguments) lists it; "" when set
// does not list it (an empty array).
func SetLine(v Var) string {
	if isArray(v) {
		if len(v.Elems) == 0 {
			return ""
		}
		return v.Name + "=" + arrayBody(v)
	}
	return v.Name + "=" + Reusable(v.Value)
}

// AtA formats ${v@A}: an assignment (with declare and the attributes when
// there are any) that recreates v. whole is set for ${a[@]@A} (the array is
// printed as declare -p does); for ${a@A} Bash prints element 0 (Value, Set)
// as a scalar with the array's attributes.
func AtA(v Var, whole bool) string {
	if isArray(v) && whole {
		return DeclareP(v)
	}
	if v.Attrs.none() {
		if !v.Set {
			return ""
		}
		return v.Name + "=" + Single(v.Value)
	}
	s := "declare -" + v.Attrs.Flags() + " " + v.Name
	if v.Set {
		s += "=" + Single(v.Value)
	}
	return s
}
