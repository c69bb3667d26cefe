package builtins

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unsafe"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Address kinds.
const (
	addrLine = iota + 1
	addrLast
	addrRegex
	addrStep
	addrZero
)

// Kinds of second address.
const (
	rangeAddr = iota + 1
	rangePlus
	rangeTilde
)

type sedAddr struct {
	kind    int
	n, step int
	re      *regexp.Regexp // nil for // (the last regex used)
}

// replPart is one piece of an s replacement: literal text, a group (0 is &), or a case
// conversion (\U \L \u \l \E).
type replPart struct {
	lit    string
	group  int
	caseOp byte
}

type sedCmd struct {
	a1, a2    *sedAddr
	rangeKind int
	rangeN    int
	negate    bool
	name      byte

	re      *regexp.Regexp
	repl    []replPart
	global  bool
	nth     int
	printN  int
	ymap    map[rune]rune
	text    string
	label   string
	jump    int // { : index of the matching }; b t T: index of the label (or len(cmds))
	exit    int
	wrap    int
	active  bool // range state
	rangeTo int
}

// sedParser compiles a script (all -e/-f parts joined by newlines).
type sedParser struct {
	s    string
	i    int
	ere  bool
	utf8 bool // the locale is UTF-8: classes take in non-ASCII letters
	cmds []*sedCmd
	// ctx and mem bound the compile: a script of two million one-letter commands is seconds
	// of parsing and hundreds of MiB of commands, so the parser checks the call's end and
	// charges each command to the run's budget as it makes it.
	ctx context.Context
	mem share
}

// sedCmdSize is what one compiled command holds, besides its strings.
var sedCmdSize = int64(unsafe.Sizeof(sedCmd{})) + 8

type sedError struct {
	pos int
	msg string
}

func (e *sedError) Error() string { return fmt.Sprintf("-e expression #1, char %d: %s", e.pos, e.msg) }

func (p *sedParser) fail(msg string) error { return &sedError{p.i, msg} }

func (p *sedParser) eof() bool { return p.i >= len(p.s) }

