package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"mvdan.cc/sh/v3/syntax"
)

// source is one parsed text (a script file, a sourced file, an eval string, a trap string):
// the evaluator reads arithmetic and subscripts from its bytes, by node offsets.
type source struct {
	name string
	text string
	// lineBase is added to node line numbers (eval strings count from the eval's line).
	lineBase int
	// cache holds per-node derived data (arithmetic splice plans); copies of a source made
	// for another line base share it.
	cache *sync.Map
	// eofHdocs are the here-documents the text ends inside (bash ends them at the end of the
	// text with a warning; the text holds their delimiter lines added): see parseBash.
	eofHdocs []eofHdoc
}

// eofHdoc is a here-document delimited by the end of its text: bash warns, when it reads the
// line of its operator, "here-document at line L delimited by end-of-file (wanted `stop')".
type eofHdoc struct {
	at    uint   // the offset of its redirection
	line  int    // the line of its redirection
	lines int    // the lines of the text as written (bash's line at the warning)
	stop  string // its delimiter
}

// Program is a parsed script, reusable across runs and safe for concurrent use.
type Program struct {
	src   *source
	stmts []*syntax.Stmt
	// err is the syntax error after stmts, if any: bash runs what precedes a syntax error and
	// then fails with status 2.
	err *syntax.ParseError
	// condErr: err is in a [[ ]] expression. Bash reports those from its conditional parser,
	// which leaves $? alone: the shell then exits with the status of the last command run.
	// condQuiet: the expression is empty (`[[ ]]`), which bash reports with no message.
	condErr, condQuiet bool
	// errLines is err as bash words it, a message per line.
	errLines []string
	// file is the parsed file (for Check); when err is set, the statements that run before it.
	file *syntax.File
	// sets is setOnly's answer, worked out once.
	setOnce sync.Once
	sets    [][]string
}

// File is the parsed syntax tree. When the source has a syntax error it holds the statements
// that run before the error (they must pass Check like any other).
func (p *Program) File() *syntax.File { return p.file }

// ErrText is the syntax error of the source as bash words it ("" when there is none).
func (p *Program) ErrText() string { return strings.Join(p.errLines, "; ") }

// EOFHereDoc is a here-document the text ends inside: bash runs it, with the rest of the
// text as its document, and warns.
type EOFHereDoc struct {
	Line  int    // the line of its operator
	Delim string // the delimiter that never came
}

// EOFHereDocs are the here-documents the source ends inside.
func (p *Program) EOFHereDocs() []EOFHereDoc {
	var out []EOFHereDoc
	for _, h := range p.src.eofHdocs {
		out = append(out, EOFHereDoc{Line: h.line, Delim: h.stop})
	}
	return out
}

// CondErr reports that the syntax error is in a [[ ]] expression, which the evaluator reports
// and recovers from as bash does.
func (p *Program) CondErr() bool { return p.err != nil && p.condErr }

// Err is the syntax error of the source, if any.
func (p *Program) Err() error {
	if p.err == nil {
		return nil
	}
	return p.err
}

func newParser() *syntax.Parser { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }

// Parse parses a script. A syntax error does not fail Parse: the program then runs the
// statements on the lines before the error and exits with status 2, as bash does; Err
// reports it. Only input the parser cannot read at all is an error.
func Parse(name string, src []byte) (p *Program, err error) {
	return ParseContext(context.Background(), name, src)
}

// ctxReader fails its reads once the call has ended: the parser reads its text a kilobyte at a
// time, so parsing a script of a megabyte (seconds on a loaded machine) stops with the call.
type ctxReader = sandbox.CtxReader

func ctxRead(ctx context.Context, r io.Reader) ctxReader { return ctxReader{Ctx: ctx, R: r} }

