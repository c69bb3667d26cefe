package jqorder

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/bits"
	"sync"

	"github.com/itchyny/gojq"
)

// Bounds on what a filter may make gojq do before it runs and while it runs. gojq parses with
// an explicit stack but compiles, and evaluates many builtins over values, by recursion on the
// Go stack, and a Go stack overflow ends the process (issue 27: `jq -n "$filter"` with a
// million nested `[`, and `reduce range(3000000) as $i (0; [.]) | . == .`, ended the server).
// So: a filter's text is bounded in tokens before gojq parses it (CheckText), which bounds the
// height of what it parses and the time parsing and compiling take (gojq's parser and compiler
// are superlinear in some shapes); and Guard rewrites a parsed filter so that every builtin
// and operator that recurses over a value gets values no deeper than MaxDepth, and every
// update or deletion paths no longer than it (the custom functions GuardFunctions gives). The
// checks are path-transparent (`if ok then . else empty end`), so they may stand inside path
// expressions. Values deeper than MaxDepth may still be built and passed around (bounded in
// size by the call's memory budget): only walking them deeply is refused.

// MaxFilterTokens bounds a filter's text. Parsing and compiling the worst shapes of this many
// tokens takes tens of milliseconds (gojq's parser is quadratic in the number of definitions);
// real filters have a few hundred.
const MaxFilterTokens = 16384

// MaxDepth bounds how deeply a builtin may walk a value (the sandbox's nesting bound).
const MaxDepth = 10000

// MaxIntegerDigits bounds the exact integers gojq keeps as *big.Int (jq 1.6 has doubles only):
// gojq reads a literal or a tonumber string digit by digit in quadratic time (3 million
// digits: 10 s), and prints and multiplies without a check of the call's end, so a number
// literal, a tonumber string and a product larger than this are refused before gojq sees them.
// 100,000 digits read in about 15 ms.
const MaxIntegerDigits = 100000

// errBigInteger is the refusal of a number past MaxIntegerDigits.
func errBigInteger(what string) error {
	return fmt.Errorf("%s of more than %d digits is refused in the sandbox: gojq computes with such integers unstoppably (use a smaller number, or run the tool with \"exec\": \"native\")", what, MaxIntegerDigits)
}

// CheckText counts the tokens of a filter's text, an upper bound of what gojq's lexer makes
// (every operator character counts one), and refuses a text with more than MaxFilterTokens.
func CheckText(src string) error {
	n := 0
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				if src[i] == '\\' {
					i++ // a backslash continues the comment past a newline, as in gojq
				}
				i++
			}
			continue
		case c == '"':
			// A string counts one; each interpolation's \( and ) two more, and what is
			// between them is counted as text (an over-estimate: its strings count per byte).
			i++
			for i < len(src) && src[i] != '"' {
				if src[i] == '\\' {
					if i+1 < len(src) && src[i+1] == '(' {
						n += 2
					}
					i++
				}
				i++
			}
			i++
		case isIdentByte(c) || c >= 0x80:
			start := i
			for i < len(src) && (isIdentByte(src[i]) || src[i] >= 0x80 || src[i] == ':' || src[i] == '.' && i+1 < len(src) && isIdentByte(src[i+1])) {
				i++
			}
			if c >= '0' && c <= '9' && i-start > MaxIntegerDigits {
				return errBigInteger("a number literal")
			}
		default:
			i++
		}
		if n++; n > MaxFilterTokens {
			return fmt.Errorf("the filter is longer than %d tokens, the sandbox's bound on jq filters (split it, or run the tool with \"exec\": \"native\")", MaxFilterTokens)
		}
	}
	return nil
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '@'
}

// The guard's names: jq definitions the rewrite inserts (path-transparent), and the Go
// functions behind them.
const (
	checkDef   = "_mcpbash_depth"       // . when no deeper than MaxDepth, else an error
	pathDef    = "_mcpbash_path"        // . when a path no longer than MaxDepth
	pathsDef   = "_mcpbash_paths"       // . when an array of such paths
	eventDef   = "_mcpbash_event"       // . when a stream event whose path is such a path
	guardedDef = "_mcpbash_guard_paths" // . once every path of f up to its first error is checked
	varName    = "$__mcpbash_update"    // the right side of an arithmetic update
	depthFunc  = "_mcpbash_depth_ok"
	pathFunc   = "_mcpbash_path_ok"
	pathsFunc  = "_mcpbash_paths_ok"
	eventFunc  = "_mcpbash_event_ok"
	mulFunc    = "_mcpbash_mul_room" // l * r, asking the call's memory first when it repeats a string
	addFunc    = "_mcpbash_add_room" // l + r, asking the call's memory first when the sum is large
	sumDef     = "_mcpbash_sum"      // . when what add makes of it fits the call's memory
	sumFunc    = "_mcpbash_sum_ok"
	numDef     = "_mcpbash_numtext" // . when tonumber may read it (numTextOK)
	numFunc    = "_mcpbash_numtext_ok"
	delDef     = "_mcpbash_delete" // . when gojq's delpaths may walk it (MaxDeleteWalk)
	delFunc    = "_mcpbash_delete_ok"
)

