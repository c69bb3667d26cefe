// Package payloadlog records every protocol line in both directions to a file, with secrets
// redacted, for `mcp-bash debug`. It wraps the server's stdin and stdout; the protocol itself is
// untouched.
package payloadlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Log is an open payload log.
type Log struct {
	mu      sync.Mutex
	f       *os.File
	secrets []string
}

// Open creates the log file (0600) at path; secrets are literal values to mask wherever they
// appear (for example the value of MCPBASH_REMOTE_TOKEN).
func Open(path string, secrets []string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	var keep []string
	for _, s := range secrets {
		if len(s) >= 4 {
			keep = append(keep, s)
		}
	}
	return &Log{f: f, secrets: keep}, nil
}

// Close closes the file.
func (l *Log) Close() error { return l.f.Close() }

// sensitiveKey matches JSON member names whose values are masked.
var sensitiveKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(token|secret|password|passwd|api[_-]?key|authorization|cookie|credential)`)
})

// Redact masks sensitive members of a JSON line and any known secret value.
func (l *Log) Redact(line []byte) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if dec.Decode(&v) == nil {
		v = redactValue(v)
		if b, err := json.Marshal(v); err == nil {
			line = b
		}
	}
	s := string(line)
	for _, secret := range l.secrets {
		s = strings.ReplaceAll(s, secret, "[REDACTED]")
	}
	return []byte(s)
}

func redactValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if sensitiveKey().MatchString(k) && k != "progressToken" {
				x[k] = "[REDACTED]"
			} else {
				x[k] = redactValue(val)
			}
		}
	case []any:
		for i := range x {
			x[i] = redactValue(x[i])
		}
	}
	return v
}

func (l *Log) write(dir string, line []byte) {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.f, "%s %s %s\n", time.Now().UTC().Format("15:04:05.000"), dir, l.Redact(line))
}

// lineTee copies complete lines to the log as they pass.
type lineTee struct {
	l   *Log
	dir string
	buf []byte
}

func (t *lineTee) add(p []byte) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.l.write(t.dir, t.buf[:i])
		t.buf = t.buf[i+1:]
	}
	if len(t.buf) > 1<<20 {
		t.l.write(t.dir, append(t.buf[:256:256], []byte("…[truncated]")...))
		t.buf = nil
	}
}

type reader struct {
	r io.Reader
	t lineTee
}

func (r *reader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.t.add(p[:n])
	return n, err
}

type writer struct {
	w io.Writer
	t lineTee
}

func (w *writer) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.t.add(p[:n])
	return n, err
}

// Wrap returns stdin/stdout wrappers that log client lines as "C>" and server lines as "S>".
func (l *Log) Wrap(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	return &reader{r: in, t: lineTee{l: l, dir: "C>"}}, &writer{w: out, t: lineTee{l: l, dir: "S>"}}
}
