package registry

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MetaProblem is one fault of a metadata file, where it is and how to fix it.
type MetaProblem struct {
	Line, Col uint
	Message   string
	Fix       string
}

// CheckToolMeta checks a tool.meta.json as `validate` and discovery do: that it is a JSON
// object, and that the fields the server reads have the types it needs. A file with problems is
// still used as far as it can be (a bad field gets its default), so each problem changes what
// clients see: the file's name or schema is not the one its author wrote.
func CheckToolMeta(data []byte) []MetaProblem {
	data = stripBOM(data)
	var doc map[string]json.RawMessage
	if json.Valid(data) && kindOf(data) != "object" {
		return []MetaProblem{{Line: 1, Col: 1, Message: "the file must be a JSON object ({...}), not " + article(kindOf(data)),
			Fix: `write {"name": "...", "description": "...", "inputSchema": {...}}`}}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		line, col := offsetPos(data, jsonErrorOffset(err))
		return []MetaProblem{{Line: line, Col: col, Message: "invalid JSON: " + err.Error(),
			Fix: "correct the JSON (a trailing comma, a missing quote or brace?); until then the tool is served under its file's name with no schema"}}
	}
	var out []MetaProblem
	add := func(key, msg, fix string) {
		line, col := offsetPos(data, keyOffset(data, key))
		out = append(out, MetaProblem{Line: line, Col: col, Message: msg, Fix: fix})
	}
	for _, key := range []string{"name", "title", "description", "exec", "writeMode"} {
		if raw, ok := doc[key]; ok && kindOf(raw) != "string" {
			add(key, fmt.Sprintf("%q must be a string, not %s", key, article(kindOf(raw))), fmt.Sprintf(`write "%s": "..."`, key))
		}
	}
	if raw, ok := doc["exec"]; ok && kindOf(raw) == "string" {
		var s string
		_ = json.Unmarshal(raw, &s)
		if s != "sandbox" && s != "native" {
			add("exec", fmt.Sprintf(`"exec" must be "sandbox" or "native", not %q`, s), `remove it (sandbox) or write "exec": "native"`)
		}
	}
	if raw, ok := doc["writeMode"]; ok && kindOf(raw) == "string" {
		var s string
		_ = json.Unmarshal(raw, &s)
		if s != "direct" && s != "review" {
			add("writeMode", fmt.Sprintf(`"writeMode" must be "direct" or "review", not %q (the tool runs in review mode until it is fixed)`, s), `write "writeMode": "review" (or "direct")`)
		}
	}
	for _, key := range []string{"inputSchema", "arguments", "outputSchema"} {
		raw, ok := doc[key]
		if !ok {
			continue
		}
		if kindOf(raw) != "object" {
			add(key, fmt.Sprintf("%q must be a JSON Schema object, not %s", key, article(kindOf(raw))), fmt.Sprintf(`write "%s": {"type": "object", "properties": {...}}`, key))
			continue
		}
		var schema map[string]json.RawMessage
		_ = json.Unmarshal(raw, &schema)
		if t, ok := schema["type"]; ok && string(t) != `"object"` {
			add(key, fmt.Sprintf("%s.type must be \"object\", not %s", key, t), `write "type": "object"`)
		}
		if p, ok := schema["properties"]; ok && kindOf(p) != "object" {
			add(key, fmt.Sprintf("%s.properties must be an object (one schema per argument), not %s", key, article(kindOf(p))), `write "properties": {"name": {"type": "string"}}`)
		}
		if r, ok := schema["required"]; ok && kindOf(r) != "array" {
			add(key, fmt.Sprintf("%s.required must be an array of names, not %s", key, article(kindOf(r))), `write "required": ["name"]`)
		}
	}
	if raw, ok := doc["timeoutSecs"]; ok && kindOf(raw) != "null" && positiveInt(raw) <= 0 && strings.Trim(string(raw), `"0`) != "" {
		add("timeoutSecs", "\"timeoutSecs\" must be a whole number of seconds, not "+string(raw)+" (it is ignored)", `write "timeoutSecs": 30`)
	}
	for _, f := range [][2]string{{"annotations", "object"}, {"sandbox", "object"}, {"_meta", "object"}, {"icons", "array"}} {
		key, want := f[0], f[1]
		if raw, ok := doc[key]; ok && kindOf(raw) != want && kindOf(raw) != "null" {
			add(key, fmt.Sprintf("%q must be %s, not %s", key, article(want), article(kindOf(raw))), "see docs/CONFIG.md, Tool metadata")
		}
	}
	slices.SortStableFunc(out, func(a, b MetaProblem) int { return cmp.Compare(a.Line, b.Line) })
	return out
}

// kindOf names a JSON value's type as a message would.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// article is kind with its article, for messages.
func article(kind string) string {
	switch kind {
	case "null", "nothing":
		return kind
	case "object", "array":
		return "an " + kind
	}
	return "a " + kind
}

// jsonErrorOffset is where a decoding error happened (the end of the input when unknown).
func jsonErrorOffset(err error) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Offset
	}
	return -1
}

// keyOffset is the offset of the first "key" in data, else -1.
func keyOffset(data []byte, key string) int64 {
	return int64(bytes.Index(data, []byte(strconv.Quote(key))))
}

// offsetPos turns a byte offset into a 1-based line and column (0, 0 when unknown).
func offsetPos(data []byte, off int64) (line, col uint) {
	if off < 0 {
		return 0, 0
	}
	off = min(off, int64(len(data)))
	before := data[:off]
	line = uint(bytes.Count(before, []byte("\n"))) + 1
	col = uint(int64(len(before)) - int64(bytes.LastIndexByte(before, '\n')))
	return line, col
}