// MaxDeleteWalk bounds the value del and delpaths delete from: after marking what it deletes,
// gojq walks the whole value to take the marks out (deleteEmpty), unstoppably, and a value that
// holds one array many times is walked once for each place it is held (2^40 places: hours).
// Elements are counted as that walk meets them, an object's members four each (the walk writes
// each back into its map); 4 million array elements take it well under 0.1 s, a million
// members of small objects about 0.3 s.
const MaxDeleteWalk = 4_000_000

// roomMin is the size below which building a string or an array asks nothing: the common
// sums stay as cheap as gojq's own, and what they allocate the heap watch sees in time.
const roomMin = 1 << 20

// anyBytes is what an array element costs (an interface value).
const anyBytes = 16

// guardSource are the definitions Guard's rewrite calls. Each check is `if ok then . else
// empty end`: the Go function returns true or an error, and `.` keeps the path, so a check
// may stand where a path expression is expected.
const guardSource = `def ` + checkDef + `: if ` + depthFunc + ` then . else empty end;
def ` + pathDef + `: if ` + pathFunc + ` then . else empty end;
def ` + pathsDef + `: if ` + pathsFunc + ` then . else empty end;
def ` + eventDef + `: if ` + eventFunc + ` then . else empty end;
def ` + sumDef + `: if ` + sumFunc + ` then . else empty end;
def ` + numDef + `: if ` + numFunc + ` then . else empty end;
def ` + delDef + `: if ` + delFunc + ` then . else empty end;
def ` + guardedDef + `(f): reduce (try path(f)) as $p (.; if $p | ` + pathFunc + ` then . else . end);
` + indexSource

// GuardDefs are the definitions a guarded filter needs, to put before its own.
func GuardDefs() []*gojq.FuncDef { return guardDefs() }

var guardDefs = sync.OnceValue(func() []*gojq.FuncDef {
	q, err := gojq.Parse(guardSource)
	if err != nil {
		panic("jqorder: " + err.Error()) // a constant text: a test catches it
	}
	return q.FuncDefs
})

// GuardFunctions are the compiler options a guarded filter needs. room, when not nil, is
// asked before a string is repeated (a string times a number: one allocation of len×n bytes,
// up to gojq's own 2 GiB bound), before two strings or arrays are joined by + into one of more
// than roomMin bytes (a sum of a value with itself doubles it in one step: 40 doublings of
// "x" ask for 1 TiB), and before add or join joins an array's strings or arrays (whose
// elements may all be one value); it answers nil or the error that ends the filter.
func GuardFunctions(room func(bytes int64) error) []gojq.CompilerOption {
	return GuardFunctionsContext(context.Background(), room)
}

