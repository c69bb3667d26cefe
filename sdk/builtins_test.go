package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

type recSink struct{ events []string }

func (r *recSink) Progress(_ context.Context, p float64, total *float64, msg string) {
	r.events = append(r.events, "progress "+strconv.FormatFloat(p, 'f', -1, 64)+" "+msg)
}
func (r *recSink) Log(_ context.Context, level, logger string, data json.RawMessage) {
	r.events = append(r.events, "log "+level+" "+logger+" "+string(data))
}

func runSDK(t *testing.T, call *engine.Call, env map[string]string, args ...string) (stdout, stderr string, status int, st *State) {
	t.Helper()
	st = NewState(call, nil)
	var o, e bytes.Buffer
	status = st.Run(context.Background(), &engine.Env{Stdout: &o, Stderr: &e, Dir: "/work", Getenv: func(k string) string { return env[k] }}, args)
	return o.String(), e.String(), status, st
}

func TestBuiltins(t *testing.T) {
	call := &engine.Call{Tool: "t", Args: json.RawMessage(`{"n":"12","flag":1,"user":{"name":"Ada"},"big":12345678901234567890}`),
		Meta: json.RawMessage(`{"progressToken":"x"}`), Roots: []engine.Root{{Path: "/r1"}, {Path: "/r2"}}}
	for _, tc := range []struct {
		args   []string
		out    string
		status int
		fail   string
		errOut string
	}{
		{args: []string{"mcp_args_get", ".user.name"}, out: "Ada\n"},
		{args: []string{"mcp_args_get", ".big"}, out: "12345678901234567000\n"},
		{args: []string{"mcp_args_int", ".n", "--min", "1"}, out: "12\n"},
		{args: []string{"mcp_args_int", ".n", "--max", "5"}, status: 1, fail: ".n must be <= 5"},
		{args: []string{"mcp_args_bool", ".flag"}, out: "true\n"},
		{args: []string{"mcp_args_require", ".none", "custom"}, status: 1, fail: "custom"},
		{args: []string{"mcp_json_obj", "k"}, status: 1},
		{args: []string{"mcp_json_arr"}, out: "[]\n"},
		{args: []string{"mcp_byte_length", "ü"}, out: "2\n"},
		{args: []string{"mcp_json_truncate", `{"items":[1,2,3,4,5,6]}`, "20", "--array-path", ".items"}, out: `{"result":{"items":[1,2,3,4]},"truncated":true,"kept":4,"total":6}` + "\n"},
		{args: []string{"mcp_json_truncate", `{"a":"xxxxxxxxxxxxxxxxxxxx"}`, "5"}, out: `{"result":null,"truncated":true,"error":"no array at . to truncate"}` + "\n"},
		{args: []string{"mcp_roots_count"}, out: "2\n"},
		{args: []string{"mcp_roots_contains", "/r2/x"}},
		{args: []string{"mcp_roots_contains", "/r22"}, status: 1},
		{args: []string{"mcp_extract_cli_error", `{"ok":false,"message":"m"}`, "", "2"}, out: "m\n"},
		{args: []string{"mcp_fail", "-32000"}, status: 1, fail: "Tool failed"},
		{args: []string{"no_such"}, status: 127},
		// error(v) of a value not a string: built by the call's printer, not gojq's Error().
		{args: []string{"mcp_args_get", `{"b":1,"a":[2]} | error`}, status: 5, errOut: "jq: error: error: {\"b\":1,\"a\":[2]}\n"},
		{args: []string{"mcp_args_get", `"plain" | error`}, status: 5, errOut: "jq: error: error: plain\n"},
		{args: []string{"mcp_args_get", `[1] | halt_error`}, status: 5, errOut: "jq: error: halt error: [1]\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, status, st := runSDK(t, call, nil, tc.args...)
			if status != tc.status || (tc.out != "" && out != tc.out) {
				t.Errorf("status %d out %q; want %d %q", status, out, tc.status, tc.out)
			}
			if tc.errOut != "" && errOut != tc.errOut {
				t.Errorf("stderr %q, want %q", errOut, tc.errOut)
			}
			if tc.fail != "" && (st.Failure() == nil || st.Failure().Message != tc.fail) {
				t.Errorf("failure %+v, want %q", st.Failure(), tc.fail)
			}
		})
	}
}

