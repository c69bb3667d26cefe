package builtins

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/itchyny/gojq"

	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

func init() { register("jq", jq) }

type jqOptions struct {
	raw, join, nullInput, exitStatus, slurp, ascii, rawInput bool
	// pretty, tab and indent follow jq's dump flags: -c clears pretty and tab, --tab sets both,
	// --indent N sets pretty with N spaces (0: compact, -1: tab); the last option wins.
	pretty, tab bool
	indent      int
	filter      string
	files       []string
	names       []string
	values      []any
	positional  []any
	// sortKeys is -S; order prints objects in jq's member order where it is known (the
	// arguments', the current input's, the filter's literals': sdk/jqorder).
	sortKeys bool
	order    jqorder.Printer
	inBytes  int // the input text order.Input covers (jqorder.MaxOrderedInput)
}

// jq is gojq with the CLI options tool scripts use. Files are read through the sandbox;
// $ENV and env see only the script's exported variables; modules cannot be loaded.
func jq(ctx context.Context, env *Env, argv []string) int {
	o := jqOptions{pretty: true, indent: 2, order: jqorder.Printer{Args: jqorder.KeyOrder{}, Input: jqorder.KeyOrder{}}}
	args := argv[1:]
	filterSet, fromFile := false, false
	restArgs, restJSON, optsDone := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		need := func(n int) bool { return i+n < len(args) }
		if optsDone || a == "-" || !strings.HasPrefix(a, "-") {
			switch {
			case !filterSet:
				o.filter, filterSet = a, true
			case restArgs:
				o.positional = append(o.positional, validUTF8(a))
			case restJSON:
				v, err := decodeOne([]byte(a), o.order.Args)
				if err != nil {
					return errorf(env, 2, "jq", "Invalid JSON text passed to --jsonargs")
				}
				o.positional = append(o.positional, v)
			default:
				o.files = append(o.files, a)
			}
			continue
		}
		switch a {
		case "--":
			optsDone = true // jq 1.7: the rest are the filter and positional arguments
		case "--args":
			restArgs, restJSON = true, false
		case "--jsonargs":
			restArgs, restJSON = false, true
		case "--arg":
			if !need(2) {
				return errorf(env, 2, "jq", "--arg takes two parameters (e.g. --arg varname value)")
			}
			o.bind(args[i+1], validUTF8(args[i+2]))
			i += 2
		case "--argjson":
			if !need(2) {
				return errorf(env, 2, "jq", "--argjson takes two parameters (e.g. --argjson varname text)")
			}
			v, err := decodeOne([]byte(args[i+2]), o.order.Args)
			if err != nil {
				return errorf(env, 2, "jq", "Invalid JSON text passed to --argjson")
			}
			o.bind(args[i+1], v)
			i += 2
		case "--slurpfile", "--rawfile":
			if !need(2) {
				return errorf(env, 2, "jq", "%s takes two parameters (e.g. %s varname filename)", a, a)
			}
			v, status := jqLoadFile(ctx, env, a, args[i+1], args[i+2], o.order.Args)
			if status != 0 {
				return status
			}
			o.bind(args[i+1], v)
			i += 2
		case "--indent":
			if !need(1) {
				return errorf(env, 2, "jq", "--indent takes one parameter")
			}
			n, err := strconv.Atoi(args[i+1])
			if err != nil || n < -1 || n > 7 {
				return errorf(env, 2, "jq", "--indent takes a number between -1 and 7")
			}
			o.indent, o.tab, o.pretty = n, n == -1, n != 0
			i++
		case "--tab":
			o.tab, o.pretty = true, true
		case "--raw-output":
			o.raw = true
		case "--join-output":
			o.raw, o.join = true, true
		case "--compact-output":
			o.pretty, o.tab = false, false
		case "--null-input":
			o.nullInput = true
		case "--exit-status":
			o.exitStatus = true
		case "--slurp":
			o.slurp = true
		case "--ascii-output":
			o.ascii = true
		case "--sort-keys":
			o.sortKeys = true
		case "--raw-input":
			o.rawInput = true
		case "--from-file":
			fromFile = true
		case "--monochrome-output", "--unbuffered":
			// Output is never coloured; buffering is not observable by a script.
		default:
			if strings.HasPrefix(a, "--") {
				return errorf(env, 2, "jq", "unsupported option %s", a)
			}
			for _, c := range a[1:] {
				switch c {
				case 'r':
					o.raw = true
				case 'j':
					o.raw, o.join = true, true
				case 'c':
					o.pretty, o.tab = false, false
				case 'n':
					o.nullInput = true
				case 'e':
					o.exitStatus = true
				case 's':
					o.slurp = true
				case 'a':
					o.ascii = true
				case 'S':
					o.sortKeys = true
				case 'M':
				case 'R':
					o.rawInput = true
				case 'f':
					fromFile = true
				default:
					return errorf(env, 2, "jq", "unsupported option -%c", c)
				}
			}
		}
	}
	switch {
	case fromFile && !filterSet:
		return errorf(env, 2, "jq", "error: -f needs the name of a file holding the filter")
	case fromFile:
		// As in jq, -f makes the first operand the file that holds the filter, wherever -f stands.
		text, status := jqFilterFile(ctx, env, o.filter)
		if status != 0 {
			return status
		}
		o.filter = text
	case !filterSet:
		o.filter = "."
	}
	return runJQ(ctx, env, &o)
}

