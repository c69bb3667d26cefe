package eval

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// lineReader reads from a file description without consuming more than the builtin uses:
// it reads ahead into the description's own buffer, so the next reader gets what was not
// consumed (bash reads pipes a byte at a time and seeks back on files; the effect for the
// next reader is the same). It holds the description while it reads.
type lineReader struct {
	r   *Runner
	f   *ofile
	eof bool
	err error
	on  bool
	// read -t: the pipe to read with a deadline (nil: the input never blocks) and when.
	pipe     *pipe
	deadline time.Time
	timedOut bool
}

// blockingSource finds what a read of f could wait on: an in-memory pipe (read -t can wait
// for it with a deadline), or something else that may block (unknown: true, nil). Files,
// here-documents, /dev/null and the empty stdin never block.
func blockingSource(f *ofile) (*pipe, bool) {
	if f.rpos < len(f.rbuf) {
		return nil, false
	}
	switch x := f.r.(type) {
	case pipeReader:
		return x.p, true
	case *ofile:
		return blockingSource(x)
	case emptyReader, nullFile, *strings.Reader, *bytes.Reader:
		return nil, false
	case interface{ Stat() (fs.FileInfo, error) }:
		if st, err := x.Stat(); err == nil && st.Mode().IsRegular() {
			return nil, false
		}
	}
	return nil, true
}

const readAhead = 4096

// fill reads more input into the description's buffer.
func (lr *lineReader) fill() bool {
	f := lr.f
	if lr.eof {
		return false
	}
	if err := lr.r.checkCtx(); err != nil {
		lr.err, lr.eof = err, true
		return false
	}
	if f.r == nil {
		lr.err, lr.eof = errBadFD, true
		return false
	}
	if cap(f.rbuf) < readAhead {
		f.rbuf = make([]byte, 0, readAhead)
	}
	var n int
	var err error
	if lr.pipe != nil {
		n, err = lr.pipe.readBefore(f.rbuf[:cap(f.rbuf)], lr.deadline)
	} else {
		n, err = f.r.Read(f.rbuf[:cap(f.rbuf)])
	}
	f.rbuf, f.rpos = f.rbuf[:n], 0
	if errors.Is(err, errReadTimeout) {
		lr.timedOut, lr.eof = true, true
		return false
	}
	if err != nil {
		lr.eof = true
		if err != io.EOF {
			lr.err = err
		}
	}
	return n > 0 || !lr.eof
}

// byte returns the next byte; ok is false at the end of input.
func (lr *lineReader) byte() (byte, bool) {
	if !lr.on {
		lr.f.mu.Lock()
		lr.on = true
	}
	f := lr.f
	for f.rpos >= len(f.rbuf) {
		if !lr.fill() {
			return 0, false
		}
	}
	c := f.rbuf[f.rpos]
	f.rpos++
	return c, true
}

// done releases the description; what was read ahead stays in its buffer.
func (lr *lineReader) done() {
	if lr.on {
		lr.on = false
		lr.f.mu.Unlock()
	}
}