// GuardFunctionsContext is GuardFunctions with the Go functions of OwnDefs bound to ctx, the
// run's: their searches, sorts and encodings end when ctx ends (a filter that calls one of
// their builtins is compiled for each run, Guard reports it).
func GuardFunctionsContext(ctx context.Context, room func(bytes int64) error) []gojq.CompilerOption {
	ask := func(n int64) error {
		if room == nil || n < roomMin {
			return nil
		}
		return room(n)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r := &ownRun{ctx: ctx, room: room}
	return []gojq.CompilerOption{
		newRegexFunction(ctx, room),
		newOwnFunction(r),
		gojq.WithFunction(binopFunc, 3, 3, func(_ any, args []any) any { return r.binop(args[0], args[1], args[2]) }),
		gojq.WithFunction(indexPlainFunc, 1, 1, func(v any, args []any) any { return !bothArrays(v, args[0]) }),
		gojq.WithFunction(indexPathOKFunc, 1, 1, func(v any, args []any) any { return r.indexPathOK(v, args[0]) }),
		gojq.WithFunction(jsonRoomFunc, 0, 0, func(v any, _ []any) any {
			if err := jsonRoom(ctx, v, room); err != nil {
				return err
			}
			return v
		}),
		gojq.WithFunction(joinFunc, 1, 1, func(v any, args []any) any {
			if err := ask(joinBytes(v, args[0])); err != nil {
				return err
			}
			return true
		}),
		gojq.WithFunction(addFunc, 2, 2, func(_ any, args []any) any { return addChecked(args[0], args[1], ask) }),
		gojq.WithFunction(numFunc, 0, 0, func(v any, _ []any) any { return numTextOK(v) }),
		gojq.WithFunction(delFunc, 0, 0, func(v any, _ []any) any {
			over, err := elementsOver(ctx, v, MaxDeleteWalk)
			if err != nil {
				return err
			}
			if over {
				return fmt.Errorf("del and delpaths over a value of more than %d elements (an object's members four each, a value held in many places counted at each) are refused in the sandbox: gojq walks all of it after deleting, unstoppably (delete from a smaller value, or run the tool with \"exec\": \"native\")", MaxDeleteWalk)
			}
			return true
		}),
		gojq.WithFunction(sumFunc, 0, 0, func(v any, _ []any) any {
			if err := ask(sumBytes(v)); err != nil {
				return err
			}
			return true
		}),
		gojq.WithFunction(mulFunc, 2, 2, func(_ any, args []any) any {
			l, r := args[0], args[1]
			if productBits(l, r) > maxIntegerBits {
				return errBigInteger("a product of integers")
			}
			if room != nil {
				if n := repeatBytes(l, r); n > 0 {
					if err := room(n); err != nil {
						return err
					}
				}
			}
			return product(l, r)
		}),
		gojq.WithFunction(depthFunc, 0, 0, func(v any, _ []any) any {
			d, err := depthOverCtx(ctx, v, MaxDepth)
			if err != nil {
				return err
			}
			if d > MaxDepth {
				return fmt.Errorf("a value nested deeper than %d levels is not walked in the sandbox (run the tool with \"exec\": \"native\")", MaxDepth)
			}
			return true
		}),
		gojq.WithFunction(pathFunc, 0, 0, func(v any, _ []any) any { return pathOK(v) }),
		gojq.WithFunction(pathsFunc, 0, 0, func(v any, _ []any) any {
			ps, ok := v.([]any)
			if !ok {
				return true // delpaths reports the type error itself
			}
			for _, p := range ps {
				if r := pathOK(p); r != true {
					return r
				}
			}
			return r.sortablePaths(ps)
		}),
		gojq.WithFunction(getpathFunc, 1, 1, func(v any, args []any) any { return r.getpathOK(v, args[0]) }),
		gojq.WithFunction(eventFunc, 0, 0, func(v any, _ []any) any {
			if e, ok := v.([]any); ok && len(e) > 0 {
				return pathOK(e[0])
			}
			return true
		}),
	}
}

// addChecked is gojq's l + r (its _add), with the size of a string or array sum asked of
// ask first. Numbers, null and objects are added here as gojq adds them (the common sums
// stay one call); what is left (big integers, type errors) is gojq's own operator's.
func addChecked(l, r any, ask func(int64) error) any {
	switch x := l.(type) {
	case nil:
		return r
	case int:
		switch y := r.(type) {
		case int:
			if v := x + y; (v >= x) == (y >= 0) {
				return v
			}
		case float64:
			return float64(x) + y
		case nil:
			return l
		}
	case float64:
		switch y := r.(type) {
		case int:
			return x + float64(y)
		case float64:
			return x + y
		case nil:
			return l
		}
	case string:
		switch y := r.(type) {
		case string:
			if err := ask(int64(len(x)) + int64(len(y))); err != nil {
				return err
			}
			return x + y
		case nil:
			return l
		}
	case []any:
		switch y := r.(type) {
		case []any:
			if len(x) == 0 {
				return r
			}
			if len(y) == 0 {
				return l
			}
			if err := ask(anyBytes * (int64(len(x)) + int64(len(y)))); err != nil {
				return err
			}
			v := make([]any, len(x)+len(y))
			copy(v, x)
			copy(v[len(x):], y)
			return v
		case nil:
			return l
		}
	case map[string]any:
		switch y := r.(type) {
		case map[string]any:
			if len(x) == 0 {
				return r
			}
			if len(y) == 0 {
				return l
			}
			m := make(map[string]any, len(x)+len(y))
			maps.Copy(m, x)
			maps.Copy(m, y)
			return m
		case nil:
			return l
		}
	}
	return gojqAdd(l, r)
}

// gojqAdd runs gojq's own + on two values.
func gojqAdd(l, r any) any {
	v, _ := plainAdd().Run(nil, l, r).Next()
	return v
}

var plainAdd = sync.OnceValue(func() *gojq.Code {
	q, err := gojq.Parse("$l + $r")
	if err != nil {
		panic("jqorder: " + err.Error()) // a constant text: a test catches it
	}
	c, err := gojq.Compile(q, gojq.WithVariables([]string{"$l", "$r"}))
	if err != nil {
		panic("jqorder: " + err.Error())
	}
	return c
})

// sumBytes is about what add or join makes of v: the bytes of its strings, or its arrays'
// elements, when it is an array of them (add of anything else builds nothing larger than v;
// join's separators are not counted).
func sumBytes(v any) int64 {
	xs, ok := v.([]any)
	if !ok {
		return 0
	}
	var n int64
	for _, x := range xs {
		switch y := x.(type) {
		case string:
			n += int64(len(y))
		case []any:
			n += anyBytes * int64(len(y))
		}
	}
	return n
}

// maxIntegerBits is MaxIntegerDigits in bits (log2(10) bits a digit, rounded up).
const maxIntegerBits = MaxIntegerDigits*3322/1000 + 1

// productBits is the size in bits of l * r when both are numbers and one is a *big.Int, else 0
// (a product of two ints fits 128 bits; a float is a float).
func productBits(l, r any) int {
	size := func(v any) (int, bool) {
		switch x := v.(type) {
		case *big.Int:
			return x.BitLen(), true
		case int:
			return bits.Len64(uint64(max(x, -x))), false
		}
		return 0, false
	}
	lb, lbig := size(l)
	rb, rbig := size(r)
	if !lbig && !rbig {
		return 0
	}
	if _, ok := l.(float64); ok {
		return 0
	}
	if _, ok := r.(float64); ok {
		return 0
	}
	return lb + rb
}

// numTextOK refuses a tonumber string longer than MaxIntegerDigits (gojq reads its digits into
// a *big.Int in quadratic time); anything else is tonumber's to judge.
func numTextOK(v any) any {
	if s, ok := v.(string); ok && len(s) > MaxIntegerDigits {
		return errBigInteger("tonumber of a string")
	}
	return true
}

// repeatBytes is the size of the string l * r makes when one side is a string and the other
// a number (as gojq repeats it: a count over 2^31-1 is that, a product past it gojq refuses
// itself), else 0.
func repeatBytes(l, r any) int64 {
	s, ok := l.(string)
	n := r
	if !ok {
		if s, ok = r.(string); !ok {
			return 0
		}
		n = l
	}
	f, ok := gojq.ToFloat64(n)
	if !ok || !(f > 0) {
		return 0
	}
	c := int64(min(f, math.MaxInt32))
	if int64(len(s))*c >= math.MaxInt32 {
		return 0 // gojq's repeatStringTooLargeError
	}
	return int64(len(s)) * c
}

// pathOK is true for anything but an array longer than MaxDepth (setpath reports the type
// errors itself); a path's steps are scalars or {start, end} slices, which walk nothing deep.
func pathOK(v any) any {
	if p, ok := v.([]any); ok && len(p) > MaxDepth {
		return fmt.Errorf("a path longer than %d steps is not followed in the sandbox (run the tool with \"exec\": \"native\")", MaxDepth)
	}
	return true
}

// depthOver returns how deeply v nests, counting no further than limit+1: an iterative walk
// (v itself may be deeper than any stack).
func depthOver(v any, limit int) int {
	d, _ := depthOverCtx(context.Background(), v, limit)
	return d
}

// depthOverCtx is depthOver ending with ctx: a value that holds one array many times has far
// more elements to walk than it takes memory (40 levels of [., .] hold 2^40).
// elementsOver reports whether v holds more than limit elements, counting a value at every
// place it is held (as a walk of v meets it) and an object's members four each (deleteEmpty's
// cost), stopping at the limit or when ctx ends.
func elementsOver(ctx context.Context, v any, limit int) (bool, error) {
	n, steps := 0, 0
	stack := []any{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var k int
		switch c := x.(type) {
		case []any:
			k = len(c)
			for _, e := range c {
				switch e.(type) {
				case []any, map[string]any:
					stack = append(stack, e)
				}
			}
		case map[string]any:
			k = 4 * len(c)
			for _, e := range c {
				switch e.(type) {
				case []any, map[string]any:
					stack = append(stack, e)
				}
			}
		}
		if n += k; n > limit {
			return true, nil
		}
		if steps += k + 1; steps >= 1<<16 {
			steps = 0
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

func depthOverCtx(ctx context.Context, v any, limit int) (int, error) {
	switch v.(type) {
	case []any, map[string]any:
	default:
		return 0, nil
	}
	steps := 0
	type item struct {
		v     any
		depth int
	}
	deepest := 0
	stack := []item{{v, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, it.depth)
		if deepest > limit {
			return deepest, nil
		}
		switch x := it.v.(type) {
		case []any:
			if steps += len(x) + 1; steps >= 1<<16 {
				steps = 0
				if err := ctx.Err(); err != nil {
					return 0, err
				}
			}
			for _, e := range x {
				switch e.(type) {
				case []any, map[string]any:
					stack = append(stack, item{e, it.depth + 1})
				}
			}
		case map[string]any:
			if steps += len(x) + 1; steps >= 1<<16 {
				steps = 0
				if err := ctx.Err(); err != nil {
					return 0, err
				}
			}
			for _, e := range x {
				switch e.(type) {
				case []any, map[string]any:
					stack = append(stack, item{e, it.depth + 1})
				}
			}
		}
	}
	return deepest, nil
}

// How a builtin is guarded, by name (whatever defines it: a user's definition of the same name
// is guarded too, which costs a check and changes nothing).
type guardKind int

const (
	guardNone       guardKind = iota // walks nothing deeply
	guardInput                       // walks its input
	guardAll                         // walks its input and its arguments' values
	guardArgs                        // walks its arguments' values
	guardPathArg                     // follows the paths of its (only) argument: del, pick
	guardSetpath                     // follows the path given as its first argument
	guardDelpaths                    // follows the paths given as its argument
	guardFromstream                  // follows the paths of its argument's events
	guardSum                         // joins its input's strings or arrays: add, join
	guardNumber                      // reads its input's digits: tonumber
)

// guardKinds classify gojq's builtins (TestGuardKnowsEveryBuiltin holds the table to gojq's
// list). Those that compare values (==, sort, unique, group_by, min, contains, indices, IN),
// print them (tojson, tostring, @formats, error messages), merge them (*), flatten them, or
// follow paths (setpath, delpaths, update operators) recurse as deeply as the value or path
// goes; the others walk one level or none.
var guardKinds = map[string]guardKind{
	"flatten": guardAll, "sort": guardInput, "unique": guardInput,
	"min": guardInput, "max": guardInput, "tostream": guardInput, "error": guardAll, "halt_error": guardAll,
	"contains": guardAll, "inside": guardAll, "indices": guardAll, "index": guardAll, "rindex": guardAll,
	"bsearch": guardAll, "sort_by": guardArgs, "group_by": guardArgs, "unique_by": guardArgs, "min_by": guardArgs,
	"max_by": guardArgs, "IN": guardAll, "INDEX": guardArgs, "JOIN": guardArgs,
	"del": guardPathArg, "pick": guardPathArg, "setpath": guardSetpath, "delpaths": guardDelpaths,
	"fromstream": guardFromstream, "add": guardSum, "join": guardSum, "format": guardInput, "debug": guardAll, "stderr": guardInput,
	"tonumber": guardNumber,
}

// safeBuiltins walk at most one level of a value: no check.
var safeBuiltins = map[string]bool{}

func init() {
	for _, n := range []string{
		"empty", "not", "select", "map", "map_values", "length", "utf8bytelength", "keys", "keys_unsorted",
		"has", "in", "any", "all", "range", "type", "toboolean", "ascii_downcase",
		"ascii_upcase", "ltrimstr", "rtrimstr", "trimstr", "startswith", "endswith", "trim", "ltrim", "rtrim",
		"test", "match", "capture", "scan", "split", "splits", "sub", "gsub", "recurse", "env",
		"builtins", "input", "inputs", "input_filename", "implode", "explode", "path", "paths", "leaf_paths",
		"getpath", "to_entries", "from_entries", "with_entries", "first", "last", "nth", "limit", "skip",
		"until", "while", "repeat", "isempty", "values", "nulls", "booleans", "numbers", "strings", "arrays",
		"objects", "iterables", "scalars", "finites", "normals", "infinite", "nan", "isinfinite", "isnan",
		"isnormal", "isfinite", "isvalid", "walk", "transpose", "reverse", "combinations", "abs", "toarray", "fromjson",
		"truncate_stream", "halt", "now", "mktime", "gmtime", "localtime", "strftime", "strflocaltime",
		"strptime", "todate", "fromdate", "date", "dateadd", "datesub", "todateiso8601", "fromdateiso8601",
		"ascii", "modulemeta", "get_search_list", "get_prog_origin", "get_jq_origin",
		"significand", "drem", "ldexp", "scalb", "scalbln", "nearbyint", "trunc", "round", "ceil", "floor",
		"fabs", "sqrt", "pow", "log", "log2", "log10", "exp", "exp2", "exp10", "frexp", "modf", "lgamma",
		"tgamma", "gamma", "lgamma_r", "logb", "cbrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
		"cosh", "tanh", "asinh", "acosh", "atanh", "atan2", "fmin", "fmax", "fmod", "hypot", "copysign",
		"nextafter", "nexttoward", "fma", "erf", "erfc", "expm1", "log1p", "j0", "j1", "y0", "y1", "jn", "yn",
		"remainder", "fdim", "rint", "tojson", "tostring", "have_literal_numbers", "have_decnum", "input_line_number", "halt",
	} {
		safeBuiltins[n] = true
	}
}

// Guard rewrites a parsed filter (before Rewrite) so that the builtins and operators that
// recurse over values get values no deeper than MaxDepth and paths no longer than it. The
// filter's own definitions (and their parameters) are not builtins: calls to them are left
// alone, their bodies are guarded like the rest. The caller puts GuardDefs before the filter's
// definitions and compiles with GuardFunctions. It reports whether the guarded filter asks
// GuardFunctions' room (a product, a sum or an add of values not written in the filter): a
// caller that keeps compiled filters compiles such a one with each run's room. It reports a
// filter that calls one of OwnDefs' builtins too: they end with the run's context
// (GuardFunctionsContext).
func Guard(q *gojq.Query) (asksRoom bool) {
	asksRoom = callsOwn(q)
	own := map[string]bool{}
	visitor{queryFn: func(q *gojq.Query) {
		for _, fd := range q.FuncDefs {
			own[fd.Name] = true
			for _, a := range fd.Args {
				own[a] = true
			}
		}
	}}.query(q)
	visitor{queryFn: func(q *gojq.Query) { guardQuery(q, own) }, termFn: func(t *gojq.Term) { guardTerm(t, own) }}.query(q)
	visitor{termFn: func(t *gojq.Term) {
		if t.Type == gojq.TermTypeFunc && roomNames[t.Func.Name] {
			asksRoom = true
		}
	}}.query(q)
	return asksRoom
}

// roomNames are the guard's names whose Go functions are bound to the run's room or context.
var roomNames = map[string]bool{mulFunc: true, addFunc: true, sumDef: true, joinFunc: true, binopFunc: true,
	indexDef: true, checkDef: true, getpathFunc: true, pathsDef: true, delDef: true}

// call is a query of one call: name(args...).
func call(name string, args ...*gojq.Query) *gojq.Query {
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name, Args: args}}}
}

// then is `q | name`.
func then(q *gojq.Query, name string) *gojq.Query {
	if q == nil {
		return nil
	}
	return &gojq.Query{Left: q, Op: gojq.OpPipe, Right: call(name)}
}

func guardQuery(q *gojq.Query, own map[string]bool) {
	switch q.Op {
	case gojq.OpEq, gojq.OpNe, gojq.OpLt, gojq.OpLe, gojq.OpGt, gojq.OpGe, gojq.OpSub:
		// Comparing and subtracting arrays recurse into both sides, and walk them whole
		// (binopFunc: stopped with the call).
		op := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeString, Str: &gojq.String{Str: binopOps[q.Op]}}}
		replace(q, call(binopFunc, then(q.Left, checkDef), then(q.Right, checkDef), op))
	case gojq.OpMul:
		// Merging objects recurses into both sides; a string times a number is one
		// allocation of their product, checked against the call's memory first.
		replace(q, call(mulFunc, then(q.Left, checkDef), then(q.Right, checkDef)))
	case gojq.OpAdd:
		// Joining two strings or arrays asks the call's memory first (addChecked); a literal
		// on either side adds no more than its own size.
		if !constantKey(q.Left) && !constantKey(q.Right) {
			replace(q, call(addFunc, q.Left, q.Right))
		}
	case gojq.OpUpdateSub, gojq.OpUpdateMul, gojq.OpUpdateAdd:
		// L -= R is R as $x | L |= . - $x (gojq's own lowering): the same with both values
		// checked (a difference, a product) or the sum's size asked.
		right := then(q.Right, checkDef)
		var by *gojq.Query
		switch q.Op {
		case gojq.OpUpdateSub:
			by = &gojq.Query{Left: call(checkDef), Op: gojq.OpSub, Right: call(varName)}
		case gojq.OpUpdateMul:
			by = call(mulFunc, call(checkDef), call(varName))
		default:
			by, right = call(addFunc, &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}}, call(varName)), q.Right
		}
		update := &gojq.Query{Left: q.Left, Op: gojq.OpModify, Right: by}
		replace(q, bindRight(right, q.Left, update, own))
	case gojq.OpModify:
		// . as $root | L |= (label $m | (f | ., break $m), ($root | delDef | empty)): where f
		// is empty gojq deletes the path, walking the whole value after (MaxDeleteWalk), so
		// the value is checked then; f's first value is the one gojq takes either way.
		var update *gojq.Query = &gojq.Query{Left: q.Left, Op: gojq.OpModify, Right: deleteChecked(q.Right)}
		if !shortPaths(q.Left, own) {
			update = guardPaths(q.Left, update)
		}
		replace(q, &gojq.Query{Left: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}},
			Patterns: []*gojq.Pattern{{Name: rootVar}}, Op: gojq.OpPipe, Right: update})
	case gojq.OpAssign, gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
		if !shortPaths(q.Left, own) {
			update := &gojq.Query{Left: q.Left, Op: q.Op, Right: call(varName)}
			replace(q, bindRight(q.Right, q.Left, update, own))
		}
	}
}

