package builtins

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

func init() {
	register("cut", cut)
	register("paste", paste)
	register("comm", comm)
	register("uniq", uniq)
}

// span is an inclusive range of 1-based positions.
type span struct{ lo, hi int }

// parseList reads cut's LIST: N, N-, N-M, -M, comma separated.
func parseList(list string) ([]span, error) {
	var out []span
	for _, part := range strings.Split(list, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, hi := 1, int(^uint(0)>>1)
		var err error
		if a != "" {
			if lo, err = strconv.Atoi(a); err != nil || lo < 1 {
				return nil, fmt.Errorf("invalid field value '%s'", part)
			}
		} else if !isRange {
			return nil, fmt.Errorf("invalid field value '%s'", part)
		}
		switch {
		case !isRange:
			hi = lo
		case b != "":
			if hi, err = strconv.Atoi(b); err != nil || hi < 1 {
				return nil, fmt.Errorf("invalid field value '%s'", part)
			}
		case a == "":
			return nil, fmt.Errorf("invalid range with no endpoint: -")
		}
		if hi < lo {
			return nil, fmt.Errorf("invalid decreasing range")
		}
		out = append(out, span{lo, hi})
	}
	return out, nil
}

func inList(l []span, i int) bool {
	for _, s := range l {
		if i >= s.lo && i <= s.hi {
			return true
		}
	}
	return false
}

var cutSpec = optSpec{short: "b:c:f:d:snz", long: []string{"bytes:b", "characters:c", "fields:f", "delimiter:d",
	"only-delimited:s", "complement", "output-delimiter=", "zero-terminated:z"}, permute: true}

// cut selects bytes, characters or fields. Characters are bytes, as in GNU cut (which has no
// multibyte support: -c splits a UTF-8 character as -b does).
func cut(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "cut", 1, cutSpec, argv[1:])
	if !ok {
		return st
	}
	mode, list := "", ""
	for _, o := range fl.opts {
		if o.name == "b" || o.name == "c" || o.name == "f" {
			if mode != "" && mode != o.name {
				return errorf(env, 1, "cut", "only one type of list may be specified")
			}
			mode, list = o.name, o.val
		}
	}
	if mode == "" {
		return errorf(env, 1, "cut", "you must specify a list of bytes, characters, or fields")
	}
	spans, err := parseList(list)
	if err != nil {
		return errorf(env, 1, "cut", "%v", err)
	}
	delim, hasDelim := fl.val("d")
	if !hasDelim {
		delim = "\t"
	}
	if len(delim) > 1 {
		// One byte, as GNU cut takes it; an empty one is NUL.
		return errorf(env, 1, "cut", "the delimiter must be a single character")
	}
	if delim == "" {
		delim = "\x00"
	}
	if mode != "f" && (hasDelim || fl.has("s")) {
		return errorf(env, 1, "cut", "an input delimiter may be specified only when operating on fields")
	}
	outDelim, hasOut := fl.val("output-delimiter")
	if !hasOut {
		outDelim = delim
		if mode != "f" {
			outDelim = ""
		}
	}
	c := cutter{ctx: ctx, spans: spans, mode: mode, delim: delim, outDelim: outDelim, hasOut: hasOut,
		onlyDelim: fl.has("s"), complement: fl.has("complement")}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	return eachInput(ctx, env, "cut", fl.operands, func(_ string, r io.Reader) error {
		lr := newLineReader(r)
		if fl.has("z") {
			lr.sep = 0
		}
		for {
			line, _, ok := lr.next()
			if !ok {
				return lr.err
			}
			if c.line(w, line) {
				w.WriteByte(lr.sep)
			}
		}
	})
}

type cutter struct {
	// ctx is the call's: a line of millions of fields checks it.
	ctx                           context.Context
	spans                         []span
	mode, delim, outDelim         string
	hasOut, onlyDelim, complement bool
}

func (c *cutter) want(i int) bool { return inList(c.spans, i) != c.complement }

