// Package audit writes the per-tenant audit log of hosting mode: one JSON line per call (via
// log/slog) with the tenant, the tool, a SHA-256 of the canonical arguments, the duration, the
// outcome, the files the call wrote and what the sandbox refused. Argument values and
// credentials are never written: a Record has no field that could hold them.
//
// The package is a leaf: it imports nothing of host.
package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// maxListed bounds the files and refusals written per record; the rest is counted.
const maxListed = 100

// Record is one call.
type Record struct {
	Tenant  string
	Subject string // the principal within the tenant (never a credential)
	Session string // session id, "" for stateless requests
	// Kind is tool, resource, prompt or completion; Name the tool/prompt name or resource URI.
	Kind, Name string
	// ArgsSHA256 is ArgumentsHash of the call's arguments.
	ArgsSHA256 string
	Duration   time.Duration
	// Outcome is ok, tool_error, error, refused, cancelled or timeout; Cause names the limit or
	// error behind it, when any.
	Outcome, Cause string
	// Access is the call's access record: files written and refusals are taken from it.
	Access []sandbox.Access
	// ReadsNotRecorded counts the allowed reads the access record left out past its cap (it
	// never leaves out a write, a refusal or a command).
	ReadsNotRecorded int
}

// Logger writes records to a sink. It is safe for concurrent use.
type Logger struct {
	log    *slog.Logger
	closer io.Closer
}

// Open returns a Logger for sink: "" or "off" (none: Log does nothing), "stderr", or a file
// path (appended to, created 0600).
func Open(sink string) (*Logger, error) {
	switch sink {
	case "", "off":
		return &Logger{}, nil
	case "stderr":
		return New(os.Stderr), nil
	}
	f, err := os.OpenFile(sink, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	l := New(f)
	l.closer = f
	return l, nil
}

// New writes JSON lines to w (writes are serialised; each record is one write).
func New(w io.Writer) *Logger {
	h := slog.NewJSONHandler(&lockedWriter{w: w}, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			switch {
			case len(groups) == 0 && a.Key == slog.LevelKey:
				return slog.Attr{} // every record is the same level
			case len(groups) == 0 && a.Key == slog.MessageKey:
				return slog.String("event", a.Value.String())
			}
			return a
		},
	})
	return &Logger{log: slog.New(h)}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close closes a file sink.
func (l *Logger) Close() error {
	if l.closer != nil {
		return l.closer.Close()
	}
	return nil
}

// Log writes one record.
// Enabled reports whether Log writes anything (a record's fields need not be computed
// otherwise).
func (l *Logger) Enabled() bool { return l != nil && l.log != nil }

func (l *Logger) Log(ctx context.Context, r Record) {
	if l == nil || l.log == nil {
		return
	}
	written, refusals, truncated := summarize(r.Access)
	attrs := []slog.Attr{
		slog.String("tenant", r.Tenant),
		slog.String("kind", r.Kind),
		slog.String("name", r.Name),
		slog.String("args_sha256", r.ArgsSHA256),
		slog.Float64("duration_ms", float64(r.Duration.Microseconds())/1000),
		slog.String("outcome", r.Outcome),
	}
	if r.Subject != "" {
		attrs = append(attrs, slog.String("subject", r.Subject))
	}
	if r.Session != "" {
		attrs = append(attrs, slog.String("session", r.Session))
	}
	if r.Cause != "" {
		attrs = append(attrs, slog.String("cause", r.Cause))
	}
	if len(written) > 0 {
		attrs = append(attrs, slog.Any("files_written", written))
	}
	if len(refusals) > 0 {
		attrs = append(attrs, slog.Any("refusals", refusals))
	}
	if truncated > 0 {
		attrs = append(attrs, slog.Int("entries_not_listed", truncated))
	}
	if r.ReadsNotRecorded > 0 {
		attrs = append(attrs, slog.Int("reads_not_recorded", r.ReadsNotRecorded))
	}
	l.log.LogAttrs(ctx, slog.LevelInfo, "call", attrs...)
}

// Change is what happened to a change set of review mode (docs/REVIEW.md): kept for review,
// committed, discarded, expired, stopped by a conflict; By says who decided it.
type Change struct {
	Action, ID, Tool      string
	Tenant, Subject, Sess string
	By, Digest, Detail    string
	Files                 []string
}

// LogChange writes one change-set record (event "changes").
func (l *Logger) LogChange(ctx context.Context, c Change) {
	if l == nil || l.log == nil {
		return
	}
	attrs := []slog.Attr{slog.String("action", c.Action), slog.String("id", c.ID), slog.String("tool", c.Tool)}
	for _, kv := range [][2]string{{"tenant", c.Tenant}, {"subject", c.Subject}, {"session", c.Sess}, {"by", c.By}, {"digest", c.Digest}, {"detail", c.Detail}} {
		if kv[1] != "" {
			attrs = append(attrs, slog.String(kv[0], kv[1]))
		}
	}
	if len(c.Files) > 0 {
		files := c.Files
		if len(files) > maxListed {
			files = files[:maxListed]
			attrs = append(attrs, slog.Int("files_not_listed", len(c.Files)-maxListed))
		}
		attrs = append(attrs, slog.Any("files", files))
	}
	l.log.LogAttrs(ctx, slog.LevelInfo, "changes", attrs...)
}

// Refusal is one operation the sandbox refused (Count times, when more than once).
type Refusal struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Reason string `json:"reason,omitempty"`
	Count  int    `json:"count,omitempty"`
}

// writeOps are the access-record operations that change the filesystem.
var writeOps = map[string]bool{"write": true, "mkdir": true, "remove": true, "rename": true, "symlink": true}

// summarize extracts the distinct paths written (sorted) and the refusals (in order) from an
// access record, each capped at maxListed; truncated counts what was left out.
func summarize(acc []sandbox.Access) (written []string, refusals []Refusal, truncated int) {
	seen := map[string]bool{}
	for _, a := range acc {
		switch {
		case !a.Allowed:
			if len(refusals) < maxListed {
				refusals = append(refusals, Refusal{Op: a.Op, Path: a.Path, Reason: a.Reason, Count: a.Count})
			} else {
				truncated++
			}
		case writeOps[a.Op] && !seen[a.Path]:
			seen[a.Path] = true
			if len(written) < maxListed {
				written = append(written, a.Path)
			} else {
				truncated++
			}
		}
	}
	sort.Strings(written)
	return written, refusals, truncated
}

// ArgumentsHash is the hex SHA-256 of the canonical form of a call's arguments: object keys
// sorted, no insignificant whitespace, strings re-escaped uniformly, numbers as sent. Equal
// arguments hash equally however the client formatted them; the values themselves are never
// logged. Absent arguments hash as {}.
func ArgumentsHash(args json.RawMessage) (string, error) {
	canon, err := Canonical(args)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// Canonical returns the canonical form of a JSON document (see ArgumentsHash).
func Canonical(doc json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return []byte("{}"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("audit: arguments: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("audit: arguments: trailing data")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// encoding/json writes map keys sorted and json.Number verbatim.
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
