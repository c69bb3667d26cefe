package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultManualMaxBytes caps server.d/register.json (MCPBASH_MAX_MANUAL_REGISTRY_BYTES).
const DefaultManualMaxBytes = 1 << 20

// manual is a parsed server.d/register.json, or what server.d/register.sh registered. A nil slice pointer means "auto-discover this
// kind"; a non-nil empty slice disables it.
type manual struct {
	tools, resources, templates, prompts *[]json.RawMessage
	completions                          []Completion
}

var manualKeys = map[string]bool{"version": true, "tools": true, "resources": true, "resourceTemplates": true,
	"prompts": true, "completions": true, "_meta": true}

// loadManual reads register.json strictly. A missing file is (nil, nil).
func loadManual(path string, maxBytes int64) (*manual, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("register.json: %w", err)
	}
	if fi.Size() > maxBytes {
		return nil, fmt.Errorf("register.json: %d bytes exceeds the %d-byte limit (MCPBASH_MAX_MANUAL_REGISTRY_BYTES)", fi.Size(), maxBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("register.json: %w", err)
	}
	if bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")) {
		return nil, fmt.Errorf("register.json: UTF-8 BOM is not allowed")
	}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil || top == nil {
		return nil, fmt.Errorf("register.json: not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("register.json: trailing data after the JSON object")
	}
	for k := range top {
		if !manualKeys[k] {
			return nil, fmt.Errorf("register.json: unknown top-level key %q", k)
		}
	}
	if string(bytes.TrimSpace(top["version"])) != "1" {
		return nil, fmt.Errorf(`register.json: "version" must be the number 1`)
	}
	return buildManual("register.json", func(key string) (json.RawMessage, bool) {
		raw, ok := top[key]
		return raw, ok
	}, nil)
}

// manualKinds are the registration kinds with the string fields every entry needs.
var manualKinds = []struct {
	key      string
	required []string
}{
	{"tools", []string{"name", "path"}},
	{"resources", []string{"name", "uri"}},
	{"resourceTemplates", []string{"name", "uriTemplate"}},
	{"prompts", []string{"name", "path"}},
	{"completions", []string{"name", "path"}},
}

// buildManual validates the entries of every kind the same way for register.json and
// register.sh: source names the file in errors, get returns a kind's raw value, and kinds
// listed in byName (function registrations) are deduplicated by name (first wins) and sorted.
func buildManual(source string, get func(key string) (json.RawMessage, bool), byName map[string]bool) (*manual, error) {
	m := &manual{}
	for _, k := range manualKinds {
		raw, ok := get(k.key)
		arr, err := manualArray(source, raw, ok, k.key, k.required)
		if err != nil {
			return nil, err
		}
		if arr != nil && byName[k.key] {
			*arr = dedupeByName(*arr)
		}
		switch k.key {
		case "tools":
			m.tools = arr
		case "resources":
			m.resources = arr
		case "resourceTemplates":
			m.templates = arr
		case "prompts":
			m.prompts = arr
		case "completions":
			if arr == nil {
				continue
			}
			for i, raw := range *arr {
				var c Completion
				if err := json.Unmarshal(raw, &c); err != nil {
					return nil, fmt.Errorf("%s: completions[%d]: %v", source, i, err)
				}
				m.completions = append(m.completions, c)
			}
		}
	}
	return m, nil
}

// manualArray returns the entries of one kind (nil when absent or null), checking that each is
// an object with the required string fields.
func manualArray(source string, raw json.RawMessage, present bool, key string, required []string) (*[]json.RawMessage, error) {
	if !present || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(raw, &arr); err != nil {
		return nil, fmt.Errorf("%s: %q must be an array or null", source, key)
	}
	for i, el := range arr {
		var obj map[string]json.RawMessage
		if json.Unmarshal(el, &obj) != nil || obj == nil {
			return nil, fmt.Errorf("%s: %s[%d] must be an object", source, key, i)
		}
		for _, f := range required {
			var s string
			if json.Unmarshal(obj[f], &s) != nil || s == "" {
				return nil, fmt.Errorf("%s: %s[%d] needs a non-empty string %q", source, key, i, f)
			}
		}
		arr[i] = compact(el)
	}
	if arr == nil {
		arr = []json.RawMessage{}
	}
	return &arr, nil
}

