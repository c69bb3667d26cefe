// Package jsonrpc implements JSON-RPC 2.0 over newline-delimited JSON (NDJSON): framing, message
// classification, ids that round-trip exactly, and error objects. It knows nothing of MCP.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Version is the only JSON-RPC version spoken.
const Version = "2.0"

// Standard JSON-RPC error codes, plus the server-error range codes MCP and mcp-bash use.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Error is a JSON-RPC error object. It also implements the error interface so handlers can
// return it directly.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// NewError builds an error object; data, when non-nil, is marshalled into Data.
func NewError(code int, message string, data any) *Error {
	e := &Error{Code: code, Message: message}
	if data != nil {
		if raw, ok := data.(json.RawMessage); ok {
			e.Data = raw
		} else if b, err := json.Marshal(data); err == nil {
			e.Data = b
		}
	}
	return e
}

// Kind classifies an incoming message.
type Kind int

// Kinds of message.
const (
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResponse
)

// Message is one JSON-RPC message. ID keeps the exact bytes the peer sent (string, 0, or an
// integer beyond float64 precision all round-trip); nil means the member was absent.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Kind reports whether m is a request, notification or response.
func (m *Message) Kind() Kind {
	switch {
	case m.Method != "" && m.ID != nil:
		return KindRequest
	case m.Method != "":
		return KindNotification
	case m.ID != nil && (m.Result != nil || m.Error != nil):
		return KindResponse
	}
	return KindInvalid
}

// IDKey returns a comparable form of an id (its compact JSON text), used to match cancellations
// and responses to requests.
func IDKey(id json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, id); err != nil {
		return string(id)
	}
	return buf.String()
}

// validID reports whether raw is a JSON string or integer number: the only id forms MCP allows.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"':
		if _, ok := PlainString(raw); ok {
			return true
		}
		var s string
		return json.Unmarshal(raw, &s) == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return !bytes.ContainsAny(raw, ".eE")
	}
	return false
}

// Response builds a success response. result must marshal to a JSON object.
func Response(id json.RawMessage, result any) ([]byte, error) {
	var raw json.RawMessage
	switch r := result.(type) {
	case json.RawMessage:
		raw = r
	case nil:
		raw = json.RawMessage(`{}`)
	case Appender:
		if plainID(id) {
			out := make([]byte, 0, 256+len(id))
			out = append(out, `{"jsonrpc":"2.0"`...)
			if len(id) > 0 {
				out = append(append(out, `,"id":`...), id...)
			}
			out = append(out, `,"result":`...)
			out, err := r.AppendJSON(out)
			if err != nil {
				return nil, fmt.Errorf("jsonrpc: marshal result: %w", err)
			}
			return append(out, '}'), nil
		}
		b, err := r.AppendJSON(nil)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: marshal result: %w", err)
		}
		raw = b
	default:
		b, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: marshal result: %w", err)
		}
		if plainID(id) {
			// json.Marshal's output is already compact and escaped, as the envelope's Marshal
			// would make it: writing the envelope around it saves validating it twice.
			out := make([]byte, 0, len(b)+len(id)+32)
			out = append(out, `{"jsonrpc":"2.0"`...)
			if len(id) > 0 {
				out = append(append(out, `,"id":`...), id...)
			}
			out = append(append(out, `,"result":`...), b...)
			return append(out, '}'), nil
		}
		raw = b
	}
	return json.Marshal(&Message{JSONRPC: Version, ID: id, Result: raw})
}

// plainID reports whether id is written unchanged by json.Marshal: empty, an integer, or a
// string of printable ASCII that needs no escaping (none of \ " < > &).
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return true
	}
	if id[0] == '"' {
		if len(id) < 2 || id[len(id)-1] != '"' {
			return false
		}
		for _, c := range id[1 : len(id)-1] {
			if c < 0x20 || c > 0x7e || c == '\\' || c == '"' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	}
	for i, c := range id {
		if (c < '0' || c > '9') && !(i == 0 && c == '-' && len(id) > 1) {
			return false
		}
	}
	return true
}

// ErrorResponse builds an error response. JSON-RPC requires the id member, null when the id
// could not be read, so a nil id is written as null.
func ErrorResponse(id json.RawMessage, e *Error) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(&struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *Error          `json:"error"`
	}{Version, id, e})
	if err != nil {
		// Only Data can fail to marshal; drop it rather than lose the answer.
		e2 := &Error{Code: e.Code, Message: e.Message}
		b, _ = json.Marshal(&struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *Error          `json:"error"`
		}{Version, id, e2})
	}
	return b
}

// Notification builds a notification line.
func Notification(method string, params any) ([]byte, error) {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: marshal params: %w", err)
		}
		raw = b
	}
	return json.Marshal(&Message{JSONRPC: Version, Method: method, Params: raw})
}

// Request builds a request line (server to client).
func Request(id json.RawMessage, method string, params any) ([]byte, error) {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("jsonrpc: marshal params: %w", err)
		}
		raw = b
	}
	return json.Marshal(&Message{JSONRPC: Version, ID: id, Method: method, Params: raw})
}
