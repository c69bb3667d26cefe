package jqorder

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/itchyny/gojq"
)

// Some of gojq's builtins do all their work on a whole value in one Go call that nothing stops:
// sort and its relatives sort or compare a whole array (a sort of a few million elements, or
// of elements that share one long array, runs for seconds to hours), split/1 splits a whole
// string, indices, index and rindex compare the whole needle at every place (quadratic), and the formats @html, @uri, @csv, @tsv, @sh, @base64 and @base64d encode a whole
// value; none of them asked the call's memory before allocating (issue 27). A filter that
// calls one of them gets ours instead (OwnDefs, like the regular expression builtins): jq
// definitions over one Go function (ownFunc) bound to the run's context and memory, which
// asks the run's memory for what it is about to build, checks the context every stopEvery
// steps (a step is an element compared, copied or a chunk of bytes), and gives gojq's results
// and errors (TestOwnMatchesGojq, FuzzOwnMatchesGojq). Sorting follows the very order of
// comparisons of gojq's (Go's stable sort: insertion sorts of blocks of 20, then SymMerge),
// so even comparisons that are not a strict order (jq's nan is below every number, itself
// included) end in gojq's order.

// ownFunc is the Go function the definitions call: _mcpbash_own($op) or _mcpbash_own($op; $x).
const ownFunc = "_mcpbash_own"

// ownSource defines the builtins over ownFunc, as gojq defines them (its _sort_by and friends
// take map([f]); a formatted string's parts go through ownFunc too: see rewriteFormats).
const ownSource = `def sort: ` + ownFunc + `("sort");
def sort_by(f): ` + ownFunc + `("sort_by"; map([f]));
def group_by(f): ` + ownFunc + `("group_by"; map([f]));
def unique: ` + ownFunc + `("unique");
def unique_by(f): ` + ownFunc + `("unique_by"; map([f]));
def min: ` + ownFunc + `("min");
def max: ` + ownFunc + `("max");
def min_by(f): ` + ownFunc + `("min_by"; map([f]));
def max_by(f): ` + ownFunc + `("max_by"; map([f]));
def split($sep): ` + ownFunc + `("split"; $sep);
def indices($i): ` + ownFunc + `("indices"; $i);
def index($i): ` + ownFunc + `("index"; $i);
def rindex($i): ` + ownFunc + `("rindex"; $i);
def contains($x): ` + ownFunc + `("contains"; $x);
def inside($x): ` + ownFunc + `("inside"; $x);
def flatten: ` + ownFunc + `("flatten");
def flatten($depth): ` + ownFunc + `("flatten1"; $depth);
def explode: ` + ownFunc + `("explode");
def implode: ` + ownFunc + `("implode");
def ascii_downcase: ` + ownFunc + `("ascii_downcase");
def ascii_upcase: ` + ownFunc + `("ascii_upcase");
def transpose: ` + ownFunc + `("transpose");
.`

// ownFormats are the formats whose work is ours: the others (@text, @json, @urid) are
// OrderedDefs' printer or small.
var ownFormats = map[string]bool{"@html": true, "@uri": true, "@csv": true, "@tsv": true, "@sh": true, "@base64": true, "@base64d": true}

var ownDefs = sync.OnceValue(func() []*gojq.FuncDef {
	q, err := gojq.Parse(ownSource)
	if err != nil {
		panic("jqorder: " + err.Error()) // a constant text: a test catches it
	}
	return q.FuncDefs
})

// stopEvery is how many steps pass between two looks at the run's context.
const stopEvery = 4096

// chunkBytes is how many bytes of a string a format encodes between two looks.
const chunkBytes = 64 << 10

// ownRun is one run's ownFunc: its context and memory.
type ownRun struct {
	ctx  context.Context
	room func(int64) error
}

// stopped ends a sort from inside its comparisons (recovered by ownRun.call).
type stopped struct{ err error }

// stepper counts a call's steps and looks at the context every stopEvery of them, panicking
// with stopped when it has ended.
type stepper struct {
	ctx   context.Context
	steps int
	// limit, when not 0, bounds the steps (counted stopEvery at a time): past it the walk
	// stops with errOverLimit.
	limit, looked int
}

// errOverLimit stops a stepper past its limit.
var errOverLimit = errors.New("jqorder: over the step limit")