// biRead is the read builtin.
func biRead(r *Runner, args []string) int {
	opts, names, ok := r.parseOpts("read", args[1:], "ersa:d:i:n:N:p:t:u:", false)
	if !ok {
		return 2
	}
	raw := false
	array := ""
	delim := byte('\n')
	nchars, exact := -1, false
	fd := 0
	timeout := ""
	for _, o := range opts {
		switch o.c {
		case 'r':
			raw = true
		case 'a':
			array = o.arg
		case 'd':
			if o.arg == "" {
				delim = 0
			} else {
				delim = o.arg[0]
			}
		case 'n', 'N':
			n, err := strconv.Atoi(o.arg)
			if err != nil || n < 0 {
				r.errorf("read: %s: invalid number", o.arg)
				return 1
			}
			nchars, exact = n, o.c == 'N'
		case 'u':
			n, err := strconv.Atoi(o.arg)
			if err != nil || n < 0 {
				r.errorf("read: %s: invalid file descriptor specification", o.arg)
				return 1
			}
			fd = n
		case 't':
			timeout = o.arg
		}
	}
	for _, n := range names {
		if !validRefTarget(n) {
			r.errorf("read: `%s': not a valid identifier", n)
			return 1
		}
	}
	if array != "" && !validName(array) {
		r.errorf("read: `%s': not a valid identifier", array)
		return 1
	}
	f := r.fds.get(fd)
	if f == nil || !f.readable() {
		r.errorf("read: %d: invalid file descriptor: Bad file descriptor", fd)
		return 1
	}
	lr := &lineReader{r: r, f: f}
	if timeout != "" {
		t, ok := readTimeout(timeout)
		if !ok {
			r.errorf("read: %s: invalid timeout specification", timeout)
			return 1
		}
		p, blocks := blockingSource(f)
		if t == 0 {
			// -t 0: is input available (or at its end)? Nothing is read.
			if p != nil && !p.ready() || p == nil && blocks {
				return 1
			}
			return 0
		}
		if blocks && p == nil {
			return biRefusedOpt(r, "read -t on this input (not a pipe, file or here-document)")
		}
		lr.pipe, lr.deadline = p, time.Now().Add(t)
	}
	var text []byte
	var esc []bool // esc[i]: text[i] was backslash-escaped (not a separator)
	status := 0
	count := 0
	u8 := r.utf8Mode()
	for {
		if nchars >= 0 && count >= nchars {
			break
		}
		c, ok := lr.byte()
		if !ok {
			status = 1
			break
		}
		if !exact && c == delim {
			break
		}
		if c == 0 {
			// bash drops NUL bytes from what read reads (they cannot be in a variable).
			continue
		}
		if c == '\\' && !raw {
			c2, ok := lr.byte()
			if !ok {
				status = 1
				break
			}
			if c2 == '\n' {
				continue
			}
			text = append(text, c2)
			esc = append(esc, true)
			count++
			continue
		}
		text = append(text, c)
		esc = append(esc, false)
		if u8 && c >= 0x80 {
			// Count a whole UTF-8 character once.
			for !utf8.FullRune(text[lastRuneStart(text):]) {
				c3, ok := lr.byte()
				if !ok {
					break
				}
				text = append(text, c3)
				esc = append(esc, false)
			}
		}
		count++
		if len(text) > 1<<20 && len(text)%(1<<20) == 0 {
			// The text and its escape marks: two bytes a character read.
			if err := r.chargeExpansion(2 << 20); err != nil {
				lr.done()
				return r.raise(err)
			}
		}
	}
	lr.done()
	if lr.err != nil {
		if st := r.raiseIfFlow(lr.err); st >= 0 {
			return st
		}
		// bash reports a failed read(2) (a directory on stdin: EISDIR) and assigns nothing.
		r.errorf("read: read error: %d: %s", fd, errText(lr.err))
		return 1
	}
	if lr.timedOut {
		status = 128 + 14 // SIGALRM, as bash; what was read is still assigned
	}
	line := string(text)
	if exact {
		name := "REPLY"
		if len(names) > 0 {
			name = names[0]
			for _, other := range names[1:] {
				if err := r.assign(other, "", 0); err != nil {
					return r.raise(err)
				}
			}
		}
		if array != "" {
			if err := r.assignArray(array, []arrayItem{{val: line}}, 0, false); err != nil {
				return r.raise(err)
			}
			return status
		}
		if err := r.assignText(name, line); err != nil {
			return r.raise(err)
		}
		return status
	}
	ifs := r.ifsValue()
	if array != "" {
		fields, err := r.readSplit(line, esc, ifs, -1)
		if err != nil {
			return r.raise(err)
		}
		items := make([]arrayItem, len(fields))
		for i, f := range fields {
			items[i] = arrayItem{val: f}
		}
		if err := r.unsetVar(array, false); err != nil {
			return r.raise(err)
		}
		if err := r.assignArray(array, items, 0, false); err != nil {
			return r.raise(err)
		}
		return status
	}
	if len(names) == 0 {
		if err := r.assign("REPLY", line, 0); err != nil {
			return r.raise(err)
		}
		return status
	}
	fields, err := r.readSplit(line, esc, ifs, len(names))
	if err != nil {
		return r.raise(err)
	}
	for i, n := range names {
		v := ""
		if i < len(fields) {
			v = fields[i]
		}
		if err := r.assignText(n, v); err != nil {
			return r.raise(err)
		}
	}
	return status
}

// readTimeout reads -t's argument as bash's uconvert does: an optional sign, decimal seconds
// and up to six decimal places (a seventh rounds; digits past it are not looked at). The sign
// applies to the whole seconds only, so "-0.5" is half a second and "-1" is invalid.
func readTimeout(s string) (time.Duration, bool) {
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var sec, usec int64
	i := 0
	for ; i < len(s) && s[i] != '.'; i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		// Past a billion seconds (31 years) the wait is as good as endless: stop counting.
		if sec < 1e9 {
			sec = sec*10 + int64(s[i]-'0')
		}
	}
	if neg && sec > 0 {
		return 0, false
	}
	if i < len(s) {
		frac := s[i+1:]
		n := 0
		for ; n < 6 && n < len(frac); n++ {
			if frac[n] < '0' || frac[n] > '9' {
				return 0, false
			}
			usec = usec*10 + int64(frac[n]-'0')
		}
		for k := n; k < 6; k++ {
			usec *= 10
		}
		if n == 6 && len(frac) > 6 && frac[6] >= '5' && frac[6] <= '9' {
			usec++
		}
	}
	return time.Duration(sec)*time.Second + time.Duration(usec)*time.Microsecond, true
}

