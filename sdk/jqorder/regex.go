package jqorder

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// gojq's regular expression builtins (test, match, capture, scan, splits, split/2, sub, gsub,
// all over its internal _match) search with Go's regexp inside the library, where nothing
// stops them: a loop of searches that each read to the end of a long string (`(a.*z)*a` with
// "g" over a run of a's) is quadratic and ran on long after its call had ended, and one search
// over tens of megabytes takes seconds (issue 27). A filter that calls one of them gets our
// definitions of them instead (OwnDefs, put before the filter's own: a user's definition
// is looked up before gojq's builtins), written from jq's manual over one Go function
// (regexFunc) that is bound to the run's context and memory: it compiles through the
// sandbox's bounded compiler, searches through sandbox.SubmatchSearcher and the stoppable matchers,
// and asks the run's memory before its results grow large. The results are gojq's own, errors
// included (TestRegexMatchesGojq compares them).

// regexFunc is the Go function the definitions call: _mcpbash_regex($re; $flags; $mode).
const regexFunc = "_mcpbash_regex"

// regexSource defines the builtins over regexFunc. A mode ending in 1 takes an array $re as
// [regex, flags] (the one-argument forms of test, match and capture); scan, splits, split/2
// and gsub add "g" to the flags as jq does (a flags value that is not a string or null fails
// at that +, as in jq).
const regexSource = `def _match($re; $flags; $testing): ` + regexFunc + `($re; $flags; if $testing == true then "test" else "raw" end);
def test($re): ` + regexFunc + `($re; null; "test1");
def test($re; $flags): ` + regexFunc + `($re; $flags; "test");
def match($re): ` + regexFunc + `($re; null; "match1")[];
def match($re; $flags): ` + regexFunc + `($re; $flags; "match")[];
def capture($re): ` + regexFunc + `($re; null; "capture1")[];
def capture($re; $flags): ` + regexFunc + `($re; $flags; "capture")[];
def scan($re): ` + regexFunc + `($re; "g"; "scan")[];
def scan($re; $flags): ` + regexFunc + `($re; $flags + "g"; "scan")[];
def splits($re): ` + regexFunc + `($re; "g"; "split")[];
def splits($re; $flags): ` + regexFunc + `($re; $flags + "g"; "split")[];
def split($re; $flags): ` + regexFunc + `($re; $flags + "g"; "split");
def sub($re; str; $flags): . as $in
  | ` + regexFunc + `($re; $flags; "sub") as [$parts, $rest]
  | reduce $parts[] as [$pre, $caps] ([];
      reduce ($caps | str) as $s ([., 0]; .[1] as $i | .[0][$i] += ($pre + $s) | .[1] = $i + 1) | .[0])
  | (.[] + $rest) // $in;
def sub($re; str): sub($re; str; null);
def gsub($re; str; $flags): sub($re; str; $flags + "g");
def gsub($re; str): sub($re; str; "g");
.`

// regexDefs parses the definitions once; compiling does not change them, so every run shares
// them.
var regexDefs = sync.OnceValue(func() []*gojq.FuncDef {
	q, err := gojq.Parse(regexSource)
	if err != nil {
		panic("jqorder: " + err.Error()) // a constant text: a test catches it
	}
	return q.FuncDefs
})

// regexNames are the names and arities regexSource defines.
var regexNames = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, fd := range regexDefs() {
		m[funcKey(fd.Name, len(fd.Args))] = true
	}
	return m
})

func funcKey(name string, arity int) string { return name + "/" + strconv.Itoa(arity) }

// regexNeeds are the definitions others of regexSource call.
var regexNeeds = map[string]string{"sub/2": "sub/3", "gsub/2": "sub/3", "gsub/3": "sub/3"}