func (s *stepper) step(n int) {
	if s.steps += n; s.steps >= stopEvery {
		s.looked += s.steps
		s.steps = 0
		if err := s.ctx.Err(); err != nil {
			panic(stopped{err})
		}
		if s.limit > 0 && s.looked > s.limit {
			panic(stopped{errOverLimit})
		}
	}
}

func newOwnFunction(r *ownRun) gojq.CompilerOption {
	return gojq.WithFunction(ownFunc, 1, 2, func(v any, args []any) any {
		var x any
		if len(args) > 1 {
			x = args[1]
		}
		op, _ := args[0].(string)
		return r.call(op, v, x)
	})
}

// ask asks the run's memory for n bytes when n is large.
func (r *ownRun) ask(n int64) error {
	if r.room == nil || n < roomMin {
		return nil
	}
	return r.room(n)
}

func (r *ownRun) call(op string, v, x any) any {
	return r.stepped(0, func(s *stepper) any { return r.op(s, op, v, x) })
}

// stepped runs f with a stepper over the run's context (at most limit steps when limit > 0),
// and gives the context's error (or the limit's) when f was stopped.
func (r *ownRun) stepped(limit int, f func(s *stepper) any) (out any) {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	s := &stepper{ctx: r.ctx, limit: limit}
	defer func() {
		if p := recover(); p != nil {
			st, ok := p.(stopped)
			if !ok {
				panic(p)
			}
			out = st.err
		}
	}()
	return f(s)
}

func (r *ownRun) op(s *stepper, op string, v, x any) any {
	switch op {
	case "sort", "unique", "min", "max":
		return r.sorted(s, op, v, v, false)
	case "sort_by", "group_by", "unique_by", "min_by", "max_by":
		return r.sorted(s, op, v, x, true)
	case "split":
		return r.split(s, v, x)
	case "indices", "index", "rindex":
		return r.indices(s, op, v, x)
	case "contains":
		return containsTop(s, op, v, x, v, x)
	case "inside":
		return containsTop(s, op, x, v, v, x)
	case "flatten", "flatten1":
		return r.flatten(s, op, v, x)
	case "explode":
		return r.explode(s, v)
	case "implode":
		return r.implode(s, v)
	case "ascii_downcase", "ascii_upcase":
		return r.asciiCase(s, op, v)
	case "transpose":
		return r.transpose(s, v)
	}
	if ownFormats[op] {
		return r.format(s, op, v)
	}
	return errors.New("jqorder: unknown operation " + op)
}

// containsTop is gojq's contains of l and r (inside's are swapped; v and x are the call's
// own, for gojq's words when they cannot be compared). Two arrays or two objects are walked
// with steps: gojq's contains of arrays looks for every element of one among all of the
// other's, quadratic and with no end in sight for long ones.
func containsTop(s *stepper, op string, l, r, v, x any) any {
	switch lt := l.(type) {
	case []any:
		if rt, ok := r.([]any); ok {
			return s.containsArrays(lt, rt)
		}
	case map[string]any:
		if rt, ok := r.(map[string]any); ok {
			return s.containsMaps(lt, rt)
		}
	}
	return gojqOwn(op, v, x)
}

func (s *stepper) containsArrays(l, r []any) bool {
next:
	for _, rv := range r {
		for _, lv := range l {
			if s.contains(lv, rv) {
				continue next
			}
		}
		return false
	}
	return true
}

func (s *stepper) containsMaps(l, r map[string]any) bool {
	if len(l) < len(r) {
		return false
	}
	for k, rv := range r {
		if lv, ok := l[k]; !ok || !s.contains(lv, rv) {
			return false
		}
	}
	return true
}

// contains is gojq's contains of a nested pair, where an error (values of two types) is no
// more than false.
func (s *stepper) contains(l, r any) bool {
	s.step(1)
	switch lt := l.(type) {
	case []any:
		rt, ok := r.([]any)
		return ok && s.containsArrays(lt, rt)
	case map[string]any:
		rt, ok := r.(map[string]any)
		return ok && s.containsMaps(lt, rt)
	case string:
		rt, ok := r.(string)
		return ok && strings.Contains(lt, rt)
	case int, float64, *big.Int:
		switch r.(type) {
		case int, float64, *big.Int:
			if isNaN(l) || isNaN(r) {
				return false
			}
			return gojq.Compare(l, r) == 0
		}
		return false
	}
	switch r.(type) {
	case []any, map[string]any:
		return false
	}
	return l == r // null, booleans
}