// ParseContext is Parse that stops, with ctx's error, when ctx ends.
func ParseContext(ctx context.Context, name string, src []byte) (p *Program, err error) {
	defer func() {
		// The parser is third-party code: a panic in it is a parse failure, not a crash.
		if rec := recover(); rec != nil {
			p, err = nil, fmt.Errorf("%s: parser failure: %v", name, rec)
		}
	}()
	if err := checkNesting(name, string(src)); err != nil {
		return nil, err
	}
	f, parsed, toggles, hdocs, err := parseBash(ctx, name, src, true)
	if len(hdocs) > 0 {
		src = append(src[:len(src):len(src)], parsed[len(src):]...) // the delimiters added
	}
	p = &Program{src: &source{name: name, text: string(src), cache: new(sync.Map), eofHdocs: hdocs}}
	if err == nil {
		err = strayReserved(f)
	}
	if err == nil {
		p.file, p.stmts = f, f.Stmts
		return p, nil
	}
	var pe syntax.ParseError
	if !errors.As(err, &pe) {
		return nil, err
	}
	p.err = &pe
	last := 0 // end of the last complete statement
	// Bash reads and runs one line at a time: everything on lines before the error runs.
	// (The loop never stops the parser early: mvdan's parser panics when it is stopped.)
	for s, err := range newParser().StmtsSeq(ctxRead(ctx, bytes.NewReader(parsed))) {
		if err != nil {
			break
		}
		if s.End().Line() < pe.Pos.Line() {
			markToggles(s, toggles)
			p.stmts = append(p.stmts, s)
		}
		if e := int(s.End().Offset()); e > last && e <= int(pe.Pos.Offset()) {
			last = e
		}
	}
	p.file = &syntax.File{Name: name, Stmts: p.stmts}
	failing := string(src[last:min(int(pe.Pos.Offset()), len(src))])
	p.condErr = isCondSyntaxError(&pe, failing)
	if off := int(pe.Pos.Offset()); off > 0 && off < len(src) && src[off] == '(' && strings.IndexByte("@*+?!", src[off-1]) >= 0 {
		// An extended pattern the parser cannot read (`@()`): bash may well accept it, so
		// the run must fail loudly with status 2, not end quietly with $?.
		p.condErr = false
	}
	p.errLines = []string{"syntax error: " + pe.Text}
	if lines := condSyntaxLines(&pe, string(src[:min(int(pe.Pos.Offset()), len(src))])); lines != nil {
		p.errLines = lines
	}
	p.condQuiet = p.condErr && emptyCond.MatchString(string(src[min(int(pe.Pos.Offset()), len(src)):]))
	if lines, at, ok := bashCondError(string(src), last, &pe); ok {
		// Bash stops at this [[ ]], on its line, where mvdan's parser read on.
		pe.Pos = posAt(string(src), at)
		p.condErr, p.condQuiet, p.errLines = true, len(lines) == 0, lines
		kept := p.stmts[:0]
		for _, s := range p.stmts {
			if s.End().Line() < pe.Pos.Line() {
				kept = append(kept, s)
			}
		}
		p.stmts = kept
		p.file.Stmts = kept
	}
	return p, nil
}

// parseString parses text run at run time (eval, trap, alias expansion); name and lineBase
// are for messages and LINENO.
//
// With endHdocs a here-document the text ends inside is ended there (s.eofHdocs, as for a
// script); without, it is the parser's syntax error.
func parseString(ctx context.Context, name, text string, lineBase int, endHdocs bool) (s *source, stmts []*syntax.Stmt, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			stmts, err = nil, fmt.Errorf("parser failure: %v", rec)
		}
	}()
	s = &source{name: name, text: text, lineBase: lineBase, cache: new(sync.Map)}
	if err := checkNesting(name, text); err != nil {
		return s, nil, err
	}
	f, parsed, _, hdocs, err := parseBash(ctx, name, []byte(text), endHdocs)
	if len(hdocs) > 0 {
		s.text, s.eofHdocs = text+string(parsed[len(text):]), hdocs
	}
	if err == nil {
		err = strayReserved(f)
	}
	if err != nil {
		return s, nil, bashWords(err, text)
	}
	return s, f.Stmts, nil
}

// posAt is the position of offset at in src.
func posAt(src string, at int) syntax.Pos {
	line := 1 + strings.Count(src[:at], "\n")
	return syntax.NewPos(uint(at), uint(line), uint(at-strings.LastIndexByte(src[:at], '\n')))
}

// The case toggles ${var~pattern} and ${var~~pattern}, which mvdan.cc/sh's parser does not
// know, are read as ${var^...} and ${var^^...} and their operator then set to one of these.
const (
	opToggleFirst syntax.ParExpOperator = 1<<16 + iota
	opToggleAll
)

// maxToggles bounds the case toggles one text may hold: each costs a parse of the whole text.
const maxToggles = 64