// regexDefsFor are the definitions of the regular expression builtins a parsed filter calls,
// and only those (OwnDefs).
func regexDefsFor(q *gojq.Query) []*gojq.FuncDef {
	called := calledRegex(q)
	if len(called) == 0 {
		return nil
	}
	for k := range called {
		if n, ok := regexNeeds[k]; ok {
			called[n] = true
		}
	}
	var defs []*gojq.FuncDef
	for _, fd := range regexDefs() {
		if called[funcKey(fd.Name, len(fd.Args))] {
			defs = append(defs, fd)
		}
	}
	return defs
}

// calledRegex are the builtins of regexSource that q calls, by name/arity.
func calledRegex(q *gojq.Query) map[string]bool {
	names := regexNames()
	var called map[string]bool
	visitor{termFn: func(t *gojq.Term) {
		if t.Type != gojq.TermTypeFunc || len(t.Func.Args) == 0 || len(t.Func.Args) > 3 {
			return
		}
		if k := funcKey(t.Func.Name, len(t.Func.Args)); names[k] {
			if called == nil {
				called = map[string]bool{}
			}
			called[k] = true
		}
	}}.query(q)
	return called
}

// callsRegex reports whether q calls one of the builtins regexSource defines.
func callsRegex(q *gojq.Query) bool { return len(calledRegex(q)) > 0 }

// Compiled expressions are kept for the whole process (a Go regexp is safe for concurrent
// use): a filter compiled for each run would otherwise compile its expressions again each
// time. maxCachedRegexps bounds how many (gojq keeps every one a run compiled), and only
// expressions up to maxCachedRegexpBytes are kept.
const (
	maxCachedRegexps     = 512
	maxCachedRegexpBytes = 4 << 10
)

type regexKey struct{ re, flags string }

var regexCache struct {
	sync.Mutex
	m map[regexKey]*compiledRegex
}

// compiledRegex is an expression compiled as gojq compiles it for its flags: its searcher,
// and the probe that finds an empty match where a non-empty one ended (made when needed).
type compiledRegex struct {
	expr   string
	re     *regexp.Regexp
	search *sandbox.SubmatchSearcher
	probe  func() *regexp.Regexp
}

// regexRun is one run's regexFunc: its context and memory.
type regexRun struct {
	ctx  context.Context
	room func(int64) error
}

func newRegexFunction(ctx context.Context, room func(int64) error) gojq.CompilerOption {
	if ctx == nil {
		ctx = context.Background()
	}
	r := &regexRun{ctx: ctx, room: room}
	return gojq.WithFunction(regexFunc, 3, 3, func(v any, args []any) any {
		return r.call(v, args[0], args[1], args[2])
	})
}

// compile is gojq's compiling of re with flags (its flags g, i and m; i and m prefix the
// expression, in that order, with (?i) and (?s)), bounded as the sandbox bounds a script's
// expressions, with gojq's words for what it refuses.
func compileRegex(re, flags string) (*compiledRegex, error) {
	key := regexKey{re, flags}
	regexCache.Lock()
	c, ok := regexCache.m[key]
	regexCache.Unlock()
	if ok {
		return c, nil
	}
	if strings.ContainsFunc(flags, func(c rune) bool { return c != 'g' && c != 'i' && c != 'm' }) {
		return nil, fmt.Errorf("unsupported regular expression flag: %q", flags)
	}
	expr := re
	if strings.ContainsRune(flags, 'i') {
		expr = "(?i)" + expr
	}
	if strings.ContainsRune(flags, 'm') {
		expr = "(?s)" + expr
	}
	if err := sandbox.CheckRegexp(expr); err != nil {
		return nil, err
	}
	cre, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression %q: %s", expr, err)
	}
	search, err := sandbox.NewSubmatchSearcher(cre, false)
	if err != nil {
		return nil, err
	}
	c = &compiledRegex{expr: expr, re: cre, search: search, probe: sync.OnceValue(func() *regexp.Regexp {
		p, _ := regexp.Compile(`\A(?s:.)(?:` + expr + `)`) // as large as expr, which compiled
		return p
	})}
	if len(re) <= maxCachedRegexpBytes {
		regexCache.Lock()
		if regexCache.m == nil || len(regexCache.m) >= maxCachedRegexps {
			regexCache.m = map[regexKey]*compiledRegex{}
		}
		regexCache.m[key] = c
		regexCache.Unlock()
	}
	return c, nil
}

