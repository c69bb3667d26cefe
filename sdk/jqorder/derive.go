package jqorder

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"
	"weak"

	"github.com/itchyny/gojq"
)

// Objects a filter changes. gojq copies an object to change it (`.a = 1`, `|=`, `+=`, `del`,
// `setpath`, `. + {b: 2}`, `. * {...}`, `map_values`) and the copy, a new Go map, would print
// sorted. jq keeps the members' places and appends new ones. Rewrite routes those operations
// through definitions that record the copy's order (Derived) from the object it was made from;
// it also makes `.[]`, `..`, `paths`, `tostream`, `map` and `add` visit an object's members in
// its order, and `tojson`/`tostring`/`@json`/string interpolation print it in that order.

// Derived remembers the member order of objects a filter changed, by map identity, without
// keeping them alive: a reduce that adds one key per step makes a copy per step, and the old
// copies must stay collectable. An entry is valid while its weak pointer still points at the
// map it was made for (an address the collector reused fails the check).
type Derived struct {
	m         map[uintptr]derivedEntry
	nextSweep int
}

type derivedEntry struct {
	w    weak.Pointer[byte]
	keys []string
}

// maxDerived bounds the entries of live objects one run remembers; past it, further changed
// objects print sorted (docs/SANDBOX.md).
const maxDerived = 1 << 18

func (d *Derived) get(m map[string]any) ([]string, bool) {
	if d == nil || len(d.m) == 0 {
		return nil, false
	}
	p := reflect.ValueOf(m).UnsafePointer()
	e, ok := d.m[uintptr(p)]
	if !ok || unsafe.Pointer(e.w.Value()) != p {
		return nil, false
	}
	return e.keys, true
}

func (d *Derived) put(m map[string]any, keys []string) {
	if d == nil {
		return
	}
	if d.m == nil {
		d.m, d.nextSweep = map[uintptr]derivedEntry{}, 1024
	}
	if len(d.m) >= d.nextSweep {
		for id, e := range d.m {
			if e.w.Value() == nil {
				delete(d.m, id)
			}
		}
		d.nextSweep = max(1024, 2*len(d.m))
		if len(d.m) >= maxDerived {
			return
		}
	}
	p := reflect.ValueOf(m).UnsafePointer()
	d.m[uintptr(p)] = derivedEntry{weak.Make((*byte)(p)), keys}
}

func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// recorded reports whether m's order is known from where it came (read, an argument, a copy
// already derived).
func (p *Printer) recorded(m map[string]any) bool {
	id := mapID(m)
	if keys, ok := p.Input[id]; ok && sameKeys(keys, m) {
		return true
	}
	if keys, ok := p.Args[id]; ok && sameKeys(keys, m) {
		return true
	}
	keys, ok := p.Derived.get(m)
	return ok && sameKeys(keys, m)
}

