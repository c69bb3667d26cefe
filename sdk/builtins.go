package sdk

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// Prelude is Bash that defines the SDK functions that need the shell itself (setting a variable,
// calling shell functions) around the Go builtin `__mcpbash_sdk`; every other SDK function is
// run directly by the engine.
//
//go:embed prelude.sh
var Prelude string

// BuiltinName is the command the prelude calls.
const BuiltinName = "__mcpbash_sdk"

type builtinFunc func(s *State, ctx context.Context, env *engine.Env, args []string) int

var builtins map[string]builtinFunc

func init() {
	builtins = map[string]builtinFunc{
		"mcp_json_escape":               jsonEscape,
		"mcp_json_obj":                  jsonObj,
		"mcp_json_arr":                  jsonArr,
		"mcp_is_valid_json":             isValidJSON,
		"mcp_byte_length":               byteLength,
		"mcp_json_truncate":             jsonTruncate,
		"mcp_args_raw":                  argsRaw,
		"mcp_args_get":                  argsGet,
		"mcp_args_require":              argsRequire,
		"mcp_args_bool":                 argsBool,
		"mcp_args_int":                  argsInt,
		"mcp_meta_raw":                  metaRaw,
		"mcp_meta_get":                  metaGet,
		"mcp_is_cancelled":              isCancelled,
		"mcp_progress":                  progress,
		"mcp_log":                       logJSON,
		"mcp_log_debug":                 logLevel("debug"),
		"mcp_log_info":                  logLevel("info"),
		"mcp_log_warn":                  logLevel("warning"),
		"mcp_log_error":                 logLevel("error"),
		"mcp_debug":                     debugLog,
		"mcp_emit_text":                 emitText,
		"mcp_emit_json":                 emitJSON,
		"mcp_result_success":            resultSuccess,
		"mcp_result_error":              resultError,
		"mcp_error":                     errorResult,
		"mcp_result_text_with_resource": resultWithResource,
		"mcp_fail":                      fail,
		"mcp_fail_invalid_args":         failInvalidArgs,
		"mcp_extract_cli_error":         extractCLIError,
		"mcp_roots_list":                rootsList,
		"mcp_roots_count":               rootsCount,
		"mcp_roots_contains":            rootsContains,
		"mcp_require_path":              requirePath,
		"mcp_path_normalize":            pathNormalize,
		"mcp_path_collapse":             pathCollapse,
		"mcp_config_load":               configLoad,
		"mcp_config_get":                configGet,
		"__backoff_sleep":               backoffSleep,
		"mcp_run_with_progress":         runWithProgress,
		"mcp_sample":                    sample,
	}
	for n, f := range elicitBuiltins() {
		builtins[n] = f
	}
	for n, f := range uiBuiltins() {
		builtins[n] = f
	}
}

// Has reports whether name is an SDK function implemented in Go.
func Has(name string) bool {
	_, ok := builtins[name]
	return ok && strings.HasPrefix(name, "mcp_")
}

// exiting lists the functions that end the tool (the whole script, or the subshell they run
// in) when they fail, as the original's `exit 1` does.
var exiting = map[string]bool{"mcp_fail": true, "mcp_fail_invalid_args": true, "mcp_args_require": true,
	"mcp_args_bool": true, "mcp_args_int": true, "mcp_require_path": true, "mcp_json_obj": true,
	"mcp_download_safe_or_fail": true}

// Exits reports whether a non-zero status of the named function must exit the shell.
func Exits(name string) bool { return exiting[name] }

// Names lists every SDK function.
func Names() []string {
	var n []string
	for k := range builtins {
		if strings.HasPrefix(k, "mcp_") {
			n = append(n, k)
		}
	}
	slices.Sort(n)
	return n
}

// Run executes one SDK builtin and returns its exit status.
func (s *State) Run(ctx context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, BuiltinName+": missing function name")
		return 2
	}
	f, ok := builtins[args[0]]
	if !ok {
		fmt.Fprintf(env.Stderr, "%s: unknown SDK function %s\n", BuiltinName, args[0])
		return 127
	}
	if env.Now == nil {
		e := *env
		e.Now = time.Now
		env = &e
	}
	return f(s, ctx, env, args[1:])
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func jsonEscape(_ *State, _ context.Context, env *engine.Env, args []string) int {
	fmt.Fprintln(env.Stdout, jsonString(strings.Join(args, " ")))
	return 0
}

