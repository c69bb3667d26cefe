// Package jqorder gives gojq's values jq's member order. jq prints an object's members in the
// order it read or built them; gojq represents objects as Go maps and prints them sorted. The
// sandbox's jq utility and the SDK's jq helpers share this package.
package jqorder

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/itchyny/gojq"
)

// KeyOrder remembers the member order of the objects jq read, by map identity. jq prints an
// object's members in the order they were read; gojq sorts them. gojq never changes a map it
// was given (it copies one to change it), so a map found here is an input object passed
// through unchanged (`.`, `.a`, `.[]`, select, sort_by ...), printed in input order as jq
// does. Maps the filter built or changed are not here and print sorted (gojq's order: a known
// difference, docs/SANDBOX.md).
//
// The table keeps the maps it names alive, so it covers at most MaxOrderedInput bytes of one
// input's text (of every input read by `input`/`inputs` within one run): past that, objects
// print sorted, and a long stream is not held in memory.
type KeyOrder map[unsafe.Pointer][]string

// MaxOrderedInput is how much of one input's text a KeyOrder should cover (callers drop it past
// that).
const MaxOrderedInput = 4 << 20

func mapID(m map[string]any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// Decode parses one JSON text (already checked by a json.Decoder) into gojq's values
// (numbers through normalize), recording the order of every object with two members or more
// (nothing when ko is nil).
func (ko KeyOrder) Decode(raw []byte, normalize func(json.Number) any) any {
	p := orderScanner{s: raw, ko: ko, num: normalize}
	return p.value()
}

// orderScanner reads valid JSON (json.Decoder has checked it), so it does not check the
// grammar again.
type orderScanner struct {
	s   []byte
	i   int
	ko  KeyOrder
	num func(json.Number) any
}

func (p *orderScanner) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *orderScanner) value() any {
	p.skip()
	switch c := p.s[p.i]; c {
	case '{':
		p.i++
		m := map[string]any{}
		var keys []string
		for {
			p.skip()
			switch p.s[p.i] {
			case '}':
				p.i++
				if len(keys) > 1 && p.ko != nil {
					p.ko[mapID(m)] = keys
				}
				return m
			case ',':
				p.i++
				p.skip()
			}
			k := p.str()
			p.skip()
			p.i++ // ':'
			v := p.value()
			if p.ko != nil {
				if _, dup := m[k]; !dup {
					keys = append(keys, k) // a repeated key keeps its first place, as in jq
				}
			}
			m[k] = v
		}
	case '[':
		p.i++
		arr := []any{}
		for {
			p.skip()
			switch p.s[p.i] {
			case ']':
				p.i++
				return arr
			case ',':
				p.i++
			}
			arr = append(arr, p.value())
		}
	case '"':
		return p.str()
	case 't':
		p.i += 4
		return true
	case 'f':
		p.i += 5
		return false
	case 'n':
		p.i += 4
		return nil
	}
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	return p.num(json.Number(p.s[start:p.i]))
}

// str reads a string token from its opening quote; text that is not UTF-8 becomes U+FFFD
// (encoding/json's and jq's reading).
func (p *orderScanner) str() string {
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
	_ = json.Unmarshal(tok, &v) // a valid token: cannot fail
	return v
}

// Record remembers keys as m's member order (m's keys, in the order to print them).
func (ko KeyOrder) Record(m map[string]any, keys []string) {
	if ko != nil && len(keys) > 1 && sameKeys(keys, m) {
		ko[mapID(m)] = keys
	}
}

// Set sets m[k] = v as jq's `.k = v` does on an object: an existing member keeps its place, a
// new one goes last. m's order is the recorded one, else (one member or none, or unknown) its
// keys sorted, as it would print.
func (ko KeyOrder) Set(m map[string]any, k string, v any) {
	id := mapID(m)
	keys, ok := ko[id]
	if !ok || !sameKeys(keys, m) {
		keys = slices.Sorted(maps.Keys(m))
	}
	if _, exists := m[k]; !exists {
		keys = append(keys, k)
	}
	m[k] = v
	if len(keys) > 1 {
		ko[id] = keys
	}
}