// rootVar and modLabel are deleteChecked's names.
const (
	rootVar  = "$__mcpbash_root"
	modLabel = "$__mcpbash_mod"
)

// deleteChecked is an update's f with the value it updates (rootVar) checked when f is empty:
// label $m | (f | ., break $m), ($root | delDef | empty).
func deleteChecked(f *gojq.Query) *gojq.Query {
	identity := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}}
	first := &gojq.Query{Left: f, Op: gojq.OpPipe, Right: &gojq.Query{Left: identity, Op: gojq.OpComma,
		Right: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeBreak, Break: modLabel}}}}
	gone := &gojq.Query{Left: call(rootVar), Op: gojq.OpPipe, Right: &gojq.Query{Left: call(delDef), Op: gojq.OpPipe, Right: call("empty")}}
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeLabel, Label: &gojq.Label{Ident: modLabel,
		Body: &gojq.Query{Left: first, Op: gojq.OpComma, Right: gone}}}}
}

// product is gojq's l * r. Two floats, two ints whose product fits and two objects are
// multiplied here as gojq does (a run of gojq's code per product made loops of them up to 1.6
// times slower); everything else is gojq's own.
func product(l, r any) any {
	switch l := l.(type) {
	case float64:
		if r, ok := r.(float64); ok {
			return l * r
		}
	case int:
		if r, ok := r.(int); ok && r != -1 {
			if v := l * r; r == 0 || v/r == l {
				return v
			}
		}
	case map[string]any:
		if r, ok := r.(map[string]any); ok {
			return mergeObjects(l, r)
		}
	}
	return gojqBinop("*", l, r)
}

