package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// runFilter runs a jq filter over input. environ (called only if the filter reads $ENV or env)
// backs the environment, so a filter can never see the server's own. room is the call's
// memory (filterRoom).
func runFilter(ctx context.Context, filter string, input any, environ func() []string, room func(int64) error) ([]any, error) {
	return (*FilterCache)(nil).run(ctx, filter, input, environ, &jqorder.Printer{}, room)
}

// filterRoom answers whether a value a filter is about to build in one step (a repeated
// string, a sum of two strings or arrays, an add: jqorder.GuardFunctions) fits what the
// call's budget leaves; when it does not, the budget is exceeded, which ends the call, and
// the filter fails with the budget's error. A filter is the script's: without this,
// `mcp_args_get '"x" * 1e9'` or 40 doublings of a string allocate gigabytes in one step.
func filterRoom(b *sandbox.Budget) func(int64) error {
	if b == nil {
		return nil
	}
	return func(n int64) error {
		if n > b.Remaining() {
			b.Exceed()
			return b.Err()
		}
		return nil
	}
}

// FilterCache keeps compiled jq filters of the SDK helpers (mcp_args_get and friends), keyed
// by the filter text, so that a tool called many times parses and compiles each filter once.
// Only filters that never read the environment are kept compiled: gojq resolves $ENV and env
// at compile time, so such a filter is compiled again for every run, against the calling
// script's variables. A filter that lists, changes or prints objects (jqorder.NeedsOrder) is
// kept parsed and rewritten, and compiled for every run with that run's member orders. A nil
// *FilterCache compiles every time. It is safe for concurrent use.
type FilterCache struct {
	mu sync.Mutex
	m  map[string]*compiledFilter
}

// compiledFilter is a compiled filter, or the filter to compile per run: ordered, the
// rewritten filter, or guarded, one that asks the run's memory before building large values
// (jqorder.Guard: the room is bound when it compiles); and the member orders of its object
// literals (jqorder.BuiltOrders).
type compiledFilter struct {
	code    *gojq.Code
	ordered *gojq.Query
	guarded *gojq.Query
	built   map[string][]string
}

// maxCachedFilters bounds the cache: filters come from scripts and could be generated.
const maxCachedFilters = 1024