// bind adds a named argument; as in jq, the first of two with the same name wins.
func (o *jqOptions) bind(name string, v any) {
	if !slices.Contains(o.names, "$"+name) {
		o.names, o.values = append(o.names, "$"+name), append(o.values, v)
	}
}

// jqLoadFile reads the file of --slurpfile or --rawfile through the sandbox. "-" is a file
// name here, as in jq, not stdin.
func jqLoadFile(ctx context.Context, env *Env, opt, name, file string, order jqorder.KeyOrder) (any, int) {
	p := file
	if p == "-" {
		p = "./-"
	}
	r, err := openInput(env, p)
	if err != nil {
		return nil, errorf(env, 2, "jq", "Bad JSON in %s %s %s: Could not open %s: %s", opt, name, file, file, describe(err))
	}
	defer r.Close()
	if opt == "--rawfile" {
		data, err := readAll(ctx, ctxRead(ctx, r))
		if err != nil {
			return nil, errorf(env, 2, "jq", "error: %s: %s", file, describe(err))
		}
		return validUTF8(string(data)), 0
	}
	vals, err := decodeStream(ctxRead(ctx, r), order)
	if err != nil {
		return nil, errorf(env, 2, "jq", "Bad JSON in %s %s %s: %v", opt, name, file, err)
	}
	return vals, 0
}