func isNaN(v any) bool {
	f, ok := v.(float64)
	return ok && math.IsNaN(f)
}

// gojqOwn runs gojq's own builtin over values ours leaves to it (its errors, in its words).
func gojqOwn(op string, v, x any) any {
	out, _ := plainOwn(op).Run(v, x).Next()
	return out
}

var plainOwnCodes sync.Map // op → *gojq.Code

func plainOwn(op string) *gojq.Code {
	if c, ok := plainOwnCodes.Load(op); ok {
		return c.(*gojq.Code)
	}
	src := op
	switch {
	case strings.HasSuffix(op, "_by"):
		src = "_" + op + "($x)"
	case op == "split" || op == "indices" || op == "index" || op == "rindex" || op == "contains" || op == "inside":
		src = op + "($x)"
	case op == "flatten1":
		src = "flatten($x)"
	}
	q, err := gojq.Parse(src)
	if err != nil {
		panic("jqorder: " + err.Error()) // constant texts: a test catches it
	}
	c, err := gojq.Compile(q, gojq.WithVariables([]string{"$x"}))
	if err != nil {
		panic("jqorder: " + err.Error())
	}
	plainOwnCodes.Store(op, c)
	return c
}

// sorted is sort, unique, min, max (keys the values themselves) and their _by forms (keys x,
// map([f]) of v), as gojq's sortItems, sortBy, uniqueBy, funcGroupBy and minMaxBy.
func (r *ownRun) sorted(s *stepper, op string, v, x any, by bool) any {
	vs, ok1 := v.([]any)
	xs, ok2 := x.([]any)
	if !ok1 || !ok2 || len(vs) != len(xs) {
		if by {
			return gojqOwn(op, v, x)
		}
		return gojqOwn(op, v, nil)
	}
	n := len(vs)
	switch op {
	case "min", "max", "min_by", "max_by":
		if n == 0 {
			return nil
		}
		isMin := op == "min" || op == "min_by"
		j, k := 0, xs[0]
		for i := 1; i < n; i++ {
			if s.compare(k, xs[i]) > 0 == isMin {
				j, k = i, xs[i]
			}
		}
		return vs[j]
	}
	// The permutation (8 bytes an element) and the result (16, and for group_by an array per
	// group, at most 40 more).
	per := int64(8 + anyBytes)
	if op == "group_by" {
		per += 40
	}
	if err := r.ask(per * int64(n)); err != nil {
		return err
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	less := func(a, b int) bool { return s.compare(xs[a], xs[b]) < 0 }
	stableSort(idx, less, s)
	switch op {
	case "sort", "sort_by":
		out := make([]any, n)
		for i, j := range idx {
			out[i] = vs[j]
		}
		return out
	case "group_by":
		out := []any{}
		var last any
		for i, j := range idx {
			if i == 0 || s.compare(last, xs[j]) != 0 {
				out, last = append(out, []any{vs[j]}), xs[j]
			} else {
				out[len(out)-1] = append(out[len(out)-1].([]any), vs[j])
			}
		}
		return out
	default: // unique, unique_by
		out := []any{}
		var last any
		for i, j := range idx {
			if i == 0 || s.compare(last, xs[j]) != 0 {
				out, last = append(out, vs[j]), xs[j]
			}
		}
		return out
	}
}

// compare is gojq.Compare, walking arrays and objects itself so that every element compared
// is a step: two arrays that share one long array compare it whole each time.
func (s *stepper) compare(l, r any) int {
	s.step(1)
	switch l := l.(type) {
	case []any:
		if r, ok := r.([]any); ok {
			for i := range min(len(l), len(r)) {
				if c := s.compare(l[i], r[i]); c != 0 {
					return c
				}
			}
			return cmp.Compare(len(l), len(r))
		}
	case map[string]any:
		if r, ok := r.(map[string]any); ok {
			s.step(len(l) + len(r))
			lk, rk := sortedKeys(l), sortedKeys(r)
			if c := slices.Compare(lk, rk); c != 0 {
				return c
			}
			for _, k := range lk {
				if c := s.compare(l[k], r[k]); c != 0 {
					return c
				}
			}
			return 0
		}
	}
	return gojq.Compare(l, r)
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// stableSort sorts idx by less making gojq's comparisons in gojq's order (slices.SortStableFunc:
// insertion sorts of blocks of 20, then blocks merged pairwise by SymMerge, doubling), so that
// the result is gojq's whatever less is; s counts the swaps and rotations too.
func stableSort(idx []int, less func(a, b int) bool, s *stepper) {
	n := len(idx)
	block := 20
	a, b := 0, block
	for b <= n {
		insertionSort(idx, a, b, less)
		a, b = b, b+block
	}
	insertionSort(idx, a, n, less)
	for block < n {
		a, b = 0, 2*block
		for b <= n {
			symMerge(idx, a, a+block, b, less, s)
			a, b = b, b+2*block
		}
		if m := a + block; m < n {
			symMerge(idx, a, m, n, less, s)
		}
		block *= 2
	}
}

func insertionSort(idx []int, a, b int, less func(a, b int) bool) {
	for i := a + 1; i < b; i++ {
		for j := i; j > a && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// symMerge merges the sorted idx[a:m] and idx[m:b] in place (Kim and Kutzner's SymMerge, as
// Go's stable sort runs it).
func symMerge(idx []int, a, m, b int, less func(a, b int) bool, s *stepper) {
	if m-a == 1 {
		// One element on the left: find where it goes in the right, then move it there.
		i, j := m, b
		for i < j {
			h := int(uint(i+j) >> 1)
			if less(idx[h], idx[a]) {
				i = h + 1
			} else {
				j = h
			}
		}
		s.step(i - a)
		for k := a; k < i-1; k++ {
			idx[k], idx[k+1] = idx[k+1], idx[k]
		}
		return
	}
	if b-m == 1 {
		i, j := a, m
		for i < j {
			h := int(uint(i+j) >> 1)
			if !less(idx[m], idx[h]) {
				i = h + 1
			} else {
				j = h
			}
		}
		s.step(m - i)
		for k := m; k > i; k-- {
			idx[k], idx[k-1] = idx[k-1], idx[k]
		}
		return
	}
	mid := int(uint(a+b) >> 1)
	n := mid + m
	var start, r int
	if m > mid {
		start, r = n-b, mid
	} else {
		start, r = a, m
	}
	p := n - 1
	for start < r {
		c := int(uint(start+r) >> 1)
		if !less(idx[p-c], idx[c]) {
			start = c + 1
		} else {
			r = c
		}
	}
	end := n - start
	if start < m && m < end {
		s.step(end - start)
		slices.Reverse(idx[start:m])
		slices.Reverse(idx[m:end])
		slices.Reverse(idx[start:end])
	}
	if a < start && start < mid {
		symMerge(idx, a, start, mid, less, s)
	}
	if mid < end && end < b {
		symMerge(idx, mid, end, b, less, s)
	}
}

// split is split/1 of a string by a string, as gojq's (strings.Split), its pieces asked of
// the run's memory first.
func (r *ownRun) split(s *stepper, v, x any) any {
	str, ok1 := v.(string)
	sep, ok2 := x.(string)
	if !ok1 || !ok2 {
		return gojqOwn("split", v, x)
	}
	if str == "" {
		return []any{}
	}
	n := 1
	if sep == "" {
		// strings.Split's pieces: one per UTF-8 sequence, counted a chunk at a time, each
		// cut before a byte that may start one or after three that cannot (no sequence spans
		// the cut: one is at most four bytes).
		n = 0
		for rest := str; rest != ""; {
			s.step(stopEvery)
			end := min(len(rest), chunkBytes)
			for k := 0; k < 3 && end < len(rest) && !utf8.RuneStart(rest[end]); k++ {
				end++
			}
			n += utf8.RuneCountInString(rest[:end])
			rest = rest[end:]
		}
	} else {
		for i := 0; ; n++ {
			s.step(1)
			j := strings.Index(str[i:], sep)
			if j < 0 {
				break
			}
			i += j + len(sep)
		}
	}
	if err := r.ask(int64(n) * pieceBytes); err != nil {
		return err
	}
	out := make([]any, 0, n)
	for len(out) < n-1 {
		s.step(1)
		if sep == "" {
			_, w := utf8.DecodeRuneInString(str)
			out = append(out, str[:w])
			str = str[w:]
			continue
		}
		i := strings.Index(str, sep)
		out = append(out, str[:i])
		str = str[i+len(sep):]
	}
	return append(out, str)
}

// indices is indices, index or rindex, as gojq's indexFunc: the places where x (an array, or
// one value) occurs in the array v, or where the string x occurs in the string v, counted in
// code points; each place tried is compared element by element, each a step (gojq's loop is
// the length of v times the length of x). Strings are compared as code points (gojq explodes
// both), asked of the memory first; the places found are asked as they grow.
func (r *ownRun) indices(s *stepper, op string, v, x any) any {
	var vs, xs []any
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		vs = v
		if a, ok := x.([]any); ok {
			xs = a
		} else {
			xs = []any{x}
		}
	case string:
		t, ok := x.(string)
		if !ok {
			return gojqOwn(op, v, x)
		}
		if err := r.ask(4 * int64(len(v)+len(t))); err != nil {
			return err
		}
		return r.runeIndices(s, op, []rune(v), []rune(t))
	default:
		return gojqOwn(op, v, x)
	}
	return placesOf(r, s, op, len(vs), len(xs), func(i int) bool {
		return s.compare(vs[i:i+len(xs)], xs) == 0
	})
}

func (r *ownRun) runeIndices(s *stepper, op string, vs, xs []rune) any {
	return placesOf(r, s, op, len(vs), len(xs), func(i int) bool {
		for j, c := range xs {
			if vs[i+j] != c {
				s.step(j + 1)
				return false
			}
		}
		s.step(len(xs) + 1)
		return true
	})
}

// placesOf tries every place of a needle of m in a haystack of n with at: indices lists them,
// index gives the first, rindex the last (null when none, or m is 0).
func placesOf(r *ownRun, s *stepper, op string, n, m int, at func(i int) bool) any {
	if op == "indices" {
		rs := []any{}
		if m == 0 {
			return rs
		}
		for i := range n - m + 1 {
			if at(i) {
				if len(rs) == cap(rs) && len(rs) >= 1024 {
					if err := r.ask(2 * anyBytes * int64(len(rs))); err != nil {
						return err
					}
				}
				rs = append(rs, i)
			}
		}
		return rs
	}
	if m == 0 {
		return nil
	}
	if op == "index" {
		for i := range n - m + 1 {
			if at(i) {
				return i
			}
		}
		return nil
	}
	for i := n - m; i >= 0; i-- {
		if at(i) {
			return i
		}
	}
	return nil
}

// format is one of ownFormats of v, as gojq's funcToHTML and friends: strings (and arrays of
// them) encoded here, a chunk at a time, into one buffer of the size asked first; other values
// (printed as JSON first) and errors are gojq's own, once their JSON is asked of the memory.
func (r *ownRun) format(s *stepper, op string, v any) any {
	switch op {
	case "@csv", "@tsv", "@sh":
		vs, ok := v.([]any)
		if !ok {
			if op != "@sh" {
				return gojqOwn(op, v, nil)
			}
			vs = []any{v}
		}
		return r.formatRow(s, op, vs)
	}
	str, ok := v.(string)
	if !ok {
		if err := jsonRoom(r.ctx, v, r.room); err != nil {
			return err
		}
		return gojqOwn(op, v, nil)
	}
	switch op {
	case "@base64":
		return r.base64(s, str)
	case "@base64d":
		return r.base64d(s, str, v)
	}
	size := escapedLen(s, op, str)
	if err := r.ask(size); err != nil {
		return err
	}
	var b strings.Builder
	b.Grow(int(size))
	writeEscaped(s, &b, op, str)
	return b.String()
}

// escapeByte is what a format makes of one byte of a string (nil: the byte itself).
func escapeByte(op string, c byte) string {
	switch op {
	case "@html":
		switch c {
		case '<':
			return "&lt;"
		case '>':
			return "&gt;"
		case '&':
			return "&amp;"
		case '\'':
			return "&apos;"
		case '"':
			return "&quot;"
		}
	case "@uri":
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			return ""
		}
		return uriEscapes[c]
	case "@csv":
		switch c {
		case '"':
			return `""`
		case 0:
			return `\0`
		}
	case "@tsv":
		switch c {
		case '\t':
			return `\t`
		case '\r':
			return `\r`
		case '\n':
			return `\n`
		case '\\':
			return `\\`
		case 0:
			return `\0`
		}
	case "@sh":
		switch c {
		case '\'':
			return `'\''`
		case 0:
			return `\0`
		}
	}
	return ""
}

var uriEscapes = func() (t [256]string) {
	const hex = "0123456789ABCDEF"
	for c := range t {
		t[c] = "%" + string(hex[c>>4]) + string(hex[c&15])
	}
	return t
}()

// escapedLen is the length of str under op's escapes.
func escapedLen(s *stepper, op string, str string) int64 {
	n := int64(len(str))
	for i := 0; i < len(str); i++ {
		if i%chunkBytes == 0 {
			s.step(stopEvery)
		}
		if e := escapeByte(op, str[i]); e != "" {
			n += int64(len(e)) - 1
		}
	}
	return n
}

// writeEscaped writes str under op's escapes, looking at the context every chunk.
func writeEscaped(s *stepper, b *strings.Builder, op, str string) {
	from := 0
	for i := 0; i < len(str); i++ {
		if i%chunkBytes == 0 {
			s.step(stopEvery)
		}
		if e := escapeByte(op, str[i]); e != "" {
			b.WriteString(str[from:i])
			b.WriteString(e)
			from = i + 1
		}
	}
	b.WriteString(str[from:])
}

// formatRow is @csv, @tsv or @sh of an array, as gojq's formatJoin: strings quoted and
// escaped, other scalars as JSON (null nothing but in @sh), arrays and objects refused.
func (r *ownRun) formatRow(s *stepper, op string, vs []any) any {
	sep := ","
	switch op {
	case "@tsv":
		sep = "\t"
	case "@sh":
		sep = " "
	}
	// Sizes first (scalars printed once here, strings measured), refusals in gojq's words.
	if err := r.ask(anyBytes * int64(len(vs))); err != nil {
		return err
	}
	printed := make([]string, len(vs))
	var size int64
	for i, v := range vs {
		s.step(1)
		if i > 0 {
			size += int64(len(sep))
		}
		switch x := v.(type) {
		case []any, map[string]any:
			return gojqOwn(op, []any{x}, nil)
		case string:
			size += escapedLen(s, op, x)
			if op != "@tsv" {
				size += 2
			}
		case nil:
			if op == "@sh" {
				printed[i] = "null"
			}
		case bool:
			printed[i] = strconv.FormatBool(x)
		case int:
			printed[i] = strconv.Itoa(x)
		default:
			p, _ := gojqOwn("tojson", x, nil).(string)
			printed[i] = p
		}
		size += int64(len(printed[i]))
	}
	if err := r.ask(size + anyBytes*int64(len(vs))); err != nil {
		return err
	}
	var b strings.Builder
	b.Grow(int(size))
	for i, v := range vs {
		s.step(1)
		if i > 0 {
			b.WriteString(sep)
		}
		str, ok := v.(string)
		if !ok {
			b.WriteString(printed[i])
			continue
		}
		switch op {
		case "@csv":
			b.WriteByte('"')
			writeEscaped(s, &b, op, str)
			b.WriteByte('"')
		case "@sh":
			b.WriteByte('\'')
			writeEscaped(s, &b, op, str)
			b.WriteByte('\'')
		default:
			writeEscaped(s, &b, op, str)
		}
	}
	return b.String()
}

// base64 is @base64 of a string, a chunk (a multiple of 3 bytes) at a time.
func (r *ownRun) base64(s *stepper, str string) any {
	size := base64.StdEncoding.EncodedLen(len(str))
	if err := r.ask(int64(size)); err != nil {
		return err
	}
	out := make([]byte, size)
	const in = 3 * chunkBytes
	for i, o := 0, 0; i < len(str); i, o = i+in, o+4*chunkBytes {
		s.step(stopEvery)
		base64.StdEncoding.Encode(out[o:], []byte(str[i:min(i+in, len(str))]))
	}
	return string(out)
}

// base64d is @base64d of a string: what precedes its first '=' decoded as unpadded base64, a
// chunk (a multiple of 4 bytes) at a time; text with line breaks (which Go's decoder skips)
// and errors are gojq's own.
func (r *ownRun) base64d(s *stepper, str string, v any) any {
	if i := strings.IndexByte(str, '='); i >= 0 {
		str = str[:i]
	}
	if strings.ContainsAny(str, "\r\n") {
		return gojqOwn("@base64d", v, nil)
	}
	size := base64.RawStdEncoding.DecodedLen(len(str))
	if err := r.ask(int64(size)); err != nil {
		return err
	}
	out := make([]byte, size)
	const in = 4 * chunkBytes
	o := 0
	for i := 0; i < len(str); i += in {
		s.step(stopEvery)
		n, err := base64.RawStdEncoding.Decode(out[o:], []byte(str[i:min(i+in, len(str))]))
		if err != nil {
			return gojqOwn("@base64d", v, nil)
		}
		o += n
	}
	return string(out[:o])
}

// OwnDefs are the definitions of the builtins a parsed filter calls that are ours rather than
// gojq's (the regular expression builtins, the sorts, split/1, indices), and only those (compiling them
// costs every run that has them: none when it calls none), to put before the filter's own,
// after Rewrite (they are not to be rewritten) and after GuardDefs. It rewrites the filter's
// uses of ownFormats into calls of ownFunc too. They call the Go functions
// GuardFunctionsContext gives; call OwnDefs before Guard.
func OwnDefs(q *gojq.Query) []*gojq.FuncDef {
	rewriteFormats(q)
	defs := regexDefsFor(q)
	called := calledOwn(q)
	if len(called) == 0 {
		return defs
	}
	for _, fd := range ownDefs() {
		if called[funcKey(fd.Name, len(fd.Args))] {
			defs = append(defs, fd)
		}
	}
	return defs
}

// ownNames are the names and arities ownSource defines.
var ownNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, fd := range ownDefs() {
		m[funcKey(fd.Name, len(fd.Args))] = true
	}
	return m
})