// run is runFilter through the cache. p prints the results: run sets its literal orders
// and, for a filter that needs them, the orders of the objects the filter changed.
// The run ends with ctx (the call's): a filter is the script's, and `last(range(1e18))` loops.
func (fc *FilterCache) run(ctx context.Context, filter string, input any, environ func() []string, p *jqorder.Printer, room func(int64) error) ([]any, error) {
	if pf, ok := parsePathFilter(filter); ok {
		if v, ok := pf.eval(input); ok {
			return []any{v}, nil
		}
	}
	cf, err := fc.compile(filter, environ)
	if err != nil {
		return nil, err
	}
	p.Built = cf.built
	p.Ctx = ctx
	code := cf.code
	loader := gojq.WithEnvironLoader(func() []string {
		if environ == nil {
			return nil
		}
		return environ()
	})
	switch {
	case cf.ordered != nil:
		p.Derived, p.Normalize = &jqorder.Derived{}, func(n json.Number) any { return normalizeNumbers(n) }
		if code, err = gojq.Compile(cf.ordered, append(slices.Concat(p.Functions(), jqorder.GuardFunctionsContext(ctx, room)), loader)...); err != nil {
			return nil, compileError{err}
		}
	case cf.guarded != nil:
		if code, err = gojq.Compile(cf.guarded, append(jqorder.GuardFunctionsContext(ctx, room), loader)...); err != nil {
			return nil, compileError{err}
		}
	}
	var out []any
	iter := code.RunWithContext(ctx, input)
	for {
		v, ok := iter.Next()
		if !ok {
			return out, nil
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if e, isErr := v.(error); isErr {
			if h, halt := e.(*gojq.HaltError); halt && h.Value() == nil {
				return out, nil
			}
			return out, valueErrorText(ctx, e, p, room)
		}
		out = append(out, v)
		if len(out) > 1_000_000 {
			return out, fmt.Errorf("too many results")
		}
	}
}

// pathFilter is a filter `.key` or `.key // "text"`, the commonest the SDK's helpers get,
// answered without jq when the answer prints the same whatever jq's rules for numbers and
// member order are: a string, an integer, a boolean or null, read from an object.
type pathFilter struct {
	key, alt string
	hasAlt   bool
}

// jqKeywords cannot follow a dot as a plain name in every jq.
var jqKeywords = map[string]bool{"and": true, "or": true, "not": true, "if": true, "then": true, "elif": true, "else": true,
	"end": true, "as": true, "def": true, "reduce": true, "foreach": true, "try": true, "catch": true, "label": true,
	"import": true, "include": true, "__loc__": true}

// parsePathFilter recognises a pathFilter (spaces around its parts allowed).
func parsePathFilter(f string) (pathFilter, bool) {
	var pf pathFilter
	f = strings.TrimSpace(f)
	if len(f) < 2 || f[0] != '.' {
		return pf, false
	}
	i := 1
	for i < len(f) && (f[i] == '_' || f[i] >= 'a' && f[i] <= 'z' || f[i] >= 'A' && f[i] <= 'Z' || i > 1 && f[i] >= '0' && f[i] <= '9') {
		i++
	}
	pf.key = f[1:i]
	if pf.key == "" || jqKeywords[pf.key] {
		return pf, false
	}
	rest := strings.TrimSpace(f[i:])
	if rest == "" {
		return pf, true
	}
	lit, ok := strings.CutPrefix(rest, "//")
	if !ok {
		return pf, false
	}
	lit = strings.TrimSpace(lit)
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return pf, false
	}
	pf.alt, pf.hasAlt = lit[1:len(lit)-1], true
	for _, c := range []byte(pf.alt) {
		if c == '"' || c == '\\' || c < 0x20 {
			return pf, false // escapes and interpolation are jq's to read
		}
	}
	return pf, utf8.ValidString(pf.alt)
}

// eval answers the filter over input, or false to leave it to jq.
func (pf pathFilter) eval(input any) (any, bool) {
	m, ok := input.(map[string]any)
	if !ok {
		return nil, false
	}
	v, present := m[pf.key]
	if pf.hasAlt && (!present || v == nil || v == false) {
		return pf.alt, true
	}
	switch v.(type) {
	case nil, string, bool, int:
		return v, true
	}
	return nil, false
}

func (fc *FilterCache) compile(filter string, environ func() []string) (*compiledFilter, error) {
	if fc != nil {
		fc.mu.Lock()
		cf := fc.m[filter]
		fc.mu.Unlock()
		if cf != nil {
			return cf, nil
		}
	}
	// Bounded before gojq parses it, and guarded as the jq utility's (jqorder.CheckText, Guard).
	if err := jqorder.CheckText(filter); err != nil {
		return nil, compileError{err}
	}
	q, err := gojq.Parse(filter)
	if err != nil {
		return nil, compileError{err}
	}
	cf := &compiledFilter{built: jqorder.BuiltOrders(q)}
	readsEnv := false
	needsOrder := jqorder.NeedsOrder(q)
	ownDefs := jqorder.OwnDefs(q)
	asksRoom := jqorder.Guard(q)
	defs := [][]*gojq.FuncDef{jqorder.GuardDefs(), ownDefs}
	if needsOrder {
		jqorder.Rewrite(q) // the filter's own definitions only: the others are not rewritten
		defs = append(defs, jqorder.OrderedDefs())
	}
	q.FuncDefs = slices.Concat(append(defs, q.FuncDefs)...)
	if needsOrder {
		// Compiled here too, so that a filter that does not compile fails on first use.
		if _, err := gojq.Compile(q, slices.Concat((&jqorder.Printer{}).Functions(), jqorder.GuardFunctions(nil))...); err != nil {
			return nil, compileError{err}
		}
		cf.ordered = q
	} else if asksRoom {
		// Compiled here too, so that a filter that does not compile fails on first use.
		if _, err := gojq.Compile(q, jqorder.GuardFunctions(nil)...); err != nil {
			return nil, compileError{err}
		}
		cf.guarded = q
	} else {
		cf.code, err = gojq.Compile(q, append(jqorder.GuardFunctions(nil), gojq.WithEnvironLoader(func() []string {
			readsEnv = true
			if environ == nil {
				return nil
			}
			return environ()
		}))...)
		if err != nil {
			return nil, compileError{err}
		}
	}
	if fc != nil && !readsEnv {
		fc.mu.Lock()
		if fc.m == nil || len(fc.m) >= maxCachedFilters {
			fc.m = map[string]*compiledFilter{}
		}
		fc.m[filter] = cf
		fc.mu.Unlock()
	}
	return cf, nil
}