// derive records n, a copy of o with members changed, in jq's order: o's members that n
// kept, in o's order, then n's new members (sorted: a single new one is the common case).
func (p *Printer) derive(n, o map[string]any) {
	if p.Derived == nil || len(n) < 2 || sameMap(n, o) || p.recorded(n) {
		return
	}
	keys := make([]string, 0, len(n))
	for _, k := range p.KeysOf(o) {
		if _, ok := n[k]; ok {
			keys = append(keys, k)
		}
	}
	if len(keys) < len(n) {
		start := len(keys)
		for k := range n {
			if _, ok := o[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys[start:])
	}
	p.Derived.put(n, keys)
}

// Reorder records, for a value n that an update made from o, the order of every object
// copied along each of paths (the paths the update set or deleted). The value found at the
// end of a path is what the filter put there, with its own order, so it is left alone.
func (p *Printer) Reorder(n, o, paths any) any {
	ps, ok := paths.([]any)
	if !ok {
		return n
	}
	for _, path := range ps {
		steps, ok := path.([]any)
		if !ok {
			continue
		}
		p.reorderPath(n, o, steps)
	}
	return n
}

func (p *Printer) reorderPath(n, o any, steps []any) {
	for _, step := range steps {
		switch k := step.(type) {
		case string:
			nm, ok1 := n.(map[string]any)
			om, ok2 := o.(map[string]any)
			if !ok1 || !ok2 {
				return
			}
			p.derive(nm, om)
			n, o = nm[k], om[k]
		case int, float64:
			na, ok1 := n.([]any)
			oa, ok2 := o.([]any)
			if !ok1 || !ok2 {
				return
			}
			i := 0
			if f, ok := k.(float64); ok {
				i = int(f)
			} else {
				i = k.(int)
			}
			if i < 0 {
				i += len(oa)
			}
			if i < 0 || i >= len(na) || i >= len(oa) {
				return
			}
			n, o = na[i], oa[i]
		default:
			return // a slice or a non-index: nothing below is a copy of an object we know
		}
	}
}

// Added records the order of a + b for two objects: a's members, then b's new ones in b's
// order (jq adds b's members to a copy of a).
func (p *Printer) Added(res, a, b any) any { return p.combined(res, a, b, false) }

// Merged records the order of a * b for two objects, as Added and recursively for the
// members both hold as objects (jq merges b into a copy of a).
func (p *Printer) Merged(res, a, b any) any { return p.combined(res, a, b, true) }

func (p *Printer) combined(res, a, b any, deep bool) any {
	r, ok1 := res.(map[string]any)
	am, ok2 := a.(map[string]any)
	bm, ok3 := b.(map[string]any)
	if ok1 && ok2 && ok3 {
		p.merged(r, am, bm, deep)
	}
	return res
}

func (p *Printer) merged(r, a, b map[string]any, deep bool) {
	if p.Derived == nil || sameMap(r, a) || sameMap(r, b) {
		return
	}
	if len(r) > 1 && !p.recorded(r) {
		keys := slices.Clone(p.KeysOf(a))
		for _, k := range p.KeysOf(b) {
			if _, ok := a[k]; !ok {
				keys = append(keys, k)
			}
		}
		if sameKeys(keys, r) {
			p.Derived.put(r, keys)
		}
	}
	if !deep {
		return
	}
	for k, v := range r {
		rm, ok1 := v.(map[string]any)
		am, ok2 := a[k].(map[string]any)
		bm, ok3 := b[k].(map[string]any)
		if ok1 && ok2 && ok3 {
			p.merged(rm, am, bm, true)
		}
	}
}

// ToJSON is tojson with jq's member order.
func (p *Printer) ToJSON(v any) any {
	b, err := p.Marshal(v)
	if err != nil {
		return err
	}
	return string(b)
}

// FromJSON gives fromjson's result v, parsed from text s, the member order of s. Text that
// is not plain JSON (gojq also reads nan) keeps gojq's value.
func (p *Printer) FromJSON(v, s any) any {
	str, ok := s.(string)
	if !ok || p.Derived == nil || p.Normalize == nil || !hasObject(v) || !json.Valid([]byte(str)) {
		return v
	}
	ko := KeyOrder{}
	out := ko.Decode([]byte(str), p.Normalize)
	p.adopt(out, ko)
	return out
}

// adopt moves the orders ko recorded for the objects of v into Derived (weakly held).
func (p *Printer) adopt(v any, ko KeyOrder) {
	switch x := v.(type) {
	case map[string]any:
		if keys, ok := ko[mapID(x)]; ok {
			p.Derived.put(x, keys)
		}
		for _, e := range x {
			p.adopt(e, ko)
		}
	case []any:
		for _, e := range x {
			p.adopt(e, ko)
		}
	}
}

func hasObject(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return true
	case []any:
		return slices.ContainsFunc(x, hasObject)
	}
	return false
}

// The Go functions the ordered definitions call (gojq.WithFunction).
const (
	reorderFunc = "_mcpbash_reorder"
	addedFunc   = "_mcpbash_added"
	mergedFunc  = "_mcpbash_merged"
	tojsonFunc  = "_mcpbash_tojson"
	fromFunc    = "_mcpbash_fromjson_order"
	literalFunc = "_mcpbash_literal_order"
)

