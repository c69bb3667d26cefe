package eval

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// expMode says what a word is expanded into.
type expMode uint8

const (
	// modeFields: command arguments; word splitting and pathname expansion apply.
	modeFields expMode = iota
	// modeString: one string, no splitting or globbing (assignments, case word, [[ ]]
	// operands, here-strings).
	modeString
	// modePattern: one glob pattern; quoted characters come out backslash-escaped.
	modePattern
)

// Contexts for expandString (how tilde expansion and special cases apply).
const (
	ctxCaseWord = iota
	ctxAssignValue
	ctxPlain
	// ctxNoTilde: no tilde expansion at all.
	ctxNoTilde
)

// seg is a piece of a field: quoted pieces are never split or globbed.
type seg struct {
	s      string
	quoted bool
	// pat: unquoted pattern text whose backslashes quote (an extended pattern's body): as
	// plain text (no match, noglob) the backslashes go, as bash's quote removal does.
	pat bool
}

// fieldB is a field being built.
type fieldB struct {
	segs []seg
	// exists: the field has text or a quoted (possibly empty) part; unquoted empty
	// expansions alone make no field.
	exists bool
	// glob: an unquoted part holds a pattern character.
	glob bool
}

func (f *fieldB) add(s string, quoted bool) {
	if s == "" {
		if quoted {
			f.exists = true
		}
		return
	}
	f.exists = true
	f.segs = append(f.segs, seg{s: s, quoted: quoted})
}

// addPat adds unquoted pattern text with backslash escapes (see seg.pat).
func (f *fieldB) addPat(s string) {
	if s == "" {
		return
	}
	f.exists = true
	f.segs = append(f.segs, seg{s: s, pat: true})
}

