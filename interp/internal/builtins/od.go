package builtins

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

func init() { register("od", od) }

// odSpec is one output format (-t TYPE): a byte-level rendering of each block.
type odSpec struct {
	kind  byte // a c d u o x f
	size  int  // bytes per field
	width int  // characters of the widest value (GNU's field width)
	z     bool // hexl-style ">...<" trailer
}

var odOpts = optSpec{short: "A:j:N:t:vw::abcdfilosx", long: []string{"address-radix:A", "skip-bytes:j",
	"read-bytes:N", "format:t", "output-duplicates:v", "width=?"}, permute: true}

// odWidths is GNU's field width per (kind, size): the length of the longest value.
func odWidth(kind byte, size int) int {
	bits := uint(8 * size)
	switch kind {
	case 'd':
		return len(strconv.FormatInt(-1<<(bits-1), 10))
	case 'u':
		return len(strconv.FormatUint(math.MaxUint64>>(64-bits), 10))
	case 'o':
		return (int(bits) + 2) / 3
	case 'x':
		return 2 * size
	case 'f':
		if size == 4 {
			return 15
		}
		return 24
	}
	return 3 // a, c
}

// parseODType reads a -t argument, which may hold several formats ("x1z", "cd4").
func parseODType(s string) ([]odSpec, error) {
	var out []odSpec
	orig := s
	for s != "" {
		k := s[0]
		s = s[1:]
		sp := odSpec{kind: k}
		switch k {
		case 'a', 'c':
			sp.size = 1
		case 'd', 'u', 'o', 'x', 'f':
			sp.size = 4
			letters := map[byte]int{'C': 1, 'S': 2, 'I': 4, 'L': 8}
			if k == 'f' {
				sp.size, letters = 8, map[byte]int{'F': 4, 'D': 8, 'L': 16}
			}
			if s != "" {
				if n, ok := letters[s[0]]; ok {
					sp.size, s = n, s[1:]
				} else if n, rest, ok := odDigits(s); ok {
					sp.size, s = n, rest
				}
			}
			switch {
			case k == 'f' && sp.size > 8:
				return nil, fmt.Errorf("type string '%s': long double (fL, f16) is not supported in the sandbox; use f4 or f8", orig)
			case k == 'f' && sp.size != 4 && sp.size != 8:
				return nil, fmt.Errorf("invalid type string '%s';\nthis system doesn't provide a %d-byte floating point type", orig, sp.size)
			case k != 'f' && sp.size != 1 && sp.size != 2 && sp.size != 4 && sp.size != 8:
				return nil, fmt.Errorf("invalid type string '%s';\nthis system doesn't provide a %d-byte integral type", orig, sp.size)
			}
		default:
			return nil, fmt.Errorf("invalid character '%c' in type string '%s'", k, orig)
		}
		if s != "" && s[0] == 'z' {
			sp.z, s = true, s[1:]
		}
		sp.width = odWidth(sp.kind, sp.size)
		out = append(out, sp)
	}
	return out, nil
}

func odDigits(s string) (int, string, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, s, false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil {
		n = math.MaxInt32
	}
	return n, s[i:], true
}

// parseODNumber reads a -j/-N value: decimal, 0x hex or 0 octal, with GNU's multipliers.
func parseODNumber(s string) (int64, bool) {
	base := 10
	body := s
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, body = 16, s[2:]
		n, err := strconv.ParseInt(body, 16, 64)
		return n, err == nil && n >= 0
	case len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '7':
		base = 8
	}
	if base == 8 {
		i := 0
		for i < len(body) && body[i] >= '0' && body[i] <= '7' {
			i++
		}
		n, err := strconv.ParseInt(body[:i], 8, 64)
		if err != nil {
			return 0, false
		}
		if body[i:] == "" {
			return n, true
		}
		m, ok := parseCount("1" + body[i:])
		return n * m, ok && m > 0
	}
	return parseCount(body)
}

var odNames = [33]string{"nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr",
	"so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub", "esc", "fs", "gs", "rs", "us", "sp"}