// emptyFilter reports whether a filter holds only blanks and # comments.
func emptyFilter(f string) bool {
	for line := range strings.SplitSeq(f, "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// jqFilterFile reads the filter of -f through the sandbox.
func jqFilterFile(ctx context.Context, env *Env, file string) (string, int) {
	p := file
	if p == "-" {
		p = "./-"
	}
	r, err := openInput(env, p)
	if err != nil {
		return "", errorf(env, 2, "jq", "Could not open %s: %s", file, describe(err))
	}
	defer r.Close()
	data, err := readAll(ctx, ctxRead(ctx, r))
	if err != nil {
		return "", errorf(env, 2, "jq", "Could not open %s: %s", file, describe(err))
	}
	return string(data), 0
}

// runJQ runs the filter under a heap watch (gojq has no allocation hook: budget.go).
func runJQ(ctx context.Context, env *Env, o *jqOptions) int {
	wctx, stop, room := watchHeap(ctx, env.Budget)
	st := runJQWatched(wctx, env, o, room)
	if stop() || meterOf(ctx).refused {
		return errorf(env, 5, "jq", "error: %v", env.Budget.Err())
	}
	return st
}

func runJQWatched(ctx context.Context, env *Env, o *jqOptions, room func(int64) error) int {
	if emptyFilter(o.filter) {
		o.filter = "." // jq runs a filter of nothing but blanks and comments as the identity
	}
	// Bounded before gojq parses it: gojq's compiler recurses on the filter's nesting, and its
	// parser and compiler are superlinear in some shapes (jqorder.CheckText).
	if err := jqorder.CheckText(o.filter); err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: %v\njq: 1 compile error\n", err)
		return 3
	}
	q, err := gojq.Parse(o.filter)
	if err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: %v\njq: 1 compile error\n", err)
		return 3
	}
	o.order.Built = jqorder.BuiltOrders(q)
	o.order.Derived, o.order.Normalize = &jqorder.Derived{}, normalizeNumber
	o.order.Ctx = ctx
	ownDefs := jqorder.OwnDefs(q)
	jqorder.Guard(q) // before the rewrite: what it routes elsewhere is checked already
	jqorder.Rewrite(q)
	// jq's own definitions that gojq lacks, the guard's, the builtins of ours the
	// filter calls (stoppable), then the ordered ones; the filter's own win.
	q.FuncDefs = slices.Concat(jqPrelude().FuncDefs, jqorder.GuardDefs(), ownDefs, jqorder.OrderedDefs(), q.FuncDefs)
	src := &jqSource{ctx: ctx, env: env, names: o.files}
	if len(src.names) == 0 {
		src.names = []string{"-"}
	}
	defer src.close()
	in := &jqInput{src: src, o: o, stderr: env.Stderr}
	if o.rawInput {
		in.lines = newLineReader(src)
	} else {
		in.dec = json.NewDecoder(src)
		in.dec.UseNumber()
	}
	named := map[string]any{}
	var namedOrder []string
	for i, n := range o.names {
		k := strings.TrimPrefix(n, "$")
		if _, seen := named[k]; !seen {
			namedOrder = append(namedOrder, k)
		}
		named[k] = o.values[i]
	}
	positional := o.positional
	if positional == nil {
		positional = []any{}
	}
	// $ARGS as jq binds it, bound last so that it wins over a --arg ARGS, as in jq, and printed
	// in jq's member order (positional first, names in the order given).
	args := map[string]any{"named": named, "positional": positional}
	o.order.Args.Record(args, []string{"positional", "named"})
	o.order.Args.Record(named, namedOrder)
	vars := append(slices.Clip(o.values), args)
	code, err := gojq.Compile(q, append(slices.Concat(o.order.Functions(), jqorder.GuardFunctionsContext(ctx, room)),
		gojq.WithEnvironLoader(func() []string {
			if env.Environ == nil {
				return nil
			}
			return env.Environ()
		}),
		gojq.WithVariables(append(slices.Clip(o.names), "$ARGS")),
		gojq.WithInputIter(in),
		gojq.WithFunction("input_filename", 0, 0, func(any, []any) any {
			switch src.name {
			case "":
				return nil // no input read yet
			case "-":
				return "<stdin>"
			}
			return src.name
		}))...,
	)
	if err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "cannot load module") {
			// gojq's words for import/include without a module path: say why, and the fix.
			msg += ` (jq modules are not available in the sandbox; fix: put the module's definitions in the filter, or set "exec": "native" in tool.meta.json)`
		}
		fmt.Fprintf(env.Stderr, "jq: error: %s\njq: 1 compile error\n", msg)
		return 3
	}

	w := bufio.NewWriter(env.Stdout)
	var last any = false
	produced, failed, halted := false, false, false
	status := 0
	// run prints the results of the filter on one input; it stops at the first error, as jq
	// abandons an input whose program raised one, and reports false when jq must stop.
	run := func(v any) bool {
		iter := code.RunWithContext(ctx, v, vars...)
		for {
			v, ok := iter.Next()
			if !ok || ctx.Err() != nil {
				return ctx.Err() == nil
			}
			if e, isErr := v.(error); isErr {
				if h, halt := e.(*gojq.HaltError); halt {
					if hv := h.Value(); hv != nil {
						if s, ok := hv.(string); ok {
							fmt.Fprint(env.Stderr, s)
						} else if text, ok := messageJSON(ctx, hv, o, room); ok {
							fmt.Fprintln(env.Stderr, text)
						} else {
							return false
						}
					}
					halted, status = true, h.ExitCode()
					return false
				}
				where := "<unknown>"
				if !o.nullInput {
					where = "<stdin>"
					if src.name != "-" && src.name != "" {
						where = src.name
					}
				}
				var msg string
				if ve, ok := e.(gojq.ValueError); ok {
					// error(v): jq prints a string as is, anything else as JSON. Not through
					// e.Error(): gojq's message marshals the whole value, unstoppably and
					// uncharged (a value that holds one array many times prints gigabytes).
					if s, ok := ve.Value().(string); ok {
						msg = ": " + s
					} else if text, ok := messageJSON(ctx, ve.Value(), o, room); ok {
						msg = " (not a string): " + text
					} else {
						return false
					}
				} else if msg = ": " + e.Error(); msg == ": break" {
					msg = ": No more inputs" // gojq's input signals the end of input with "break"
				}
				fmt.Fprintf(env.Stderr, "jq: error (at %s)%s\n", where, msg)
				failed = true
				return true
			}
			produced, last = true, v
			if s, ok := v.(string); ok && o.raw && !o.ascii {
				w.WriteString(s)
			} else {
				// What the print makes is asked of the call's memory first (a value that holds
				// one array many times prints far more than it holds), and the print ends with
				// the call (Printer.Ctx).
				if jqorder.JSONRoom(ctx, v, room, printIndent(o)) != nil {
					return false
				}
				w.WriteString(encode(v, o, false)) // with -r -a too: jq quotes the string then
			}
			if !o.join {
				w.WriteByte('\n')
			}
			if _, err := w.Write(nil); err != nil {
				return false // the output failed (a reader gone away): stop, even on endless input
			}
		}
	}
	if o.nullInput {
		run(nil)
	} else {
		for {
			v, ok := in.Next()
			if !ok || !run(v) {
				break
			}
			// Its results are printed: forget the input's objects, so a long stream is not
			// held (`input`/`inputs` read within the run, so their objects were still known).
			if clear(o.order.Input); o.order.Input == nil {
				o.order.Input = jqorder.KeyOrder{}
			}
			o.inBytes = 0
		}
	}
	if err := w.Flush(); err != nil && ctx.Err() == nil {
		fmt.Fprintf(env.Stderr, "jq: error: writing output failed: %v\n", err)
		return 2
	}
	switch {
	case halted:
		return status
	case ctx.Err() != nil:
		return 130
	case in.bad || src.failed:
		return 2
	case failed:
		return 5
	case o.exitStatus && !produced:
		return 4
	case o.exitStatus && (last == nil || last == false):
		return 1
	}
	return 0
}