func (f *fieldB) text() string {
	switch len(f.segs) {
	case 0:
		return ""
	case 1:
		if f.segs[0].pat {
			return unescapeGlob(f.segs[0].s)
		}
		return f.segs[0].s
	}
	n := 0
	for _, s := range f.segs {
		n += len(s.s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range f.segs {
		if s.pat {
			b.WriteString(unescapeGlob(s.s))
			continue
		}
		b.WriteString(s.s)
	}
	return b.String()
}

// pattern renders the field as a glob pattern: quoted text escaped.
func (f *fieldB) pattern() string {
	var b strings.Builder
	for _, s := range f.segs {
		if s.quoted {
			b.WriteString(escapeGlob(s.s))
		} else {
			b.WriteString(s.s)
		}
	}
	return b.String()
}

// escapeGlob backslash-escapes the characters special in a pattern.
func escapeGlob(s string) string {
	if !strings.ContainsAny(s, "*?[]\\()|!+@^-") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\', '(', ')', '|', '!', '+', '@', '^', '-':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// expander turns words into fields.
type expander struct {
	r      *Runner
	mode   expMode
	fields []fieldB
	cur    fieldB
	// charged is what the expansion holds against the memory budget.
	charged int64
	// extglob: extended patterns are read whatever the option ([[ == ]] patterns).
	extglob bool
}

func (e *expander) emit(force bool) {
	if e.cur.exists || force {
		if len(e.fields) == cap(e.fields) && len(e.fields) >= 256 {
			// Doubling, not append's 1.25 for large slices: a split into millions of fields
			// would otherwise copy them about five times over.
			e.fields = append(make([]fieldB, 0, 2*len(e.fields)), e.fields...)
		}
		e.fields = append(e.fields, e.cur)
	}
	e.cur = fieldB{}
}

// account charges n bytes of expansion output.
func (e *expander) account(n int) error {
	if n < 4096 {
		e.charged += int64(n)
		if e.charged < 1<<16 {
			return nil
		}
		n = int(e.charged)
		e.charged = 0
	}
	return e.r.chargeExpansion(int64(n))
}

// lit adds literal (not expanded) text.
func (e *expander) lit(s string, quoted bool) {
	e.cur.add(s, quoted)
	if !quoted && e.mode != modeString && hasGlobMeta(s, e.r.shopts.has(shExtglob)) {
		e.cur.glob = true
	}
}

// value adds the result of an expansion.
func (e *expander) value(s string, quoted bool) error {
	if err := e.account(len(s)); err != nil {
		return err
	}
	if quoted {
		e.cur.add(s, true)
		return nil
	}
	if e.mode == modeFields {
		return e.split(s)
	}
	if s != "" {
		e.cur.add(s, false)
		if e.mode == modePattern {
			e.cur.glob = true
		}
	}
	return nil
}

// fieldCost is what one field of a split costs beyond its text (which value charged): its
// builder and segment while expanding, and its string header in the command's words.
const fieldCost = 96

// splitCheck is how many fields a split makes between two charges and checks of the call's
// end: a long value splits into millions of fields (a 20 MB $(cat file) into 3 million).
const splitCheck = 1024

// split applies IFS word splitting to an unquoted expansion result. The fields it makes are
// charged as they are made, and the call's end is checked: splitting a value of tens of
// megabytes takes seconds.
func (e *expander) split(v string) error {
	ifs := e.r.ifsValue()
	if ifs == "" {
		if v != "" {
			e.cur.add(v, false)
			e.markGlob(v)
		}
		return nil
	}
	made := 0
	check := func() error {
		if made++; made%splitCheck != 0 {
			return nil
		}
		if err := e.r.checkCtx(); err != nil {
			return err
		}
		return e.account(splitCheck * fieldCost)
	}
	// A character is read whole (IFS may hold multibyte characters), but a field is a slice of
	// v: its bytes stay as they were, invalid UTF-8 included.
	char := func(i int) rune {
		if v[i] < utf8.RuneSelf {
			return rune(v[i])
		}
		c, _ := utf8.DecodeRuneInString(v[i:])
		return c
	}
	next := func(i int) int {
		if v[i] < utf8.RuneSelf {
			return i + 1
		}
		_, n := utf8.DecodeRuneInString(v[i:])
		return i + n
	}
	isIFS := func(c rune) bool { return strings.ContainsRune(ifs, c) }
	isWS := func(c rune) bool { return (c == ' ' || c == '\t' || c == '\n') && isIFS(c) }
	skipWS := func(j int) int {
		for j < len(v) && isWS(char(j)) {
			j = next(j)
		}
		return j
	}
	i := 0
	for i < len(v) {
		if isIFS(char(i)) {
			j := skipWS(i)
			force := false
			if j < len(v) && isIFS(char(j)) && !isWS(char(j)) {
				force = true
				j = skipWS(next(j))
			}
			e.emit(force)
			if err := check(); err != nil {
				return err
			}
			i = j
			continue
		}
		j := i
		for j < len(v) && !isIFS(char(j)) {
			j = next(j)
		}
		e.cur.add(v[i:j], false)
		e.markGlob(v[i:j])
		i = j
	}
	return nil
}

func (e *expander) markGlob(s string) {
	if hasGlobMeta(s, e.r.shopts.has(shExtglob)) {
		e.cur.glob = true
	}
}

// list adds the elements of $@, $*, ${a[@]} or ${a[*]}.
func (e *expander) list(vals []string, quoted, star bool) error {
	n := 0
	for _, v := range vals {
		n += len(v) + 1 + fieldCost // each element may become a field
	}
	if err := e.account(n); err != nil {
		return err
	}
	if quoted {
		if star || e.mode != modeFields {
			sep := " "
			if star {
				sep = e.r.ifsJoin()
			}
			e.cur.add(strings.Join(vals, sep), true)
			return nil
		}
		for i, v := range vals {
			if i > 0 {
				e.emit(true)
			}
			e.cur.add(v, true)
		}
		return nil
	}
	if e.mode != modeFields {
		sep := " "
		if star {
			sep = e.r.ifsJoin()
		}
		s := strings.Join(vals, sep)
		if s != "" {
			e.cur.add(s, false)
			if e.mode == modePattern {
				e.cur.glob = true
			}
		}
		return nil
	}
	if e.r.ifsValue() == "" {
		first := true
		for _, v := range vals {
			if v == "" {
				continue
			}
			if !first {
				e.emit(false)
			}
			first = false
			e.cur.add(v, false)
			e.markGlob(v)
		}
		return nil
	}
	return e.split(strings.Join(vals, e.r.ifsJoin()))
}

// ifsValue is the current IFS (default when unset).
func (r *Runner) ifsValue() string {
	v, ok := r.scalar("IFS")
	if !ok {
		return " \t\n"
	}
	return v
}

// ifsJoin is what "$*" puts between elements.
func (r *Runner) ifsJoin() string {
	v, ok := r.scalar("IFS")
	if !ok {
		return " "
	}
	if v == "" {
		return ""
	}
	return v[:1]
}

// hasGlobMeta reports whether an unquoted string holds pattern characters.
func hasGlobMeta(s string, extglob bool) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		case '(':
			if extglob && i > 0 && strings.IndexByte("?*+@!", s[i-1]) >= 0 {
				return true
			}
		}
	}
	return false
}

