package builtins

import (
	"bufio"
	"context"
	"io"
	"strconv"
)

// catMode is what cat's options ask of its output; the zero value copies bytes unchanged.
type catMode struct {
	number, numberNonBlank, squeeze, showEnds, showTabs, showNonPrinting bool
}

func (m catMode) plain() bool { return m == catMode{} }

// catState carries the line state across inputs: GNU cat numbers and squeezes the
// concatenation, so a file that ends without a newline continues its line into the next.
type catState struct {
	atLineStart bool
	line        int
	blankRun    int // empty lines seen in a row (for -s)
}

func cat(ctx context.Context, env *Env, argv []string) int {
	fl, st, ok := parseFlags(env, "cat", 1, optSpec{short: "AbeEnstTuv", permute: true,
		long: []string{"show-all:A", "number-nonblank:b", "show-ends:E", "number:n", "squeeze-blank:s", "show-tabs:T", "show-nonprinting:v"}}, argv[1:])
	if !ok {
		return st
	}
	var m catMode
	for _, o := range fl.opts {
		switch o.name {
		case "A":
			m.showNonPrinting, m.showEnds, m.showTabs = true, true, true
		case "b":
			m.numberNonBlank = true
		case "e":
			m.showNonPrinting, m.showEnds = true, true
		case "E":
			m.showEnds = true
		case "n":
			m.number = true
		case "s":
			m.squeeze = true
		case "t":
			m.showNonPrinting, m.showTabs = true, true
		case "T":
			m.showTabs = true
		case "v":
			m.showNonPrinting = true
		}
	}
	if m.numberNonBlank {
		m.number = false
	}
	files := fl.operands
	if len(files) == 0 {
		files = []string{"-"}
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	state := &catState{atLineStart: true}
	status := 0
	for _, name := range files {
		r, err := openInput(env, name)
		if err != nil {
			w.Flush()
			status = errorf(env, 1, "cat", "%s: %s", name, describe(err))
			continue
		}
		if m.plain() {
			if err = w.Flush(); err == nil {
				_, err = io.Copy(env.Stdout, ctxRead(ctx, r))
			}
		} else {
			err = m.copy(w, bufio.NewReaderSize(ctxRead(ctx, r), 64<<10), state)
		}
		r.Close()
		if err != nil {
			if ctx.Err() != nil {
				return 1
			}
			w.Flush()
			status = errorf(env, 1, "cat", "%s: %s", name, describe(err))
		}
	}
	if err := w.Flush(); err != nil && status == 0 {
		status = 1
	}
	return status
}

// copy writes r through the options, one byte at a time (bufio keeps that cheap).
func (m catMode) copy(w *bufio.Writer, r *bufio.Reader, s *catState) error {
	for n := 1; ; n++ {
		if n%(64<<10) == 0 {
			// A failed write (a closed pipe) is kept by bufio; stop reading then.
			if _, err := w.Write(nil); err != nil {
				return err
			}
		}
		c, err := r.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if s.atLineStart {
			if c == '\n' {
				s.blankRun++
				if m.squeeze && s.blankRun > 1 {
					continue
				}
			} else {
				s.blankRun = 0
			}
			if m.number || (m.numberNonBlank && c != '\n') {
				s.line++
				w.WriteString(padLeft(strconv.Itoa(s.line), 6))
				w.WriteByte('\t')
			}
		}
		s.atLineStart = c == '\n'
		switch {
		case c == '\n':
			if m.showEnds {
				w.WriteByte('$')
			}
			w.WriteByte('\n')
		case c == '\r' && m.showEnds && peekNewline(r):
			// GNU cat -E marks a CR that ends a line (a CRLF file) as ^M.
			w.WriteString("^M")
		case c == '\t':
			if m.showTabs {
				w.WriteString("^I")
			} else {
				w.WriteByte('\t')
			}
		case m.showNonPrinting:
			writeCaret(w, c)
		default:
			w.WriteByte(c)
		}
	}
}

func peekNewline(r *bufio.Reader) bool {
	b, err := r.Peek(1)
	return err == nil && b[0] == '\n'
}

// writeCaret writes c in cat -v's notation: ^X for controls, ^? for DEL, M- for the high half.
func writeCaret(w *bufio.Writer, c byte) {
	if c >= 128 {
		w.WriteString("M-")
		c -= 128
	}
	switch {
	case c < 32:
		w.WriteByte('^')
		w.WriteByte(c + 64)
	case c == 127:
		w.WriteString("^?")
	default:
		w.WriteByte(c)
	}
}

func padLeft(s string, n int) string {
	for len(s) < n {
		s = " " + s
	}
	return s
}