// Printer prints values with jq's member order where it is known: objects recorded in Input
// or Args (read and passed through unchanged), then objects with the key set of one of the
// filter's literals (Built, from BuiltOrders); others sorted, as gojq.
type Printer struct {
	Input, Args KeyOrder
	Built       map[string][]string
	// Derived holds the orders of objects the filter changed (Rewrite); nil records none.
	Derived *Derived
	// Normalize turns a number read by fromjson into gojq's (as the input's reader does).
	Normalize func(json.Number) any
	// Ctx, when set, ends a long print (Marshal, tojson) with its error.
	Ctx context.Context
}

// MaxPrintDepth is jq 1.6's printing depth: a value nested deeper prints as Stripped at that
// level (jv_dump_term), in output, tojson and tostring alike. It also keeps the printer's
// recursion short whatever the value (issue 27: printing a value three million levels deep
// ended the server).
const MaxPrintDepth = 256

// Stripped is what jq 1.6 prints in place of a value nested deeper than MaxPrintDepth.
const Stripped = "<stripped: exceeds max depth>"

// Marshal renders v compactly as gojq.Marshal does, with the member order above, and values
// deeper than MaxPrintDepth stripped as jq strips them.
func (p *Printer) Marshal(v any) ([]byte, error) {
	var ctx context.Context
	if p != nil {
		ctx = p.Ctx
	}
	if (p == nil || len(p.Input) == 0 && len(p.Args) == 0 && len(p.Built) == 0 && (p.Derived == nil || len(p.Derived.m) == 0)) &&
		(ctx == nil || fewNodes(v)) && depthOver(v, MaxPrintDepth) <= MaxPrintDepth {
		return gojq.Marshal(v)
	}
	var b []byte
	var st *printSteps
	if ctx != nil {
		st = &printSteps{ctx: ctx}
	}
	err := p.write(&b, v, 0, st)
	return b, err
}

// printSteps ends a print with its context: a value that holds one array many times prints
// far more than it takes memory (40 levels of [., .] print 2^40 elements).
type printSteps struct {
	ctx context.Context
	n   int
}

func (st *printSteps) step() error {
	if st == nil {
		return nil
	}
	if st.n++; st.n&0xffff == 0 {
		return st.ctx.Err()
	}
	return nil
}

// fewNodesMax is how many nodes a value printed by gojq's own Marshal may have when the
// print must end with a context: gojq's takes well under a millisecond for them.
const fewNodesMax = 4096

// fewNodes reports whether v has at most fewNodesMax arrays, objects and elements.
func fewNodes(v any) bool {
	n := 0
	stack := []any{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := x.(type) {
		case []any:
			if n += len(x) + 1; n > fewNodesMax {
				return false
			}
			stack = append(stack, x...)
		case map[string]any:
			if n += len(x) + 1; n > fewNodesMax {
				return false
			}
			for _, e := range x {
				stack = append(stack, e)
			}
		}
	}
	return true
}

// KeysOf is the order to print m's members in.
func (p *Printer) KeysOf(m map[string]any) []string {
	if p == nil {
		return slices.Sorted(maps.Keys(m))
	}
	id := mapID(m)
	keys, ok := p.Input[id]
	if !ok {
		keys, ok = p.Args[id]
	}
	if ok && sameKeys(keys, m) {
		return keys
	}
	if keys, ok := p.Derived.get(m); ok && sameKeys(keys, m) {
		return keys
	}
	keys = slices.Sorted(maps.Keys(m))
	if len(keys) > 1 && len(p.Built) > 0 {
		if b := p.Built[strings.Join(keys, "\x00")]; b != nil {
			return b
		}
	}
	return keys
}

