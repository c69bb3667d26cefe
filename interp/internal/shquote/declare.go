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
func Double(s string) string { return must(Limits{}.Double(s)) }

// Double is the package's Double within l.
func (l Limits) Double(s string) (string, error) { return l.quote(func(w *writer) { w.double(s) }) }

func (w *writer) double(s string) {
	if w.needsANSI(s) {
		w.ansi(s)
		return
	}
	w.byte('"')
	w.escaped(s, &doubleSpecial, "", "\\")
	w.byte('"')
}

// Reusable quotes s as the set builtin lists values: unchanged when it has no
// shell metacharacters, ” when empty, else as Single.
func Reusable(s string) string { return must(Limits{}.quote(func(w *writer) { w.reusable(s) })) }

func (w *writer) reusable(s string) {
	switch {
	case s == "":
		w.str("''")
	case w.needsANSI(s):
		w.ansi(s)
	case !HasMetas(s):
		w.str(s)
	default:
		w.single(s)
	}
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

// arrayBody writes (…) as declare -p and set print it; associative arrays
// get Bash's trailing space.
func (w *writer) arrayBody(v Var) {
	w.byte('(')
	for i, e := range v.Elems {
		if i > 0 && !v.Attrs.Assoc {
			w.byte(' ')
		}
		w.byte('[')
		if v.Attrs.Assoc && (HasMetas(e.Key) || w.needsANSI(e.Key)) {
			w.double(e.Key)
		} else {
			w.str(e.Key)
		}
		w.str("]=")
		w.double(e.Value)
		if v.Attrs.Assoc {
			w.byte(' ')
		}
		if !w.step(len(e.Key) + len(e.Value) + 16) {
			return
		}
	}
	w.byte(')')
}

func isArray(v Var) bool { return v.Attrs.Indexed || v.Attrs.Assoc }

// DeclareP formats v as declare -p (and export -p, readonly -p) print it,
// without the newline.
func DeclareP(v Var) string { return must(Limits{}.DeclareP(v)) }

// DeclareP is the package's DeclareP within l.
func (l Limits) DeclareP(v Var) (string, error) { return l.quote(func(w *writer) { w.declareP(v) }) }

func (w *writer) declareP(v Var) {
	w.str("declare -")
	w.str(v.Attrs.Flags())
	w.byte(' ')
	w.str(v.Name)
	switch {
	case isArray(v):
		if len(v.Elems) > 0 {
			w.byte('=')
			w.arrayBody(v)
		}
	case v.Set:
		w.byte('=')
		w.double(v.Value)
	}
}

// SetLine formats v as the set builtin (no arguments) lists it; "" when set
// does not list it (an empty array).
func SetLine(v Var) string { return must(Limits{}.SetLine(v)) }

// SetLine is the package's SetLine within l.
func (l Limits) SetLine(v Var) (string, error) {
	return l.quote(func(w *writer) {
		if isArray(v) {
			if len(v.Elems) == 0 {
				return
			}
			w.str(v.Name)
			w.byte('=')
			w.arrayBody(v)
			return
		}
		w.str(v.Name)
		w.byte('=')
		w.reusable(v.Value)
	})
}

// AtA formats ${v@A}: an assignment (with declare and the attributes when
// there are any) that recreates v. whole is set for ${a[@]@A} (the array is
// printed as declare -p does); for ${a@A} Bash prints element 0 (Value, Set)
// as a scalar with the array's attributes.
func AtA(v Var, whole bool) string { return must(Limits{}.AtA(v, whole)) }

// AtA is the package's AtA within l.
func (l Limits) AtA(v Var, whole bool) (string, error) {
	return l.quote(func(w *writer) {
		switch {
		case isArray(v) && whole:
			w.declareP(v)
		case v.Attrs.none():
			if v.Set {
				w.str(v.Name)
				w.byte('=')
				w.single(v.Value)
			}
		default:
			w.str("declare -")
			w.str(v.Attrs.Flags())
			w.byte(' ')
			w.str(v.Name)
			if v.Set {
				w.byte('=')
				w.single(v.Value)
			}
		}
	})
}
