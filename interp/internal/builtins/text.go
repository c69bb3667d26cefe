package builtins

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

func init() {
	register("head", head)
	register("tail", tail)
	register("wc", wc)
	register("tee", tee)
	register("tac", tac)
	register("rev", rev)
	register("nl", nl)
}

// parseCount reads a head/tail count with an optional multiplier suffix (b K M G, KB MB GB).
func parseCount(s string) (int64, bool) {
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"kB", 1000}, {"KB", 1000}, {"MB", 1e6}, {"GB", 1e9},
		{"b", 512}, {"K", 1 << 10}, {"k", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if rest, ok := strings.CutSuffix(s, suf.s); ok && rest != "" {
			s, mult = rest, suf.m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n * mult, true
}

// header prints "==> name <==" between files, as head and tail do with several inputs.
func header(w io.Writer, name string, first bool) {
	if name == "-" {
		name = "standard input"
	}
	if !first {
		io.WriteString(w, "\n")
	}
	fmt.Fprintf(w, "==> %s <==\n", name)
}

var headSpec = optSpec{short: "n:c:qv", long: []string{"lines:n", "bytes:c", "quiet:q", "silent:q", "verbose:v"}, permute: true, digits: true}

func head(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "head", 1, headSpec, argv[1:])
	if !ok {
		return st
	}
	spec, bytesMode := countSpec(fl)
	allBut := strings.HasPrefix(spec, "-")
	n, ok := parseCount(strings.TrimPrefix(spec, "-"))
	if !ok {
		return errorf(env, 1, "head", "invalid number of %s: '%s'", countUnit(bytesMode), spec)
	}
	files := fl.operands
	show := (len(files) > 1 && !fl.has("q")) || fl.has("v")
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	first := true
	return eachInput(ctx, env, "head", files, func(name string, r io.Reader) error {
		if show {
			header(w, name, first)
		}
		first = false
		switch {
		case bytesMode && allBut:
			return dropLastBytes(w, r, n, meterOf(ctx))
		case bytesMode:
			_, err := io.CopyN(w, r, n)
			if err == io.EOF {
				err = nil
			}
			return err
		case allBut:
			return dropLastLines(w, r, n, meterOf(ctx))
		}
		lr := newLineReader(r)
		for i := int64(0); i < n; i++ {
			line, nl, ok := lr.next()
			if !ok {
				return lr.err
			}
			w.Write(line)
			if nl {
				w.WriteByte('\n')
			}
		}
		return nil
	})
}

// dropLastLines copies all but the last n lines, holding only n lines (charged to m).
func dropLastLines(w *bufio.Writer, r io.Reader, n int64, m *meter) error {
	sh := &share{m: m}
	var ring [][]byte
	var held int64
	lr := newLineReader(r)
	for {
		line, nl, ok := lr.next()
		if !ok {
			break
		}
		if nl {
			line = append(line, '\n')
		}
		ring = append(ring, bytes.Clone(line))
		held += lineCost(len(line))
		if int64(len(ring)) > n {
			w.Write(ring[0])
			held -= lineCost(len(ring[0]))
			ring = ring[1:]
		}
		if err := sh.set(held); err != nil {
			return err
		}
	}
	return lr.err
}