// jqSource is the concatenation of jq's inputs, as jq reads them: a value or a raw line may
// span two files. Files that cannot be opened are reported and skipped.
type jqSource struct {
	ctx    context.Context
	env    *Env
	names  []string
	next   int
	cur    io.ReadCloser
	name   string // the file being read ("-" for stdin)
	failed bool
}

// close closes the file being read, if jq stopped before its end.
func (s *jqSource) close() {
	if s.cur != nil {
		s.cur.Close()
		s.cur = nil
	}
}

func (s *jqSource) Read(p []byte) (int, error) {
	for {
		if err := s.ctx.Err(); err != nil {
			return 0, err
		}
		if s.cur == nil {
			if s.next >= len(s.names) {
				return 0, io.EOF
			}
			name := s.names[s.next]
			s.next++
			r, err := openInput(s.env, name)
			if err != nil {
				fmt.Fprintf(s.env.Stderr, "jq: error: Could not open %s: %s\n", name, describe(err))
				s.failed = true
				continue
			}
			s.cur, s.name = r, name
		}
		n, err := s.cur.Read(p)
		if err == io.EOF {
			s.cur.Close()
			s.cur = nil
			if n == 0 {
				continue
			}
			err = nil
		}
		return n, err
	}
}

// jqInput yields jq's inputs one at a time (the program's inputs and what input/inputs
// read), so a stream is never held whole unless -s asks for it. A parse or read error is
// reported once and ends the inputs.
type jqInput struct {
	src    *jqSource
	o      *jqOptions
	dec    *json.Decoder
	lines  *lineReader
	stderr io.Writer
	done   bool
	bad    bool
}

