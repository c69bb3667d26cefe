package host

import (
	"encoding/json"
	"sort"
	"strconv"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
)

// Typed protocol results of the hot paths (tools/call and the four lists): built without maps
// and written by appending (jsonrpc.Appender), not by reflection over map[string]any.

// CallToolResult is the answer to tools/call: MCP's CallToolResult plus the original
// framework's name member.
type CallToolResult struct {
	// Name is the tool's name ("": not sent, as in a timeout's answer, as the original does).
	Name    string
	Content []Content
	IsError bool
	// Structured is structuredContent, sent when HasStructured (a tool's own result may carry
	// null).
	Structured    any
	HasStructured bool
	// Meta is _meta (nil: not sent).
	Meta map[string]any
	// Extra are the members of a result the tool wrote itself that are none of the above,
	// passed on as it wrote them.
	Extra map[string]any
	// ResultType is the 2026-07-28 resultType ("": not sent; finishStateless sets it).
	ResultType string
}

// Content is one item of a result's content: a text item, an embedded resource, or an item a
// tool wrote itself.
type Content struct {
	// Text is a text item's text (Item and Resource nil).
	Text string
	// Resource is an embedded resource ("type": "resource").
	Resource *resourceContent
	// Item is an item the tool wrote itself, passed on as it is.
	Item any
}

// textContent is a result's single text item.
func textContent(text string) []Content { return []Content{{Text: text}} }

// meta returns the result's _meta, adding one when it has none.
func (r *CallToolResult) meta() map[string]any {
	if r.Meta == nil {
		r.Meta = map[string]any{}
	}
	return r.Meta
}

// MarshalJSON writes the result (for callers outside the JSON-RPC writer, such as run-tool).
func (r *CallToolResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil) }

// AppendJSON appends the result as one JSON object.
func (r *CallToolResult) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case c.Item != nil:
			b, err = appendValue(b, c.Item)
		case c.Resource != nil:
			b = append(b, `{"type":"resource","resource":`...)
			b, err = appendValue(b, c.Resource)
			b = append(b, '}')
		default:
			b = append(b, `{"type":"text","text":`...)
			b = append(jsonrpc.AppendString(b, c.Text), '}')
		}
		if err != nil {
			return nil, err
		}
	}
	b = append(b, `],"isError":`...)
	b = strconv.AppendBool(b, r.IsError)
	if r.Name != "" {
		b = append(b, `,"name":`...)
		b = jsonrpc.AppendString(b, r.Name)
	}
	if r.HasStructured {
		b = append(b, `,"structuredContent":`...)
		if b, err = appendValue(b, r.Structured); err != nil {
			return nil, err
		}
	}
	if r.ResultType != "" {
		b = append(b, `,"resultType":`...)
		b = jsonrpc.AppendString(b, r.ResultType)
	}
	if r.Meta != nil {
		b = append(b, `,"_meta":`...)
		if b, err = appendObject(b, r.Meta); err != nil {
			return nil, err
		}
	}
	if len(r.Extra) > 0 {
		for _, k := range sortedKeys(r.Extra) {
			b = append(b, ',')
			b = jsonrpc.AppendString(b, k)
			b = append(b, ':')
			if b, err = appendValue(b, r.Extra[k]); err != nil {
				return nil, err
			}
		}
	}
	return append(b, '}'), nil
}

// appendValue appends v as JSON: raw JSON as it is, the common scalars directly, anything
// else through encoding/json.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case json.RawMessage:
		if len(x) == 0 {
			return append(b, "null"...), nil
		}
		return append(b, x...), nil
	case string:
		return jsonrpc.AppendString(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case nil:
		return append(b, "null"...), nil
	case map[string]any:
		return appendObject(b, x)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, out...), nil
}

// appendObject appends m with its keys sorted, as encoding/json writes maps.
func appendObject(b []byte, m map[string]any) ([]byte, error) {
	b = append(b, '{')
	var err error
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, k)
		b = append(b, ':')
		if b, err = appendValue(b, m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func sortedKeys(m map[string]any) []string {
	if len(m) == 1 {
		for k := range m {
			return []string{k}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// callToolResultOf types a result object a tool wrote itself (content and isError present):
// the members this server knows are typed, every other is kept as the tool wrote it.
func callToolResultOf(obj map[string]any) *CallToolResult {
	r := &CallToolResult{}
	for k, v := range obj {
		switch k {
		case "content":
			items, _ := v.([]any)
			r.Content = make([]Content, 0, len(items))
			for _, it := range items {
				if it == nil {
					it = json.RawMessage("null")
				}
				r.Content = append(r.Content, Content{Item: it})
			}
		case "isError":
			// Not a boolean: the schema allows none other, so it is answered as false.
			r.IsError, _ = v.(bool)
		case "structuredContent":
			r.Structured, r.HasStructured = v, true
		case "_meta":
			// Not an object: replaced by the server's own, as the original does.
			r.Meta, _ = v.(map[string]any)
		case "name":
			r.Name, _ = v.(string) // the caller sets the tool's own name
		default:
			r.extra(k, v)
		}
	}
	return r
}

func (r *CallToolResult) extra(k string, v any) {
	if r.Extra == nil {
		r.Extra = map[string]any{}
	}
	r.Extra[k] = v
}

// listResult is one page of tools/list, resources/list, resources/templates/list or
// prompts/list: the items under the method's member, the total in _meta, the next cursor.
type listResult struct {
	member     string
	items      []json.RawMessage
	total      int
	nextCursor string
	stateless  statelessFields
}

// statelessFields are the members every 2026-07-28 result carries (finishStateless): its
// resultType, the server's identity in _meta, and the cache hints of cacheable results.
type statelessFields struct {
	on         bool
	resultType string
	serverInfo json.RawMessage
	ttl        bool
	cacheScope string
}

func (l *listResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = jsonrpc.AppendString(b, l.member)
	b = append(b, ':', '[')
	for i, it := range l.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, `],"_meta":{"mcpbash/total":`...)
	b = strconv.AppendInt(b, int64(l.total), 10)
	if l.stateless.on {
		b = append(b, `,"`+metaServerInfo+`":`...)
		b = append(b, l.stateless.serverInfo...)
	}
	b = append(b, '}')
	if l.nextCursor != "" {
		b = append(b, `,"nextCursor":`...)
		b = jsonrpc.AppendString(b, l.nextCursor)
	}
	if l.stateless.on {
		b = append(b, `,"resultType":`...)
		b = jsonrpc.AppendString(b, l.stateless.resultType)
		if l.stateless.ttl {
			b = append(b, `,"ttlMs":0`...)
		}
		if l.stateless.cacheScope != "" {
			b = append(b, `,"cacheScope":`...)
			b = jsonrpc.AppendString(b, l.stateless.cacheScope)
		}
	}
	return append(b, '}'), nil
}

func (l *listResult) MarshalJSON() ([]byte, error) { return l.AppendJSON(nil) }