// emptyMatchAt is the empty match at offset (the end of a non-empty match) that jq reports and
// Go's FindAll skips, as gojq finds it: one rune before offset, then the expression, anchored,
// so that what precedes offset is seen by ^ and \b.
func (r *regexRun) emptyMatchAt(c *compiledRegex, s string, offset int) ([]int, error) {
	probe := c.probe()
	if probe == nil {
		return nil, nil
	}
	_, w := utf8.DecodeLastRuneInString(s[:offset])
	x, err := sandbox.FindStringSubmatchIndex(r.ctx, probe, s[offset-w:])
	if x == nil || err != nil || x[1] != w {
		return nil, err
	}
	y := make([]int, len(x))
	y[0], y[1] = offset, offset
	for i := 2; i < len(x); i++ {
		if x[i] < 0 {
			y[i] = -1
		} else {
			y[i] = x[i] + offset - w
		}
	}
	return y, nil
}

// gojqMatch runs gojq's own _match over values it refuses (its type errors, in its words).
func gojqMatch(v, re, flags any, testing bool) any {
	out, _ := plainMatch().Run(v, re, flags, testing).Next()
	return out
}

var plainMatch = sync.OnceValue(func() *gojq.Code {
	q, err := gojq.Parse("_match($re; $flags; $testing)")
	if err != nil {
		panic("jqorder: " + err.Error()) // a constant text: a test catches it
	}
	c, err := gojq.Compile(q, gojq.WithVariables([]string{"$re", "$flags", "$testing"}))
	if err != nil {
		panic("jqorder: " + err.Error())
	}
	return c
})

// Sizes asked of the run's memory for what a search returns (about what Go allocates).
const (
	matchBytes   = 400 // a match object (a map of four members)
	captureBytes = 416 // a capture object and its place in the captures array
	indexBytes   = 48  // a match's offsets, per group
	pieceBytes   = 32  // a string in an array
)

// call is regexFunc: the input v searched for re with flags, in one of the modes of
// regexSource (test: a boolean; raw: _match's array of match objects; match, capture, scan,
// split: an array of their results; sub: [[[text before a match, its capture object]...],
// the text after the last]).
func (r *regexRun) call(v, re, flags, mode any) any {
	m, _ := mode.(string)
	if name, ok := strings.CutSuffix(m, "1"); ok {
		m = name
		if a, ok := re.([]any); ok {
			re, flags = nil, nil
			if len(a) > 0 {
				re = a[0]
			}
			if len(a) > 1 {
				flags = a[1]
			}
		}
	}
	s, ok1 := v.(string)
	rs, ok2 := re.(string)
	fs, ok3 := flags.(string)
	if !ok1 || !ok2 || !ok3 && flags != nil {
		return gojqMatch(v, re, flags, m == "test")
	}
	c, err := compileRegex(rs, fs)
	if err != nil {
		return err
	}
	if m == "test" {
		ok, err := sandbox.MatchString(r.ctx, c.re, s)
		if err != nil {
			return err
		}
		return ok
	}
	xs, err := r.find(c, s, strings.ContainsRune(fs, 'g'), m)
	if err != nil {
		return err
	}
	return r.results(c, s, xs, m)
}

