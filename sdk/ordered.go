package sdk

import (
	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// The original SDK compacts a script's JSON with `jq -c`, which keeps an object's members in
// the order they were written (a repeated key keeps its first place and its last value) and
// appends members a filter adds. gojq sorts keys, so the SDK functions that pass a script's
// JSON through carry it with its member order (sdk/jqorder).

// ordered decodes, builds and prints JSON values with jq's member order.
type ordered struct{ ko jqorder.KeyOrder }

func newOrdered() *ordered { return &ordered{ko: jqorder.KeyOrder{}} }

// decode parses exactly one JSON value (decodeJSON's errors), recording its member order.
func (o *ordered) decode(raw []byte) (any, error) { return decodeOrderedJSON(raw, o.ko) }

// object builds an object from key, value pairs, in that order.
func (o *ordered) object(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		o.ko.Set(m, kv[i].(string), kv[i+1])
	}
	return m
}

// set is jq's `.k = v`: an existing member keeps its place, a new one goes last.
func (o *ordered) set(m map[string]any, k string, v any) { o.ko.Set(m, k, v) }

// encode renders v compactly as `jq -c` does.
func (o *ordered) encode(v any) string {
	b, err := (&jqorder.Printer{Input: o.ko}).Marshal(v)
	if err != nil {
		return compactJSON(v)
	}
	return string(b)
}

// raw renders v as `jq -r -c` does: a string bare, anything else compact JSON.
func (o *ordered) raw(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return o.encode(v)
}