// Functions are the compiler options OrderedDefs need, bound to p.
func (p *Printer) Functions() []gojq.CompilerOption {
	return []gojq.CompilerOption{
		gojq.WithFunction(MergeInOrder, 0, 0, func(v any, _ []any) any { return p.MergeInOrder(v) }),
		gojq.WithFunction(KeysInOrder, 0, 0, func(v any, _ []any) any {
			m, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("%s (%s) has no keys", typeName(v), v)
			}
			keys := p.KeysOf(m)
			out := make([]any, len(keys))
			for i, k := range keys {
				out[i] = k
			}
			return out
		}),
		gojq.WithFunction(reorderFunc, 2, 2, func(v any, args []any) any { return p.Reorder(v, args[0], args[1]) }),
		gojq.WithFunction(addedFunc, 2, 2, func(v any, args []any) any { return p.Added(v, args[0], args[1]) }),
		gojq.WithFunction(mergedFunc, 2, 2, func(v any, args []any) any { return p.Merged(v, args[0], args[1]) }),
		gojq.WithFunction(tojsonFunc, 0, 0, func(v any, _ []any) any { return p.ToJSON(v) }),
		gojq.WithFunction(fromFunc, 1, 1, func(v any, args []any) any { return p.FromJSON(v, args[0]) }),
		gojq.WithFunction(literalFunc, 1, 1, func(v any, args []any) any { return p.Literal(v, args[0]) }),
	}
}

// Internal names: the rewrite's variable and the ordered helpers. A user's filter cannot
// collide with them by accident.
const (
	oldVar  = "$__mcpbash_old"
	plusDef = "_mcpbash_plus"
	mulDef  = "_mcpbash_times"
	eachDef = "_mcpbash_each"
	rhsVar  = "$__mcpbash_rhs"
	prefix  = "_mcpbash_"
)

// orderedSource are the definitions that keep jq's member order. They are written in plain
// jq and go through Rewrite like a user's filter (except the _mcpbash_ helpers, which hold
// the plain operators the rewrite routes to; their + and * are Guard's checked ones, so they compile
// with GuardFunctions too).
const orderedSource = `def _mcpbash_each: if type == "object" then ` + KeysInOrder + `[] as $k | .[$k] else .[] end;
def _mcpbash_plus(a; b): b as $b | a as $a | ` + addFunc + `($a; $b) | ` + addedFunc + `($a; $b);
def _mcpbash_times(a; b): b as $b | a as $a | ` + mulFunc + `($a; $b) | ` + mergedFunc + `($a; $b);
def _mcpbash_setpath($p; $v): setpath($p; $v);
def _mcpbash_delpaths($ps): delpaths($ps);
def _mcpbash_add: add;
def _mcpbash_fromjson: fromjson;
def map(f): [.[] | f];
def keys_unsorted: if type == "object" then ` + KeysInOrder + ` else keys end;
def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];
def from_entries: map({ (.key // .Key // .name // .Name): if has("value") then .value else .Value end }) | ` + MergeInOrder + `;
def with_entries(f): to_entries | map(f) | from_entries;
def setpath($p; $v): . as $o | _mcpbash_setpath($p; $v) | ` + reorderFunc + `($o; [$p]);
def delpaths($ps): . as $o | _mcpbash_delpaths($ps) | ` + reorderFunc + `($o; $ps);
def del(f): delpaths([path(f)]);
def map_values(f): .[] |= f;
def recurse: recurse(.[]?);
def paths: path(..) | select(. != []);
def paths(f): path(.. | select(f)) | select(. != []);
def leaf_paths: paths(scalars);
def tostream: path(def r: (.[]? | r), .; r) as $p | getpath($p) | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def walk(f): def w: if type == "array" then map(w) elif type == "object" then map_values(w) end | f; w;
def add: if type == "object" or (type == "array" and any(.[]; type == "object")) then reduce .[] as $x (null; . + $x) else _mcpbash_add end;
def add(f): [f] | add;
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] |= $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def tojson: ` + jsonRoomFunc + ` | ` + tojsonFunc + `;
def tostring: if type == "string" then . else ` + jsonRoomFunc + ` | ` + tojsonFunc + ` end;
def fromjson: . as $s | _mcpbash_fromjson | ` + fromFunc + `($s);
.`

