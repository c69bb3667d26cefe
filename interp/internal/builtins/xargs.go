package builtins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

func init() { register("xargs", xargs) }

var xargsSpec = optSpec{short: "0d:n:I:i::L:l::P:rtxs:a:E:e::op", long: []string{"null:0", "delimiter:d", "max-args:n",
	"replace=?", "max-lines:L", "max-procs:P", "no-run-if-empty:r", "verbose:t", "exit:x", "max-chars:s", "arg-file:a",
	"eof:E", "open-tty:o", "interactive:p"}}

// xargsLimit bounds one command line when neither -n nor -L is given (GNU uses ARG_MAX).
const (
	xargsMaxArgs  = 5000
	xargsMaxChars = 128 << 10
)

type xargsRun struct {
	ctx      context.Context
	env      *Env
	cmd      []string
	replace  string
	hasRepl  bool
	trace    bool
	status   int
	stop     bool
	maxArgs  int
	maxLines int
}

// xargs builds command lines from its input and runs them one at a time through env.Exec
// (so the sandbox resolves, limits and records each command).
func xargs(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "xargs", 1, xargsSpec, argv[1:])
	if !ok {
		return st
	}
	if fl.has("o", "p") {
		return errorf(env, 1, "xargs", "unsupported option -%s (no terminal in the sandbox)", map[bool]string{true: "o", false: "p"}[fl.has("o")])
	}
	x := &xargsRun{ctx: ctx, env: env, cmd: fl.operands, trace: fl.has("t")}
	if len(x.cmd) == 0 {
		x.cmd = []string{"echo"}
	}
	for _, o := range fl.opts {
		switch o.name {
		case "n", "L", "l", "P", "s":
			if o.val == "" && o.name == "l" {
				o.val = "1"
			}
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 0 {
				return errorf(env, 1, "xargs", "invalid number \"%s\" for -%s option", o.val, o.name)
			}
			// The last of -n, -L and -I wins, with GNU's warning for the one it overrides.
			switch o.name {
			case "n":
				if x.hasRepl {
					fmt.Fprintln(env.Stderr, "xargs: warning: options --replace and --max-args/-n are mutually exclusive, ignoring previous --replace value")
					x.hasRepl = false
				}
				x.maxArgs, x.maxLines = n, 0
			case "L", "l":
				if x.hasRepl {
					fmt.Fprintln(env.Stderr, "xargs: warning: options --replace and -L are mutually exclusive, ignoring previous --replace value")
					x.hasRepl = false
				}
				x.maxLines, x.maxArgs = n, 0
			}
		case "I", "i", "replace":
			switch {
			case x.maxArgs > 0:
				fmt.Fprintln(env.Stderr, "xargs: warning: options --max-args and --replace/-I/-i are mutually exclusive, ignoring previous --max-args value")
			case x.maxLines > 0:
				fmt.Fprintln(env.Stderr, "xargs: warning: options --max-lines and --replace/-I/-i are mutually exclusive, ignoring previous --max-lines value")
			}
			x.maxArgs, x.maxLines = 0, 0
			x.replace, x.hasRepl = o.val, true
			if x.replace == "" {
				x.replace = "{}"
			}
		}
	}
	if env.Exec == nil {
		return errorf(env, 126, "xargs", "running commands is not available here")
	}
	in := io.Reader(env.Stdin)
	if f, ok := fl.val("a"); ok {
		r, err := openInput(env, f)
		if err != nil {
			return errorf(env, 1, "xargs", "cannot open input file '%s': %s", f, describe(err))
		}
		defer r.Close()
		in = r
	}
	items := newXargsItems(ctxRead(ctx, in), fl)
	if x.hasRepl {
		return x.eachLine(items)
	}
	return x.batches(items, fl.has("r"))
}

func (x *xargsRun) run(argv []string) {
	if x.trace {
		fmt.Fprintln(x.env.Stderr, strings.Join(argv, " "))
	}
	rc := x.env.Exec(x.ctx, argv, x.env.Environ, strings.NewReader(""), x.env.Stdout, x.env.Stderr)
	switch {
	case x.ctx.Err() != nil:
		x.status, x.stop = 130, true
	case rc == 255:
		errorf(x.env, 0, "xargs", "%s: exited with status 255; aborting", argv[0])
		x.status, x.stop = 124, true
	case rc == 126 || rc == 127:
		x.status, x.stop = rc, true
	case rc != 0:
		x.status = 123
	}
}

// eachLine runs the command once per input line with REPL replaced (-I).
func (x *xargsRun) eachLine(items *xargsItems) int {
	items.lines = true
	for !x.stop {
		item, _, ok := items.next()
		if !ok {
			break
		}
		cmd := make([]string, len(x.cmd))
		size := 0
		for i, a := range x.cmd {
			size += len(a) + strings.Count(a, x.replace)*max(len(item)-len(x.replace), 0)
			if size > xargsMaxChars {
				items.err = errArgTooLong
				return x.finish(items)
			}
			cmd[i] = strings.ReplaceAll(a, x.replace, item)
		}
		x.run(cmd)
	}
	return x.finish(items)
}

