package jqorder

import (
	"sync"

	"github.com/itchyny/gojq"
)

// gojq compares two values (==, !=, <, <=, >, >=), subtracts two arrays, and indexes an
// array by an array (`.[$x]`: the places where $x occurs) in one Go call each, with no look at
// the call's context: gojq.Compare walks both values whole, and a value that holds one array
// many times (`reduce range(40) as $i ([0]; [., .])`, a few kilobytes) has 2^40 elements to
// walk; an array minus an array compares every element of one with every element of the
// other, and `.[$x]` compares $x at every place (quadratic: `[range(200000) | 0] as $a | $a |
// .[$a[100000:]]` ran for a minute past its call's end; issue 27). Guard routes them here:
// the comparisons and the subtraction to binopFunc, which walks with the call's steps
// (stepper.compare) and gives gojq's results and errors; an index by a value that may be an
// array to indexDef.

// The Go functions and the definition Guard's rewrite calls.
const (
	binopFunc       = "_mcpbash_binop"       // binopFunc(l; r; op): l op r, walked with the call's steps
	indexDef        = "_mcpbash_index"       // indexDef($i): .[$i], stoppable (see indexSource)
	indexPlainFunc  = "_mcpbash_index_plain" // true unless . and its argument are both arrays
	indexPathOKFunc = "_mcpbash_index_path"  // true when gojq's own .[$i] is short, else an error
	indexVar        = "$__mcpbash_index"     // the index a rewritten .[X] binds
	getpathFunc     = "_mcpbash_getpath_ok"  // true when gojq's getpath($p) compares little
	getpathVar      = "$__mcpbash_getpath"
)

// indexSource defines indexDef. `.[$i]` is gojq's own unless both . and $i are arrays. Then,
// as a value, it is ours (ownFunc's indices: the same places, walked with the call's steps and
// stopped with it); in a path expression (path(.[$i]), an update) it must be gojq's own, which
// records the path: there it runs only when its comparisons are few (indexPathOKFunc counts
// them, bounded), else it is refused in words. A path expression is told from a value by
// indexing a value that is not at the path being followed (an object literal): in a path
// expression that is an error, which the try swallows, so only a value gets ours.
const indexSource = `def ` + indexDef + `($i): if ` + indexPlainFunc + `($i) then .[$i]
  else . as $__mcpbash_in
    | label $__mcpbash_first
    | ((try ({} | .a) catch empty) | $__mcpbash_in | ` + ownFunc + `("indices"; $i)),
      (if ` + indexPathOKFunc + `($i) then .[$i] else empty end)
    | ., break $__mcpbash_first
  end;
.`

// maxPathIndexSteps bounds the comparisons of an `.[$i]` of two arrays in a path expression,
// which gojq makes unstoppably (a few milliseconds of work).
const maxPathIndexSteps = 1 << 20

// errPathIndex is the refusal of a long `.[$i]` of two arrays in a path expression.
const errPathIndex = "an index by an array ($x in .[$x], the places where $x occurs) over arrays this long is refused in path expressions in the sandbox: gojq compares them unstoppably (use indices($x) to find the places, or run the tool with \"exec\": \"native\")"

// bothArrays reports whether v and x are both arrays.
func bothArrays(v, x any) bool {
	_, ok1 := v.([]any)
	_, ok2 := x.([]any)
	return ok1 && ok2
}

// indexPathOK counts the comparisons of gojq's indices of the array x in the array v, up to
// maxPathIndexSteps: true when they end within it, else the refusal.
func (r *ownRun) indexPathOK(v, x any) any {
	vs, _ := v.([]any)
	xs, _ := x.([]any)
	out := r.stepped(maxPathIndexSteps, func(s *stepper) any {
		if len(xs) == 0 {
			return true
		}
		for i := range len(vs) - len(xs) + 1 {
			s.compare(vs[i:i+len(xs)], xs)
		}
		return true
	})
	if out == errOverLimit {
		return &refusal{errPathIndex}
	}
	return out
}

// refusal is an error in the sandbox's words.
type refusal struct{ msg string }

func (e *refusal) Error() string { return e.msg }

// binop is l op r as gojq's operators give it (op one of == != < <= > >= -), its walks
// stepped.
func (r *ownRun) binop(l, rv, op any) any {
	o, _ := op.(string)
	if o == "-" {
		return r.sub(l, rv)
	}
	return r.stepped(0, func(s *stepper) any {
		c := s.compare(l, rv)
		switch o {
		case "==":
			return c == 0
		case "!=":
			return c != 0
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		case ">=":
			return c >= 0
		}
		return gojqBinop(o, l, rv)
	})
}