// format renders one field of b (len(b) == size), little-endian as on the hosts we run on.
func (sp odSpec) format(b []byte) string {
	var u uint64
	switch sp.size {
	case 1:
		u = uint64(b[0])
	case 2:
		u = uint64(binary.LittleEndian.Uint16(b))
	case 4:
		u = uint64(binary.LittleEndian.Uint32(b))
	case 8:
		u = binary.LittleEndian.Uint64(b)
	}
	bits := uint(8 * sp.size)
	switch sp.kind {
	case 'a':
		c := b[0] & 0x7f
		switch {
		case c <= ' ':
			return odNames[c]
		case c == 0x7f:
			return "del"
		}
		return string(rune(c))
	case 'c':
		c := b[0]
		switch c {
		case 0:
			return `\0`
		case '\a':
			return `\a`
		case '\b':
			return `\b`
		case '\f':
			return `\f`
		case '\n':
			return `\n`
		case '\r':
			return `\r`
		case '\t':
			return `\t`
		case '\v':
			return `\v`
		}
		if c >= ' ' && c < 0x7f {
			return string(rune(c))
		}
		return fmt.Sprintf("%03o", c)
	case 'd':
		return strconv.FormatInt(int64(u<<(64-bits))>>(64-bits), 10)
	case 'u':
		return strconv.FormatUint(u, 10)
	case 'o':
		return fmt.Sprintf("%0*o", sp.width, u)
	case 'x':
		return fmt.Sprintf("%0*x", sp.width, u)
	}
	if sp.size == 4 {
		return odFloat(float64(math.Float32frombits(uint32(u))), 32, 6, math.SmallestNonzeroFloat32*(1<<23))
	}
	return odFloat(math.Float64frombits(u), 64, 15, 0x1p-1022)
}

