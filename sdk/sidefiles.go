package sdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// The original framework's file contract (COMPAT.md §4): tools that write these files directly,
// in any engine, are read the same way.

// ParseErrorFile reads MCP_TOOL_ERROR_FILE content as the original does: {code,message} wins,
// other non-blank content is -32603 "Tool failed" with the raw text; blank content is nil.
func ParseErrorFile(data []byte) *engine.Failure {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var f struct {
		Code    *int            `json:"code"`
		Message *string         `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(data, &f) == nil && f.Code != nil && f.Message != nil {
		return &engine.Failure{Code: *f.Code, Message: *f.Message, Data: f.Data}
	}
	raw, _ := json.Marshal(strings.TrimSpace(string(data)))
	return &engine.Failure{Code: -32603, Message: "Tool failed", Data: raw}
}

// ParseResourcesFile reads MCP_TOOL_RESOURCES_FILE content: a JSON array of {path,mimeType,uri}
// or strings, one object, or TSV lines `path<TAB>mime<TAB>uri`.
func ParseResourcesFile(data []byte) []engine.ResourceRef {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var refs []engine.ResourceRef
	var arr []json.RawMessage
	if json.Unmarshal(data, &arr) == nil {
		for _, el := range arr {
			var s string
			if json.Unmarshal(el, &s) == nil {
				refs = append(refs, engine.ResourceRef{Path: s})
				continue
			}
			var r engine.ResourceRef
			if json.Unmarshal(el, &r) == nil && r.Path != "" {
				refs = append(refs, r)
			}
		}
		return refs
	}
	var one engine.ResourceRef
	if json.Unmarshal(data, &one) == nil && one.Path != "" {
		return []engine.ResourceRef{one}
	}
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.Split(strings.TrimRight(line, "\r"), "\t")
		if parts[0] == "" {
			continue
		}
		r := engine.ResourceRef{Path: parts[0]}
		if len(parts) > 1 {
			r.MIMEType = parts[1]
		}
		if len(parts) > 2 {
			r.URI = parts[2]
		}
		refs = append(refs, r)
	}
	return refs
}

// ForwardStream relays the lines of r (a side-file stream) until EOF or max bytes, and returns
// how many bytes it read (max or more means the stream was cut there). A last line without its
// newline is forwarded too, as the original's reader does at the end of a call.
func ForwardStream(ctx context.Context, c *engine.Call, r io.Reader, max int64) int64 {
	br := bufio.NewReader(io.LimitReader(r, max))
	var n int64
	for ctx.Err() == nil {
		line, err := br.ReadBytes('\n')
		n += int64(len(line))
		if len(line) > 0 {
			ForwardStreamLine(ctx, c, bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			break
		}
	}
	return n
}

// ForwardStreamLine relays one line a tool wrote to MCP_PROGRESS_STREAM or MCP_LOG_STREAM. Only
// progress for the call's own token and log records are forwarded, never arbitrary messages.
func ForwardStreamLine(ctx context.Context, c *engine.Call, line []byte) {
	if c.Sink == nil {
		return
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil {
		return
	}
	switch m.Method {
	case "notifications/progress":
		var p struct {
			Progress float64  `json:"progress"`
			Total    *float64 `json:"total"`
			Message  string   `json:"message"`
		}
		if c.ProgressToken != nil && json.Unmarshal(m.Params, &p) == nil {
			c.Sink.Progress(ctx, p.Progress, p.Total, p.Message)
		}
	case "notifications/message":
		var p struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger"`
			Data   json.RawMessage `json:"data"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			c.Sink.Log(ctx, p.Level, p.Logger, p.Data)
		}
	}
}

// ReadFS is what EmbedResources needs: a confined filesystem taking absolute paths.
type ReadFS interface {
	Stat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
}

// MaxEmbedBytes bounds one embedded resource.
const MaxEmbedBytes = 10 << 20

// EmbedResources reads resource files (relative paths resolved against dir) through fsys:
// paths it cannot read are skipped, as the original skips unreadable paths.
func EmbedResources(fsys ReadFS, dir string, refs []engine.ResourceRef) []engine.Embedded {
	var out []engine.Embedded
	for _, r := range refs {
		p := r.Path
		if path.IsAbs(p) {
			p = path.Clean(p)
		} else {
			p = path.Join(dir, p)
		}
		fi, err := fsys.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxEmbedBytes {
			continue
		}
		data, err := fsys.ReadFile(p)
		if err != nil {
			continue
		}
		uri := r.URI
		if uri == "" {
			uri = "file://" + p
		}
		out = append(out, engine.Embedded{URI: uri, MIMEType: r.MIMEType, Data: data})
	}
	return out
}