// find is gojq's matches of c in s: the first, or with g all of them, Go's FindAll's and the
// empty matches at the end of a non-empty match it skips (unless the next match starts there).
func (r *regexRun) find(c *compiledRegex, s string, global bool, mode string) ([][]int, error) {
	if !global {
		x, err := sandbox.FindStringSubmatchIndex(r.ctx, c.re, s)
		if x == nil || err != nil {
			return nil, err
		}
		return [][]int{x}, nil
	}
	groups := int64(c.re.NumSubexp() + 1)
	each := indexBytes * groups
	switch mode {
	case "raw", "match":
		each += matchBytes + captureBytes*(groups-1)
	case "capture":
		each += matchBytes
	default:
		each += pieceBytes * groups
	}
	var xs [][]int
	var asked int64 = roomMin
	err := c.search.Each(r.ctx, s, func(x []int) error {
		xs = append(xs, x)
		if n := each * int64(len(xs)); r.room != nil && n >= asked {
			if err := r.room(n); err != nil {
				return err
			}
			asked = 2 * n
		}
		return nil
	})
	if err != nil || len(xs) == 0 {
		return xs, err
	}
	ys := make([][]int, 0, len(xs))
	for i, x := range xs {
		ys = append(ys, x)
		if x[0] == x[1] || i+1 < len(xs) && xs[i+1][0] == x[1] {
			continue
		}
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		y, err := r.emptyMatchAt(c, s, x[1])
		if err != nil {
			return nil, err
		}
		if y != nil {
			ys = append(ys, y)
		}
	}
	return ys, nil
}

// runeCounter gives the offsets in code points of byte offsets at or after its base, counting
// on from the last one asked when it is not further on, else from the base (gojq counts each
// from the string's start: quadratic over many matches).
type runeCounter struct {
	s                string
	baseByte, baseAt int
	byteAt, at       int
}

func (rc *runeCounter) offset(b int) int {
	if b < rc.byteAt {
		rc.byteAt, rc.at = rc.baseByte, rc.baseAt
	}
	rc.at += utf8.RuneCountInString(rc.s[rc.byteAt:b])
	rc.byteAt = b
	return rc.at
}

// results turns the matches of c in s into what mode returns.
func (r *regexRun) results(c *compiledRegex, s string, xs [][]int, mode string) any {
	names := c.re.SubexpNames()
	switch mode {
	case "split":
		out := make([]any, 0, len(xs)+1)
		prev := 0
		for _, x := range xs {
			out = append(out, s[prev:x[0]])
			prev = x[1]
		}
		return append(out, s[prev:])
	case "scan":
		out := make([]any, len(xs))
		for i, x := range xs {
			if len(x) == 2 {
				out[i] = s[x[0]:x[1]]
				continue
			}
			caps := make([]any, len(x)/2-1)
			for j := range caps {
				if x[2*j+2] >= 0 {
					caps[j] = s[x[2*j+2]:x[2*j+3]]
				}
			}
			out[i] = caps
		}
		return out
	case "capture", "sub":
		out := make([]any, len(xs))
		prev := 0
		for i, x := range xs {
			caps := map[string]any{}
			for j := 1; j < len(x)/2; j++ {
				if names[j] == "" {
					continue
				}
				if x[2*j] >= 0 {
					caps[names[j]] = s[x[2*j]:x[2*j+1]]
				} else {
					caps[names[j]] = nil
				}
			}
			if mode == "sub" {
				out[i] = []any{s[prev:x[0]], caps}
				prev = x[1]
			} else {
				out[i] = caps
			}
		}
		if mode == "sub" {
			return []any{out, s[prev:]}
		}
		return out
	}
	// match and raw: jq's match objects, offsets and lengths in code points.
	out := make([]any, len(xs))
	rc := &runeCounter{s: s}
	for i, x := range xs {
		start := rc.offset(x[0])
		inner := runeCounter{s: s, baseByte: x[0], baseAt: start, byteAt: x[0], at: start}
		caps := make([]any, len(x)/2-1)
		for j := 1; j < len(x)/2; j++ {
			var name any
			if names[j] != "" {
				name = names[j]
			}
			if x[2*j] < 0 {
				caps[j-1] = map[string]any{"name": name, "offset": -1, "length": 0, "string": nil}
				continue
			}
			o := inner.offset(x[2*j])
			caps[j-1] = map[string]any{"name": name, "offset": o, "length": inner.offset(x[2*j+1]) - o,
				"string": s[x[2*j]:x[2*j+1]]}
		}
		out[i] = map[string]any{"offset": start, "length": rc.offset(x[1]) - start, "string": s[x[0]:x[1]],
			"captures": caps}
	}
	return out
}
