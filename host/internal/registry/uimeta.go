package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxUIMetaBytes bounds ui.meta.json before it is read (it is a few hundred bytes in practice).
const maxUIMetaBytes = 1 << 20

// UIMeta is a UI directory's ui.meta.json, as the original reads it: the resource's title and
// description, the page to serve (entrypoint, default index.html; without it, the page of a
// built-in template and its config, sdk.RenderUITemplate), and the MCP Apps metadata
// (`meta`: csp, permissions, domain, prefersBorder) that hosts apply to the page.
type UIMeta struct {
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Entrypoint  string          `json:"entrypoint"`
	Template    string          `json:"template"`
	Config      json.RawMessage `json:"config"` // the template's configuration
	Meta        json.RawMessage `json:"meta"`
}

// ReadUIMeta reads dir/ui.meta.json; a missing file is the zero UIMeta with entrypoint
// index.html. An entrypoint must name a file inside dir.
func ReadUIMeta(dir string) (UIMeta, error) {
	m := UIMeta{}
	f, err := os.Open(filepath.Join(dir, "ui.meta.json"))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return UIMeta{Entrypoint: "index.html"}, err
	default:
		data, rerr := io.ReadAll(io.LimitReader(f, maxUIMetaBytes+1))
		f.Close()
		switch {
		case rerr != nil:
			return UIMeta{Entrypoint: "index.html"}, rerr
		case len(data) > maxUIMetaBytes:
			return UIMeta{Entrypoint: "index.html"}, fmt.Errorf("ui.meta.json is over %d bytes", maxUIMetaBytes)
		}
		if err := json.Unmarshal(stripBOM(data), &m); err != nil {
			return UIMeta{Entrypoint: "index.html"}, fmt.Errorf("ui.meta.json: %w", err)
		}
	}
	if m.Entrypoint == "" {
		m.Entrypoint = "index.html"
	}
	if len(m.Meta) > 0 && m.Meta[0] != '{' {
		m.Meta = nil
		return m, errors.New(`ui.meta.json: "meta" must be an object`)
	}
	if e := filepath.ToSlash(filepath.Clean(m.Entrypoint)); filepath.IsAbs(m.Entrypoint) || e == ".." || strings.HasPrefix(e, "../") || strings.HasPrefix(e, ".") {
		bad := m.Entrypoint
		m.Entrypoint = "index.html"
		return m, fmt.Errorf("ui.meta.json: entrypoint %q is not a file inside the UI directory; serving index.html", bad)
	}
	return m, nil
}

// ContentMeta is the `_meta` of the page's resources/read content and list entry: {"ui": meta},
// with prefersBorder true unless the file says otherwise, as the original serves it.
func (m UIMeta) ContentMeta() json.RawMessage {
	ui := map[string]json.RawMessage{}
	if len(m.Meta) > 0 {
		_ = json.Unmarshal(m.Meta, &ui)
	}
	if _, ok := ui["prefersBorder"]; !ok {
		ui["prefersBorder"] = json.RawMessage("true")
	}
	return mustJSON(map[string]any{"ui": ui})
}

// templateScriptOrigin is where the built-in template pages load the MCP Apps client library
// from (sdk/bash/ui-templates.jq).
const templateScriptOrigin = "https://cdn.jsdelivr.net"

// TemplateContentMeta is ContentMeta for a page built from a template: its csp also declares
// the origin the page loads its script from, which a host would otherwise block.
func (m UIMeta) TemplateContentMeta() json.RawMessage {
	var meta struct {
		UI map[string]json.RawMessage `json:"ui"`
	}
	_ = json.Unmarshal(m.ContentMeta(), &meta)
	csp := map[string]json.RawMessage{}
	_ = json.Unmarshal(meta.UI["csp"], &csp)
	var domains []string
	_ = json.Unmarshal(csp["resourceDomains"], &domains)
	if !slices.Contains(domains, templateScriptOrigin) {
		csp["resourceDomains"] = mustJSON(append(domains, templateScriptOrigin))
	}
	meta.UI["csp"] = mustJSON(csp)
	return mustJSON(meta)
}