// mergeObjects is gojq's object product: r's members over l's, objects in both merged in
// turn. Both sides passed checkDef, so the recursion is no deeper than MaxDepth.
func mergeObjects(l, r map[string]any) map[string]any {
	out := maps.Clone(l)
	if out == nil {
		out = make(map[string]any, len(r))
	}
	for k, rv := range r {
		lo, lok := out[k].(map[string]any)
		ro, rok := rv.(map[string]any)
		if lok && rok {
			rv = mergeObjects(lo, ro)
		}
		out[k] = rv
	}
	return out
}

// bindRight is `r as $x | update`, update's paths l checked first unless short. gojq compiles
// and runs an update's right side before its left side's paths (R as $x | L op $x): binding R
// first keeps its errors, compile errors included, in gojq's order.
func bindRight(r, l, update *gojq.Query, own map[string]bool) *gojq.Query {
	if !shortPaths(l, own) {
		update = guardPaths(l, update)
	}
	return &gojq.Query{Left: r, Patterns: []*gojq.Pattern{{Name: varName}}, Op: gojq.OpPipe, Right: update}
}

// replace puts nq in q's place, keeping q's definitions (a filter's top-level query carries
// them) around the new query, where the calls in it can see them.
func replace(q, nq *gojq.Query) {
	nq.FuncDefs = q.FuncDefs
	*q = *nq
}