func TestConfigPrecedence(t *testing.T) {
	work := t.TempDir()
	for name, data := range map[string]string{"file.json": `{"b":"file","c":"file"}`, "example.json": `{"a":"example","b":"example","c":"example"}`} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys, err := sandbox.NewFS(sandbox.Policy{Roots: []sandbox.Root{{Path: work, Mode: sandbox.ReadOnly}}}, sandbox.Scratch{}, &sandbox.Record{})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	st := NewState(&engine.Call{}, nil)
	var o, e bytes.Buffer
	env := map[string]string{"CFG": `{"c":"env"}`}
	st.Run(context.Background(), &engine.Env{Stdout: &o, Stderr: &e, Dir: work, FS: fsys, Getenv: func(k string) string { return env[k] }}, []string{"mcp_config_load", "--defaults", `{"a":"d","z":"d"}`, "--example", "example.json", "--file", "file.json", "--env", "CFG"})
	if got := o.String(); got != `{"a":"example","b":"file","c":"env","z":"d"}`+"\n" {
		t.Errorf("merged %s (stderr %s)", got, e.String())
	}
}

func TestProgressAndLogs(t *testing.T) {
	sink := &recSink{}
	call := &engine.Call{Tool: "t", ProgressToken: json.RawMessage(`"tok"`), Sink: sink}
	for _, args := range [][]string{
		{"mcp_progress", "42.7", "working"}, {"mcp_progress", "250", "clamped"}, {"mcp_progress", "-3", "negative"},
		{"mcp_log", "WARN", "lg", `{"k":1}`}, {"mcp_log", "bogus", "lg", "text"}, {"mcp_log_error", "lg", "a", "b"},
	} {
		runSDK(t, call, nil, args...)
	}
	want := []string{"progress 42 working", "progress 100 clamped", "progress 0 negative",
		`log warning lg {"k":1}`, `log info lg "text"`, `log error lg "a b"`}
	if strings.Join(sink.events, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s", strings.Join(sink.events, "\n"))
	}
	// Without a token progress is a no-op.
	sink2 := &recSink{}
	runSDK(t, &engine.Call{Sink: sink2}, nil, "mcp_progress", "10", "x")
	if len(sink2.events) != 0 {
		t.Errorf("progress without token: %v", sink2.events)
	}
}

func TestJQCannotReadServerEnvironment(t *testing.T) {
	t.Setenv("MCPBASH_SDK_CANARY", "host-secret")
	st := NewState(&engine.Call{Args: json.RawMessage(`{}`)}, nil)
	var o bytes.Buffer
	st.Run(context.Background(), &engine.Env{Stdout: &o, Stderr: &o, Environ: func() []string { return []string{"VISIBLE=1"} }},
		[]string{"mcp_args_get", `[$ENV.MCPBASH_SDK_CANARY, env.VISIBLE]`})
	if strings.Contains(o.String(), "host-secret") || !strings.Contains(o.String(), `"1"`) {
		t.Errorf("jq env: %s", o.String())
	}
}

func TestPreludeDefinesOnlyShellFunctions(t *testing.T) {
	for _, fn := range []string{"mcp_config_load()", "mcp_with_retry()"} {
		if !strings.Contains(Prelude, fn) {
			t.Errorf("prelude lacks %s", fn)
		}
	}
	if !Has("mcp_args_get") || Has("__backoff_sleep") || !Exits("mcp_fail") || Exits("mcp_args_get") {
		t.Error("Has/Exits tables wrong")
	}
}

// Compiled filters are reused across runs, except those that read the environment: gojq
// resolves $ENV at compile time, so each run must see its own script's variables.
func TestFilterCacheKeepsEnvPerRun(t *testing.T) {
	var fc FilterCache
	for _, want := range []string{"one", "two"} {
		out, err := fc.run(context.Background(), `$ENV.X`, nil, func() []string { return []string{"X=" + want} }, &jqorder.Printer{}, nil)
		if err != nil || len(out) != 1 || out[0] != want {
			t.Fatalf("$ENV.X = %v %v, want %s", out, err, want)
		}
		out, err = fc.run(context.Background(), `env.X`, nil, func() []string { return []string{"X=" + want} }, &jqorder.Printer{}, nil)
		if err != nil || len(out) != 1 || out[0] != want {
			t.Fatalf("env.X = %v %v, want %s", out, err, want)
		}
	}
	if len(fc.m) != 0 {
		t.Errorf("environment-reading filters cached: %v", fc.m)
	}
	for _, in := range []string{"Ada", "Bob"} {
		out, err := fc.run(context.Background(), `.name + ""`, map[string]any{"name": in}, nil, &jqorder.Printer{}, nil) // jq's: not a pathFilter
		if err != nil || len(out) != 1 || out[0] != in {
			t.Fatalf("got %v %v, want %s", out, err, in)
		}
	}
	if len(fc.m) != 1 {
		t.Errorf("filter not cached: %v", fc.m)
	}
	if _, err := fc.run(context.Background(), `.[`, nil, nil, &jqorder.Printer{}, nil); err == nil {
		t.Error("broken filter compiled")
	}
}

