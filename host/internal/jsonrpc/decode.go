package jsonrpc

import (
	"bytes"
	"encoding/json"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Normalize strips a UTF-8 byte order mark, a trailing CR and surrounding whitespace from one
// line. An empty result means the line is to be ignored.
func Normalize(line []byte) []byte {
	line = bytes.TrimPrefix(line, utf8BOM)
	return bytes.TrimSpace(line)
}

// foreignEncoding names the encoding of text that is not UTF-8 but UTF-16 or UTF-32, by its
// byte order mark or, without one, by where a JSON text's first ASCII character puts its NUL
// bytes (RFC 4627 §3); "" when it is neither.
func foreignEncoding(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0x00, 0x00, 0xFE, 0xFF}):
		return "UTF-32BE (with a byte order mark)"
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0x00, 0x00}):
		return "UTF-32LE (with a byte order mark)"
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return "UTF-16BE (with a byte order mark)"
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return "UTF-16LE (with a byte order mark)"
	case len(b) >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] != 0:
		return "UTF-32BE"
	case len(b) >= 4 && b[0] != 0 && b[1] == 0 && b[2] == 0 && b[3] == 0:
		return "UTF-32LE"
	case len(b) >= 2 && b[0] == 0 && b[1] != 0:
		return "UTF-16BE"
	case len(b) >= 2 && b[0] != 0 && b[1] == 0:
		return "UTF-16LE"
	}
	return ""
}

// Item is one decoded element of a line: either a well-formed Message or an Error to answer
// (with the id when it could be read).
type Item struct {
	Msg *Message
	Err *Error
	ID  json.RawMessage
}

// Decode parses one normalized line. A JSON array is a batch: batch is true and each element
// becomes its own Item. Invalid JSON yields a single parse-error Item.
func Decode(line []byte) (items []Item, batch bool) {
	if !json.Valid(line) {
		if enc := foreignEncoding(line); enc != "" {
			// Said loudly: a client sending UTF-16 or UTF-32 gets the reason, not a guess.
			d, _ := json.Marshal("The message is " + enc + "; JSON messages must be UTF-8 (RFC 8259)")
			return []Item{{Err: &Error{Code: CodeParseError, Message: "Parse error", Data: d}}}, false
		}
		return []Item{{Err: &Error{Code: CodeParseError, Message: "Parse error", Data: json.RawMessage(`"Failed to normalize input"`)}}}, false
	}
	if line[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(line, &elems); err != nil {
			return []Item{{Err: &Error{Code: CodeParseError, Message: "Parse error"}}}, false
		}
		if len(elems) == 0 {
			return []Item{{Err: &Error{Code: CodeInvalidRequest, Message: "Invalid Request", Data: json.RawMessage(`"Empty batch"`)}}}, true
		}
		items = make([]Item, 0, len(elems))
		for _, e := range elems {
			items = append(items, decodeOne(e))
		}
		return items, true
	}
	return []Item{decodeOne(line)}, false
}

// envelope is the members of a message that decodeOne reads (nil: absent).
type envelope struct {
	id, jsonrpc, method, params, result, error []byte
}

func (e *envelope) set(key, value []byte) {
	switch string(key) {
	case "id":
		e.id = value
	case "jsonrpc":
		e.jsonrpc = value
	case "method":
		e.method = value
	case "params":
		e.params = value
	case "result":
		e.result = value
	case "error":
		e.error = value
	}
}

// decodeOne turns one JSON value into an Item.
func decodeOne(raw []byte) Item {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return Item{Err: &Error{Code: CodeInvalidRequest, Message: "Invalid Request", Data: json.RawMessage(`"Message must be a JSON object"`)}}
	}
	// Members individually, so that a wrongly typed member is an invalid request, not a parse
	// error, and so that the id is recovered whenever it is readable. The scan reads the
	// members as a decoder into a map would (the last of a key wins); keys it cannot read
	// exactly go through encoding/json.
	var e envelope
	if !Members(raw, e.set) {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(raw, &members); err != nil {
			return Item{Err: &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}}
		}
		for k, v := range members {
			e.set([]byte(k), v)
		}
	}
	var m Message
	if e.id != nil {
		if !validID(e.id) {
			return Item{Err: &Error{Code: CodeInvalidRequest, Message: "Invalid Request", Data: json.RawMessage(`"id must be a string or an integer"`)}}
		}
		m.ID = append(json.RawMessage(nil), e.id...)
	}
	invalid := func(why string) Item {
		d, _ := json.Marshal(why)
		return Item{ID: m.ID, Err: &Error{Code: CodeInvalidRequest, Message: "Invalid Request", Data: d}}
	}
	if string(e.jsonrpc) != `"2.0"` {
		return invalid(`jsonrpc must be "2.0"`)
	}
	m.JSONRPC = Version
	if v := e.method; v != nil {
		if s, ok := PlainString(v); ok {
			m.Method = string(s)
		} else if err := json.Unmarshal(v, &m.Method); err != nil {
			return invalid("method must be a non-empty string")
		}
		if m.Method == "" {
			return invalid("method must be a non-empty string")
		}
	}
	if v := e.params; v != nil && string(v) != "null" {
		if len(v) == 0 || (v[0] != '{' && v[0] != '[') {
			return invalid("params must be an object or an array")
		}
		m.Params = append(json.RawMessage(nil), v...)
	}
	if v := e.result; v != nil {
		m.Result = append(json.RawMessage(nil), v...)
	}
	if v := e.error; v != nil {
		var er Error
		if err := json.Unmarshal(v, &er); err != nil {
			return invalid("error must be an error object")
		}
		m.Error = &er
	}
	if m.Kind() == KindInvalid {
		return invalid("Missing method")
	}
	return Item{Msg: &m, ID: m.ID}
}