func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedParser) skip(set string) {
	for !p.eof() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// parse compiles the whole script and resolves blocks and labels.
func (p *sedParser) parse() ([]*sedCmd, error) {
	var open []int
	for {
		p.skip(" \t\n;")
		if p.eof() {
			break
		}
		if p.peek() == '#' {
			for !p.eof() && p.peek() != '\n' {
				p.i++
			}
			continue
		}
		c, err := p.command()
		if err != nil {
			return nil, err
		}
		if len(p.cmds)&1023 == 0 && p.ctx != nil && p.ctx.Err() != nil {
			return nil, p.ctx.Err()
		}
		if err := p.mem.set(p.mem.held + sedCmdSize + int64(len(c.text)+len(c.label))); err != nil {
			return nil, err
		}
		switch c.name {
		case '{':
			open = append(open, len(p.cmds))
		case '}':
			if len(open) == 0 {
				return nil, p.fail("unexpected `}'")
			}
			p.cmds[open[len(open)-1]].jump = len(p.cmds)
			open = open[:len(open)-1]
		}
		p.cmds = append(p.cmds, c)
	}
	if len(open) > 0 {
		return nil, p.fail("unmatched `{'")
	}
	return p.cmds, p.resolveLabels()
}

func (p *sedParser) resolveLabels() error {
	labels := map[string]int{}
	for i, c := range p.cmds {
		if c.name == ':' {
			labels[c.label] = i
		}
	}
	for _, c := range p.cmds {
		if c.name != 'b' && c.name != 't' && c.name != 'T' {
			continue
		}
		if c.label == "" {
			c.jump = len(p.cmds)
			continue
		}
		i, ok := labels[c.label]
		if !ok {
			return fmt.Errorf("can't find label for jump to `%s'", c.label)
		}
		c.jump = i
	}
	return nil
}

func (p *sedParser) command() (*sedCmd, error) {
	c := &sedCmd{}
	var err error
	if c.a1, err = p.address(); err != nil {
		return nil, err
	}
	if c.a1 != nil && p.peek() == ',' {
		p.i++
		if err := p.secondAddress(c); err != nil {
			return nil, err
		}
	}
	p.skip(" \t")
	for p.peek() == '!' {
		c.negate = true
		p.i++
		p.skip(" \t")
	}
	if p.eof() {
		return nil, p.fail("missing command")
	}
	c.name = p.s[p.i]
	p.i++
	if c.a1 != nil && strings.IndexByte(":}", c.name) >= 0 {
		return nil, p.fail(fmt.Sprintf("%c doesn't want any addresses", c.name))
	}
	return c, p.arguments(c)
}

func (p *sedParser) number() int {
	j := p.i
	for !p.eof() && p.peek() >= '0' && p.peek() <= '9' {
		p.i++
	}
	n, _ := strconv.Atoi(p.s[j:p.i])
	return n
}

func (p *sedParser) address() (*sedAddr, error) {
	switch c := p.peek(); {
	case c == '$':
		p.i++
		return &sedAddr{kind: addrLast}, nil
	case c >= '0' && c <= '9':
		n := p.number()
		if p.peek() == '~' {
			p.i++
			return &sedAddr{kind: addrStep, n: n, step: p.number()}, nil
		}
		if n == 0 {
			return &sedAddr{kind: addrZero}, nil
		}
		return &sedAddr{kind: addrLine, n: n}, nil
	case c == '/' || c == '\\':
		if c == '\\' {
			p.i++
		}
		if p.eof() {
			return nil, p.fail("unexpected end of script")
		}
		delim := p.s[p.i]
		p.i++
		pat, err := p.delimited(delim, true)
		if err != nil {
			return nil, err
		}
		flags := ""
		for p.peek() == 'I' || p.peek() == 'M' {
			flags += map[byte]string{'I': "i", 'M': "m"}[p.peek()]
			p.i++
		}
		re, err := p.regex(pat, flags)
		return &sedAddr{kind: addrRegex, re: re}, err
	}
	return nil, nil
}

func (p *sedParser) secondAddress(c *sedCmd) error {
	p.skip(" \t")
	switch p.peek() {
	case '+', '~':
		if p.peek() == '+' {
			c.rangeKind = rangePlus
		} else {
			c.rangeKind = rangeTilde
		}
		p.i++
		c.rangeN = p.number()
		return nil
	}
	a2, err := p.address()
	if err != nil {
		return err
	}
	if a2 == nil || a2.kind == addrZero {
		return p.fail("unexpected `,'")
	}
	if c.a1.kind == addrZero && a2.kind != addrRegex {
		return p.fail("invalid usage of line address 0")
	}
	c.a2, c.rangeKind = a2, rangeAddr
	c.active = c.a1.kind == addrZero
	return nil
}

// delimited reads up to an unescaped delim. An escaped delim becomes the delim itself; in a
// regex, "\n" stays an escape and a newline is allowed.
func (p *sedParser) delimited(delim byte, isRegex bool) (string, error) {
	var b strings.Builder
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s):
			n := p.s[p.i+1]
			switch {
			case n == delim && delim != '&':
				b.WriteByte(delim)
			case n == '\n' && !isRegex:
				b.WriteString("\\n")
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			p.i += 2
			continue
		case c == '[' && isRegex:
			// A bracket expression may hold the delimiter unescaped.
			if j := bracketEnd(p.s, p.i); j > 0 && !strings.Contains(p.s[p.i:j], "\n") {
				b.WriteString(p.s[p.i : j+1])
				p.i = j + 1
				continue
			}
		case c == delim:
			p.i++
			return b.String(), nil
		case c == '\n' && isRegex:
			return "", p.fail("unterminated address regex")
		}
		b.WriteByte(c)
		p.i++
	}
	return "", p.fail(fmt.Sprintf("unterminated `%c' command", delim))
}