// OrderedDefs are jq definitions, to put before the filter's own (and after any prelude),
// of the builtins that list, change or print an object's members, in jq's order rather than
// gojq's sorted one. They call the Go functions of Printer.Functions and GuardFunctions.
func OrderedDefs() []*gojq.FuncDef { return orderedDefs() }

// orderedDefs parses and rewrites the definitions once: compiling does not change a parsed
// query, so every run shares them (parsing them cost more than a small filter's whole run).
var orderedDefs = sync.OnceValue(func() []*gojq.FuncDef {
	q, err := gojq.Parse(orderedSource)
	if err != nil {
		panic("jqorder: " + err.Error()) // a constant text: a test catches it
	}
	for _, fd := range q.FuncDefs {
		if !strings.HasPrefix(fd.Name, prefix) {
			rewriteQuery(fd.Body)
		}
	}
	return q.FuncDefs
})

// Rewrite changes a parsed filter so that its object updates, object additions and merges,
// and iterations over objects keep jq's member order: an update `L = R` (or `|=`, `+=`, ...)
// becomes `. as $old | (L = R) | reorder($old; [path(L)])`, `a + b` and `a * b` go through
// definitions that record the result's order, and `.[]` visits an object's members in its
// order. The filter's results are otherwise the same. Call it after BuiltOrders.
func Rewrite(q *gojq.Query) { rewriteQuery(q) }

// orderedNames are the builtins OrderedDefs redefine.
var orderedNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, fd := range OrderedDefs() {
		if !strings.HasPrefix(fd.Name, prefix) {
			m[fd.Name] = true
		}
	}
	return m
})

// NeedsOrder reports whether a parsed filter can list, change or print an object's members
// (an update, `+`, `*`, `.[]`, `..`, string interpolation, `@json`, or a builtin OrderedDefs
// redefine): only such a filter needs Rewrite, OrderedDefs and Printer.Functions.
func NeedsOrder(q *gojq.Query) bool {
	found := false
	names := orderedNames()
	visitor{queryFn: func(q *gojq.Query) {
		switch q.Op {
		case gojq.OpAssign, gojq.OpModify, gojq.OpUpdateAdd, gojq.OpUpdateSub, gojq.OpUpdateMul,
			gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt, gojq.OpAdd, gojq.OpMul:
			found = true
		}
	}, termFn: func(t *gojq.Term) {
		switch {
		case t.Type == gojq.TermTypeRecurse, t.Str != nil && len(t.Str.Queries) > 0, t.Type == gojq.TermTypeFormat,
			t.Func != nil && names[t.Func.Name], slices.ContainsFunc(t.SuffixList, func(s *gojq.Suffix) bool { return s.Iter }),
			t.Object != nil && slices.ContainsFunc(t.Object.KeyVals, computedKey):
			found = true
		}
	}}.query(q)
	return found
}

// rewriteQuery visits children before their parent, so a node it wraps is already rewritten.
func rewriteQuery(q *gojq.Query) {
	visitor{queryFn: rewriteNode, termFn: func(t *gojq.Term) {
		rewriteObject(t)
		rewriteIter(t)
	}}.query(q)
}