// expandFields expands command words into fields (brace, tilde, parameter, command,
// arithmetic, splitting, pathname expansion, quote removal).
func (r *Runner) expandFields(words []*syntax.Word) ([]string, error) {
	// Most words make one field: one allocation for the command's fields.
	out := make([]string, 0, len(words))
	for _, w := range words {
		if s, ok := simpleLit(w); ok {
			out = append(out, s)
			continue
		}
		if !r.bracesIn(w) {
			// One word: its fields go straight into out (no slice of words, no slice of
			// fields of its own).
			var err error
			if out, err = r.expandWordInto(out, w, modeFields, true); err != nil {
				return nil, err
			}
			continue
		}
		bws, err := r.braceExpand(w)
		if err != nil {
			return nil, err
		}
		for i, bw := range bws {
			if err := r.checkEvery(i); err != nil {
				return nil, err
			}
			fs, err := r.expandWord(bw, modeFields, true)
			if err != nil {
				return nil, err
			}
			if len(bws) > 1 {
				// The fields of a brace expansion are as many as its words: held until the
				// command ends, like the words (braceExpand).
				n := int64(0)
				for _, f := range fs {
					n += int64(len(f)) + 16
				}
				if err := r.chargeExpansion(n); err != nil {
					return nil, err
				}
			}
			out = append(out, fs...)
		}
	}
	return out, nil
}

// simpleLit is the fast path: a word that is one plain literal with nothing to expand.
func simpleLit(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	for i := 0; i < len(l.Value); i++ {
		switch l.Value[i] {
		case '\\', '*', '?', '[', '{', '~', '(', '=', ':':
			return "", false
		}
	}
	return l.Value, true
}

// expandWord expands one (brace-expanded) word.
func (r *Runner) expandWord(w *syntax.Word, mode expMode, tilde bool) ([]string, error) {
	return r.expandWordInto(nil, w, mode, tilde)
}

// expandWordInto is expandWord appending the fields to out.
func (r *Runner) expandWordInto(out []string, w *syntax.Word, mode expMode, tilde bool) ([]string, error) {
	e := &expander{r: r, mode: mode}
	if assignLike(w) {
		// name=~/x as an argument gets an assignment's tilde expansion, as in bash.
		l := w.Parts[0].(*syntax.Lit)
		eq := strings.IndexByte(l.Value, '=')
		e.unquotedLit(l.Value[:eq+1])
		rest := &syntax.Lit{ValuePos: l.ValuePos, ValueEnd: l.ValueEnd, Value: l.Value[eq+1:]}
		parts := append([]syntax.WordPart{rest}, w.Parts[1:]...)
		if err := e.parts(parts, false, true, true); err != nil {
			return nil, err
		}
		return e.finishInto(out)
	}
	if err := e.parts(w.Parts, false, tilde, false); err != nil {
		return nil, err
	}
	return e.finishInto(out)
}