// guardPaths is `guardPathsDef(l) | q`: every path of the path expression l checked, then q
// (an update or a deletion along those paths) on the same input.
func guardPaths(l, q *gojq.Query) *gojq.Query {
	return &gojq.Query{Left: call(guardedDef, l), Op: gojq.OpPipe, Right: q}
}

// shortPaths reports a path expression whose paths are no longer than the filter's own
// index steps (so within MaxFilterTokens: gojq's recursion over them stays shallow): identity,
// indices and iterations, in parentheses, pipes, commas, alternatives, conditionals, try and
// the few builtins that pass paths through. Such an expression needs no pre-pass over its
// paths, which would run it twice (its errors first, and debug or input twice); getpath, ..,
// recursion, reduce and calls to the filter's own functions can make paths of any length.
func shortPaths(q *gojq.Query, own map[string]bool) bool {
	if q == nil {
		return true
	}
	if q.Term != nil {
		return shortPathTerm(q.Term, own)
	}
	switch q.Op {
	case gojq.OpPipe:
		// E as $x | body: E is a value, body the path.
		return (q.Patterns != nil || shortPaths(q.Left, own)) && shortPaths(q.Right, own)
	case gojq.OpComma, gojq.OpAlt:
		return shortPaths(q.Left, own) && shortPaths(q.Right, own)
	}
	return false
}