// sub is gojq's l - r: numbers here as gojq subtracts them (an int overflow, big integers and
// type errors are gojq's own), arrays walked with the call's steps into a result asked of the
// run's memory first.
func (r *ownRun) sub(l, rv any) any {
	switch x := l.(type) {
	case int:
		switch y := rv.(type) {
		case int:
			if v := x - y; (v <= x) == (y >= 0) {
				return v
			}
		case float64:
			return float64(x) - y
		}
	case float64:
		switch y := rv.(type) {
		case int:
			return x - float64(y)
		case float64:
			return x - y
		}
	case []any:
		if y, ok := rv.([]any); ok {
			if err := r.ask(anyBytes * int64(len(x))); err != nil {
				return err
			}
			return r.stepped(0, func(s *stepper) any {
				v := make([]any, 0, len(x))
			next:
				for _, e := range x {
					for _, f := range y {
						if s.compare(e, f) == 0 {
							continue next
						}
					}
					v = append(v, e)
				}
				return v
			})
		}
	}
	return gojqBinop("-", l, rv)
}

// gojqBinop runs gojq's own operator on two values.
func gojqBinop(op string, l, r any) any {
	c, ok := plainBinops.Load(op)
	if !ok {
		q, err := gojq.Parse("$l " + op + " $r")
		if err != nil {
			return err
		}
		code, err := gojq.Compile(q, gojq.WithVariables([]string{"$l", "$r"}))
		if err != nil {
			return err
		}
		c, _ = plainBinops.LoadOrStore(op, code)
	}
	v, _ := c.(*gojq.Code).Run(nil, l, r).Next()
	return v
}

var plainBinops sync.Map // op → *gojq.Code

// binopOps are the operators binopFunc takes, by the parser's operator.
var binopOps = map[gojq.Operator]string{
	gojq.OpEq: "==", gojq.OpNe: "!=", gojq.OpLt: "<", gojq.OpLe: "<=", gojq.OpGt: ">", gojq.OpGe: ">=", gojq.OpSub: "-",
}

// rewriteIndex makes t, a term with a dynamic index .[X] (X not a literal key, not a slice),
// a query that evaluates as gojq compiles it: `B s1 … sk[X]` is `X as $i | (B s1 … sk) |
// indexDef($i)` (X first, then the term before it, for each of X's values); `B s1 … sk ?`
// is `(B s1 … s(k-1)) | try (. sk)` when sk is an index or an iteration (gojq's try covers the
// last suffix only). It reports whether it changed t.
func rewriteIndex(t *gojq.Term) bool {
	if !hasDynamicIndex(t) {
		return false
	}
	*t = gojq.Term{Type: gojq.TermTypeQuery, Query: indexQuery(t)}
	return true
}

func dynamicIndex(x *gojq.Index) bool {
	return x != nil && x.Start != nil && !x.IsSlice && x.Str == nil && !constantKey(x.Start)
}

func hasDynamicIndex(t *gojq.Term) bool {
	if t.Type == gojq.TermTypeIndex && dynamicIndex(t.Index) {
		return true
	}
	for _, s := range t.SuffixList {
		if dynamicIndex(s.Index) {
			return true
		}
	}
	return false
}

// indexQuery is t (with its suffixes) as a query with its dynamic indices through indexDef.
func indexQuery(t *gojq.Term) *gojq.Query {
	n := len(t.SuffixList)
	if n == 0 {
		if t.Type == gojq.TermTypeIndex && dynamicIndex(t.Index) {
			return indexed(t.Index.Start, &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}})
		}
		return &gojq.Query{Term: t}
	}
	prefix := *t
	prefix.SuffixList = t.SuffixList[:n-1]
	last := t.SuffixList[n-1]
	switch {
	case dynamicIndex(last.Index):
		return indexed(last.Index.Start, indexQuery(&prefix))
	case last.Optional:
		if n >= 2 {
			if u := suffixTerm(t.SuffixList[n-2]); u != nil {
				before := *t
				before.SuffixList = t.SuffixList[:n-2]
				return &gojq.Query{Left: indexQuery(&before), Op: gojq.OpPipe,
					Right: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeTry, Try: &gojq.Try{Body: indexQuery(u)}}}}
			}
		}
		return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeTry, Try: &gojq.Try{Body: indexQuery(&prefix)}}}
	}
	if !hasDynamicIndex(&prefix) {
		return &gojq.Query{Term: t}
	}
	// An iteration or a literal index after a dynamic one: a suffix of the rewritten prefix.
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeQuery, Query: indexQuery(&prefix), SuffixList: []*gojq.Suffix{last}}}
}