// finishInto ends the last field and applies pathname expansion, appending the fields to out.
func (e *expander) finishInto(out []string) ([]string, error) {
	e.emit(false)
	// Room for every field at once: a split into a million fields grows out once, not by
	// append's steps (each would be allocated, and the expansion charges what it holds).
	out = slices.Grow(out, len(e.fields))
	r := e.r
	for i := range e.fields {
		if err := r.checkEvery(i); err != nil {
			return nil, err
		}
		f := &e.fields[i]
		if f.glob && e.mode == modeFields && !r.opts.has(optNoglob) {
			matches, err := r.glob(f.pattern())
			if err != nil {
				return nil, err
			}
			if len(matches) > 0 {
				out = append(out, matches...)
				continue
			}
			if r.shopts.has(shFailglob) {
				return nil, r.discardf("no match: %s", f.text())
			}
			if r.shopts.has(shNullglob) {
				continue
			}
		}
		out = append(out, f.text())
	}
	return out, nil
}

// expandString expands a word into one string (no splitting or globbing).
func (r *Runner) expandString(w *syntax.Word, ctx int) (string, error) {
	if w == nil {
		return "", nil
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\~") {
			return l.Value, nil
		}
	}
	e := &expander{r: r, mode: modeString}
	if err := e.parts(w.Parts, false, ctx != ctxNoTilde, ctx == ctxAssignValue); err != nil {
		return "", err
	}
	return e.joinedText(), nil
}

// joinedText ends the expansion and returns its fields' text joined, without splitting.
func (e *expander) joinedText() string {
	e.emit(false)
	var b strings.Builder
	for i := range e.fields {
		b.WriteString(e.fields[i].text())
	}
	return b.String()
}

// expandPattern expands a word into a glob pattern (quoted parts escaped).
func (r *Runner) expandPattern(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	e := &expander{r: r, mode: modePattern}
	if err := e.parts(w.Parts, false, true, false); err != nil {
		return "", err
	}
	e.emit(false)
	var b strings.Builder
	for i := range e.fields {
		b.WriteString(e.fields[i].pattern())
	}
	return b.String(), nil
}

// parts expands word parts into the expander. inDQ: inside double quotes. tilde: the first
// part may start a tilde prefix. assign: tilde also after unquoted ':' (and the word is an
// assignment value).
func (e *expander) parts(parts []syntax.WordPart, inDQ, tilde, assign bool) error {
	r := e.r
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s := p.Value
			if inDQ {
				e.lit(unescapeDQ(s), true)
				continue
			}
			if i == 0 && tilde && strings.HasPrefix(s, "~") {
				rest, err := e.tilde(s, parts, i)
				if err != nil {
					return err
				}
				s = rest
			}
			if assign && strings.Contains(s, ":~") {
				if err := e.litAssign(s, parts, i); err != nil {
					return err
				}
				continue
			}
			e.unquotedLit(s)
		case *syntax.SglQuoted:
			if p.Dollar {
				e.lit(ansiC(p.Value), true)
			} else {
				e.lit(p.Value, true)
			}
		case *syntax.DblQuoted:
			if len(p.Parts) == 0 {
				e.cur.exists = true
			}
			if err := e.parts(p.Parts, true, false, false); err != nil {
				return err
			}
		case *syntax.ParamExp:
			if err := e.param(p, inDQ); err != nil {
				return err
			}
		case *syntax.CmdSubst:
			s, err := r.cmdSubst(p)
			if err != nil {
				return err
			}
			if err := e.value(s, inDQ); err != nil {
				return err
			}
		case *syntax.ArithmExp:
			n, err := r.arithNode(p, p.X)
			if err != nil {
				return err
			}
			if err := e.value(strconv.FormatInt(n, 10), inDQ); err != nil {
				return err
			}
		case *syntax.ProcSubst:
			path, err := r.procSubst(p)
			if err != nil {
				return err
			}
			e.lit(path, true)
		case *syntax.ExtGlob:
			if !r.shopts.has(shExtglob) && !e.extglob {
				// Bash reads extended patterns only with extglob on: the line is a
				// syntax error there.
				r.errorf("syntax error near unexpected token `('")
				return &shError{flow: flowExit, status: 2}
			}
			if inDQ || e.mode == modeString {
				e.cur.add(p.Op.String()+p.Pattern.Value+")", inDQ)
				continue
			}
			body, err := r.extglobBody(p.Pattern.Value)
			if err != nil {
				return err
			}
			e.cur.add(p.Op.String(), false)
			e.cur.addPat(body)
			e.cur.add(")", false)
			e.cur.glob = true
		default:
			return r.refuseErr(p.Pos(), "this word")
		}
	}
	return nil
}

