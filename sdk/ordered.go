package sdk

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The original SDK compacts a script's JSON with `jq -c`, which keeps an object's members in
// the order they were written (a repeated key keeps its first place and its last value) and
// appends members a filter adds. gojq sorts keys, so the SDK functions that pass a script's
// JSON through use this small ordered form instead.

// jsonObject is a JSON object with its members in order.
type jsonObject struct {
	keys []string
	vals []any
}

// set replaces the value of an existing member in place, or appends a new member (jq's
// `.k = v`).
func (o *jsonObject) set(k string, v any) {
	for i, key := range o.keys {
		if key == k {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// get returns the value of member k.
func (o *jsonObject) get(k string) (any, bool) {
	for i, key := range o.keys {
		if key == k {
			return o.vals[i], true
		}
	}
	return nil, false
}

// decodeOrdered parses exactly one JSON value, keeping member order: objects become *jsonObject,
// arrays []any, numbers what normalizeNumbers makes of them (as decodeJSON).
func decodeOrdered(raw []byte) (any, error) {
	if !json.Valid(raw) {
		// Valid only says no; decodeJSON words the error.
		_, err := decodeJSON(raw)
		if err == nil {
			err = &json.SyntaxError{}
		}
		return nil, err
	}
	p := orderedParser{s: raw}
	return p.value(), nil
}

// orderedParser reads text json.Valid accepted, so it does not check the grammar again.
type orderedParser struct {
	s []byte
	i int
}

func (p *orderedParser) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *orderedParser) value() any {
	p.skip()
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		o := &jsonObject{}
		for {
			p.skip()
			if p.s[p.i] == '}' {
				p.i++
				return o
			}
			if p.s[p.i] == ',' {
				p.i++
				p.skip()
			}
			k := p.str()
			p.skip()
			p.i++ // ':'
			o.set(k, p.value())
		}
	case c == '[':
		p.i++
		arr := []any{}
		for {
			p.skip()
			if p.s[p.i] == ']' {
				p.i++
				return arr
			}
			if p.s[p.i] == ',' {
				p.i++
			}
			arr = append(arr, p.value())
		}
	case c == '"':
		return p.str()
	case c == 't':
		p.i += 4
		return true
	case c == 'f':
		p.i += 5
		return false
	case c == 'n':
		p.i += 4
		return nil
	default:
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
			p.i++
		}
		return normalizeNumbers(json.Number(p.s[start:p.i]))
	}
}

// str reads a string token starting at its opening quote.
func (p *orderedParser) str() string {
	start := p.i
	p.i++
	plain := true
	for p.s[p.i] != '"' {
		if p.s[p.i] == '\\' {
			plain = false
			p.i++
		}
		p.i++
	}
	p.i++
	tok := p.s[start:p.i]
	if plain && utf8.Valid(tok) {
		return string(tok[1 : len(tok)-1])
	}
	var v string
	_ = json.Unmarshal(tok, &v) // valid JSON: cannot fail; invalid UTF-8 becomes U+FFFD, as in jq
	return v
}

// encodeOrdered renders v compactly as jq -c does: *jsonObject members in order, everything else
// as compactJSON (gojq's jq-compatible strings and numbers).
func encodeOrdered(v any) string {
	var b strings.Builder
	writeOrdered(&b, v)
	return b.String()
}

func writeOrdered(b *strings.Builder, v any) {
	switch x := v.(type) {
	case *jsonObject:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(compactJSON(k))
			b.WriteByte(':')
			writeOrdered(b, x.vals[i])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeOrdered(b, e)
		}
		b.WriteByte(']')
	default:
		b.WriteString(compactJSON(x))
	}
}

// rawOrdered is jq -r -c's rendering of an ordered value: a string bare, else compact JSON.
func rawOrdered(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return encodeOrdered(v)
}
