package builtins

import (
	"bufio"
	"context"
	"io"
	"strconv"
)

func init() { register("fold", fold) }

// fold wraps lines at a width as GNU fold does: columns count bytes, except that a tab moves
// to the next multiple of 8, a backspace steps back and a carriage return goes to column 0
// (-b counts every byte as one); -s breaks after the last blank that fits.
func fold(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "fold", 1, optSpec{short: "bsw:", digits: true, permute: true,
		long: []string{"bytes:b", "spaces:s", "width:w"}}, argv[1:])
	if !ok {
		return st
	}
	width := 80
	if v, ok := fl.val("w", "#"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return errorf(env, 1, "fold", "invalid number of columns: %s", localeQuote(env, v))
		}
		width = n
	}
	f := folder{width: width, bytes: fl.has("b"), spaces: fl.has("s")}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	return eachInput(ctx, env, "fold", fl.operands, func(_ string, r io.Reader) error {
		return f.run(w, bufio.NewReaderSize(r, 64<<10))
	})
}

type folder struct {
	width         int
	bytes, spaces bool
}

func (f folder) advance(col int, c byte) int {
	if f.bytes {
		return col + 1
	}
	switch c {
	case '\b':
		if col > 0 {
			return col - 1
		}
		return 0
	case '\r':
		return 0
	case '\t':
		return col + 8 - col%8
	}
	return col + 1
}

// run folds one input; the pending line never holds more than the width's worth of columns.
func (f folder) run(w *bufio.Writer, r *bufio.Reader) error {
	var line []byte
	col := 0
	for n := 1; ; n++ {
		if n%(64<<10) == 0 {
			if _, err := w.Write(nil); err != nil {
				return err
			}
		}
		c, err := r.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if c == '\n' {
			w.Write(line)
			w.WriteByte('\n')
			line, col = line[:0], 0
			continue
		}
		if len(line) > maxLine {
			return errLineTooLong
		}
	rescan:
		col = f.advance(col, c)
		if col > f.width {
			if f.spaces {
				if i := lastBlank(line); i >= 0 {
					w.Write(line[:i+1])
					w.WriteByte('\n')
					line = append(line[:0], line[i+1:]...)
					col = 0
					for _, b := range line {
						col = f.advance(col, b)
					}
					goto rescan
				}
			}
			if len(line) == 0 {
				line = append(line, c)
				continue
			}
			w.Write(line)
			w.WriteByte('\n')
			line, col = line[:0], 0
			goto rescan
		}
		line = append(line, c)
	}
	_, err := w.Write(line)
	return err
}

func lastBlank(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ' ' || b[i] == '\t' {
			return i
		}
	}
	return -1
}