// rewriteObject routes an object literal with a computed key (`{a: 1, (.k): 2}`) through
// literalFunc, which records the result's order from the literal's written order: literals
// with only written-out keys are BuiltOrders' (they need no change).
func rewriteObject(t *gojq.Term) {
	if t.Object == nil || !slices.ContainsFunc(t.Object.KeyVals, computedKey) {
		return
	}
	var list *gojq.Query
	for i := len(t.Object.KeyVals) - 1; i >= 0; i-- {
		kv := t.Object.KeyVals[i]
		item := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeNull}}
		if !computedKey(kv) {
			item = &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeString, Str: &gojq.String{Str: staticKey(kv)}}}
		}
		if list == nil {
			list = item
		} else {
			list = &gojq.Query{Op: gojq.OpComma, Left: item, Right: list}
		}
	}
	obj := *t
	obj.SuffixList = nil
	template := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeArray, Array: &gojq.Array{Query: list}}}
	call := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: literalFunc, Args: []*gojq.Query{template}}}}
	*t = gojq.Term{Type: gojq.TermTypeQuery, SuffixList: t.SuffixList,
		Query: &gojq.Query{Op: gojq.OpPipe, Left: &gojq.Query{Term: &obj}, Right: call}}
}

// computedKey reports whether a literal's key is known only at run time.
func computedKey(kv *gojq.ObjectKeyVal) bool {
	switch {
	case kv.KeyString != nil:
		return len(kv.KeyString.Queries) > 0
	case kv.KeyQuery != nil:
		return true
	}
	return kv.Key == "" || kv.Key[0] == '@' || kv.Key == "$__loc__"
}

// staticKey is the member name a written-out key makes (`{$x}` is `{x: $x}`).
func staticKey(kv *gojq.ObjectKeyVal) string {
	if kv.KeyString != nil {
		return kv.KeyString.Str
	}
	return strings.TrimPrefix(kv.Key, "$")
}

// Literal records the order of an object built by a literal with computed keys: written-out
// keys in their places, each computed one where it was written (several computed keys in one
// place: sorted). A key written twice keeps its first place, as jq's.
func (p *Printer) Literal(v, template any) any {
	m, ok := v.(map[string]any)
	tmpl, ok2 := template.([]any)
	if !ok || !ok2 || p.Derived == nil || len(m) < 2 {
		return v
	}
	static := map[string]bool{}
	for _, k := range tmpl {
		if s, ok := k.(string); ok {
			static[s] = true
		}
	}
	var computed []string
	for k := range m {
		if !static[k] {
			computed = append(computed, k)
		}
	}
	slices.Sort(computed)
	keys := make([]string, 0, len(m))
	seen := map[string]bool{}
	for _, k := range tmpl {
		s, isStatic := k.(string)
		switch {
		case isStatic && !seen[s]:
			keys, seen[s] = append(keys, s), true
		case !isStatic:
			for _, c := range computed {
				if !seen[c] {
					keys, seen[c] = append(keys, c), true
				}
			}
		}
	}
	if sameKeys(keys, m) {
		p.Derived.put(m, keys)
	}
	return v
}

