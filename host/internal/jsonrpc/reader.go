package jsonrpc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes is the default cap on one incoming line.
const DefaultMaxLineBytes = 16 << 20

// LineTooLongError reports a line above the reader's maximum; the line was discarded whole and
// the reader is positioned at the start of the next line.
type LineTooLongError struct{ Limit, Size int }

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line of at least %d bytes exceeds the %d-byte limit", e.Size, e.Limit)
}

// Reader reads newline-delimited lines with a length cap. It never buffers more than the cap
// plus one read buffer, so an oversized line cannot exhaust memory.
type Reader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

// NewReader returns a Reader over r; max <= 0 means DefaultMaxLineBytes.
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = DefaultMaxLineBytes
	}
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Buffered is how many bytes of input are read and not yet returned (0: the next ReadLine
// may block).
func (r *Reader) Buffered() int { return r.br.Buffered() }

// ReadLine returns the next line without its newline. At the end of input it returns the final
// unterminated line, if any, and then io.EOF. A line longer than the cap yields *LineTooLongError.
// The returned slice is valid until the next call.
func (r *Reader) ReadLine() ([]byte, error) {
	r.buf = r.buf[:0]
	size := 0
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		size += len(chunk)
		if !tooLong {
			if len(r.buf)+len(chunk) > r.max+1 { // +1: the newline does not count
				tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, &LineTooLongError{Limit: r.max, Size: size - 1}
			}
			return r.buf[:len(r.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			// No newline came, so the whole remainder counts against the cap.
			if tooLong || len(r.buf) > r.max {
				return nil, &LineTooLongError{Limit: r.max, Size: size}
			}
			if len(r.buf) > 0 {
				return r.buf, nil
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}