// indexed is `x as $i | base | indexDef($i)`.
func indexed(x, base *gojq.Query) *gojq.Query {
	return &gojq.Query{Left: x, Patterns: []*gojq.Pattern{{Name: indexVar}}, Op: gojq.OpPipe,
		Right: &gojq.Query{Left: base, Op: gojq.OpPipe, Right: call(indexDef, call(indexVar))}}
}

// suffixTerm is a suffix as a term on the identity (gojq's Suffix.toTerm): an index or an
// iteration, else nil.
func suffixTerm(s *gojq.Suffix) *gojq.Term {
	switch {
	case s.Index != nil:
		return &gojq.Term{Type: gojq.TermTypeIndex, Index: s.Index}
	case s.Iter:
		return &gojq.Term{Type: gojq.TermTypeIdentity, SuffixList: []*gojq.Suffix{{Iter: true}}}
	}
	return nil
}

// getpathOK follows the path p from v as gojq's getpath does, a step at a time (gojq's own
// index for each), counting the comparisons of a step that is an array over an array (its
// places, as .[$x]) up to maxPathIndexSteps: true when getpath's work is that small, else the
// refusal (getpath is gojq's own in values and in path expressions alike). Anything getpath
// refuses itself is left to it.
func (r *ownRun) getpathOK(v, p any) any {
	steps, ok := p.([]any)
	if !ok {
		return true
	}
	total := 0
	for _, x := range steps {
		if !bothArrays(v, x) {
			w, ok := gojqStep(v, x)
			if !ok {
				return true
			}
			v = w
			continue
		}
		vs, xs := v.([]any), x.([]any)
		out := r.stepped(maxPathIndexSteps-total, func(s *stepper) any {
			places := placesOf(r, s, "indices", len(vs), len(xs), func(i int) bool { return s.compare(vs[i:i+len(xs)], xs) == 0 })
			total += s.looked + s.steps
			return places
		})
		switch out := out.(type) {
		case error:
			if out == errOverLimit {
				return &refusal{errGetpathIndex}
			}
			return out
		}
		v = out
	}
	return true
}

// errGetpathIndex is the refusal of a long getpath step of two arrays.
const errGetpathIndex = "getpath with a step that is an array ($x, the places where $x occurs) over arrays this long is refused in the sandbox: gojq compares them unstoppably (use indices($x) to find the places, or run the tool with \"exec\": \"native\")"

// gojqStep is gojq's getpath([x]) of v: its value, or false when gojq refuses it.
func gojqStep(v, x any) (any, bool) {
	out, _ := plainGetpath().Run(v, x).Next()
	if _, isErr := out.(error); isErr {
		return nil, false
	}
	return out, true
}

var plainGetpath = sync.OnceValue(func() *gojq.Code {
	q, err := gojq.Parse("getpath([$x])")
	if err != nil {
		panic("jqorder: " + err.Error()) // a constant text: a test catches it
	}
	c, err := gojq.Compile(q, gojq.WithVariables([]string{"$x"}))
	if err != nil {
		panic("jqorder: " + err.Error())
	}
	return c
})

// maxSortWeight is the size of a container step (nodes) up to which delpaths' sort of its
// paths is left alone: real paths' steps are keys, indices and {start, end} slices.
const maxSortWeight = 16

// errSortPaths is the refusal of delpaths over paths whose sort compares too much.
const errSortPaths = "delpaths over this many paths with arrays or objects this large in them is refused in the sandbox: gojq sorts the paths first, comparing them unstoppably (a path's steps are keys, indices and {start, end} slices; run the tool with \"exec\": \"native\")"

// sortablePaths is true when gojq's sort of the paths ps (delpaths sorts them before deleting)
// compares little: at most about n·log2(n) comparisons, each walking at most the largest
// container step of a path; else the refusal.
func (r *ownRun) sortablePaths(ps []any) any {
	if len(ps) < 2 {
		return true
	}
	log := 1
	for n := len(ps); n > 1; n >>= 1 {
		log++
	}
	// The heaviest step a sort of this many paths may compare within the bound: counting
	// each step no further keeps this check within the bound too.
	most := max(maxPathIndexSteps/(len(ps)*log), maxSortWeight)
	for _, p := range ps {
		steps, _ := p.([]any)
		for _, x := range steps {
			switch x.(type) {
			case []any, map[string]any:
				if nodesUpTo(x, most) > most {
					return &refusal{errSortPaths}
				}
			}
		}
	}
	return true
}

// nodesUpTo counts v's arrays, objects and elements, no further than limit+1.
func nodesUpTo(v any, limit int) int {
	n := 0
	stack := []any{v}
	for len(stack) > 0 && n <= limit {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		switch x := x.(type) {
		case []any:
			stack = append(stack, x...)
		case map[string]any:
			for _, e := range x {
				stack = append(stack, e)
			}
		}
	}
	return n
}