// line writes the selected part of one line; false means the line is suppressed.
func (c *cutter) line(w *bufio.Writer, line []byte) bool {
	switch c.mode {
	case "f":
		if !bytes.Contains(line, []byte(c.delim)) {
			if c.onlyDelim {
				return false
			}
			w.Write(line)
			return true
		}
		// Fields are found one at a time: a 64 MB line of delimiters is 64 million fields,
		// which splitting first would hold as slice headers (1.5 GB), uncharged.
		first, d := true, []byte(c.delim)
		for i, rest := 1, line; ; i++ {
			if i&0xffff == 0 && c.ctx.Err() != nil {
				return false
			}
			f, j := rest, bytes.Index(rest, d)
			if j >= 0 {
				f = rest[:j]
			}
			if c.want(i) {
				if !first {
					w.WriteString(c.outDelim)
				}
				w.Write(f)
				first = false
			}
			if j < 0 {
				break
			}
			rest = rest[j+len(d):]
		}
	default:
		c.pieces(len(line), w, func(i int) { w.WriteByte(line[i]) })
	}
	return true
}

// pieces writes the selected positions of n, putting --output-delimiter between separate
// ranges.
func (c *cutter) pieces(n int, w *bufio.Writer, put func(int)) {
	prev, any := false, false
	for i := 0; i < n; i++ {
		keep := c.want(i + 1)
		if keep && !prev && any && c.hasOut {
			w.WriteString(c.outDelim)
		}
		if keep {
			put(i)
			any = true
		}
		prev = keep
	}
}

// pasteDelims expands paste's -d list (\n \t \\ \0).
func pasteDelims(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			out = append(out, map[byte]string{'n': "\n", 't': "\t", '0': "", '\\': "\\"}[s[i]])
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		out = append(out, s[i:i+size])
		i += size - 1
	}
	return out
}