// odFloat prints x as GNU od does (ftoastr): the fewest %g digits, from FLT_DIG/DBL_DIG up,
// that read back as the same value; glibc's spellings of the non-finite values.
func odFloat(x float64, bits, dig int, minNormal float64) string {
	switch {
	case math.IsNaN(x):
		if math.Signbit(x) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	p := dig
	if math.Abs(x) < minNormal {
		p = 1
	}
	for ; ; p++ {
		s := strconv.FormatFloat(x, 'g', p, bits)
		if y, err := strconv.ParseFloat(s, bits); err == nil && y == x || p >= 17 {
			return s
		}
	}
}

// odReader reads the operands as one stream, reporting files that cannot be opened (GNU od
// goes on with the next one and exits 1).
type odReader struct {
	ctx    context.Context
	env    *Env
	files  []string
	cur    io.ReadCloser
	failed bool
}

func (r *odReader) Read(p []byte) (int, error) {
	for {
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		if !r.open() {
			return 0, io.EOF
		}
		n, err := ctxRead(r.ctx, r.cur).Read(p)
		if errors.Is(err, io.EOF) {
			r.cur.Close()
			r.cur = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

// open opens the next operand that can be opened (reporting the others), so that reading
// starts there; false when none could be.
func (r *odReader) open() bool {
	for r.cur == nil && len(r.files) > 0 {
		name := r.files[0]
		r.files = r.files[1:]
		f, err := openInput(r.env, name)
		if err != nil {
			errorf(r.env, 1, "od", "%s: %s", name, describe(err))
			r.failed = true
			continue
		}
		r.cur = f
	}
	return r.cur != nil
}

func (r *odReader) close() {
	if r.cur != nil {
		r.cur.Close()
	}
}

// od dumps its input in the formats GNU od prints (native little-endian byte order).
func od(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "od", 1, odOpts, argv[1:])
	if !ok {
		return st
	}
	var specs []odSpec
	radix := byte('o')
	var skip, limit int64 = 0, -1
	width, widthSet := 0, false
	verbose := false
	trad := map[string]string{"a": "a", "b": "o1", "c": "c", "d": "u2", "f": "fF", "i": "dI", "l": "dL", "o": "o2", "s": "d2", "x": "x2"}
	for _, o := range fl.opts {
		switch o.name {
		case "A":
			if len(o.val) != 1 || !strings.Contains("doxn", o.val) {
				return errorf(env, 1, "od", "invalid output address radix '%s'; it must be one character from [doxn]", o.val)
			}
			radix = o.val[0]
		case "j", "N":
			n, ok := parseODNumber(o.val)
			if !ok {
				what := "--skip-bytes"
				if o.name == "N" {
					what = "--read-bytes"
				}
				return errorf(env, 1, "od", "invalid %s argument '%s'", what, o.val)
			}
			if o.name == "j" {
				skip = n
			} else {
				limit = n
			}
		case "t":
			s, err := parseODType(o.val)
			if err != nil {
				return errorf(env, 1, "od", "%v", err)
			}
			specs = append(specs, s...)
		case "v":
			verbose = true
		case "w", "width":
			widthSet, width = true, 32
			if o.val != "" {
				n, err := strconv.Atoi(o.val)
				if err != nil || n < 0 || n > 1<<30 { // a wider block is a mistake; narrower ones are charged
					return errorf(env, 1, "od", "invalid -w argument '%s'", o.val)
				}
				width = n
			}
		default:
			s, _ := parseODType(trad[o.name])
			specs = append(specs, s...)
		}
	}
	for _, f := range fl.operands {
		if strings.HasPrefix(f, "+") {
			// GNU may read this as a traditional offset operand; rather than guess, refuse.
			return unsupported(env, "od", "traditional offset operand "+f, "use -j")
		}
	}
	if len(specs) == 0 {
		specs, _ = parseODType("o2")
	}
	lcm := 1
	for _, sp := range specs {
		lcm = lcm * sp.size / gcd(lcm, sp.size)
	}
	if !widthSet {
		width = max(16, lcm) / lcm * lcm
	} else if width == 0 || width%lcm != 0 {
		fmt.Fprintf(env.Stderr, "od: warning: invalid width %d; using %d instead\n", width, lcm)
		width = lcm
	}
	mem := meterOf(ctx)
	if err := mem.grow(int64(4 * width)); err != nil {
		return errorf(env, 1, "od", "%s", describe(err))
	}
	files := fl.operands
	if len(files) == 0 {
		files = []string{"-"}
	}
	in := &odReader{ctx: ctx, env: env, files: files}
	defer in.close()
	if !in.open() {
		// No operand could be opened (each was reported): GNU od prints nothing, not even
		// the end address.
		return 1
	}
	status := func(err error) int {
		if ctx.Err() != nil {
			return 130
		}
		if err != nil {
			return errorf(env, 1, "od", "%s", describe(err))
		}
		if in.failed {
			return 1
		}
		return 0
	}
	if skip > 0 {
		n, err := io.CopyN(io.Discard, in, skip)
		if err != nil && !errors.Is(err, io.EOF) {
			return status(err)
		}
		if n < skip {
			if ctx.Err() != nil {
				return 130
			}
			return errorf(env, 1, "od", "cannot skip past end of combined input")
		}
	}
	var src io.Reader = in
	if limit >= 0 {
		src = io.LimitReader(in, limit)
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	d := odDumper{w: w, specs: specs, width: width, radix: radix}
	d.setPads()
	cur, prev := make([]byte, width), make([]byte, width)
	offset := skip
	first, dup := true, false
	for {
		clear(cur)
		n, err := io.ReadFull(src, cur)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return status(err)
		}
		if n == 0 {
			break
		}
		if !verbose && !first && n == width && bytes.Equal(cur, prev) {
			if !dup {
				w.WriteString("*\n")
				dup = true
			}
		} else {
			dup = false
			d.block(offset, cur, n)
		}
		first = false
		cur, prev = prev, cur
		offset += int64(n)
		if n < width {
			break
		}
	}
	if radix != 'n' {
		d.address(offset)
		w.WriteByte('\n')
	}
	return status(nil)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

type odDumper struct {
	w     *bufio.Writer
	specs []odSpec
	pads  []int
	width int
	radix byte
}

// setPads spreads each format's spare columns over its fields, so that every format's fields
// line up under the widest one's (GNU's pad_width).
func (d *odDumper) setPads() {
	most := 0
	for _, sp := range d.specs {
		most = max(most, d.width/sp.size*(sp.width+1))
	}
	d.pads = make([]int, len(d.specs))
	for i, sp := range d.specs {
		d.pads[i] = most - d.width/sp.size*(sp.width+1)
	}
}

func (d *odDumper) address(off int64) {
	switch d.radix {
	case 'd':
		fmt.Fprintf(d.w, "%07d", off)
	case 'o':
		fmt.Fprintf(d.w, "%07o", off)
	case 'x':
		fmt.Fprintf(d.w, "%06x", off)
	}
}

// block prints one line per format for the n bytes of b (zero-filled to a whole block).
func (d *odDumper) block(off int64, b []byte, n int) {
	addrWidth := map[byte]int{'d': 7, 'o': 7, 'x': 6}[d.radix] // the blank under an address
	for i, sp := range d.specs {
		if i == 0 {
			d.address(off)
		} else {
			d.w.WriteString(strings.Repeat(" ", addrWidth))
		}
		fields := d.width / sp.size
		blank := (d.width - n) / sp.size
		pad := d.pads[i]
		padRem := pad
		for f := fields; f > blank; f-- {
			next := pad * (f - 1) / fields
			adj := padRem - next + sp.width
			k := fields - f
			s := sp.format(b[k*sp.size : (k+1)*sp.size])
			d.w.WriteByte(' ')
			if len(s) < adj {
				d.w.WriteString(strings.Repeat(" ", adj-len(s)))
			}
			d.w.WriteString(s)
			padRem = next
		}
		if sp.z {
			d.w.WriteString(strings.Repeat(" ", blank*(sp.width+1)+pad*blank/fields))
			d.w.WriteString("  >")
			for _, c := range b[:n] {
				if c < ' ' || c >= 0x7f {
					c = '.'
				}
				d.w.WriteByte(c)
			}
			d.w.WriteByte('<')
		}
		d.w.WriteByte('\n')
	}
}