// decodeOrderedJSON is decodeJSON that also records the member order of the objects it reads
// in order (jqorder).
func decodeOrderedJSON(raw []byte, order jqorder.KeyOrder) (any, error) {
	if !json.Valid(raw) {
		return decodeJSON(raw) // its error (or, if it accepts what Valid does not, its value)
	}
	return order.Decode(raw, func(n json.Number) any { return normalizeNumbers(n) }), nil
}

// decodeJSON parses one JSON value with numbers kept exact, in the form gojq expects.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return normalizeNumbers(v), nil
}

// normalizeNumbers converts json.Number into int or float64 (gojq's number types); big
// integers stay exact as *big.Int via gojq's own normalisation of strings is not needed here.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil && i >= -1<<53 && i <= 1<<53 {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalizeNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeNumbers(x[k])
		}
	}
	return v
}

// rawOrderedOutput renders a value as `jq -r -c` does: strings bare, everything else compact
// JSON, with jq's member order where p knows it (nil: objects sorted).
func rawOrderedOutput(p *jqorder.Printer, v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := p.Marshal(v)
	if err != nil {
		return gojq.Preview(v) // bounded, whatever v holds (fmt.Sprint of a shared value is not)
	}
	return string(b)
}

// printResult is rawOrderedOutput for a filter's result: its size is asked of the call's
// memory first (a value that holds one array many times prints far more than it holds) and
// the print ends with the call (p.Ctx), each with its error.
func printResult(ctx context.Context, p *jqorder.Printer, v any, room func(int64) error) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	if err := jqorder.JSONRoom(ctx, v, room, -1); err != nil {
		return "", err
	}
	b, err := p.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// compactJSON renders v as compact JSON (gojq's encoder: jq-compatible number formatting),
// stripped past jq's printing depth as jq prints it.
func compactJSON(v any) string {
	b, err := (*jqorder.Printer)(nil).Marshal(v)
	if err != nil {
		b, _ = json.Marshal(v)
	}
	return string(b)
}

// compileError marks a filter that does not parse or compile (jq exits 3 for those, 5 for
// errors while running).
type compileError struct{ error }

func (e compileError) Unwrap() error { return e.error }

// valueErrorText is e, a filter's error, with the message gojq gives error(v) and halt_error
// for a value that is not a string ("error: " or "halt error: " and v's JSON) built by the
// call's printer: its size asked of the call's memory first and the print ended with the call.
// gojq's own Error() marshals the whole value, unstoppably and uncharged (a value that holds
// one array many times prints gigabytes).
func valueErrorText(ctx context.Context, e error, p *jqorder.Printer, room func(int64) error) error {
	ve, ok := e.(gojq.ValueError)
	if !ok {
		return e
	}
	v := ve.Value()
	if _, isString := v.(string); isString || v == nil {
		return e
	}
	prefix := "error: "
	if _, halt := e.(*gojq.HaltError); halt {
		prefix = "halt error: "
	}
	if err := jqorder.JSONRoom(ctx, v, room, -1); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := p.Marshal(v)
	if err != nil {
		return err
	}
	return errors.New(prefix + string(b))
}