func paste(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "paste", 1, optSpec{short: "d:s", long: []string{"delimiters:d", "serial:s"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	delims := []string{"\t"}
	if d, ok := fl.val("d"); ok {
		if delims = pasteDelims(d); len(delims) == 0 {
			delims = []string{""}
		}
	}
	files := fl.operands
	if len(files) == 0 {
		files = []string{"-"}
	}
	var readers []*lineReader
	status := 0
	stdin := newLineReader(ctxRead(ctx, env.Stdin))
	for _, f := range files {
		if f == "-" {
			readers = append(readers, stdin)
			continue
		}
		r, err := openInput(env, f)
		if err != nil {
			return errorf(env, 1, "paste", "%s: %s", f, describe(err))
		}
		defer r.Close()
		readers = append(readers, newLineReader(ctxRead(ctx, r)))
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	if fl.has("s") {
		for _, lr := range readers {
			for i := 0; ; i++ {
				line, _, ok := lr.next()
				if !ok {
					break
				}
				if i > 0 {
					w.WriteString(delims[(i-1)%len(delims)])
				}
				w.Write(line)
			}
			w.WriteByte('\n')
		}
		if ctx.Err() != nil {
			return 130
		}
		return status
	}
	for ctx.Err() == nil {
		var b bytes.Buffer
		live := 0
		for i, lr := range readers {
			if i > 0 {
				b.WriteString(delims[(i-1)%len(delims)])
			}
			if line, _, ok := lr.next(); ok {
				b.Write(line)
				live++
			}
		}
		if live == 0 {
			break
		}
		b.WriteByte('\n')
		w.Write(b.Bytes())
	}
	if ctx.Err() != nil {
		return 130
	}
	return status
}

func comm(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "comm", 1, optSpec{short: "123", long: []string{"output-delimiter=", "check-order", "nocheck-order", "total"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	if len(fl.operands) != 2 {
		return errorf(env, 1, "comm", "requires two files")
	}
	var lrs [2]*lineReader
	for i, f := range fl.operands {
		r, err := openInput(env, f)
		if err != nil {
			return errorf(env, 1, "comm", "%s: %s", f, describe(err))
		}
		defer r.Close()
		lrs[i] = newLineReader(ctxRead(ctx, r))
	}
	sep, ok := fl.val("output-delimiter")
	if !ok {
		sep = "\t"
	}
	cols := [3]bool{!fl.has("1"), !fl.has("2"), !fl.has("3")}
	unpaired := false
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	var totals [3]int
	emit := func(col int, line string) {
		totals[col]++
		unpaired = unpaired || col < 2
		if !cols[col] {
			return
		}
		for i := 0; i < col; i++ {
			if cols[i] {
				w.WriteString(sep)
			}
		}
		w.WriteString(line + "\n")
	}
	var cur [2]string
	var has [2]bool
	var prev [2]string
	var warned [2]bool
	checkOrder, noCheck := fl.has("check-order"), fl.has("nocheck-order")
	stop := false
	// As GNU: a line out of order is reported when it is read, once per file, if some line
	// was unpairable by then (always with --check-order, which then stops).
	next := func(i int) {
		line, _, ok := lrs[i].next()
		has[i] = ok
		if ok {
			if string(line) < prev[i] && !warned[i] && !noCheck && (checkOrder || unpaired) {
				w.Flush()
				errorf(env, 1, "comm", "file %d is not in sorted order", i+1)
				warned[i] = true
				stop = checkOrder
			}
			cur[i], prev[i] = string(line), string(line)
		}
	}
	next(0)
	next(1)
	for (has[0] || has[1]) && !stop {
		switch {
		case has[0] && (!has[1] || cur[0] < cur[1]):
			emit(0, cur[0])
			next(0)
		case has[1] && (!has[0] || cur[1] < cur[0]):
			emit(1, cur[1])
			next(1)
		default:
			emit(2, cur[0])
			next(0)
			next(1)
		}
	}
	if stop {
		return 1
	}
	if fl.has("total") {
		fmt.Fprintf(w, "%d%s%d%s%d%stotal\n", totals[0], sep, totals[1], sep, totals[2], sep)
	}
	if warned[0] || warned[1] {
		w.Flush()
		return errorf(env, 1, "comm", "input is not in sorted order")
	}
	return 0
}

var uniqSpec = optSpec{short: "cduif:s:w:Dz", long: []string{"count:c", "repeated:d", "unique:u", "ignore-case:i",
	"skip-fields:f", "skip-chars:s", "check-chars:w", "all-repeated=?", "zero-terminated:z"}, permute: true}

func uniq(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "uniq", 1, uniqSpec, argv[1:])
	if !ok {
		return st
	}
	num := func(k string) int {
		v, _ := fl.val(k)
		n, _ := strconv.Atoi(v)
		return n
	}
	skipFields, skipChars, check := num("f"), num("s"), num("w")
	if len(fl.operands) > 2 {
		return errorf(env, 1, "uniq", "extra operand '%s'", fl.operands[2])
	}
	out := env.Stdout
	if len(fl.operands) == 2 && fl.operands[1] != "-" {
		f, err := env.FS.Open(env.Abs(fl.operands[1]), writeFlags(false), env.Perm(0o666))
		if err != nil {
			return errorf(env, 1, "uniq", "%s: %s", fl.operands[1], describe(err))
		}
		defer f.Close()
		out = f
	}
	key := func(line string) string {
		for i := 0; i < skipFields; i++ {
			line = strings.TrimLeft(line, " \t")
			if j := strings.IndexAny(line, " \t"); j >= 0 {
				line = line[j:]
			} else {
				line = ""
			}
		}
		line = line[min(skipChars, len(line)):]
		if check > 0 && check < len(line) {
			line = line[:check]
		}
		if fl.has("i") {
			line = strings.ToLower(line)
		}
		return line
	}
	all := fl.has("D", "all-repeated")
	w := bufio.NewWriter(out)
	defer w.Flush()
	return eachInput(ctx, env, "uniq", fl.operands[:min(1, len(fl.operands))], func(_ string, r io.Reader) error {
		lr := newLineReader(r)
		var first string
		var group []string // every line of the group, for -D only (charged to the budget)
		held := share{m: meterOf(ctx)}
		n := 0
		flush := func() {
			switch {
			case n == 0:
			case fl.has("d") && n < 2, fl.has("u") && n > 1:
			case all:
				if n > 1 {
					for _, l := range group {
						w.WriteString(l + "\n")
					}
				}
			case fl.has("c"):
				fmt.Fprintf(w, "%7d %s\n", n, first)
			default:
				w.WriteString(first + "\n")
			}
			group, n = group[:0], 0
			held.set(0)
		}
		for {
			line, _, ok := lr.next()
			if !ok {
				flush()
				return lr.err
			}
			s := string(line)
			if n > 0 && key(first) != key(s) {
				flush()
			}
			if n == 0 {
				first = s
			}
			n++
			if all {
				if err := held.set(held.held + lineCost(len(s))); err != nil {
					return err
				}
				group = append(group, s)
			}
		}
	})
}