func jsonObj(_ *State, _ context.Context, env *engine.Env, args []string) int {
	if len(args)%2 != 0 {
		fmt.Fprintln(env.Stderr, "mcp_json_obj: expected key/value pairs")
		return 1
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(args); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(args[i]) + ":" + jsonString(args[i+1]))
	}
	b.WriteByte('}')
	fmt.Fprintln(env.Stdout, b.String())
	return 0
}

func jsonArr(_ *State, _ context.Context, env *engine.Env, args []string) int {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = jsonString(a)
	}
	fmt.Fprintln(env.Stdout, "["+strings.Join(parts, ",")+"]")
	return 0
}

func isValidJSON(_ *State, _ context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		return 1
	}
	if !json.Valid([]byte(args[0])) {
		return 1
	}
	return 0
}

func byteLength(_ *State, _ context.Context, env *engine.Env, args []string) int {
	fmt.Fprintln(env.Stdout, len(strings.Join(args, " ")))
	return 0
}

// argsWithOrder is argsValue and the member order of its objects.
func (s *State) argsWithOrder() (any, jqorder.KeyOrder) {
	v := s.argsValue()
	return v, s.argsOrder
}

func (s *State) argsValue() any {
	s.argsOnce.Do(func() {
		if v := s.Call.ArgsValue; v != nil && s.Call.ArgsOrder != nil {
			s.args, s.argsOrder = normalizeNumbers(v), s.Call.ArgsOrder
			return
		}
		s.argsOrder = jqorder.KeyOrder{}
		v, err := decodeOrderedJSON(s.Call.Args, s.argsOrder)
		if err != nil || v == nil {
			v = map[string]any{}
		}
		s.args = v
	})
	return s.args
}

func argsRaw(s *State, _ context.Context, env *engine.Env, _ []string) int {
	raw := string(s.Call.Args)
	if raw == "" {
		raw = "{}"
	}
	fmt.Fprintln(env.Stdout, raw)
	return 0
}

// query runs a filter over v and prints each result like `jq -r -c`; an error prints nothing
// and returns jq's status: 3 for a filter that does not compile, 5 for a runtime error.
func (s *State) query(ctx context.Context, env *engine.Env, filter string, v any, order jqorder.KeyOrder) int {
	p := &jqorder.Printer{Input: order}
	room := filterRoom(env.Budget)
	out, err := s.Filters.run(ctx, filter, v, env.Environ, p, room)
	if err == nil {
		for _, x := range out {
			var text string
			if text, err = printResult(ctx, p, x, room); err != nil {
				break
			}
			fmt.Fprintln(env.Stdout, text)
		}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: %v\n", err)
		var ce compileError
		if errors.As(err, &ce) {
			return 3
		}
		return 5
	}
	return 0
}

// value evaluates a filter to one string ("" for null or no result).
func (s *State) value(ctx context.Context, env *engine.Env, filter string, v any, order jqorder.KeyOrder) (string, error) {
	p := &jqorder.Printer{Input: order}
	room := filterRoom(env.Budget)
	out, err := s.Filters.run(ctx, filter, v, env.Environ, p, room)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, x := range out {
		if x == nil {
			parts = append(parts, "null")
			continue
		}
		text, err := printResult(ctx, p, x, room)
		if err != nil {
			return "", err
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n"), nil
}

func argsGet(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "mcp_args_get: filter required")
		return 2
	}
	args0, order := s.argsWithOrder()
	return s.query(ctx, env, args[0], args0, order)
}