// parseBash parses src as bash. Where the parser stops at the ~ of a case toggle, that ~ (or
// ~~) becomes ^ (^^) in a copy of the text, which is parsed again, and the expansions found
// there are marked as toggles. The copy keeps the text's length, so every node's offsets are
// the original text's (which messages and declare -f slice). It returns the text it parsed
// and the offsets it changed.
//
// With endHdocs, where the text ends inside a here-document (the parser's "unclosed
// here-document"), its delimiter line is added to the text, which is parsed again: bash takes
// the rest of the text as the document, with a warning (eofHdoc). The nodes' offsets stay the
// original text's; the returned text has the delimiters.
func parseBash(ctx context.Context, name string, src []byte, endHdocs bool) (*syntax.File, []byte, []int, []eofHdoc, error) {
	text := src
	var at []int
	var hdocs []eofHdoc
	arithFixes := 0
	for {
		f, err := newParser().Parse(ctxRead(ctx, bytes.NewReader(text)), name)
		var pe syntax.ParseError
		if err != nil && errors.As(err, &pe) && endHdocs && len(hdocs) < maxEOFHdocs && strings.HasPrefix(pe.Text, unclosedHdoc) {
			if stop, qerr := strconv.Unquote(pe.Text[len(unclosedHdoc):]); qerr == nil && !strings.Contains(stop, "\n") {
				if hdocs == nil {
					text = bytes.Clone(text)
				}
				hdocs = append(hdocs, eofHdoc{at: pe.Pos.Offset(), line: int(pe.Pos.Line()), lines: textLines(src), stop: stop})
				if len(text) > 0 && text[len(text)-1] != '\n' {
					text = append(text, '\n')
				}
				text = append(append(text, stop...), '\n')
				continue
			}
		}
		if err != nil && errors.As(err, &pe) && len(at) < maxToggles && pe.Text == "not a valid parameter expansion operator: `~`" {
			if off := int(pe.Pos.Offset()); off < len(text) && text[off] == '~' {
				if at == nil && hdocs == nil && arithFixes == 0 {
					text = bytes.Clone(src)
				}
				text[off] = '^'
				if off+1 < len(text) && text[off+1] == '~' {
					text[off+1] = '^'
				}
				at = append(at, off)
				continue
			}
		}
		if err != nil && errors.As(err, &pe) && arithFixes == maxArithFixes {
			if _, _, ok := lateArith(text, int(pe.Pos.Offset())); ok {
				pe.Text += fmt.Sprintf("; the sandbox takes at most %d arithmetic expressions per script that only bash's evaluation parses (a syntax error, or an operator from an expansion); fix: keep such an expression in one variable: e=\"$a $op $b\"; echo $(( $e ))", maxArithFixes)
				err = pe
			}
		}
		if err != nil && errors.As(err, &pe) && arithFixes < maxArithFixes {
			if from, to, ok := lateArith(text, int(pe.Pos.Offset())); ok {
				if at == nil && hdocs == nil && arithFixes == 0 {
					text = bytes.Clone(src)
				}
				blankArith(text[from:to])
				arithFixes++
				continue
			}
		}
		if f != nil {
			markToggles(f, at)
		}
		return f, text, at, hdocs, err
	}
}

// maxArithFixes bounds the arithmetic expressions with a syntax error one text may hold (each
// costs a parse of the whole text).
const maxArithFixes = 16

// lateArith finds the arithmetic expression a parse error at offset off is in, when bash
// reports that error only on evaluating it: the text between $(( and )), (( and )) (not a for
// loop's), or $[ and ]. Bash parses these expressions when it evaluates them, after their
// expansions, so a script runs up to them (and past them, when they are not evaluated), and an
// operator or parenthesis may come from a variable (`$(( a $op b ))`); mvdan's parser rejects
// the whole script. Only expressions of literal text and simple parameter expansions are taken
// ($name, ${name}, $1, $#, $?; no other $, quote, backquote or backslash): the evaluator then
// reads the expression's original text with those expansions spliced in, which package arith
// evaluates with bash's message and status.
func lateArith(text []byte, off int) (from, to int, ok bool) {
	if off < 0 || off > len(text) {
		return 0, 0, false
	}
	for i := off - 1; i >= 0; i-- {
		var open, closer string
		switch {
		case i+3 <= len(text) && string(text[i:i+3]) == "$((":
			open, closer = "$((", "))"
		case i+2 <= len(text) && string(text[i:i+2]) == "$[":
			open, closer = "$[", "]"
		case i+2 <= len(text) && string(text[i:i+2]) == "((" && (i == 0 || text[i-1] != '$' && text[i-1] != '('):
			if forLoopBefore(text[:i]) {
				return 0, 0, false
			}
			open, closer = "((", "))"
		default:
			continue
		}
		from = i + len(open)
		end := arithClose(text, from, closer)
		if end < 0 || off > end {
			continue // not the expression the error is in
		}
		for j := from; j < end; {
			switch {
			case text[j] == '$':
				if j = simpleParam(text[:end], j); j < 0 {
					return 0, 0, false
				}
			case arithLiteral(text[j]):
				j++
			default:
				return 0, 0, false
			}
		}
		return from, end, true
	}
	return 0, 0, false
}

