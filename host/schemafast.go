package host

import (
	"encoding/json"
	"math/big"
	"unicode/utf8"
)

// fastSchema is a JSON Schema of the plain shapes tools declare (types, properties, required,
// additionalProperties, items, enum of strings, string lengths) checked without the
// validation library. It only ever answers "valid" when the library would: every keyword it
// accepts it checks as JSON Schema 2020-12 says, and a schema with any other keyword (formats,
// numeric bounds, references, composition, another draft) gets no fast form at all. Any other
// answer sends the instance to the library, which also words the violations.
type fastSchema struct {
	any        bool // true (the boolean schema), or no constraint
	never      bool // false (the boolean schema)
	types      uint8
	props      []fastProp
	required   []string
	additional *fastSchema // nil: anything
	items      *fastSchema // nil: anything
	enum       []string    // nil: no enum (strings only)
	minLen     int
	maxLen     int // -1: none
}

type fastProp struct {
	name string
	sch  *fastSchema
}

// JSON types, as bits of fastSchema.types (0: any type).
const (
	tNull uint8 = 1 << iota
	tBool
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeBits = map[string]uint8{"null": tNull, "boolean": tBool, "number": tNumber, "integer": tInteger,
	"string": tString, "array": tArray, "object": tObject}

// annotations are keywords that never change a verdict.
var annotations = map[string]bool{"title": true, "description": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true}

// maxFastDepth bounds the nesting a fast form is made for (deeper schemas use the library).
const maxFastDepth = 16

// compileFast returns the fast form of a schema document (nil when it has none).
func compileFast(raw json.RawMessage) *fastSchema {
	var doc any
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"]; ok && s != "https://json-schema.org/draft/2020-12/schema" {
			return nil // another draft: its keywords mean other things
		}
	}
	return fastOf(doc, 0)
}

func fastOf(doc any, depth int) *fastSchema {
	if depth > maxFastDepth {
		return nil
	}
	switch d := doc.(type) {
	case bool:
		return &fastSchema{any: d, never: !d}
	case map[string]any:
		f := &fastSchema{maxLen: -1}
		for k, v := range d {
			switch {
			case annotations[k]:
			case k == "$schema" && depth == 0:
			case k == "type":
				bits, ok := typesOf(v)
				if !ok {
					return nil
				}
				f.types = bits
			case k == "properties":
				m, ok := v.(map[string]any)
				if !ok {
					return nil
				}
				for name, sub := range m {
					s := fastOf(sub, depth+1)
					if s == nil {
						return nil
					}
					f.props = append(f.props, fastProp{name, s})
				}
			case k == "required":
				list, ok := v.([]any)
				if !ok {
					return nil
				}
				for _, n := range list {
					s, ok := n.(string)
					if !ok {
						return nil
					}
					f.required = append(f.required, s)
				}
			case k == "additionalProperties":
				if f.additional = fastOf(v, depth+1); f.additional == nil {
					return nil
				}
			case k == "items":
				if f.items = fastOf(v, depth+1); f.items == nil {
					return nil
				}
			case k == "enum":
				list, ok := v.([]any)
				if !ok || len(list) == 0 {
					return nil
				}
				f.enum = []string{}
				for _, e := range list {
					s, ok := e.(string)
					if !ok {
						return nil
					}
					f.enum = append(f.enum, s)
				}
			case k == "minLength" || k == "maxLength":
				n, ok := v.(float64)
				if !ok || n < 0 || n != float64(int(n)) {
					return nil
				}
				if k == "minLength" {
					f.minLen = int(n)
				} else {
					f.maxLen = int(n)
				}
			default:
				return nil
			}
		}
		return f
	}
	return nil
}

func typesOf(v any) (uint8, bool) {
	switch t := v.(type) {
	case string:
		b, ok := typeBits[t]
		return b, ok
	case []any:
		var bits uint8
		for _, e := range t {
			s, ok := e.(string)
			if !ok || typeBits[s] == 0 {
				return 0, false
			}
			bits |= typeBits[s]
		}
		return bits, len(t) > 0
	}
	return 0, false
}

// valid reports whether v (decoded with numbers as json.Number) surely satisfies the schema;
// false means "ask the library".
func (f *fastSchema) valid(v any) bool {
	switch {
	case f.never:
		return false
	case f.any:
		return true
	}
	if f.types != 0 && !f.typeOK(v) {
		return false
	}
	switch x := v.(type) {
	case string:
		if f.enum != nil && !contains(f.enum, x) {
			return false
		}
		if f.minLen > 0 || f.maxLen >= 0 {
			n := utf8.RuneCountInString(x)
			if n < f.minLen || (f.maxLen >= 0 && n > f.maxLen) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, r := range f.required {
			if _, ok := x[r]; !ok {
				return false
			}
		}
		for k, pv := range x {
			if s := f.prop(k); s != nil {
				if !s.valid(pv) {
					return false
				}
			} else if f.additional != nil && !f.additional.valid(pv) {
				return false
			}
		}
	case []any:
		if f.items != nil {
			for _, it := range x {
				if !f.items.valid(it) {
					return false
				}
			}
		}
	}
	return f.enum == nil // an enum only ever admits strings here
}

func (f *fastSchema) prop(name string) *fastSchema {
	for i := range f.props {
		if f.props[i].name == name {
			return f.props[i].sch
		}
	}
	return nil
}

func (f *fastSchema) typeOK(v any) bool {
	switch x := v.(type) {
	case nil:
		return f.types&tNull != 0
	case bool:
		return f.types&tBool != 0
	case string:
		return f.types&tString != 0
	case map[string]any:
		return f.types&tObject != 0
	case []any:
		return f.types&tArray != 0
	case json.Number:
		if f.types&tNumber != 0 {
			return true
		}
		if f.types&tInteger == 0 {
			return false
		}
		r, ok := new(big.Rat).SetString(string(x))
		return ok && r.IsInt()
	}
	return false
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