func rewriteNode(q *gojq.Query) {
	switch q.Op {
	case gojq.OpAssign, gojq.OpModify, gojq.OpUpdateAdd, gojq.OpUpdateSub, gojq.OpUpdateMul,
		gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
		plainPathOps(q.Left)
	}
	if t := q.Term; t != nil && t.Type == gojq.TermTypeFunc && len(t.Func.Args) == 1 {
		switch t.Func.Name {
		case "path", "del", "pick":
			plainPathOps(t.Func.Args[0])
		}
	}
	switch q.Op {
	case gojq.OpUpdateAdd, gojq.OpUpdateMul:
		// L += R is `R as $x | L |= . + $x` (gojq evaluates R first, against the input);
		// written out so that the + is the ordered one.
		op := gojq.OpAdd
		if q.Op == gojq.OpUpdateMul {
			op = gojq.OpMul
		}
		lhs, rhs := q.Left, q.Right
		inner := &gojq.Query{Op: op, Left: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}}, Right: varRef(rhsVar)}
		if maybeObject(rhs) {
			rewriteQuery(inner)
		}
		body := &gojq.Query{Op: gojq.OpModify, Left: lhs, Right: inner}
		wrapUpdate(q, &gojq.Query{Op: gojq.OpPipe, Left: rhs, Patterns: []*gojq.Pattern{{Name: rhsVar}}, Right: body}, lhs)
	case gojq.OpAssign, gojq.OpModify, gojq.OpUpdateSub, gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
		lhs := q.Left
		wrapUpdate(q, &gojq.Query{Op: q.Op, Left: lhs, Right: q.Right}, lhs)
	case 0:
		// Guard's checked + and * (addFunc, mulFunc), routed like the plain ones.
		if t := q.Term; t != nil && t.Type == gojq.TermTypeFunc && (t.Func.Name == addFunc || t.Func.Name == mulFunc) &&
			len(t.Func.Args) == 2 && len(t.SuffixList) == 0 && maybeObject(t.Func.Args[0]) && maybeObject(t.Func.Args[1]) {
			if t.Func.Name == addFunc {
				t.Func.Name = plusDef
			} else {
				t.Func.Name = mulDef
			}
		}
	case gojq.OpAdd, gojq.OpMul:
		if !maybeObject(q.Left) || !maybeObject(q.Right) {
			return
		}
		name := plusDef
		if q.Op == gojq.OpMul {
			name = mulDef
		}
		call := &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name, Args: []*gojq.Query{q.Left, q.Right}}}
		*q = gojq.Query{Meta: q.Meta, Imports: q.Imports, FuncDefs: q.FuncDefs, Term: call}
	}
}

// plainPathOps turns the ordered + and * back into the checked ones (addFunc, mulFunc) in a
// path expression: gojq takes the path of l + r from its operands as they are evaluated
// (.+.A = 0 sets .A), and refuses l * r as a path before multiplying ((.A*.A)=0 is "invalid
// path against" the input, not "cannot multiply"), which a call of gojq's kind keeps and the
// ordered definitions' bindings do not; a path prints no member order.
func plainPathOps(q *gojq.Query) {
	visitor{termFn: func(t *gojq.Term) {
		if t.Type == gojq.TermTypeFunc && len(t.Func.Args) == 2 {
			switch t.Func.Name {
			case plusDef:
				t.Func.Name = addFunc
			case mulDef:
				t.Func.Name = mulFunc
			}
		}
	}}.query(q)
}

// wrapUpdate replaces q's expression (keeping its definitions) with
// `. as $old | (update) | reorder($old; [path(lhs)])`.
func wrapUpdate(q, update *gojq.Query, lhs *gojq.Query) {
	paths := &gojq.Term{Type: gojq.TermTypeArray, Array: &gojq.Array{Query: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc,
		Func: &gojq.Func{Name: "path", Args: []*gojq.Query{lhs}}}}}}
	// The paths are those of the value before the update (`$old | path(L)`), as the update's;
	// a constant path (`.a.b`, `.["k"][0]`) is written out, not computed again per value.
	oldPaths := &gojq.Query{Op: gojq.OpPipe, Left: varRef(oldVar), Right: &gojq.Query{Term: paths}}
	if c := constPath(lhs); c != nil {
		oldPaths = &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeArray, Array: &gojq.Array{Query: &gojq.Query{Term: c}}}}
	}
	reorder := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: reorderFunc,
		Args: []*gojq.Query{varRef(oldVar), oldPaths}}}}
	body := &gojq.Query{Op: gojq.OpPipe, Left: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeQuery, Query: update}}, Right: reorder}
	wrapped := &gojq.Query{Op: gojq.OpPipe, Left: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}},
		Patterns: []*gojq.Pattern{{Name: oldVar}}, Right: body}
	*q = gojq.Query{Meta: q.Meta, Imports: q.Imports, FuncDefs: q.FuncDefs, Term: &gojq.Term{Type: gojq.TermTypeQuery, Query: wrapped}}
}