func lastRuneStart(b []byte) int {
	i := len(b) - 1
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// raiseIfFlow turns a read error that is a run-ending condition into its status (-1: none).
func (r *Runner) raiseIfFlow(err error) int {
	if _, ok := err.(*shError); ok {
		return r.raise(err)
	}
	return -1
}

// readSplit splits a line read by `read` into at most n fields (n<0: all), the last taking
// the rest of the line as bash does. Escaped characters never separate. A line of tens of
// megabytes splits into millions of fields: each (with the array element read -a makes of it)
// is charged as it is made, and the call's end is checked.
func (r *Runner) readSplit(line string, esc []bool, ifs string, n int) ([]string, error) {
	isIFS := func(i int) bool { return !esc[i] && strings.IndexByte(ifs, line[i]) >= 0 }
	isWS := func(i int) bool {
		c := line[i]
		return isIFS(i) && (c == ' ' || c == '\t' || c == '\n')
	}
	// delim is the end of the one delimiter at i: whitespace, optionally one non-whitespace
	// IFS character, whitespace.
	delim := func(i int) int {
		for i < len(line) && isWS(i) {
			i++
		}
		if i < len(line) && isIFS(i) && !isWS(i) {
			i++
			for i < len(line) && isWS(i) {
				i++
			}
		}
		return i
	}
	i := 0
	for i < len(line) && isWS(i) {
		i++
	}
	var out []string
	for i < len(line) {
		if len(out)%splitCheck == splitCheck-1 {
			if err := r.checkCtx(); err != nil {
				return nil, err
			}
			if err := r.chargeExpansion(splitCheck * fieldCost); err != nil {
				return nil, err
			}
		}
		if n > 0 && len(out) == n-1 {
			// The last name: the rest of the line, trailing IFS whitespace removed; when the
			// rest is one field and one delimiter, the delimiter is removed too.
			end := len(line)
			for end > i && isWS(end-1) {
				end--
			}
			j := i
			for j < end && !isIFS(j) {
				j++
			}
			if j == end || delim(j) >= end {
				return append(out, line[i:j]), nil
			}
			return append(out, line[i:end]), nil
		}
		start := i
		for i < len(line) && !isIFS(i) {
			i++
		}
		out = append(out, line[start:i])
		if i < len(line) {
			i = delim(i)
		}
	}
	return out, nil
}

// biMapfile is mapfile / readarray.
func biMapfile(r *Runner, args []string) int {
	name := args[0]
	opts, rest, ok := r.parseOpts(name, args[1:], "d:n:O:s:tu:C:c:", false)
	if !ok {
		return 2
	}
	delim := byte('\n')
	count, origin, skip, fd := int64(0), int64(0), int64(0), 0
	trim, hasOrigin := false, false
	for _, o := range opts {
		switch o.c {
		case 'd':
			if o.arg == "" {
				delim = 0
			} else {
				delim = o.arg[0]
			}
		case 't':
			trim = true
		case 'n', 'O', 's', 'c':
			n, err := strconv.ParseInt(o.arg, 10, 64)
			if err != nil || n < 0 {
				if o.c == 'O' {
					r.errorf("%s: %s: invalid array origin", name, o.arg)
				} else if o.c == 'c' {
					r.errorf("%s: %s: invalid callback quantum", name, o.arg)
				} else {
					r.errorf("%s: %s: invalid line count", name, o.arg)
				}
				return 1
			}
			switch o.c {
			case 'n':
				count = n
			case 'O':
				origin, hasOrigin = n, true
			case 's':
				skip = n
			}
		case 'u':
			n, err := strconv.Atoi(o.arg)
			if err != nil || n < 0 {
				r.errorf("%s: %s: invalid file descriptor specification", name, o.arg)
				return 1
			}
			fd = n
		case 'C':
			return biRefusedOpt(r, name+" -C")
		}
	}
	array := "MAPFILE"
	if len(rest) > 0 {
		array = rest[0]
	}
	if !validName(array) {
		r.errorf("%s: `%s': not a valid identifier", name, array)
		return 1
	}
	f := r.fds.get(fd)
	if f == nil || !f.readable() {
		r.errorf("%s: %d: invalid file descriptor: Bad file descriptor", name, fd)
		return 1
	}
	v, _, _ := r.lookupVar(array)
	if v.attrs&attrAssoc != 0 {
		r.errorf("%s: %s: not an indexed array", name, array)
		return 1
	}
	if !hasOrigin {
		if err := r.assignArray(array, nil, 0, false); err != nil {
			return r.raise(err)
		}
	}
	lr := &lineReader{r: r, f: f}
	defer lr.done()
	idx := origin
	var n int64
	var line []byte
	for count == 0 || n < count {
		line = line[:0]
		got, cut := false, false
		for {
			c, ok := lr.byte()
			if !ok {
				break
			}
			got = true
			if c == delim {
				// A NUL delimiter kept is the end of bash's C string: the element stops
				// before it, -t or not.
				if !trim && !cut && c != 0 {
					line = append(line, c)
				}
				break
			}
			if c == 0 {
				// bash's mapfile keeps a line only up to its first NUL byte.
				cut = true
			}
			if !cut {
				line = append(line, c)
			}
		}
		if !got {
			break
		}
		if skip > 0 {
			skip--
			continue
		}
		if err := r.assignElemNum(array, idx, string(line)); err != nil {
			return r.raise(err)
		}
		idx++
		n++
	}
	if lr.err != nil {
		if st := r.raiseIfFlow(lr.err); st >= 0 {
			return st
		}
	}
	return 0
}

// biGetopts is the getopts builtin.
func biGetopts(r *Runner, args []string) int {
	if len(args) < 3 {
		r.usage("getopts")
		return 2
	}
	spec, name := args[1], args[2]
	params := r.params
	if len(args) > 3 {
		params = args[3:]
	}
	silent := strings.HasPrefix(spec, ":")
	if silent {
		spec = spec[1:]
	}
	optErr := true
	if v, ok := r.scalar("OPTERR"); ok && strings.TrimSpace(v) == "0" {
		optErr = false
	}
	optind := 1
	if v, ok := r.scalar("OPTIND"); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			optind = n
		}
	}
	if optind != r.optInd {
		r.optChar = 0
	}
	setInd := func(n int) {
		r.optInd = n
		saved := r.optChar
		_ = r.assign("OPTIND", strconv.Itoa(n), 0)
		r.optChar = saved
	}
	setName := func(v string) int {
		if !validName(name) {
			r.errorf("getopts: `%s': not a valid identifier", name)
			return 1
		}
		if err := r.assign(name, v, 0); err != nil {
			return r.raise(err)
		}
		return 0
	}
	end := func() int {
		r.optChar = 0
		if optind > len(params)+1 {
			optind = len(params) + 1
		}
		setInd(optind)
		_ = r.unsetVar("OPTARG", false)
		setName("?")
		return 1
	}
	if optind > len(params) {
		return end()
	}
	arg := params[optind-1]
	if r.optChar >= len(arg) {
		// State left by a run over other arguments.
		r.optChar = 0
	}
	if r.optChar == 0 {
		if len(arg) < 2 || arg[0] != '-' {
			return end()
		}
		if arg == "--" {
			optind++
			return end()
		}
		r.optChar = 1
	}
	c := arg[r.optChar]
	r.optChar++
	next := func() {
		if r.optChar >= len(arg) {
			optind++
			r.optChar = 0
		}
	}
	k := strings.IndexByte(spec, c)
	if k < 0 || c == ':' {
		next()
		setInd(optind)
		if silent {
			_ = r.assign("OPTARG", string(c), 0)
		} else {
			if optErr {
				r.getoptsErr("illegal option -- %c", c)
			}
			_ = r.unsetVar("OPTARG", false)
		}
		return setName("?")
	}
	if k+1 < len(spec) && spec[k+1] == ':' {
		var val string
		if r.optChar < len(arg) {
			val = arg[r.optChar:]
			optind++
			r.optChar = 0
		} else if optind < len(params) {
			val = params[optind]
			optind += 2
			r.optChar = 0
		} else {
			optind++
			r.optChar = 0
			setInd(optind)
			if silent {
				_ = r.assign("OPTARG", string(c), 0)
				return setName(":")
			}
			if optErr {
				r.getoptsErr("option requires an argument -- %c", c)
			}
			_ = r.unsetVar("OPTARG", false)
			return setName("?")
		}
		setInd(optind)
		_ = r.assign("OPTARG", val, 0)
		return setName(string(c))
	}
	next()
	setInd(optind)
	_ = r.unsetVar("OPTARG", false)
	return setName(string(c))
}

// getoptsErr prints getopts' own diagnostics: bash names the script, without a line.
func (r *Runner) getoptsErr(format string, args ...any) {
	name := r.arg0
	if name == "" {
		name = "bash"
	}
	_, _ = io.WriteString(r.stderr(), name+": "+fmt.Sprintf(format, args...)+"\n")
}
