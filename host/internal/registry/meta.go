package registry

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// metaDoc is one entry's metadata as raw fields, so unknown fields survive for later engines.
type metaDoc map[string]json.RawMessage

func (m metaDoc) str(key string) string {
	var s string
	if raw, ok := m[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func (m metaDoc) has(key string) bool {
	raw, ok := m[key]
	return ok && string(raw) != "null"
}

// object returns m[key] when it is a JSON object.
func (m metaDoc) object(key string) json.RawMessage {
	raw, ok := m[key]
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	return raw
}

// metaSource says where an entry's metadata came from.
type metaSource int

const (
	metaNone metaSource = iota
	metaFile
	metaInline
)

// readMeta applies the original's lookup order for a file: <file>.meta.json, then
// <stem>.meta.json (each used only when usable(meta) holds), then the inline `mcp:` header among
// the first 10 lines. A meta file that exists but is malformed is reported through bad.
func readMeta(path string, usable func(metaDoc) bool, inline bool, warn func(Warning)) (m metaDoc, metaPath string, src metaSource, bad error) {
	dir, base := filepath.Split(path)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	for _, cand := range []string{path + ".meta.json", filepath.Join(dir, stem+".meta.json")} {
		data, err := os.ReadFile(cand)
		if err != nil {
			if ioFailure(err) {
				ioWarning(warn, cand, err)
			}
			continue
		}
		var doc metaDoc
		if err := json.Unmarshal(stripBOM(data), &doc); err != nil {
			line, col := offsetPos(stripBOM(data), jsonErrorOffset(err))
			bad = &MetaError{Path: cand, Err: fmt.Errorf("line %d, column %d: %w", line, col, err)}
			continue
		}
		if usable(doc) {
			return doc, cand, metaFile, nil
		}
	}
	if inline {
		if doc := inlineHeader(path, warn); doc != nil {
			return doc, path, metaInline, bad
		}
	}
	return nil, "", metaNone, bad
}

// MetaError is malformed metadata of one entry; the entry is skipped or defaulted, never fatal.
type MetaError struct {
	Path string
	Err  error
}

func (e *MetaError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *MetaError) Unwrap() error { return e.Err }

// inlineHeader reads `# mcp: {json}` from the first line among the first 10 that contains
// "mcp:". Bad JSON means no header, as in the original.
func inlineHeader(path string, warn func(Warning)) metaDoc {
	f, err := os.Open(path)
	if err != nil {
		if ioFailure(err) {
			ioWarning(warn, path, err)
		}
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 64*1024)
	for i := 0; i < 10 && sc.Scan(); i++ {
		line := sc.Text()
		idx := strings.Index(line, "mcp:")
		if idx < 0 {
			continue
		}
		var doc metaDoc
		if json.Unmarshal([]byte(strings.TrimSpace(line[idx+4:])), &doc) != nil {
			return nil
		}
		// The inline header carries only these fields (not inputSchema).
		out := metaDoc{}
		for _, k := range []string{"name", "description", "arguments", "timeoutSecs", "outputSchema", "icons", "annotations"} {
			if v, ok := doc[k]; ok {
				out[k] = v
			}
		}
		return out
	}
	return nil
}

// normalizeSchema applies the original's inputSchema rules: non-object → default; missing type
// or properties added. A type other than "object" or properties that are not an object, which
// MCP forbids and clients reject, are replaced the same way (CheckToolMeta reports them).
func normalizeSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	if t, ok := m["type"]; !ok || string(t) != `"object"` {
		m["type"] = json.RawMessage(`"object"`)
	}
	if p, ok := m["properties"]; !ok || kindOf(p) != "object" {
		m["properties"] = json.RawMessage(`{}`)
	}
	b, _ := json.Marshal(m)
	return b
}

// icons converts local icon paths (relative to baseDir) into data: URIs. Non-array input and
// elements without a string src are dropped; missing files leave the element unchanged.
func icons(raw json.RawMessage, baseDir string) json.RawMessage {
	var arr []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &arr) != nil {
		return nil
	}
	out := make([]json.RawMessage, 0, len(arr))
	for _, el := range arr {
		var icon map[string]json.RawMessage
		if json.Unmarshal(el, &icon) != nil {
			continue
		}
		var src string
		if json.Unmarshal(icon["src"], &src) != nil || src == "" {
			continue
		}
		if !strings.HasPrefix(src, "data:") && !strings.HasPrefix(src, "http://") && !strings.HasPrefix(src, "https://") {
			p := src
			if !filepath.IsAbs(p) {
				p = filepath.Join(baseDir, p)
			}
			if data, err := os.ReadFile(p); err == nil {
				var mime string
				if json.Unmarshal(icon["mimeType"], &mime) != nil || mime == "" {
					mime = iconMIME(p)
					icon["mimeType"], _ = json.Marshal(mime)
				}
				icon["src"], _ = json.Marshal("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data))
			}
		}
		b, _ := json.Marshal(icon)
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil
	}
	b, _ := json.Marshal(out)
	return b
}

func iconMIME(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".ico":
		return "image/x-icon"
	}
	return "application/octet-stream"
}

// compact returns raw without insignificant whitespace (for verbatim entries and hashing).
func compact(raw json.RawMessage) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}