// regex compiles a sed regex: '.' matches a newline in the pattern space, matching is
// leftmost-longest, and an empty pattern means "the last regex used" (nil).
func (p *sedParser) regex(pat, flags string) (*regexp.Regexp, error) {
	if pat == "" {
		return nil, nil
	}
	if len(pat) > sandbox.MaxRegexpBytes {
		return nil, p.fail(fmt.Sprintf("regular expression too large for the sandbox (%d bytes); simplify it, or run the tool with \"exec\": \"native\"", len(pat)))
	}
	t, err := toRE2In(sedRegexEscapes(pat), p.ere, p.utf8)
	if err != nil {
		return nil, p.fail(err.Error())
	}
	re, err := sandbox.CompileRegexp("(?s" + flags + ")" + t)
	if err != nil {
		return nil, p.fail(err.Error())
	}
	re.Longest()
	return re, nil
}

// arguments parses what follows the command letter.
func (p *sedParser) arguments(c *sedCmd) error {
	switch c.name {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		return nil
	case 's':
		return p.substitute(c)
	case 'y':
		return p.transliterate(c)
	case 'a', 'i', 'c':
		return p.text(c)
	case ':':
		p.skip(" \t")
		c.label = p.label()
		if c.label == "" {
			return p.fail("\":\" lacks a label")
		}
		return nil
	case 'b', 't', 'T':
		p.skip(" \t")
		c.label = p.label()
		return nil
	case 'q', 'Q':
		p.skip(" \t")
		c.exit = p.number()
		return nil
	case 'l':
		p.skip(" \t")
		c.wrap = p.number()
		return nil
	case 'v':
		p.label()
		c.name = '}' // a no-op
		return nil
	case 'e', 'r', 'R', 'w', 'W':
		return p.fail(fmt.Sprintf("the `%c' command is not available in the sandbox", c.name))
	}
	return p.fail(fmt.Sprintf("unknown command: `%c'", c.name))
}

func (p *sedParser) label() string {
	j := p.i
	for !p.eof() && p.peek() != '\n' && p.peek() != ';' {
		p.i++
	}
	return strings.TrimRight(p.s[j:p.i], " \t")
}

func (p *sedParser) substitute(c *sedCmd) error {
	if p.eof() || p.peek() == '\n' || p.peek() == '\\' {
		return p.fail("unterminated `s' command")
	}
	delim := p.s[p.i]
	p.i++
	pat, err := p.delimited(delim, true)
	if err != nil {
		return err
	}
	repl, err := p.delimited(delim, false)
	if err != nil {
		return err
	}
	c.repl = parseReplacement(repl)
	flags := ""
	for done := false; !p.eof() && !done; {
		switch f := p.peek(); {
		case f == 'g':
			c.global = true
		case f == 'p':
			c.printN++
		case f == 'i' || f == 'I':
			flags += "i"
		case f == 'm' || f == 'M':
			flags += "m"
		case f >= '0' && f <= '9':
			c.nth = p.number()
			if c.nth == 0 {
				return p.fail("number option to `s' command may not be zero")
			}
			continue
		case f == 'e' || f == 'w':
			return p.fail(fmt.Sprintf("the `%c' flag of `s' is not available in the sandbox", f))
		case strings.IndexByte(" \t\n;}#", f) >= 0:
			done = true
			continue
		default:
			return p.fail("unknown option to `s'")
		}
		p.i++
	}
	c.re, err = p.regex(pat, flags)
	for _, part := range c.repl {
		if c.re != nil && part.group > c.re.NumSubexp() {
			return p.fail(fmt.Sprintf("invalid reference \\%d on `s' command's RHS", part.group))
		}
	}
	return err
}