func (x *xargsRun) batches(items *xargsItems, noRunEmpty bool) int {
	ran := false
	for !x.stop {
		var batch []string
		size, lines := 0, 0
		for {
			if x.maxArgs > 0 && len(batch) >= x.maxArgs || x.maxLines > 0 && lines >= x.maxLines ||
				len(batch) >= xargsMaxArgs || size >= xargsMaxChars {
				break
			}
			item, endOfLine, ok := items.next()
			if !ok {
				break
			}
			batch = append(batch, item)
			size += len(item) + 1
			if endOfLine {
				lines++
			}
		}
		if len(batch) == 0 {
			if !ran && !noRunEmpty && items.err == nil {
				x.run(slices.Clone(x.cmd))
			}
			break
		}
		ran = true
		x.run(append(slices.Clone(x.cmd), batch...))
	}
	return x.finish(items)
}

func (x *xargsRun) finish(items *xargsItems) int {
	if x.ctx.Err() != nil {
		return 130
	}
	if items.err != nil {
		return errorf(x.env, 1, "xargs", "%v", items.err)
	}
	return x.status
}

// xargsItems splits input into arguments: NUL- or delimiter-separated, or GNU's default of
// blanks and newlines with ”, "" and backslash quoting.
type xargsItems struct {
	br    *bufio.Reader
	delim int // -1: default parsing
	lines bool
	eof   string
	err   error
	done  bool
}

func newXargsItems(r io.Reader, fl *flagSet) *xargsItems {
	it := &xargsItems{br: bufio.NewReader(r), delim: -1}
	if fl.has("0") {
		it.delim = 0
	}
	if d, ok := fl.val("d"); ok {
		it.delim = int(unescapeDelim(d))
	}
	it.eof, _ = fl.val("E", "e")
	return it
}

func unescapeDelim(d string) byte {
	if len(d) == 2 && d[0] == '\\' {
		return map[byte]byte{'n': '\n', 't': '\t', '0': 0, '\\': '\\'}[d[1]]
	}
	if d == "" {
		return '\n'
	}
	return d[0]
}

// next returns the next argument and whether it ended an input line.
func (it *xargsItems) next() (string, bool, bool) {
	if it.done {
		return "", false, false
	}
	var s string
	var eol, ok bool
	switch {
	case it.delim >= 0:
		s, eol, ok = it.delimited()
	case it.lines:
		s, eol, ok = it.line()
	default:
		s, eol, ok = it.word()
	}
	if ok && it.eof != "" && s == it.eof {
		it.done = true
		return "", false, false
	}
	if !ok {
		it.done = true
	}
	return s, eol, ok
}

// errArgTooLong is GNU's refusal of an argument longer than the command line may be.
var errArgTooLong = errors.New("argument line too long")

// readUntil is bufio's ReadString, refusing to hold more than one command line's worth.
func readUntil(br *bufio.Reader, delim byte) (string, error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice(delim)
		if len(b)+len(chunk) > xargsMaxChars {
			return "", errArgTooLong
		}
		b = append(b, chunk...)
		if err != bufio.ErrBufferFull {
			return string(b), err
		}
	}
}

func (it *xargsItems) delimited() (string, bool, bool) {
	s, err := readUntil(it.br, byte(it.delim))
	if err != nil && err != io.EOF {
		it.err = err
		return "", false, false
	}
	if s == "" && err == io.EOF {
		return "", false, false
	}
	return strings.TrimSuffix(s, string(rune(it.delim))), true, true
}

// line reads one line for -I: leading blanks dropped, as GNU does.
func (it *xargsItems) line() (string, bool, bool) {
	for {
		s, err := readUntil(it.br, '\n')
		if err != nil && err != io.EOF {
			it.err = err
			return "", false, false
		}
		t := strings.TrimLeft(strings.TrimSuffix(s, "\n"), " \t")
		if t != "" {
			return t, true, true
		}
		if err == io.EOF {
			return "", false, false
		}
	}
}

func (it *xargsItems) word() (string, bool, bool) {
	var b strings.Builder
	started := false
	var quote byte
	for {
		if b.Len() > xargsMaxChars {
			it.err = errArgTooLong
			return "", false, false
		}
		c, err := it.br.ReadByte()
		if err != nil {
			if err != io.EOF {
				it.err = err
			} else if quote != 0 {
				it.err = fmt.Errorf("unmatched %s quote; by default quotes are special to xargs unless you use the -0 option",
					map[byte]string{'\'': "single", '"': "double"}[quote])
			}
			return b.String(), true, started && it.err == nil
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, started = c, true
		case c == '\\':
			if n, err := it.br.ReadByte(); err == nil {
				b.WriteByte(n)
				started = true
			}
		case c == ' ' || c == '\t' || c == '\n':
			if started {
				return b.String(), c == '\n' || it.atEOL(), true
			}
		default:
			b.WriteByte(c)
			started = true
		}
	}
}

// atEOL reports whether only blanks remain before the next newline (for -L counting).
func (it *xargsItems) atEOL() bool {
	for {
		c, err := it.br.ReadByte()
		if err != nil {
			return true
		}
		if c == '\n' {
			return true
		}
		if c != ' ' && c != '\t' {
			it.br.UnreadByte()
			return false
		}
	}
}