// failWith records a JSON-RPC failure, prints it to stdout and the message to stderr (as
// mcp_fail does) and returns 1; the prelude wrapper then exits.
func (s *State) failWith(env *engine.Env, code int, msg string, data json.RawMessage) int {
	if msg == "" {
		msg = "Tool failed"
	}
	f := &engine.Failure{Code: code, Message: msg, Data: data}
	s.setFail(f)
	b, _ := json.Marshal(f)
	fmt.Fprintln(env.Stdout, string(b))
	fmt.Fprintln(env.Stderr, msg)
	return 1
}

func argsRequire(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		return s.failWith(env, -32602, "mcp_args_require: filter required", nil)
	}
	a, order := s.argsWithOrder()
	v, err := s.value(ctx, env, args[0], a, order)
	if err != nil || v == "" || v == "null" {
		msg := args[0] + " is required"
		if len(args) > 1 && args[1] != "" {
			msg = args[1]
		}
		return s.failWith(env, -32602, msg, nil)
	}
	fmt.Fprintln(env.Stdout, v)
	return 0
}

// flags splits "--name value" options from positional arguments.
func flags(args []string, known ...string) (pos []string, opts map[string][]string, err error) {
	opts = map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "--") && slices.Contains(known, a) {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("%s needs a value", a)
			}
			opts[a] = append(opts[a], args[i+1])
			i++
			continue
		}
		pos = append(pos, a)
	}
	return pos, opts, nil
}

func argsBool(s *State, ctx context.Context, env *engine.Env, args []string) int {
	pos, opts, err := flags(args, "--default")
	if err != nil || len(pos) == 0 {
		return s.failWith(env, -32602, "mcp_args_bool: usage: mcp_args_bool FILTER [--default true|false]", nil)
	}
	a, order := s.argsWithOrder()
	v, _ := s.value(ctx, env, pos[0], a, order)
	if v == "" || v == "null" {
		d, ok := opts["--default"]
		if !ok {
			return s.failWith(env, -32602, pos[0]+" is required", nil)
		}
		v = d[0]
	}
	if v == "true" || v == "1" {
		fmt.Fprintln(env.Stdout, "true")
	} else {
		fmt.Fprintln(env.Stdout, "false")
	}
	return 0
}

var intRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?[0-9]+$`) })

func argsInt(s *State, ctx context.Context, env *engine.Env, args []string) int {
	pos, opts, err := flags(args, "--default", "--min", "--max")
	if err != nil || len(pos) == 0 {
		return s.failWith(env, -32602, "mcp_args_int: usage: mcp_args_int FILTER [--default N] [--min N] [--max N]", nil)
	}
	f := pos[0]
	a, order := s.argsWithOrder()
	v, _ := s.value(ctx, env, f, a, order)
	if v == "" || v == "null" {
		d, ok := opts["--default"]
		if !ok {
			return s.failWith(env, -32602, f+" is required", nil)
		}
		v = d[0]
	}
	if !intRE().MatchString(v) {
		return s.failWith(env, -32602, f+" must be an integer", nil)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return s.failWith(env, -32602, f+" must be an integer", nil)
	}
	if m, ok := opts["--min"]; ok {
		if lo, err := strconv.ParseInt(m[0], 10, 64); err == nil && n < lo {
			return s.failWith(env, -32602, fmt.Sprintf("%s must be >= %d", f, lo), nil)
		}
	}
	if m, ok := opts["--max"]; ok {
		if hi, err := strconv.ParseInt(m[0], 10, 64); err == nil && n > hi {
			return s.failWith(env, -32602, fmt.Sprintf("%s must be <= %d", f, hi), nil)
		}
	}
	fmt.Fprintln(env.Stdout, n)
	return 0
}

// metaValue is the call's _meta and the member order of its objects.
func (s *State) metaValue() (any, jqorder.KeyOrder) {
	order := jqorder.KeyOrder{}
	v, err := decodeOrderedJSON(s.Call.Meta, order)
	if err != nil || v == nil {
		return map[string]any{}, nil
	}
	return v, order
}

func metaRaw(s *State, _ context.Context, env *engine.Env, _ []string) int {
	v, order := s.metaValue()
	fmt.Fprintln(env.Stdout, rawOrderedOutput(&jqorder.Printer{Input: order}, v))
	return 0
}

func metaGet(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "mcp_meta_get: filter required")
		return 2
	}
	v, order := s.metaValue()
	return s.query(ctx, env, args[0], v, order)
}

func isCancelled(s *State, ctx context.Context, _ *engine.Env, _ []string) int {
	if s.cancelled() {
		return 0
	}
	return 1
}

func progress(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if s.Call.ProgressToken == nil || s.Call.Sink == nil {
		return 0
	}
	pct := 0.0
	if len(args) > 0 {
		if f, err := strconv.ParseFloat(strings.TrimSpace(args[0]), 64); err == nil && !math.IsNaN(f) {
			pct = math.Trunc(f)
		}
	}
	pct = math.Max(0, math.Min(100, pct))
	msg := ""
	if len(args) > 1 {
		msg = args[1]
	}
	var total *float64
	if len(args) > 2 {
		if f, err := strconv.ParseFloat(strings.TrimSpace(args[2]), 64); err == nil && f > 0 {
			total = &f
		}
	}
	s.Call.Sink.Progress(ctx, pct, total, msg)
	return 0
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func normLevel(l string) string {
	l = strings.ToLower(strings.TrimSpace(l))
	if l == "warn" {
		return "warning"
	}
	if slices.Contains(logLevels, l) {
		return l
	}
	return "info"
}

func logJSON(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) < 3 {
		fmt.Fprintln(env.Stderr, "mcp_log: usage: mcp_log LEVEL LOGGER JSON")
		return 1
	}
	data := json.RawMessage(jsonString(args[2]))
	if v, err := decodeJSON([]byte(args[2])); err == nil {
		data = json.RawMessage(compactJSON(v))
	}
	if s.Call.Sink != nil {
		s.Call.Sink.Log(ctx, normLevel(args[0]), args[1], data)
	}
	return 0
}

func logLevel(level string) builtinFunc {
	return func(s *State, ctx context.Context, env *engine.Env, args []string) int {
		logger, msg := "", ""
		if len(args) > 0 {
			logger = args[0]
		}
		if len(args) > 1 {
			msg = strings.Join(args[1:], " ")
		}
		if s.Call.Sink != nil {
			s.Call.Sink.Log(ctx, level, logger, json.RawMessage(jsonString(msg)))
		}
		return 0
	}
}

func debugLog(s *State, _ context.Context, env *engine.Env, args []string) int {
	p := env.Getenv("MCPBASH_DEBUG_LOG")
	if p == "" || env.FS == nil {
		return 0
	}
	line := fmt.Sprintf("[%s] %s\n", env.Now().Format("15:04:05"), strings.Join(args, " "))
	_ = env.AppendFile(p, []byte(line))
	return 0
}

func emitText(_ *State, _ context.Context, env *engine.Env, args []string) int {
	fmt.Fprint(env.Stdout, strings.Join(args, " "))
	return 0
}

func emitJSON(_ *State, _ context.Context, env *engine.Env, args []string) int {
	in := strings.Join(args, " ")
	if compactAsIs(in) {
		fmt.Fprintln(env.Stdout, in)
		return 0
	}
	o := newOrdered()
	v, err := o.decode([]byte(in))
	if err != nil {
		fmt.Fprintln(env.Stderr, "mcp_emit_json: invalid JSON")
		return 1
	}
	fmt.Fprintln(env.Stdout, o.encode(v))
	return 0
}

// toolResult is a CallToolResult built by the SDK, with members in the original's order.
func toolResult(o *ordered, text string, structured any, isError bool) string {
	return `{"content":[{"type":"text","text":` + jsonString(text) + `}],"structuredContent":` + o.encode(structured) +
		`,"isError":` + strconv.FormatBool(isError) + `}`
}

func (s *State) maxText(args []string, idx int) int {
	if len(args) > idx {
		if n, err := strconv.Atoi(args[idx]); err == nil && n > 0 {
			return n
		}
	}
	if s.Call.MaxTextBytes > 0 {
		return s.Call.MaxTextBytes
	}
	return 100 * 1024
}

func resultSuccess(s *State, ctx context.Context, env *engine.Env, args []string) int {
	in := "null"
	if len(args) > 0 {
		in = args[0]
	}
	o := newOrdered()
	v, err := o.decode([]byte(in))
	if err != nil {
		return resultError(s, ctx, env, []string{`{"type":"internal_error","message":"mcp_result_success: invalid JSON input"}`})
	}
	compact := o.encode(v)
	result := o.object("success", true, "result", v)
	text := `{"success":true,"result":` + compact + `}`
	if max := s.maxText(args, 1); len(text) > max {
		switch x := v.(type) {
		case map[string]any:
			text = fmt.Sprintf("Success: object with %d keys", len(x))
		case []any:
			text = fmt.Sprintf("Success: array with %d items", len(x))
		default:
			r := []rune(compact)
			text = string(r[:min(100, len(r))])
		}
	}
	fmt.Fprintln(env.Stdout, toolResult(o, text, result, false))
	return 0
}

func resultError(s *State, _ context.Context, env *engine.Env, args []string) int {
	in := "{}"
	if len(args) > 0 {
		in = args[0]
	}
	o := newOrdered()
	e := map[string]any{}
	if v, err := o.decode([]byte(in)); err == nil {
		if m, ok := v.(map[string]any); ok {
			e = m
		} else if str, ok := v.(string); ok {
			o.set(e, "message", str)
		}
	} else if strings.TrimSpace(in) != "" {
		o.set(e, "message", in)
	}
	// As the original's `.type = ... | .message = ...`: a member keeps its place, a new one
	// goes last.
	if t := e["type"]; t == nil || t == "" || t == false {
		o.set(e, "type", "internal_error")
	}
	msg := e["message"]
	if msg == nil || msg == "" || msg == false {
		msg = "Unknown error"
		o.set(e, "message", msg)
	}
	fmt.Fprintln(env.Stdout, toolResult(o, o.raw(msg), o.object("success", false, "error", e), true))
	return 0
}

func errorResult(s *State, ctx context.Context, env *engine.Env, args []string) int {
	pos, _, err := flags(args, "--hint", "--data")
	if err != nil || len(pos) < 2 {
		fmt.Fprintln(env.Stderr, "mcp_error: usage: mcp_error TYPE MESSAGE [--hint H] [--data JSON]")
		return 1
	}
	o := newOrdered()
	e := o.object("type", pos[0], "message", pos[1])
	// The options in the order given, as the original's loop applies them: a member's first
	// option places it, its last one gives its value.
	for i := 0; i < len(args); i++ {
		if args[i] != "--hint" && args[i] != "--data" || i+1 >= len(args) {
			continue
		}
		v := args[i+1]
		if args[i] == "--hint" {
			o.set(e, "hint", v)
		} else if d, err := o.decode([]byte(v)); err == nil {
			o.set(e, "data", d)
		} else {
			o.set(e, "data", o.object("_invalid_json", v))
		}
		i++
	}
	text := o.encode(e)
	if s.Call.Sink != nil {
		s.Call.Sink.Log(ctx, "error", s.Call.Tool, json.RawMessage(text))
	}
	return resultError(s, ctx, env, []string{text})
}

func resultWithResource(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "mcp_result_text_with_resource: data required")
		return 1
	}
	data := args[0]
	var refs []engine.ResourceRef
	for i := 1; i < len(args); i++ {
		switch args[i] {
		case "--path":
			if i+1 < len(args) {
				refs = append(refs, engine.ResourceRef{Path: args[i+1]})
				i++
			}
		case "--mime", "--uri":
			if i+1 < len(args) && len(refs) > 0 {
				if args[i] == "--mime" {
					refs[len(refs)-1].MIMEType = args[i+1]
				} else {
					refs[len(refs)-1].URI = args[i+1]
				}
				i++
			}
		}
	}
	for i := range refs {
		if !path.IsAbs(refs[i].Path) {
			refs[i].Path = path.Join(env.Dir, refs[i].Path)
		}
	}
	s.addResources(refs)
	if !json.Valid([]byte(data)) {
		data = jsonString(data)
	}
	return resultSuccess(s, ctx, env, []string{data})
}

func fail(s *State, _ context.Context, env *engine.Env, args []string) int {
	code := -32603
	if len(args) > 0 {
		if n, err := strconv.Atoi(strings.TrimSpace(args[0])); err == nil {
			code = n
		}
	}
	msg := ""
	if len(args) > 1 {
		msg = args[1]
	}
	var data json.RawMessage
	if len(args) > 2 && args[2] != "" {
		if v, err := decodeJSON([]byte(args[2])); err == nil {
			data = json.RawMessage(compactJSON(v))
		} else {
			data = json.RawMessage(jsonString(args[2]))
		}
	}
	return s.failWith(env, code, msg, data)
}

func failInvalidArgs(s *State, ctx context.Context, env *engine.Env, args []string) int {
	msg := "Invalid params"
	if len(args) > 0 && args[0] != "" {
		msg = args[0]
	}
	rest := []string{"-32602", msg}
	if len(args) > 1 {
		rest = append(rest, args[1])
	}
	return fail(s, ctx, env, rest)
}

func extractCLIError(_ *State, _ context.Context, env *engine.Env, args []string) int {
	get := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	stdout, stderr, rc := get(0), get(1), get(2)
	if v, err := decodeJSON([]byte(stdout)); err == nil {
		if m, ok := v.(map[string]any); ok {
			if e, ok := m["error"].(map[string]any); ok {
				if msg, ok := e["message"].(string); ok && msg != "" {
					fmt.Fprintln(env.Stdout, msg)
					return 0
				}
			}
			if msg, ok := m["error"].(string); ok && msg != "" {
				fmt.Fprintln(env.Stdout, msg)
				return 0
			}
			if m["success"] == false || m["ok"] == false {
				if msg, ok := m["message"].(string); ok && msg != "" {
					fmt.Fprintln(env.Stdout, msg)
					return 0
				}
			}
			if errs, ok := m["errors"].([]any); ok && len(errs) > 0 {
				if e, ok := errs[0].(map[string]any); ok {
					if msg, ok := e["message"].(string); ok && msg != "" {
						fmt.Fprintln(env.Stdout, msg)
						return 0
					}
				}
			}
		}
	}
	if strings.TrimSpace(stderr) != "" {
		fmt.Fprintln(env.Stdout, strings.TrimRight(stderr, "\n"))
		return 0
	}
	if rc == "" {
		rc = "1"
	}
	fmt.Fprintf(env.Stdout, "CLI exited with code %s\n", rc)
	return 0
}

func rootsList(s *State, _ context.Context, env *engine.Env, _ []string) int {
	for _, r := range s.Call.Roots {
		fmt.Fprintln(env.Stdout, r.Path)
	}
	return 0
}

func rootsCount(s *State, _ context.Context, env *engine.Env, _ []string) int {
	fmt.Fprintln(env.Stdout, len(s.Call.Roots))
	return 0
}

// inRoots reports whether p (physical, absolute) is a root or inside one.
func (s *State) inRoots(p string) bool {
	for _, r := range s.Call.Roots {
		if p == r.Path || strings.HasPrefix(p, strings.TrimSuffix(r.Path, "/")+"/") {
			return true
		}
	}
	return false
}

func (s *State) physical(env *engine.Env, p string) string {
	if !path.IsAbs(p) {
		p = path.Join(env.Dir, p)
	}
	p = path.Clean(p)
	if env.FS != nil {
		if real, err := env.FS.RealPath(p); err == nil {
			return real
		}
	}
	return p
}

func rootsContains(s *State, _ context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 || args[0] == "" {
		return 1
	}
	if s.inRoots(s.physical(env, args[0])) {
		return 0
	}
	return 1
}

func requirePath(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		return s.failWith(env, -32602, "mcp_require_path: filter required", nil)
	}
	f := args[0]
	single := slices.Contains(args[1:], "--default-to-single-root")
	allowEmpty := slices.Contains(args[1:], "--allow-empty")
	a, order := s.argsWithOrder()
	v, _ := s.value(ctx, env, f, a, order)
	if v == "null" {
		v = ""
	}
	if v == "" {
		switch {
		case single && len(s.Call.Roots) == 1:
			v = s.Call.Roots[0].Path
		case allowEmpty:
			fmt.Fprintln(env.Stdout, "")
			return 0
		case single:
			return s.failWith(env, -32602, f+" is required when zero or multiple roots are configured", nil)
		default:
			return s.failWith(env, -32602, f+" is required", nil)
		}
	}
	p := s.physical(env, v)
	if len(s.Call.Roots) > 0 && !s.inRoots(p) {
		return s.failWith(env, -32602, f+" is outside configured MCP roots", nil)
	}
	fmt.Fprintln(env.Stdout, p)
	return 0
}

func pathNormalize(s *State, _ context.Context, env *engine.Env, args []string) int {
	physical := true
	var rest []string
	for _, a := range args {
		switch a {
		case "--physical":
			physical = true
		case "--logical":
			physical = false
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) == 0 {
		fmt.Fprintln(env.Stderr, "mcp_path_normalize: path required")
		return 1
	}
	p := rest[0]
	if physical {
		fmt.Fprintln(env.Stdout, s.physical(env, p))
		return 0
	}
	if !path.IsAbs(p) {
		p = path.Join(env.Dir, p)
	}
	fmt.Fprintln(env.Stdout, path.Clean(p))
	return 0
}

func pathCollapse(_ *State, _ context.Context, env *engine.Env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stderr, "mcp_path_collapse: path required")
		return 1
	}
	fmt.Fprintln(env.Stdout, path.Clean(args[0]))
	return 0
}

func configLoad(s *State, _ context.Context, env *engine.Env, args []string) int {
	_, opts, err := flags(args, "--env", "--file", "--example", "--defaults")
	if err != nil {
		fmt.Fprintln(env.Stderr, "mcp_config_load: "+err.Error())
		return 1
	}
	merged := map[string]any{}
	layer := func(src, raw string) {
		if strings.TrimSpace(raw) == "" {
			return
		}
		v, err := decodeJSON([]byte(raw))
		m, ok := v.(map[string]any)
		if err != nil || !ok {
			fmt.Fprintf(env.Stderr, "mcp_config_load: %s is not a JSON object; ignored\n", src)
			return
		}
		for k, x := range m {
			merged[k] = x
		}
	}
	readFile := func(p string) string {
		if env.FS == nil {
			return ""
		}
		if !path.IsAbs(p) {
			p = path.Join(env.Dir, p)
		}
		b, err := env.ReadFile(p)
		if err != nil {
			return ""
		}
		return string(b)
	}
	// Lowest precedence first: defaults < example < file < env.
	if d, ok := opts["--defaults"]; ok {
		layer("--defaults", d[0])
	}
	if p, ok := opts["--example"]; ok {
		layer(p[0], readFile(p[0]))
	}
	if p, ok := opts["--file"]; ok {
		layer(p[0], readFile(p[0]))
	}
	if e, ok := opts["--env"]; ok {
		layer("$"+e[0], env.Getenv(e[0]))
	}
	fmt.Fprintln(env.Stdout, compactJSON(merged))
	return 0
}

func configGet(s *State, ctx context.Context, env *engine.Env, args []string) int {
	pos, opts, err := flags(args, "--default")
	if err != nil || len(pos) == 0 {
		fmt.Fprintln(env.Stderr, "mcp_config_get: usage: mcp_config_get FILTER [--default V]")
		return 1
	}
	var cfg any = map[string]any{}
	order := jqorder.KeyOrder{}
	if raw := env.Getenv("MCP_CONFIG_JSON"); raw != "" {
		if v, err := decodeOrderedJSON([]byte(raw), order); err == nil {
			cfg = v
		}
	}
	v, err := s.value(ctx, env, pos[0], cfg, order)
	if err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: %v\n", err)
		return 5
	}
	if v == "" || v == "null" {
		if d, ok := opts["--default"]; ok {
			v = d[0]
		} else {
			v = "null"
		}
	}
	fmt.Fprintln(env.Stdout, v)
	return 0
}

// backoffSleep sleeps delay*2^(attempt-1) seconds plus up to 25% jitter, ending early when the
// call ends (used by the shell implementation of mcp_with_retry).
func backoffSleep(_ *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) < 2 {
		return 2
	}
	delay, err1 := strconv.ParseFloat(args[0], 64)
	attempt, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || delay < 0 {
		return 2
	}
	d := delay * math.Pow(2, float64(min(attempt-1, 16)))
	d += d * 0.25 * float64(env.Now().UnixNano()%1000) / 1000
	t := time.NewTimer(time.Duration(d * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return 0
	case <-ctx.Done():
		return 1
	}
}

// jsonFits reports whether v's compact JSON is at most max bytes. The --array-path filter is
// the script's and may build a value that holds one array many times (2^40 places: printing it
// whole never ends): v is measured first, stopping past what could fit and with the call.
func jsonFits(ctx context.Context, v any, max int) (bool, error) {
	// The measure over-estimates only numbers, each by at most 24 bytes a byte printed.
	over, err := jqorder.JSONSizeOver(ctx, v, 24*int64(max)+24)
	if err != nil || over {
		return false, err
	}
	return len(compactJSON(v)) <= max, nil
}

// jsonTruncate keeps the largest prefix of an array (top level or at --array-path) whose JSON
// fits in max bytes.
func jsonTruncate(s *State, ctx context.Context, env *engine.Env, args []string) int {
	pos, opts, err := flags(args, "--array-path")
	if err != nil || len(pos) == 0 {
		fmt.Fprintln(env.Stderr, "mcp_json_truncate: usage: mcp_json_truncate JSON [MAX] [--array-path .p]")
		return 1
	}
	v, err := decodeJSON([]byte(pos[0]))
	if err != nil {
		fmt.Fprintln(env.Stdout, `{"result":null,"truncated":false,"error":"invalid JSON"}`)
		return 0
	}
	max := s.maxText(pos, 1)
	if len(compactJSON(v)) <= max {
		fmt.Fprintln(env.Stdout, `{"result":`+compactJSON(v)+`,"truncated":false}`)
		return 0
	}
	arrPath := "."
	if p, ok := opts["--array-path"]; ok {
		arrPath = p[0]
	}
	out, err := runFilter(ctx, arrPath, v, nil, filterRoom(env.Budget))
	arr, ok := []any(nil), false
	if err == nil && len(out) == 1 {
		arr, ok = out[0].([]any)
	}
	if !ok {
		fmt.Fprintln(env.Stdout, `{"result":null,"truncated":true,"error":`+jsonString("no array at "+arrPath+" to truncate")+`}`)
		return 0
	}
	build := func(k int) (any, error) {
		res, err := runFilter(ctx, arrPath+" |= .[:"+strconv.Itoa(k)+"]", v, nil, filterRoom(env.Budget))
		if err != nil || len(res) != 1 {
			return nil, fmt.Errorf("cannot truncate at %s", arrPath)
		}
		return res[0], nil
	}
	lo, hi := 0, len(arr) // largest k in [lo,hi] that fits
	var best any
	for lo <= hi {
		mid := (lo + hi) / 2
		cand, err := build(mid)
		if err != nil {
			fmt.Fprintln(env.Stdout, `{"result":null,"truncated":true,"error":`+jsonString(err.Error())+`}`)
			return 0
		}
		fits, err := jsonFits(ctx, cand, max)
		if err != nil {
			fmt.Fprintln(env.Stderr, "mcp_json_truncate: "+err.Error())
			return 1
		}
		if fits {
			best, lo = cand, mid+1
		} else {
			hi = mid - 1
		}
	}
	if best == nil {
		fmt.Fprintln(env.Stdout, `{"result":null,"truncated":true,"error":"does not fit even when empty"}`)
		return 0
	}
	fmt.Fprintf(env.Stdout, `{"result":%s,"truncated":true,"kept":%d,"total":%d}`+"\n", compactJSON(best), lo-1, len(arr))
	return 0
}