// TestFilterBounds (issue 27): the SDK's jq helpers run a script's filter over a client's
// values, so they are bounded as the jq utility is: the filter's text before it is parsed, the
// walks of deep values and long paths, and the run by the call's context.
func TestFilterBounds(t *testing.T) {
	var fc FilterCache
	deep := `reduce range(20000) as $i (0; [.])`
	for _, c := range []struct{ filter, want string }{
		{deep + ` | . == .`, "deeper than 10000"},
		{deep + ` | tojson | length`, ""}, // printed as jq prints it: stripped past depth 256
		{`null | setpath([range(20000) | 0]; 1)`, "longer than 10000"},
		{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), "longer than 16384 tokens"},
	} {
		_, err := fc.run(context.Background(), c.filter, nil, nil, &jqorder.Printer{}, nil)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%.50s...: %v, want %q", c.filter, err, c.want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := fc.run(ctx, `last(range(1e18))`, nil, nil, &jqorder.Printer{}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("an endless filter ended with %v, want the call's end", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("an endless filter did not end with its call")
	}
	// A loop of regular expression searches that each read to the end of the string (minutes
	// of gojq's own matching) ends with the call too, kept compiled or not.
	for range 2 {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			_, err := fc.run(ctx, `.s | [match("(a.*z)*a"; "g")] | length`, map[string]any{"s": strings.Repeat("a", 300000)}, nil, &jqorder.Printer{}, nil)
			done <- err
		}()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("a quadratic regular expression loop ended with %v, want the call's end", err)
			}
		case <-time.After(time.Minute):
			t.Fatal("a quadratic regular expression loop did not end with its call")
		}
	}
}

// TestFilterAsksTheCallsRoom (issue 27): a filter that builds a value in one step (a repeated
// string, a doubling sum, an add of one string many times) asks the call's budget first and
// fails with the budget's error, which ends the call, before it allocates; a kept filter asks
// the budget of the run that uses it, not of the first.
func TestFilterAsksTheCallsRoom(t *testing.T) {
	var fc FilterCache
	for _, filter := range []string{
		`"x" * 1e9 | length`,
		`reduce range(40) as $i ("x"; . + .) | length`,
		`"x" | until(length > 1e9; . + .) | length`,
		`{s: "x"} | until(.s | length > 1e9; .s += .s) | .s | length`,
		`("x" * 1000000) as $s | [range(100) | $s] | add | length`,
		`("x" * 1000000) as $s | [range(100) | $s] | tojson | length`,
		`("x" * 1000000) as $s | [range(100) | $s] | "\(.)" | length`,
		`[range(100000)] | join("y" * 1000) | length`,
		`"a" * 1000000 | [match("a"; "g")] | length`,
	} {
		exceeded := 0
		small := sandbox.NewBudget(32<<20, func() { exceeded++ })
		_, err := fc.run(context.Background(), filter, nil, nil, &jqorder.Printer{}, filterRoom(small))
		if !errors.Is(err, sandbox.ErrMemoryBudget) || exceeded != 1 {
			t.Errorf("%s: %v (exceeded %d times), want the budget's error", filter, err, exceeded)
		}
	}
	const doubling = `reduce range(21) as $i ("x"; . + .) | length` // 2 MiB
	large := sandbox.NewBudget(64<<20, nil)
	if out, err := fc.run(context.Background(), doubling, nil, nil, &jqorder.Printer{}, filterRoom(large)); err != nil || len(out) != 1 || out[0] != 1<<21 {
		t.Fatalf("%s: %v, %v", doubling, out, err)
	}
	small := sandbox.NewBudget(1<<20, nil)
	if _, err := fc.run(context.Background(), doubling, nil, nil, &jqorder.Printer{}, filterRoom(small)); !errors.Is(err, sandbox.ErrMemoryBudget) {
		t.Errorf("%s run again on a smaller budget: %v, want the budget's error", doubling, err)
	}
}

// TestJSONFits: a candidate is measured before it is printed, so one that holds an array in
// 2^40 places is "too large" at once; the measure's over-count of numbers never turns away one
// that fits.
func TestJSONFits(t *testing.T) {
	for _, c := range []struct {
		v    any
		max  int
		want bool
	}{
		{[]any{1.5, 2.25, 3.125}, 16, true}, {[]any{1.5, 2.25, 3.125}, 15, false}, {[]any{}, 2, true},
		{[]any{0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, 17, true}, {"abc", 4, false}, {"abc", 5, true},
	} {
		if got, err := jsonFits(context.Background(), c.v, c.max); got != c.want || err != nil {
			t.Errorf("%v in %d: %v %v", c.v, c.max, got, err)
		}
	}
	var shared any = []any{0}
	for range 40 {
		shared = []any{shared, shared}
	}
	if fits, err := jsonFits(context.Background(), shared, 1000); fits || err != nil {
		t.Errorf("a shared value fits: %v %v", fits, err)
	}
}