// parseReplacement splits an s replacement into literal text, groups and case conversions.
func parseReplacement(s string) []replPart {
	var parts []replPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, replPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			flush()
			parts = append(parts, replPart{group: 0})
		case c == '\\' && i+1 < len(s):
			i++
			n := s[i]
			switch {
			case n >= '0' && n <= '9':
				flush()
				parts = append(parts, replPart{group: int(n - '0')})
			case strings.IndexByte("ULulE", n) >= 0:
				flush()
				parts = append(parts, replPart{group: -1, caseOp: n})
			default:
				if b, k, ok := sedEscape(s, i-1); ok {
					lit.WriteByte(b)
					i += k - 2
					continue
				}
				lit.WriteByte(n)
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts
}

func (p *sedParser) transliterate(c *sedCmd) error {
	if p.eof() {
		return p.fail("unterminated `y' command")
	}
	delim := p.s[p.i]
	p.i++
	a, err := p.delimited(delim, false)
	if err != nil {
		return err
	}
	b, err := p.delimited(delim, false)
	if err != nil {
		return err
	}
	from, to := []rune(unescapeY(a)), []rune(unescapeY(b))
	if len(from) != len(to) {
		return p.fail("strings for `y' command are different lengths")
	}
	c.ymap = map[rune]rune{}
	for i, r := range from {
		c.ymap[r] = to[i]
	}
	return nil
}

func unescapeY(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if c, k, ok := sedEscape(s, i); ok {
				b.WriteByte(c)
				i += k - 1
				continue
			}
			i++
			b.WriteByte(s[i])
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// text reads the text of a, i, c: "a\<newline>text", "a\text" or the GNU one-liner "a text";
// lines ending in a backslash continue the text.
func (p *sedParser) text(c *sedCmd) error {
	p.skip(" \t")
	if p.peek() == '\\' {
		p.i++
		if p.peek() == '\n' {
			p.i++
		}
	}
	if p.eof() {
		return p.fail("expected \\ after `a', `c' or `i'")
	}
	var b strings.Builder
	for !p.eof() {
		ch := p.s[p.i]
		if ch == '\\' && p.i+1 < len(p.s) {
			if c, k, ok := sedEscape(p.s, p.i); ok {
				b.WriteByte(c)
				p.i += k
				continue
			}
			b.WriteByte(p.s[p.i+1])
			p.i += 2
			continue
		}
		if ch == '\n' {
			break
		}
		b.WriteByte(ch)
		p.i++
	}
	c.text = b.String()
	return nil
}

var errSedNoScript = errors.New("no script specified")

// sedEscape decodes GNU sed's character escapes at s[i] == '\\': \a \f \n \r \t \v, \cX
// (control-X), \dNNN (decimal), \oNNN (octal), \xHH (hex). It returns the byte and the
// length of the escape; ok is false for any other escape.
func sedEscape(s string, i int) (byte, int, bool) {
	if i+1 >= len(s) {
		return 0, 0, false
	}
	switch c := s[i+1]; c {
	case 'a':
		return '\a', 2, true
	case 'f':
		return '\f', 2, true
	case 'n':
		return '\n', 2, true
	case 'r':
		return '\r', 2, true
	case 't':
		return '\t', 2, true
	case 'v':
		return '\v', 2, true
	case 'c':
		if i+2 < len(s) {
			x := s[i+2]
			if x >= 'a' && x <= 'z' {
				x -= 'a' - 'A'
			}
			return x ^ 0x40, 3, true
		}
	case 'd', 'o', 'x':
		base, width := 10, 3
		if c == 'o' {
			base = 8
		} else if c == 'x' {
			base, width = 16, 2
		}
		j := i + 2
		for j < len(s) && j < i+2+width && digitValue(s[j]) < base {
			j++
		}
		if j == i+2 {
			return 0, 0, false
		}
		v, err := strconv.ParseUint(s[i+2:j], base, 16)
		if err != nil || v > 255 {
			return 0, 0, false
		}
		return byte(v), j - i, true
	}
	return 0, 0, false
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

// sedRegexEscapes turns the numeric and control escapes of a sed regex into the characters
// they name, which then mean what they mean in a regex (GNU sed: s/\x2e/X/ matches any
// character); a backslash made so is a literal one. \n and \t are left to toRE2.
func sedRegexEscapes(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] != '\\' || i+1 >= len(p) {
			b.WriteByte(p[i])
			continue
		}
		if n := p[i+1]; n != 'n' && n != 't' {
			if c, k, ok := sedEscape(p, i); ok {
				if c == '\\' {
					b.WriteString(`\\`)
				} else {
					b.WriteByte(c)
				}
				i += k - 1
				continue
			}
		}
		b.WriteByte(p[i])
		b.WriteByte(p[i+1])
		i++
	}
	return b.String()
}