// assignLike reports a word that starts like an assignment (name=...) with a tilde after
// the '='.
func assignLike(w *syntax.Word) bool {
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return false
	}
	eq := strings.IndexByte(l.Value, '=')
	if eq <= 0 || !validName(l.Value[:eq]) {
		return false
	}
	return strings.HasPrefix(l.Value[eq+1:], "~") || strings.Contains(l.Value[eq+1:], ":~")
}

// splitLit adds unquoted literal text that undergoes word splitting (the operand of
// ${x:-word} outside double quotes): backslash-escaped characters do not split.
// splitLit splits literal text of the script, bounded by the script's size (no charge).
func (e *expander) splitLit(s string) { e.backslashed(s, func(t string) { _ = e.split(t) }) }

// unquotedLit adds unquoted literal text: a backslash quotes the next character.
func (e *expander) unquotedLit(s string) {
	if strings.IndexByte(s, '\\') < 0 {
		e.lit(s, false)
		return
	}
	e.backslashed(s, func(t string) { e.lit(t, false) })
}

// backslashed adds unquoted text in which a backslash quotes the next character: that
// character goes in quoted, the runs between go to plain; a trailing backslash is itself.
func (e *expander) backslashed(s string, plain func(string)) {
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if i > start {
			plain(s[start:i])
		}
		if i+1 < len(s) {
			e.lit(s[i+1:i+2], true)
			i++
		} else {
			e.lit("\\", false)
		}
		start = i + 1
	}
	if start < len(s) {
		plain(s[start:])
	}
}

// litAssign adds an assignment value's literal, expanding ~ after each unquoted ':'.
func (e *expander) litAssign(s string, parts []syntax.WordPart, i int) error {
	for {
		k := strings.Index(s, ":~")
		if k < 0 || strings.Contains(s[:k], "\\") {
			e.unquotedLit(s)
			return nil
		}
		e.unquotedLit(s[:k+1])
		rest, err := e.tilde(s[k+1:], parts, i)
		if err != nil {
			return err
		}
		s = rest
	}
}

// tilde expands a leading tilde prefix of s (the rest of the literal follows), adding the
// result quoted; it returns what remains of s. A prefix followed by a non-literal part of
// the word is not a tilde prefix.
func (e *expander) tilde(s string, parts []syntax.WordPart, i int) (string, error) {
	end := strings.IndexAny(s, "/:")
	if end < 0 {
		end = len(s)
		if i+1 < len(parts) {
			// "~$x" or "~"'a': the prefix would continue into another part.
			return s, nil
		}
	}
	prefix := s[1:end]
	if strings.ContainsAny(prefix, "\\'\"") {
		return s, nil
	}
	val, ok := e.r.tildeValue(prefix)
	if !ok && e.r.otherUser(prefix) {
		if e.r.c.cfg.UserHome == nil {
			return s, e.r.refuseHere("~"+prefix+" (the home directory of a user other than the sandbox's)",
				"write the directory out; the sandbox has one user, "+e.r.c.cfg.Identity.User+", whose home is ~ ($HOME)")
		}
		val, ok = e.r.c.cfg.UserHome(prefix)
	}
	if !ok {
		return s, nil
	}
	e.lit(val, true)
	return s[end:], nil
}