func shortPathTerm(t *gojq.Term, own map[string]bool) bool {
	switch t.Type {
	case gojq.TermTypeIdentity, gojq.TermTypeIndex:
		return true
	case gojq.TermTypeQuery:
		return shortPaths(t.Query, own)
	case gojq.TermTypeIf:
		if !shortPaths(t.If.Then, own) || !shortPaths(t.If.Else, own) {
			return false
		}
		for _, e := range t.If.Elif {
			if !shortPaths(e.Then, own) {
				return false
			}
		}
		return true
	case gojq.TermTypeTry:
		return shortPaths(t.Try.Body, own)
	case gojq.TermTypeFunc:
		if own[t.Func.Name] {
			return false // the filter's own select or first may follow any path
		}
		switch t.Func.Name {
		case "empty", "error", checkDef, pathDef, indexDef:
			return true
		case "select", "first", "last":
			// select's argument is a value; first and last pass their argument's paths on.
			return t.Func.Name == "select" || len(t.Func.Args) == 1 && shortPaths(t.Func.Args[0], own)
		case "limit":
			return len(t.Func.Args) == 2 && shortPaths(t.Func.Args[1], own)
		}
	}
	return false
}

// printsDeep reports a format (or none) whose function is gojq's own and encodes a value
// whole; @json and @text (and plain interpolation) are tojson and tostring, which OrderedDefs
// define over the printer that strips past jq's depth (MaxPrintDepth).
func printsDeep(format string) bool { return format != "" && format != "@json" && format != "@text" }

// constantKey reports a literal number (maybe negated) or string: an index that is never an
// array, and that gojq's toIndices reads.
func constantKey(q *gojq.Query) bool {
	if q == nil || q.Term == nil || len(q.Term.SuffixList) > 0 {
		return false
	}
	switch t := q.Term; t.Type {
	case gojq.TermTypeNumber:
		return true
	case gojq.TermTypeUnary:
		return t.Unary.Op == gojq.OpSub && t.Unary.Term.Type == gojq.TermTypeNumber && len(t.Unary.Term.SuffixList) == 0
	case gojq.TermTypeString:
		return t.Str.Queries == nil
	}
	return false
}

func guardTerm(t *gojq.Term, own map[string]bool) {
	// Index suffixes: .[x] with an array x looks for x's occurrences (compares), through
	// indexDef (after the term itself is guarded).
	for _, s := range append([]*gojq.Suffix{{Index: t.Index}}, t.SuffixList...) {
		if dynamicIndex(s.Index) {
			s.Index.Start = then(s.Index.Start, checkDef)
		}
	}
	guardTermKind(t, own)
	rewriteIndex(t)
}