// sameKeys reports whether keys are exactly m's keys (a map changed since it was recorded
// prints sorted rather than with a stale order).
func sameKeys(keys []string, m map[string]any) bool {
	if len(keys) != len(m) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func (p *Printer) write(b *[]byte, v any, depth int, st *printSteps) error {
	if err := st.step(); err != nil {
		return err
	}
	if depth > MaxPrintDepth {
		*b = append(*b, Stripped...)
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		keys := p.KeysOf(x)
		*b = append(*b, '{')
		for i, k := range keys {
			if i > 0 {
				*b = append(*b, ',')
			}
			kb, err := gojq.Marshal(k)
			if err != nil {
				return err
			}
			*b = append(append(*b, kb...), ':')
			if err := p.write(b, x[k], depth+1, st); err != nil {
				return err
			}
		}
		*b = append(*b, '}')
		return nil
	case []any:
		*b = append(*b, '[')
		for i, e := range x {
			if i > 0 {
				*b = append(*b, ',')
			}
			if err := p.write(b, e, depth+1, st); err != nil {
				return err
			}
		}
		*b = append(*b, ']')
		return nil
	}
	s, err := gojq.Marshal(v)
	*b = append(*b, s...)
	return err
}

// BuiltOrders finds the object literals of a filter whose keys are all written out
// (`{name: $n, count: 1}`, `{"a": 1, $b}`), by their key set: an object the filter prints with
// exactly those keys was most likely built by that literal, which jq prints in written order.
// A key set two literals write in different orders is left out (sorted, gojq's order).
func BuiltOrders(q *gojq.Query) map[string][]string {
	out := map[string][]string{}
	visitor{termFn: func(t *gojq.Term) {
		if t.Object != nil {
			addLiteral(out, t.Object)
		}
	}}.query(q)
	return out
}

func addLiteral(out map[string][]string, obj *gojq.Object) {
	var keys []string
	for _, kv := range obj.KeyVals {
		var k string
		switch {
		case kv.KeyString != nil && len(kv.KeyString.Queries) == 0:
			k = kv.KeyString.Str
		case kv.Key != "" && kv.KeyQuery == nil && kv.Key[0] != '@':
			k = strings.TrimPrefix(kv.Key, "$") // {$x} is {x: $x}
			if k == "__loc__" {
				return
			}
		default:
			return // a computed key: the key set is not known
		}
		if slices.Contains(keys, k) {
			return
		}
		keys = append(keys, k)
	}
	if len(keys) < 2 {
		return
	}
	set := strings.Join(slices.Sorted(slices.Values(keys)), "\x00")
	if prev, seen := out[set]; seen && (prev == nil || !slices.Equal(prev, keys)) {
		out[set] = nil // two orders: unknown
		return
	}
	out[set] = keys
}

// KeysInOrder and MergeInOrder name the Go functions OrderedDefs call (gojq.WithFunction,
// arity 0): an object's keys in the order Printer.KeysOf gives, and Printer.MergeInOrder.
const (
	KeysInOrder  = "_mcpbash_keys_in_order"
	MergeInOrder = "_mcpbash_merge_in_order"
)

// MergeInOrder is `add // {}` over an array of objects (from_entries' last step) that records
// the result's order in p.Input: a key in the place of its first object, with its last value.
// The result is a new map, which gojq copies before changing, so the record stays true.
func (p *Printer) MergeInOrder(v any) any {
	arr, ok := v.([]any)
	if !ok {
		return fmt.Errorf("cannot iterate over: %s", typeName(v))
	}
	out := map[string]any{}
	var keys []string
	for _, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			if e == nil {
				continue // add skips null
			}
			return fmt.Errorf("object and %s cannot be added", typeName(e))
		}
		for _, k := range p.KeysOf(m) {
			if _, seen := out[k]; !seen {
				keys = append(keys, k)
			}
			out[k] = m[k]
		}
	}
	if len(keys) > 1 && p.Input != nil {
		p.Input[mapID(out)] = keys
	}
	return out
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "number"
}
