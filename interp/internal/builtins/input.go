package builtins

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// maxLine bounds one line held in memory; streaming utilities never hold more than that.
const maxLine = 64 << 20

var errLineTooLong = errors.New("line too long")

// eachInput calls fn for every named input ("-" or none means stdin), wrapped so reads stop
// when ctx ends. Open failures are reported and skipped; the status is 1 if any failed
// (130 when ctx ended).
func eachInput(ctx context.Context, env *Env, name string, files []string, fn func(label string, r io.Reader) error) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	for _, f := range files {
		if ctx.Err() != nil {
			return 130
		}
		r, err := openInput(env, f)
		if err != nil {
			status = errorf(env, 1, name, "%s", openFailure(name, f, err))
			continue
		}
		err = fn(f, ctxRead(ctx, r))
		r.Close()
		if errors.Is(err, sandbox.ErrMemoryBudget) {
			// The budget also ended the call; say why this utility stopped.
			return errorf(env, 1, name, "%s: %s", f, describe(err))
		}
		if ctx.Err() != nil {
			return 130
		}
		if err != nil {
			status = errorf(env, 1, name, "%s: %s", f, describe(err))
		}
	}
	return status
}

// localeQuote quotes a name as GNU's quote() does in messages: ‘name’ under a UTF-8 locale
// (LC_ALL, else LC_MESSAGES, else LANG), 'name' otherwise.
func localeQuote(env *Env, s string) string {
	loc := ""
	if env.Getenv != nil {
		for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
			if loc = env.Getenv(k); loc != "" {
				break
			}
		}
	}
	if l := strings.ToLower(loc); strings.HasSuffix(l, ".utf-8") || strings.HasSuffix(l, ".utf8") {
		return "\u2018" + s + "\u2019"
	}
	return "'" + s + "'"
}

// openFailure words an input that cannot be opened as the utility does (GNU coreutils,
// util-linux's rev): scripts that read stderr (2>&1) see the same text.
func openFailure(name, file string, err error) string {
	switch name {
	case "head", "tail":
		return "cannot open '" + file + "' for reading: " + describe(err)
	case "tac":
		return "failed to open '" + file + "' for reading: " + describe(err)
	case "sort":
		return "cannot read: " + file + ": " + describe(err)
	case "rev":
		return "cannot open " + file + ": " + describe(err)
	}
	return file + ": " + describe(err)
}

// lineReader yields lines without their terminator and says whether the terminator was
// there (sed and diff keep a missing final newline missing).
type lineReader struct {
	br   *bufio.Reader
	sep  byte
	buf  []byte
	err  error
	done bool
	// mem is the run's meter (from the ctxReader it reads): a long line's buffer is charged.
	mem     *meter
	charged int64
}

func newLineReader(r io.Reader) *lineReader {
	lr := &lineReader{br: bufio.NewReaderSize(r, 64<<10), sep: '\n'}
	if cr, ok := r.(ctxReader); ok {
		lr.mem = meterOf(cr.Ctx)
	}
	return lr
}

// next returns the next line (valid until the following call), whether it ended with the
// separator, and false at the end of input or on error (see err).
func (l *lineReader) next() ([]byte, bool, bool) {
	if l.done {
		return nil, false, false
	}
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice(l.sep)
		l.buf = append(l.buf, chunk...)
		if len(l.buf) > maxLine {
			l.err, l.done = errLineTooLong, true
			return nil, false, false
		}
		if c := int64(cap(l.buf)); c > l.charged {
			if merr := l.mem.grow(c - l.charged); merr != nil {
				l.err, l.done = merr, true
				return nil, false, false
			}
			l.charged = c
		}
		switch {
		case err == nil:
			return l.buf[:len(l.buf)-1], true, true
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			l.done = true
			if len(l.buf) == 0 {
				return nil, false, false
			}
			return l.buf, false, true
		default:
			l.err, l.done = err, true
			return nil, false, false
		}
	}
}

// readLines reads every line of r (for the utilities that must see all input: sort, tac).
func readLines(ctx context.Context, r io.Reader, sep byte, into *lineBlocks) error {
	lr := newLineReader(r)
	lr.sep = sep
	for n := 0; ; n++ {
		if n&4095 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, _, ok := lr.next()
		if !ok {
			return lr.err
		}
		if err := into.add(lr.mem, string(line), len(line)); err != nil {
			return err
		}
	}
}

// lineBlock is how many lines a lineBlocks block holds.
const lineBlock = 4096

// lineBlocks holds lines in blocks of a fixed size: millions of lines never grow one slice by
// append (each step an uncharged copy of all of it, uninterruptible, and the old copy left to
// the collector); all makes one slice of them at the end.
type lineBlocks struct {
	blocks [][]string
	n      int
	mem    *meter
}

// add appends line, charging its text and header (and each block as it is made).
func (b *lineBlocks) add(m *meter, line string, n int) error {
	b.mem = m
	if err := m.grow(lineCost(n)); err != nil {
		return err
	}
	switch {
	case len(b.blocks) == 0:
		// The first block grows by append: most inputs are a few lines.
		b.blocks = append(b.blocks, nil)
	case len(b.blocks[len(b.blocks)-1]) == lineBlock:
		b.blocks = append(b.blocks, make([]string, 0, lineBlock))
	}
	last := &b.blocks[len(b.blocks)-1]
	*last = append(*last, line)
	b.n++
	return nil
}

// all is every line in one slice: the one block itself, or one copy charged before it is made.
func (b *lineBlocks) all() ([]string, error) {
	switch len(b.blocks) {
	case 0:
		return nil, nil
	case 1:
		return b.blocks[0], nil
	}
	if err := b.mem.grow(int64(b.n) * 16); err != nil {
		return nil, err
	}
	out := make([]string, 0, b.n)
	for i, bl := range b.blocks {
		out = append(out, bl...)
		b.blocks[i] = nil // the block's lines live on in out; the collector may take it
	}
	b.blocks = nil
	return out, nil
}

// readAllInputs concatenates the lines of every input, reporting open errors like eachInput.
func readAllInputs(ctx context.Context, env *Env, name string, files []string, sep byte) ([]string, int) {
	var all lineBlocks
	st := eachInput(ctx, env, name, files, func(_ string, r io.Reader) error {
		return readLines(ctx, r, sep, &all)
	})
	lines, err := all.all()
	if err != nil && st == 0 {
		return nil, errorf(env, 1, name, "%s", describe(err))
	}
	return lines, st
}

// writeFlags are the open flags of an output file: truncate, or append.
func writeFlags(appendMode bool) int {
	if appendMode {
		return os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	return os.O_WRONLY | os.O_CREATE | os.O_TRUNC
}

// hasNUL reports whether b looks binary, as grep and file decide it.
func hasNUL(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }

// joinPath appends name to dir without cleaning dir, so output keeps the user's spelling
// ("./sub/x", as GNU tools print it).
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}