// guardTermKind guards a term by what it calls (guardKinds), its suffixes kept.
func guardTermKind(t *gojq.Term, own map[string]bool) {
	// String interpolation prints its values: through tostring (OrderedDefs' printer, which
	// strips past jq's depth as jq does), or a format's function, which gojq's encoder serves.
	if t.Str != nil && printsDeep(t.Format) {
		for i, q := range t.Str.Queries {
			if q.Term != nil && q.Term.Str != nil {
				continue // a literal part of the string
			}
			// gojq reads each part's Term: the checked query goes in parentheses.
			t.Str.Queries[i] = &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeQuery, Query: then(q, checkDef)}}
		}
	}
	var kind guardKind
	switch {
	case t.Type == gojq.TermTypeFormat && t.Str == nil && printsDeep(t.Format):
		kind = guardInput // @html alone formats its input
	case t.Type == gojq.TermTypeFunc && t.Func.Name[0] != '$' && !own[t.Func.Name]:
		k, known := guardKinds[t.Func.Name]
		if !known && !safeBuiltins[t.Func.Name] {
			k = guardAll // a builtin this table does not know (a newer gojq's): check everything
		}
		kind = k
	}
	if t.Type == gojq.TermTypeFunc && t.Func.Name == "getpath" && len(t.Func.Args) == 1 && !own["getpath"] {
		// P as $p | if getpathFunc($p) then getpath($p) else empty end: a step that is an
		// array over an array compares it at every place (as .[$x] does), counted first.
		inner := *t
		inner.SuffixList = nil
		inner.Func = &gojq.Func{Name: "getpath", Args: []*gojq.Query{call(getpathVar)}}
		checked := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIf, If: &gojq.If{
			Cond: call(getpathFunc, call(getpathVar)), Then: &gojq.Query{Term: &inner}, Else: call("empty")}}}
		*t = gojq.Term{Type: gojq.TermTypeQuery, SuffixList: t.SuffixList, Query: &gojq.Query{
			Left: t.Func.Args[0], Patterns: []*gojq.Pattern{{Name: getpathVar}}, Op: gojq.OpPipe, Right: checked}}
		return
	}
	if kind == guardNone {
		return
	}
	// del and delpaths walk their whole input after deleting (MaxDeleteWalk).
	deletes := t.Type == gojq.TermTypeFunc && (t.Func.Name == "del" || t.Func.Name == "delpaths")
	if t.Type == gojq.TermTypeFunc {
		args := t.Func.Args
		for i, a := range args {
			switch kind {
			case guardAll, guardArgs:
				args[i] = then(a, checkDef)
			case guardPathArg:
				if len(args) == 1 && !shortPaths(a, own) {
					inner := *t
					inner.SuffixList = nil
					*t = gojq.Term{Type: gojq.TermTypeQuery, SuffixList: t.SuffixList,
						Query: guardPaths(a, &gojq.Query{Term: &inner})}
				}
			case guardSetpath:
				if i == 0 {
					args[i] = then(a, pathDef)
				}
			case guardDelpaths:
				args[i] = then(a, pathsDef)
			case guardFromstream:
				args[i] = then(a, eventDef)
			}
		}
	}
	check := checkDef
	switch {

	case kind == guardSum && t.Type == gojq.TermTypeFunc && t.Func.Name == "join" && len(t.Func.Args) == 1:
		// S as $sep | if joinFunc($sep) then join($sep) else empty end: the separators
		// counted too (no definition: every filter compiled per run would compile it).
		inner := *t
		inner.SuffixList = nil
		inner.Func = &gojq.Func{Name: t.Func.Name, Args: []*gojq.Query{call(sepVar)}}
		checked := &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIf, If: &gojq.If{
			Cond: call(joinFunc, call(sepVar)), Then: &gojq.Query{Term: &inner}, Else: call("empty")}}}
		*t = gojq.Term{Type: gojq.TermTypeQuery, SuffixList: t.SuffixList, Query: &gojq.Query{
			Left: t.Func.Args[0], Patterns: []*gojq.Pattern{{Name: sepVar}}, Op: gojq.OpPipe, Right: checked}}
		return
	case kind == guardSum && t.Type == gojq.TermTypeFunc && (len(t.Func.Args) == 0 || t.Func.Name == "join"):
		check = sumDef
	case kind == guardNumber:
		check = numDef
	case deletes:
		check = delDef
	case kind != guardInput && kind != guardAll:
		return
	}
	// check | term, the term keeping its suffixes: a new term around a copy of it.
	inner := *t
	inner.SuffixList = nil
	*t = gojq.Term{Type: gojq.TermTypeQuery, SuffixList: t.SuffixList, Query: &gojq.Query{
		Left: call(check), Op: gojq.OpPipe, Right: &gojq.Query{Term: &inner}}}
}