// dedupeByName keeps the first entry of each name and sorts by name, as the original's
// function-style registration does.
func dedupeByName(entries []json.RawMessage) []json.RawMessage {
	type named struct {
		name string
		raw  json.RawMessage
	}
	seen := map[string]bool{}
	var kept []named
	for _, raw := range entries {
		var e struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(raw, &e)
		if !seen[e.Name] {
			seen[e.Name] = true
			kept = append(kept, named{e.Name, raw})
		}
	}
	slices.SortStableFunc(kept, func(a, b named) int { return strings.Compare(a.name, b.name) })
	out := make([]json.RawMessage, len(kept))
	for i, k := range kept {
		out[i] = k.raw
	}
	return out
}

// manualTools turns register.json tool entries into tools; the item is the entry verbatim with
// its inputSchema normalised.
func manualTools(d Dirs, entries []json.RawMessage, warn func(Warning)) []*Tool {
	var out []*Tool
	for _, raw := range entries {
		var meta metaDoc
		_ = json.Unmarshal(raw, &meta)
		name, rel := meta.str("name"), meta.str("path")
		if !toolNameRE().MatchString(name) {
			warn(Warning{Kind: KindTools, Path: "register.json", Message: fmt.Sprintf("invalid tool name %q (MCP allows 1 to 128 of A-Z a-z 0-9 _ - .); skipped", name)})
			continue
		}
		abs := rel
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(d.Tools, rel)
			if !fileExists(abs) && fileExists(filepath.Join(d.Root, rel)) {
				abs = filepath.Join(d.Root, rel)
			}
		}
		kind := ToolScript
		if filepath.Ext(abs) == ".wasm" {
			kind = ToolWasm
		}
		schema, ok := meta["inputSchema"]
		if !ok {
			schema = meta["arguments"]
		}
		t := &Tool{Name: name, Path: rel, Abs: abs, Kind: kind, InputSchema: normalizeSchema(schema), Meta: meta,
			TimeoutSecs: positiveInt(meta["timeoutSecs"]), MaxTimeoutSecs: positiveInt(meta["maxTimeoutSecs"]),
			TimeoutHint: meta.str("timeoutHint")}
		_ = json.Unmarshal(meta["progressExtendsTimeout"], &t.ProgressExtendsTimeout)
		if o := meta.object("outputSchema"); o != nil {
			t.OutputSchema = compact(o)
		}
		item := map[string]json.RawMessage{}
		for k, v := range meta {
			if string(v) != "null" && k != "arguments" {
				item[k] = v
			}
		}
		item["inputSchema"] = t.InputSchema
		if _, ok := item["description"]; !ok {
			item["description"] = json.RawMessage(`""`)
		}
		t.Item = mustJSON(item)
		out = append(out, t)
	}
	return out
}

func manualResources(d Dirs, entries []json.RawMessage) []*Resource {
	var out []*Resource
	for _, raw := range entries {
		var meta metaDoc
		_ = json.Unmarshal(raw, &meta)
		r := &Resource{Name: meta.str("name"), URI: meta.str("uri"), Path: meta.str("path"),
			MIMEType: meta.str("mimeType"), Provider: meta.str("provider")}
		if r.Provider == "" {
			r.Provider = providerFor(r.URI)
			meta["provider"] = mustJSON(r.Provider)
		}
		if r.Path != "" {
			r.Abs = r.Path
			if !filepath.IsAbs(r.Abs) {
				r.Abs = filepath.Join(d.Resources, r.Path)
			}
		}
		for k, v := range meta {
			if string(v) == "null" {
				delete(meta, k)
			}
		}
		r.Item = mustJSON(meta)
		out = append(out, r)
	}
	return out
}

func manualTemplates(entries []json.RawMessage) []*Template {
	var out []*Template
	for _, raw := range entries {
		var meta metaDoc
		_ = json.Unmarshal(raw, &meta)
		out = append(out, &Template{Name: meta.str("name"), URITemplate: meta.str("uriTemplate"), Item: raw})
	}
	return out
}

func manualPrompts(d Dirs, entries []json.RawMessage, warn func(Warning)) []*Prompt {
	var out []*Prompt
	for _, raw := range entries {
		var meta metaDoc
		_ = json.Unmarshal(raw, &meta)
		rel := meta.str("path")
		abs := rel
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(d.Prompts, rel)
			if !fileExists(abs) && fileExists(filepath.Join(d.Root, rel)) {
				abs = filepath.Join(d.Root, rel)
			}
		}
		p, err := buildPrompt(rel, abs, meta, "")
		if err != nil {
			warn(Warning{Kind: KindPrompts, Path: "register.json", Message: err.Error()})
			continue
		}
		out = append(out, p)
	}
	return out
}