// constPath is L's path as an array literal when L is a chain of constant indexes, else nil.
func constPath(q *gojq.Query) *gojq.Term {
	if q == nil || q.Term == nil || q.Op != 0 || len(q.FuncDefs) > 0 || q.Term.Type != gojq.TermTypeIndex {
		return nil
	}
	var steps []*gojq.Term
	for i, x := 0, q.Term.Index; ; i++ {
		var step *gojq.Term
		switch {
		case x == nil || x.IsSlice || x.End != nil:
			return nil
		case x.Name != "":
			step = &gojq.Term{Type: gojq.TermTypeString, Str: &gojq.String{Str: x.Name}}
		case x.Str != nil && len(x.Str.Queries) == 0:
			step = &gojq.Term{Type: gojq.TermTypeString, Str: &gojq.String{Str: x.Str.Str}}
		case x.Start != nil && x.Start.Op == 0 && x.Start.Term != nil && len(x.Start.Term.SuffixList) == 0 &&
			(x.Start.Term.Type == gojq.TermTypeNumber || x.Start.Term.Type == gojq.TermTypeString && len(x.Start.Term.Str.Queries) == 0):
			step = x.Start.Term
		default:
			return nil
		}
		steps = append(steps, step)
		if i >= len(q.Term.SuffixList) {
			break
		}
		sfx := q.Term.SuffixList[i]
		if sfx.Iter || sfx.Optional {
			return nil
		}
		x = sfx.Index
	}
	var list *gojq.Query
	for i := len(steps) - 1; i >= 0; i-- {
		item := &gojq.Query{Term: steps[i]}
		if list == nil {
			list = item
		} else {
			list = &gojq.Query{Op: gojq.OpComma, Left: item, Right: list}
		}
	}
	return &gojq.Term{Type: gojq.TermTypeArray, Array: &gojq.Array{Query: list}}
}

func varRef(name string) *gojq.Query {
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name}}}
}

// maybeObject reports whether q could evaluate to an object: literals of other types cannot
// (`.n + 1`, `"a" + .s` stay plain operators, at full speed).
func maybeObject(q *gojq.Query) bool {
	if q == nil || q.Term == nil || q.Op != 0 || len(q.FuncDefs) > 0 {
		return true
	}
	t := q.Term
	if len(t.SuffixList) > 0 {
		return true
	}
	switch t.Type {
	case gojq.TermTypeNumber, gojq.TermTypeString, gojq.TermTypeArray, gojq.TermTypeNull,
		gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeFormat, gojq.TermTypeUnary:
		return false
	}
	return true
}

// rewriteIter turns the first `[]` suffix of t (`.a[]`, `.[]?`, `$x[].b`) into a pipe into
// the ordered iteration: `(head | _mcpbash_each)` (`_mcpbash_each?` when the suffix was
// optional) with the remaining suffixes, rewritten the same way.
func rewriteIter(t *gojq.Term) {
	i := slices.IndexFunc(t.SuffixList, func(s *gojq.Suffix) bool { return s.Iter })
	if i < 0 {
		return
	}
	rest := t.SuffixList[i+1:]
	optional := t.SuffixList[i].Optional
	if len(rest) > 0 && rest[0].Optional && rest[0].Index == nil && !rest[0].Iter {
		optional, rest = true, rest[1:]
	}
	head := *t
	head.SuffixList = slices.Clip(t.SuffixList[:i])
	each := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: eachDef}}}
	if optional {
		// `?` covers the iteration only: `.a[]?` on an array still fails on `.a`, as in jq.
		each.Term.SuffixList = []*gojq.Suffix{{Optional: true}}
	}
	// The remaining suffixes stay on the parenthesized iteration, not after a pipe: an index
	// expression in them (`.[][.k]`) reads the term's input, not each element, and gojq
	// evaluates it before the iteration (`0[][empty]` is empty, not an error).
	*t = gojq.Term{Type: gojq.TermTypeQuery, Query: &gojq.Query{Op: gojq.OpPipe, Left: &gojq.Query{Term: &head}, Right: each},
		SuffixList: slices.Clone(rest)}
	rewriteIter(t)
}