// forLoopBefore tells whether a (( follows the for keyword (for ((;;))).
func forLoopBefore(before []byte) bool {
	t := strings.TrimRight(string(before), " \t")
	return strings.HasSuffix(t, "for") && (len(t) == 3 || strings.ContainsRune(" \t\n;&|({", rune(t[len(t)-4])))
}

// arithClose is the offset of the closer of an arithmetic expression starting at from, or -1:
// the first closer at parenthesis depth 0, on the same line.
func arithClose(text []byte, from int, closer string) int {
	depth := 0
	for i := from; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\n':
			return -1
		case c == '(':
			depth++
		case depth == 0 && strings.HasPrefix(string(text[i:min(i+len(closer), len(text))]), closer):
			return i
		case c == ')':
			if depth == 0 {
				return -1
			}
			depth--
		}
	}
	return -1
}

// arithLiteral tells whether c may be in an expression taken by lateArith.
func arithLiteral(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte(" \t_+-*/%<>=!&|^~?:,()[]#@", c) >= 0
}

// simpleParam is the end of the simple parameter expansion at b[i] (a $): $name, $digit, $#,
// $?, $$, $!, or ${…} around one of those; -1 when it is none.
func simpleParam(b []byte, i int) int {
	j := i + 1
	braced := j < len(b) && b[j] == '{'
	if braced {
		j++
	}
	start := j
	switch {
	case j >= len(b):
		return -1
	case b[j] == '_' || b[j] >= 'a' && b[j] <= 'z' || b[j] >= 'A' && b[j] <= 'Z':
		for j < len(b) && (b[j] == '_' || b[j] >= 'a' && b[j] <= 'z' || b[j] >= 'A' && b[j] <= 'Z' || b[j] >= '0' && b[j] <= '9') {
			j++
		}
	case b[j] >= '0' && b[j] <= '9':
		j++
		for braced && j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	case strings.IndexByte("#?$!", b[j]) >= 0:
		j++
	}
	if j == start {
		return -1
	}
	if braced {
		if j >= len(b) || b[j] != '}' {
			return -1
		}
		j++
	}
	return j
}

// blankArith makes an expression's text one the parser reads, of the same length so that the
// nodes keep the original text's offsets: blanks, with its parameter expansions (simpleParam)
// kept where they are and a + before each one that follows a gap, or a 0 when it has none. The
// parser's nodes for the expansions are those the evaluator splices into the original text.
func blankArith(b []byte) {
	orig := bytes.Clone(b)
	for i := range b {
		b[i] = ' '
	}
	params, last := 0, -1
	for i := 0; i < len(orig); {
		if orig[i] != '$' {
			i++
			continue
		}
		end := simpleParam(orig, i)
		if end < 0 {
			end = i + 1 // not taken by lateArith: stays blank
		} else {
			copy(b[i:end], orig[i:end])
			if params > 0 && i > last {
				b[i-1] = '+'
			}
			params++
			last = end
		}
		i = end
	}
	if params == 0 && len(b) > 0 {
		b[0] = '0'
	}
}

// unclosedHdoc starts the parser's error for a text that ends inside a here-document (its
// delimiter follows, quoted by Go's %#q).
const unclosedHdoc = "unclosed here-document "

// maxEOFHdocs bounds the here-documents ended at the end of one text (each costs a parse of
// the whole text; `cat <<A <<B` with neither closed is two).
const maxEOFHdocs = 8

// textLines counts a text's lines as bash does when it reaches its end: a last line without
// a newline counts.
func textLines(src []byte) int {
	n := bytes.Count(src, []byte{'\n'})
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}