// calledOwn are the builtins of ownSource that q calls, by name/arity, and ownFunc when q
// calls it (a rewritten format).
func calledOwn(q *gojq.Query) map[string]bool {
	names := ownNames()
	var called map[string]bool
	visitor{termFn: func(t *gojq.Term) {
		if t.Type != gojq.TermTypeFunc || len(t.Func.Args) > 2 {
			return
		}
		k := funcKey(t.Func.Name, len(t.Func.Args))
		if names[k] || t.Func.Name == ownFunc {
			if called == nil {
				called = map[string]bool{}
			}
			called[k] = true
		}
	}}.query(q)
	return called
}

// callsOwn reports whether q calls what needs the run's context: a regular expression
// builtin, one of ownSource's, or ownFunc.
func callsOwn(q *gojq.Query) bool { return callsRegex(q) || len(calledOwn(q)) > 0 }

// rewriteFormats makes every use of ownFormats a call of ownFunc: `@csv` alone is
// `_mcpbash_own("@csv")`, and each interpolated part of `@csv "...\(x)..."` is
// `(x | _mcpbash_own("@csv"))` in a string without a format (a string part is put as it is).
func rewriteFormats(q *gojq.Query) {
	visitor{termFn: func(t *gojq.Term) {
		if !ownFormats[t.Format] {
			return
		}
		lit := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeString, Str: &gojq.String{Str: t.Format}}}
		if t.Type == gojq.TermTypeFormat && t.Str == nil {
			t.Type, t.Format = gojq.TermTypeFunc, ""
			t.Func = &gojq.Func{Name: ownFunc, Args: []*gojq.Query{lit}}
			return
		}
		if t.Str == nil {
			return
		}
		for i, p := range t.Str.Queries {
			if p.Term != nil && p.Term.Str != nil {
				continue // a literal part of the string
			}
			t.Str.Queries[i] = &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeQuery,
				Query: &gojq.Query{Left: p, Op: gojq.OpPipe, Right: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc,
					Func: &gojq.Func{Name: ownFunc, Args: []*gojq.Query{lit}}}}}}}
		}
		t.Format = ""
		if t.Type == gojq.TermTypeFormat {
			t.Type = gojq.TermTypeString
		}
	}}.query(q)
}