// tildeValue resolves ~prefix.
func (r *Runner) tildeValue(prefix string) (string, bool) {
	switch prefix {
	case "":
		if h, ok := r.scalar("HOME"); ok {
			return h, true
		}
		return r.homeDir(), true
	case "+":
		if v, ok := r.scalar("PWD"); ok {
			return v, true
		}
		return "", false
	case "-":
		if v, ok := r.scalar("OLDPWD"); ok {
			return v, true
		}
		return "", false
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(prefix, "+")); err == nil && !strings.HasPrefix(prefix, "-") {
		return r.dirAt(n, false)
	}
	if strings.HasPrefix(prefix, "-") && len(prefix) > 1 && isDigits(prefix[1:]) {
		n, _ := strconv.Atoi(prefix[1:])
		return r.dirAt(n, true)
	}
	// The virtual user database knows the sandbox's user only: ~root would name the host's
	// (often the server's own) home directory.
	if prefix == r.c.cfg.Identity.User && prefix != "" {
		return r.homeDir(), true
	}
	return "", false
}

// otherUser reports whether ~prefix names a user (not ~, ~+, ~-, ~N, or the shell's user).
func (r *Runner) otherUser(prefix string) bool {
	switch {
	case prefix == "" || prefix == r.c.cfg.Identity.User:
		return false
	case prefix == "+" || prefix == "-":
		return false
	case isDigits(strings.TrimLeft(prefix, "+-")) && len(strings.TrimLeft(prefix, "+-")) > 0:
		return false
	}
	return true
}

// homeDir is the virtual user's home when HOME is unset.
func (r *Runner) homeDir() string {
	if r.c.cfg.Home != "" {
		return r.c.cfg.Home
	}
	for _, kv := range r.c.cfg.Environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			return v
		}
	}
	return "/"
}

// unescapeDQ removes the backslashes that are quoting inside double quotes.
func unescapeDQ(s string) string { return unescape(s, "$`\"\\") }

// unescapeHdoc removes the backslashes that are quoting in an unquoted here-document (a double
// quote is not special there).
func unescapeHdoc(s string) string { return unescape(s, "$`\\") }

// unescape removes each backslash that is followed by one of quoted; any other stays.
func unescape(s, quoted string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(quoted, s[i+1]) >= 0 {
			b.WriteByte(s[i+1])
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// extglobBody expands the inside of an extended pattern, which the parser keeps as text:
// quoted parts match literally, expansions are expanded (their unquoted results stay
// patterns), everything else is pattern syntax.
func (r *Runner) extglobBody(s string) (string, error) {
	if !strings.ContainsAny(s, "$`'\"") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '\\':
			end := min(i+2, len(s))
			b.WriteString(s[i:end])
			i = end
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i:])
				return b.String(), nil
			}
			b.WriteString(escapeGlob(s[i+1 : i+1+j]))
			i += j + 2
		case '"', '$', '`':
			end := exprEnd(s, i)
			text := s[i:end]
			v, err := r.expandTextPattern(text)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
			i = end
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// exprEnd finds the end of the quoted string or expansion starting at s[i].
func exprEnd(s string, i int) int {
	switch s[i] {
	case '"':
		for j := i + 1; j < len(s); j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if s[j] == '"' {
				return j + 1
			}
		}
		return len(s)
	case '`':
		if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
			return i + j + 2
		}
		return len(s)
	}
	// $name, ${...}, $(...), $((...)), $'...'
	if i+1 >= len(s) {
		return len(s)
	}
	switch n := s[i+1]; {
	case n == '{' || n == '(':
		closer := byte('}')
		if n == '(' {
			closer = ')'
		}
		depth := 0
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case n:
				depth++
			case closer:
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	case n == '\'':
		if j := strings.IndexByte(s[i+2:], '\''); j >= 0 {
			return i + j + 3
		}
		return len(s)
	case n == '_' || n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z':
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		return j
	}
	return i + 2
}

// expandTextPattern parses and expands a piece of pattern text at run time.
func (r *Runner) expandTextPattern(text string) (string, error) {
	words, err := parseWords(text)
	if err != nil || len(words) == 0 {
		return escapeGlob(text), nil
	}
	w := words[0]
	saved := r.cur
	r.cur = &source{name: saved.name, text: text, lineBase: saved.lineBase, cache: new(sync.Map)}
	defer func() { r.cur = saved }()
	return r.expandPattern(w)
}