// markToggles sets the operator of the ${var^...} expansions under n whose ^ was a ~ of the
// text (at its offsets) to the toggle.
func markToggles(n syntax.Node, at []int) {
	if len(at) == 0 {
		return
	}
	syntax.Walk(n, func(node syntax.Node) bool {
		pe, ok := node.(*syntax.ParamExp)
		if !ok || pe.Param == nil || pe.Exp == nil || (pe.Exp.Op != syntax.UpperFirst && pe.Exp.Op != syntax.UpperAll) {
			return true
		}
		lo, hi := int(pe.Param.End().Offset()), int(pe.Rbrace.Offset())
		if w := pe.Exp.Word; w != nil && w.Pos().IsValid() {
			hi = int(w.Pos().Offset())
		}
		for _, k := range at {
			if k >= lo && k < hi {
				pe.Exp.Op = opToggleFirst + pe.Exp.Op - syntax.UpperFirst
				break
			}
		}
		return true
	})
}

// slice returns the source text between two positions of its nodes.
func (s *source) slice(from, to syntax.Pos) string {
	a, b := int(from.Offset()), int(to.Offset())
	if a < 0 || b > len(s.text) || a > b {
		return ""
	}
	return s.text[a:b]
}

// syntaxRefusal ends the run at a syntax error in text parsed while running (eval, source,
// a trap, an alias): bash words its syntax errors differently, accepts some text the parser
// rejects (${x!}) and recovers from them differently (a sourced file runs on), so going on
// with a message of our own would be a silent difference.
func (r *Runner) syntaxRefusal(what string, err error) error {
	if _, ok := err.(*condSyntaxError); ok {
		// Bash reports these too, but how depends on what runs the text (a trap's lines
		// before it run, then "exit trap: line N", "error trap: line N", or for RETURN
		// nothing at all; an alias ends the script): eval and source reproduce it, the rest
		// is refused.
		return r.refuseHere("a [[ ]] syntax error in "+what+" text ("+syntaxMessage(err)+"; bash reports it too, in words that depend on what runs the text)",
			"fix the [[ ]] expression")
	}
	return r.refuseHere(what+" text the engine cannot parse ("+syntaxMessage(err)+")",
		"fix the syntax of the text (bash may accept it: then run the tool with the native engine)")
}

// syntaxMessage renders a parse error as bash words it.
func syntaxMessage(err error) string {
	if ce, ok := err.(*condSyntaxError); ok {
		return fmt.Sprintf("line %d: %s", ce.Pos.Line(), strings.Join(ce.lines, "; "))
	}
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: syntax error: %s", pe.Pos.Line(), pe.Text)
	}
	return err.Error()
}

// withLineBase is the same source counted from another line (eval and trap strings run at
// different lines share their parse).
func (s *source) withLineBase(base int) *source {
	if s.lineBase == base {
		return s
	}
	c := *s
	c.lineBase = base
	return &c
}

// parseWords reads the words of a text (run-time re-reading of subscripts and patterns).
// A parser panic is an error.
func parseWords(text string) (words []*syntax.Word, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			words, err = nil, fmt.Errorf("parser failure: %v", rec)
		}
	}()
	if err := checkNesting("word", text); err != nil {
		return nil, err
	}
	// The loop never stops the parser early, except on its error: mvdan's parser panics when stopped.
	for w, werr := range newParser().WordsSeq(strings.NewReader(text)) {
		if werr != nil {
			return words, werr
		}
		words = append(words, w)
	}
	return words, nil
}

// parseDocument reads a here-document-like text (expansions only).
func parseDocument(text string) (w *syntax.Word, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			w, err = nil, fmt.Errorf("parser failure: %v", rec)
		}
	}()
	if err := checkNesting("here-document", text); err != nil {
		return nil, err
	}
	return newParser().Document(strings.NewReader(text))
}

// emptyCond is an empty [[ ]] where the error is.
var emptyCond = regexp.MustCompile(`^\[\[[ \t]+\]\]`)