func dropLastBytes(w *bufio.Writer, r io.Reader, n int64, m *meter) error {
	sh := &share{m: m}
	var held []byte
	buf := make([]byte, 64<<10)
	for {
		k, err := r.Read(buf)
		held = append(held, buf[:k]...)
		if extra := int64(len(held)) - n; extra > 0 {
			w.Write(held[:extra])
			held = append(held[:0], held[extra:]...)
		}
		if merr := sh.set(int64(cap(held))); merr != nil {
			return merr
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var tailSpec = optSpec{short: "n:c:qvfF", long: []string{"lines:n", "bytes:c", "quiet:q", "silent:q", "verbose:v", "follow=?", "retry"}, permute: true, digits: true}

func tail(ctx context.Context, env *Env, argv []string) int {
	args := argv[1:]
	// The obsolete "tail +N" form.
	if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '+' && args[0][1] >= '0' && args[0][1] <= '9' {
		args = append([]string{"-n", args[0]}, args[1:]...)
	}
	fl, st, ok := parseFlags(env, "tail", 1, tailSpec, args)
	if !ok {
		return st
	}
	if fl.has("f", "F", "follow") {
		return errorf(env, 1, "tail", "unsupported option -f (following files is not available in the sandbox)")
	}
	spec, bytesMode := countSpec(fl)
	fromStart := strings.HasPrefix(spec, "+")
	n, ok := parseCount(strings.TrimLeft(spec, "+-"))
	if !ok {
		return errorf(env, 1, "tail", "invalid number of %s: '%s'", countUnit(bytesMode), spec)
	}
	show := (len(fl.operands) > 1 && !fl.has("q")) || fl.has("v")
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	first := true
	return eachInput(ctx, env, "tail", fl.operands, func(name string, r io.Reader) error {
		if show {
			header(w, name, first)
		}
		first = false
		switch {
		case bytesMode && fromStart:
			if _, err := io.CopyN(io.Discard, r, max(n-1, 0)); err != nil {
				return ignoreEOF(err)
			}
			_, err := io.Copy(w, r)
			return err
		case bytesMode:
			return lastBytes(w, r, n, meterOf(ctx))
		case fromStart:
			return linesFrom(w, r, n)
		}
		return lastLines(w, r, n, meterOf(ctx))
	})
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

func linesFrom(w *bufio.Writer, r io.Reader, n int64) error {
	lr := newLineReader(r)
	for i := int64(1); ; i++ {
		line, nl, ok := lr.next()
		if !ok {
			return lr.err
		}
		if i >= n {
			w.Write(line)
			if nl {
				w.WriteByte('\n')
			}
		}
	}
}

// lastLines keeps a ring of the last n lines, so memory stays bounded by n (and charged to m).
func lastLines(w *bufio.Writer, r io.Reader, n int64, m *meter) error {
	sh := &share{m: m}
	if n == 0 {
		_, err := io.Copy(io.Discard, r)
		return err
	}
	ring := make([][]byte, 0, min(n, 1024))
	start := 0
	var held int64
	lr := newLineReader(r)
	for {
		line, nl, ok := lr.next()
		if !ok {
			break
		}
		if nl {
			line = append(line, '\n')
		}
		if int64(len(ring)) < n {
			ring = append(ring, bytes.Clone(line))
			held += lineCost(cap(ring[len(ring)-1]))
		} else {
			before := cap(ring[start])
			ring[start] = append(ring[start][:0], line...)
			held += int64(cap(ring[start]) - before)
			start = (start + 1) % len(ring)
		}
		if err := sh.set(held); err != nil {
			return err
		}
	}
	for i := range ring {
		w.Write(ring[(start+i)%len(ring)])
	}
	return lr.err
}

func lastBytes(w *bufio.Writer, r io.Reader, n int64, m *meter) error {
	sh := &share{m: m}
	var held []byte
	buf := make([]byte, 64<<10)
	for {
		k, err := r.Read(buf)
		held = append(held, buf[:k]...)
		if extra := int64(len(held)) - n; extra > 0 {
			held = append(held[:0], held[extra:]...)
		}
		if merr := sh.set(int64(cap(held))); merr != nil {
			return merr
		}
		if err == io.EOF {
			w.Write(held)
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// wcCounts are lines, words, chars, bytes and the longest line.
type wcCounts struct{ lines, words, chars, bytes, longest int64 }

func (c *wcCounts) add(o wcCounts) {
	c.lines += o.lines
	c.words += o.words
	c.chars += o.chars
	c.bytes += o.bytes
	c.longest = max(c.longest, o.longest)
}

// countStream counts in fixed-size chunks, so any input size uses constant memory.
func countStream(r io.Reader) (wcCounts, error) {
	var c wcCounts
	buf := make([]byte, 64<<10)
	inWord := false
	var lineLen int64
	for {
		n, err := r.Read(buf)
		for _, b := range buf[:n] {
			c.bytes++
			if b&0xC0 != 0x80 {
				c.chars++
				lineLen++
			}
			switch b {
			case '\n':
				c.lines++
				c.longest = max(c.longest, lineLen-1)
				lineLen = 0
				inWord = false
			case ' ', '\t', '\r', '\v', '\f':
				if b == '\t' {
					lineLen += 7 - (lineLen-1)%8
				}
				inWord = false
			default:
				if !inWord {
					c.words++
				}
				inWord = true
			}
		}
		if err == io.EOF {
			c.longest = max(c.longest, lineLen)
			return c, nil
		}
		if err != nil {
			return c, err
		}
	}
}

var wcSpec = optSpec{short: "lwcmL", long: []string{"lines:l", "words:w", "chars:m", "bytes:c", "max-line-length:L"}, permute: true}

// wcRegular tells whether wc's input name ("-": standard input) is a regular file.
func wcRegular(env *Env, name string) bool {
	var fi fs.FileInfo
	var err error
	if name == "-" {
		st, ok := env.Stdin.(interface{ Stat() (fs.FileInfo, error) })
		if !ok {
			return false
		}
		fi, err = st.Stat()
	} else {
		fi, err = env.FS.Stat(env.Abs(name))
	}
	return err == nil && fi.Mode().IsRegular()
}

func wc(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "wc", 1, wcSpec, argv[1:])
	if !ok {
		return st
	}
	show := map[string]bool{}
	for _, o := range fl.opts {
		show[o.name] = true
	}
	if len(show) == 0 {
		show = map[string]bool{"l": true, "w": true, "c": true}
	}
	files := fl.operands
	type row struct {
		c    wcCounts
		name string
		ok   bool
	}
	var rows []row
	var total wcCounts
	regular, other := int64(0), false
	status := eachInput(ctx, env, "wc", files, func(name string, r io.Reader) error {
		c, err := countStream(r)
		if wcRegular(env, name) {
			regular += c.bytes
		} else {
			other = true
		}
		total.add(c)
		rows = append(rows, row{c, name, err == nil})
		return err
	})
	if status == 130 {
		return status
	}
	// GNU's width: digits of the total size of the regular files, standard input included
	// when it is one (at least 7 when any input is not: a pipe, a device); one count of one
	// file is not padded.
	width := len(strconv.FormatInt(regular, 10))
	if other {
		width = max(width, 7)
	}
	if len(show) == 1 && len(files) <= 1 {
		width = 1
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	print := func(c wcCounts, name string) {
		var parts []string
		for _, k := range []struct {
			key string
			v   int64
		}{{"l", c.lines}, {"w", c.words}, {"m", c.chars}, {"c", c.bytes}, {"L", c.longest}} {
			if show[k.key] {
				parts = append(parts, fmt.Sprintf("%*d", width, k.v))
			}
		}
		line := strings.Join(parts, " ")
		if name != "" {
			line += " " + name
		}
		w.WriteString(line + "\n")
	}
	for _, r := range rows {
		name := r.name
		if len(files) == 0 {
			name = ""
		}
		print(r.c, name)
	}
	if len(files) > 1 {
		print(total, "total")
	}
	return status
}

func tee(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "tee", 1, optSpec{short: "aip", long: []string{"append:a", "ignore-interrupts:i", "output-error=?"}, permute: true}, argv[1:])
	if !ok {
		return st
	}
	type output struct {
		name string
		w    io.Writer
	}
	outs := []output{{"standard output", env.Stdout}}
	status := 0
	for _, f := range fl.operands {
		if f == "-" {
			outs = append(outs, output{"standard output", env.Stdout})
			continue
		}
		fh, err := openFile(env, f, writeFlags(fl.has("a")), env.Perm(0o666))
		if err != nil {
			status = errorf(env, 1, "tee", "%s: %s", f, describe(err))
			continue
		}
		defer fh.Close()
		outs = append(outs, output{f, fh})
	}
	// As GNU tee: an output that fails is named once and dropped; the others get the rest.
	in := ctxRead(ctx, env.Stdin)
	buf := make([]byte, 32*1024)
	for len(outs) > 0 {
		n, rerr := in.Read(buf)
		if n > 0 {
			outs = slices.DeleteFunc(outs, func(o output) bool {
				if _, err := o.w.Write(buf[:n]); err != nil {
					if ctx.Err() == nil { // else the call ended, or the pipe's reader left (SIGPIPE)
						status = errorf(env, 1, "tee", "%s: %s", o.name, describe(err))
					}
					return true
				}
				return false
			})
			if ctx.Err() != nil {
				return 130
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if ctx.Err() != nil {
				return 130
			}
			return errorf(env, 1, "tee", "%s", describe(rerr))
		}
	}
	return status
}

// tac prints records in reverse; a last record without a newline stays without one, as GNU
// tac does.
func tac(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "tac", 1, optSpec{permute: true}, argv[1:])
	if !ok {
		return st
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	return eachInput(ctx, env, "tac", fl.operands, func(_ string, r io.Reader) error {
		data, err := readAll(ctx, r)
		if err != nil {
			return err
		}
		// Records are found from the end, in place: splitting first would allocate a slice
		// header per line, uncharged and in one uninterruptible call.
		for n, end := 0, len(data); end > 0; n++ {
			if n&4095 == 4095 && ctx.Err() != nil {
				return ctx.Err()
			}
			start := bytes.LastIndexByte(data[:end-1], '\n') + 1
			w.Write(data[start:end])
			end = start
		}
		return nil
	})
}

func rev(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "rev", 1, optSpec{permute: true}, argv[1:])
	if !ok {
		return st
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	return eachInput(ctx, env, "rev", fl.operands, func(_ string, r io.Reader) error {
		lr := newLineReader(r)
		held := share{m: lr.mem}
		var buf []byte
		for {
			line, nl, ok := lr.next()
			if !ok {
				return lr.err
			}
			if cap(buf) < len(line) {
				if err := held.set(int64(len(line))); err != nil {
					return err
				}
				buf = make([]byte, len(line))
			}
			b, err := reverseChars(ctx, buf[:len(line)], line)
			if err != nil {
				return err
			}
			w.Write(b)
			if nl {
				w.WriteByte('\n')
			}
		}
	})
}

// reverseChars writes line's characters into out (as long as line) in reverse order; a line
// that is not UTF-8 is reversed byte by byte rather than mangled. A line may be 64 MB: the
// call's end is checked every 64 KiB, and no rune slice (four times the line) is made.
func reverseChars(ctx context.Context, out, line []byte) ([]byte, error) {
	valid := utf8.Valid(line)
	j := len(line)
	for i, k := 0, 1; i < len(line); k++ {
		if k&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		n := 1
		if valid && line[i] >= utf8.RuneSelf {
			_, n = utf8.DecodeRune(line[i:])
		}
		j -= n
		copy(out[j:j+n], line[i:i+n])
		i += n
	}
	return out, nil
}

var nlSpec = optSpec{short: "b:n:w:s:v:i:", long: []string{"body-numbering:b", "number-format:n", "number-width:w",
	"number-separator:s", "starting-line-number:v", "line-increment:i"}, permute: true}

// nl numbers lines (body section only: the \:\:\: section delimiters are not interpreted).
func nl(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "nl", 1, nlSpec, argv[1:])
	if !ok {
		return st
	}
	style, format, sep := "t", "rn", "\t"
	width, num, incr := 6, int64(1), int64(1)
	for _, o := range fl.opts {
		var err error
		switch o.name {
		case "b":
			style = o.val
		case "n":
			format = o.val
		case "s":
			sep = o.val
		case "w":
			width, err = strconv.Atoi(o.val)
		case "v":
			num, err = strconv.ParseInt(o.val, 10, 64)
		case "i":
			incr, err = strconv.ParseInt(o.val, 10, 64)
		}
		if err != nil {
			return errorf(env, 1, "nl", "invalid argument '%s' for -%s", o.val, o.name)
		}
	}
	if width < 1 {
		return errorf(env, 1, "nl", "invalid line number field width: '%d'", width)
	}
	if width > maxFormatWidth {
		return errorf(env, 1, "nl", "a line number field width over %d is more than the sandbox prints (%d); use a smaller one", maxFormatWidth, width)
	}
	if style != "a" && style != "t" && style != "n" {
		return errorf(env, 1, "nl", "unsupported numbering style '%s'", style)
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	return eachInput(ctx, env, "nl", fl.operands, func(_ string, r io.Reader) error {
		lr := newLineReader(r)
		for {
			line, nlEnd, ok := lr.next()
			if !ok {
				return lr.err
			}
			if style == "a" || (style == "t" && len(line) > 0) {
				switch format {
				case "ln":
					fmt.Fprintf(w, "%-*d", width, num)
				case "rz":
					fmt.Fprintf(w, "%0*d", width, num)
				default:
					fmt.Fprintf(w, "%*d", width, num)
				}
				w.WriteString(sep)
				num += incr
			} else {
				w.WriteString(strings.Repeat(" ", width+len(sep)))
			}
			w.Write(line)
			if nlEnd {
				w.WriteByte('\n')
			}
		}
	})
}

// countSpec is head's and tail's count: the last of -n N (lines, also -N) and -c N (bytes).
func countSpec(fl *flagSet) (spec string, bytesMode bool) {
	spec = "10"
	for _, o := range fl.opts {
		switch o.name {
		case "n", "#":
			spec, bytesMode = o.val, false
		case "c":
			spec, bytesMode = o.val, true
		}
	}
	return spec, bytesMode
}

func countUnit(bytesMode bool) string {
	if bytesMode {
		return "bytes"
	}
	return "lines"
}