func (in *jqInput) Next() (any, bool) {
	if in.done {
		return nil, false
	}
	v, err := in.read()
	if err != nil {
		in.done = true
		if err != io.EOF && in.src.ctx.Err() == nil {
			where := "<stdin>"
			if in.src.name != "-" && in.src.name != "" {
				where = in.src.name
			}
			msg := describe(err)
			if _, syntax := err.(*json.SyntaxError); syntax || err == errUnfinishedJSON {
				msg = "parse error: " + msg
			}
			fmt.Fprintf(in.stderr, "jq: error (at %s): %s\n", where, msg)
			in.bad = true
		}
		return nil, false
	}
	if in.o.slurp {
		in.done = true
	}
	return v, true
}

func (in *jqInput) read() (any, error) {
	switch {
	case in.o.slurp && in.o.rawInput:
		b, err := readAll(in.src.ctx, in.src)
		return validUTF8(string(b)), err
	case in.o.slurp:
		all, err := decodeAll(in.dec, in.o.order.Input)
		if all == nil {
			all = []any{}
		}
		return all, err
	case in.o.rawInput:
		line, _, ok := in.lines.next()
		if !ok {
			if in.lines.err != nil {
				return nil, in.lines.err
			}
			return nil, io.EOF
		}
		return validUTF8(string(line)), nil
	}
	var raw json.RawMessage
	if err := in.dec.Decode(&raw); err != nil {
		if err == io.ErrUnexpectedEOF {
			err = errUnfinishedJSON
		}
		return nil, err
	}
	if in.o.inBytes += len(raw); in.o.inBytes > jqorder.MaxOrderedInput {
		in.o.order.Input = nil // the rest of this input prints sorted (sdk/jqorder)
	}
	return in.o.order.Input.Decode(raw, normalizeNumber), nil
}

// validUTF8 replaces each byte of s that is not UTF-8 with U+FFFD, as jq does with text.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// errUnfinishedJSON is a value cut short by the end of input (jq's wording).
var errUnfinishedJSON = errors.New("unfinished JSON term at EOF")

// decodeAll reads every JSON value left in dec.
func decodeAll(dec *json.Decoder, order jqorder.KeyOrder) ([]any, error) {
	var out []any
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return out, nil
		}
		if err == io.ErrUnexpectedEOF {
			return out, errUnfinishedJSON
		}
		if err != nil {
			return out, err
		}
		out = append(out, order.Decode(raw, normalizeNumber))
	}
}

func decodeStream(r io.Reader, order jqorder.KeyOrder) ([]any, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	vals, err := decodeAll(dec, order)
	if vals == nil {
		vals = []any{}
	}
	return vals, err
}

func decodeOne(b []byte, order jqorder.KeyOrder) (any, error) {
	vals, err := decodeStream(bytes.NewReader(b), order)
	if err != nil {
		return nil, err
	}
	if len(vals) != 1 {
		return nil, fmt.Errorf("expected one JSON value")
	}
	return vals[0], nil
}

// normalizeNumber is normalize for one number (jqorder.KeyOrder.Decode).
func normalizeNumber(n json.Number) any { return normalize(n) }

// normalize turns json.Number into the number types gojq computes with.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalize(x[k])
		}
	}
	return v
}