// isCondSyntaxError tells whether a parse error comes from a [[ ]] expression. The parser
// gives only message text, so this relies on the texts of its test-clause errors (pinned by
// the differential cases): ones only [[ produces, and generic ones ("`&&` must be followed by
// an expression", also an arithmetic error) only when the failing command has a [[ word
// before the error and no arithmetic.
func isCondSyntaxError(pe *syntax.ParseError, failing string) bool {
	t := pe.Text
	switch {
	case strings.HasPrefix(t, "not a valid test operator"),
		strings.HasPrefix(t, "test operator words must"),
		strings.HasPrefix(t, "`[[` must be followed"),
		strings.HasPrefix(t, "expected `&&`, `||` or `]]`"),
		strings.HasSuffix(t, "without matching `[[` with `]]`"):
		return true
	}
	op, rest, ok := strings.Cut(strings.TrimPrefix(t, "`"), "` must be followed by ")
	if !ok || (rest != "a word" && rest != "an expression") {
		return false
	}
	if rest == "a word" && !(strings.HasPrefix(op, "-") || op == "=~" || op == "==" || op == "!=" || op == "=") {
		return false
	}
	if rest == "an expression" && (strings.Contains(failing, "((") || strings.Contains(failing, "$[") ||
		strings.Contains(failing, "let")) {
		return false // possibly an arithmetic error, which bash reports when running
	}
	for _, f := range strings.Fields(failing) {
		if f == "[[" {
			return true
		}
	}
	return false
}

// closingWords are reserved words that can only close a compound command. The parser takes
// one in command position as a command name; bash reports a syntax error.
var closingWords = map[string]bool{"then": true, "else": true, "elif": true, "fi": true, "do": true,
	"done": true, "esac": true}

// strayReserved finds the first command named by an unquoted closing reserved word.
func strayReserved(f *syntax.File) error {
	var found *syntax.ParseError
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		ce, ok := n.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 || len(ce.Args[0].Parts) != 1 {
			return true
		}
		if l, ok := ce.Args[0].Parts[0].(*syntax.Lit); ok && closingWords[l.Value] {
			found = &syntax.ParseError{Filename: f.Name, Pos: l.Pos(), Text: "near unexpected token `" + l.Value + "'"}
		}
		return true
	})
	if found != nil {
		return *found
	}
	return nil
}

// ParseCache keeps the parse of text run at run time, keyed by its name and text: tools
// source the same library and eval the same strings on every call, and parsing them again
// cost more than running them. Parsed statements are never written, so runs share them.
type ParseCache struct {
	mu    sync.Mutex
	m     map[parseKey]parsedText
	bytes int
}

type parseKey struct{ name, text string }

type parsedText struct {
	src   *source
	stmts []*syntax.Stmt
	err   error
	clean bool // parsed, and checkStmts refuses nothing in it
}

// Bounds of a ParseCache: a text above maxCachedText is parsed on every use; the cache
// starts over when it holds more than maxCacheTexts texts or maxCacheBytes of them.
const (
	maxCachedText = 256 << 10
	maxCacheTexts = 1024
	maxCacheBytes = 8 << 20
)

// NewParseCache returns an empty cache, safe for concurrent use.
func NewParseCache() *ParseCache { return &ParseCache{m: map[parseKey]parsedText{}} }

// parse returns parseString(name, text, 0), from the cache when it has been seen. clean
// reports that the text parsed and checkStmts refuses nothing in it (the check depends on the
// syntax alone, so it is cached with the parse; callers still run it to word a refusal).
func (p *ParseCache) parse(ctx context.Context, name, text string) (src *source, stmts []*syntax.Stmt, clean bool, err error) {
	if len(text) > maxCachedText {
		src, stmts, err = parseString(ctx, name, text, 0, true)
		return src, stmts, false, err
	}
	k := parseKey{name, text}
	p.mu.Lock()
	e, ok := p.m[k]
	p.mu.Unlock()
	if ok {
		return e.src, e.stmts, e.clean, e.err
	}
	src, stmts, err = parseString(ctx, name, text, 0, true)
	if ctx.Err() != nil {
		return src, stmts, false, err // cut short by the call's end: not the text's parse
	}
	clean = err == nil && len(checkStmts(src, stmts)) == 0
	p.mu.Lock()
	if len(p.m) >= maxCacheTexts || p.bytes+len(name)+len(text) > maxCacheBytes {
		clear(p.m)
		p.bytes = 0
	}
	p.m[k] = parsedText{src, stmts, err, clean}
	p.bytes += len(name) + len(text)
	p.mu.Unlock()
	return src, stmts, clean, err
}