// jqPrelude holds jq 1.6's definitions that gojq does not have.
var jqPrelude = sync.OnceValue(func() *gojq.Query {
	q, err := gojq.Parse("def leaf_paths: paths(scalars); .")
	if err != nil {
		panic(err)
	}
	return q
})

// encode renders v as jq would with the given options: objects read from the input or the
// arguments keep their order, others print sorted (gojq's encoder).
// messageJSON is v as jq prints it in a message (error(v), halt_error): compact JSON in the
// filter's member order, its size asked of the call's memory first and the print ended with
// the call. It reports false when the call ends instead (the budget or the call's end).
func messageJSON(ctx context.Context, v any, o *jqOptions, room func(int64) error) (string, bool) {
	if jqorder.JSONRoom(ctx, v, room, -1) != nil || ctx.Err() != nil {
		return "", false
	}
	text := encode(v, &jqOptions{ascii: o.ascii, order: o.order}, true)
	return text, ctx.Err() == nil
}

func encode(v any, o *jqOptions, compact bool) string {
	var b []byte
	var err error
	if o.sortKeys {
		b, err = (*jqorder.Printer)(nil).Marshal(v) // sorted, stripped past jq's depth
	} else {
		b, err = o.order.Marshal(v)
	}
	if err != nil {
		if o.order.Ctx != nil && o.order.Ctx.Err() != nil {
			return "" // the call ended during the print: nothing more is written
		}
		return gojq.Preview(v) // bounded, whatever v holds (fmt.Sprint of a shared value is not)
	}
	if !o.ascii && bytes.Contains(b, []byte(`\ufffd`)) {
		// gojq writes an invalid byte of a string as the escape \ufffd; jq writes U+FFFD.
		b = unescapeReplacement(b)
	}
	if o.pretty && !compact {
		var buf bytes.Buffer
		ind := strings.Repeat(" ", max(o.indent, 0))
		if o.tab {
			ind = "\t"
		}
		if json.Indent(&buf, b, "", ind) == nil {
			b = buf.Bytes()
		} else if bytes.Contains(b, []byte(jqorder.Stripped)) {
			b = indentStripped(b, ind)
		}
	}
	return maybeASCII(string(b), o.ascii)
}

// printIndent is the spaces a level encode indents with (1 for a tab), -1 when compact.
func printIndent(o *jqOptions) int {
	switch {
	case !o.pretty:
		return -1
	case o.tab:
		return 1
	}
	return max(o.indent, 0)
}

func maybeASCII(s string, ascii bool) string {
	if !ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
		} else if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// unescapeReplacement turns each \ufffd escape of JSON text into the character itself,
// leaving an escaped backslash followed by "ufffd" alone.
func unescapeReplacement(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			if bytes.HasPrefix(b[i+1:], []byte("ufffd")) {
				out = append(out, "\uFFFD"...)
				i += 5
				continue
			}
			out = append(out, b[i], b[i+1])
			i++
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// indentStripped indents compact JSON that holds jqorder.Stripped markers (which json.Indent
// refuses) as jq prints it: the marker stands where the value would.
func indentStripped(b []byte, ind string) []byte {
	var out []byte
	depth := 0
	newline := func() {
		out = append(out, '\n')
		for range depth {
			out = append(out, ind...)
		}
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, b[i:min(j+1, len(b))]...)
			i = j
		case '[', '{':
			if i+1 < len(b) && (b[i+1] == ']' || b[i+1] == '}') {
				out = append(out, c, b[i+1])
				i++
				continue
			}
			out = append(out, c)
			depth++
			newline()
		case ']', '}':
			depth--
			newline()
			out = append(out, c)
		case ',':
			out = append(out, c)
			newline()
		case ':':
			out = append(out, ':', ' ')
		case '<':
			// The marker is one atom (its own colon is not a member's).
			n := len(jqorder.Stripped)
			if bytes.HasPrefix(b[i:], []byte(jqorder.Stripped)) {
				out = append(out, b[i:i+n]...)
				i += n - 1
				continue
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}
