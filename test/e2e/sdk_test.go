package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/sdk"
	"github.com/mcp-bash/mcp-bash/test/harness"
)

// sdkCase runs a snippet with arguments and _meta and compares the whole response (result or
// error object) with the original's documented output. Wildcards ("<any>") mark volatile parts.
type sdkCase struct {
	name   string
	script string
	args   map[string]any
	meta   map[string]any
	want   string // expected "result" or "error" member, as JSON
}

func runSDKCases(t *testing.T, c *harness.Client, cases []sdkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"script": tc.script}
			for k, v := range tc.args {
				args[k] = v
			}
			params := map[string]any{"name": "sh", "arguments": args}
			if tc.meta != nil {
				params["_meta"] = tc.meta
			}
			m := c.Call("tools/call", params)
			var got []byte
			if m.Error != nil {
				e := map[string]any{"code": m.Error.Code, "message": m.Error.Message}
				if len(m.Error.Data) > 0 {
					e["data"] = m.Error.Data
				}
				b, _ := json.Marshal(map[string]any{"error": e})
				got = b
			} else {
				b, _ := json.Marshal(map[string]json.RawMessage{"result": m.Result})
				got = b
			}
			if d := harness.CompareLines([]string{tc.want}, [][]byte{got}); d != "" {
				t.Errorf("%s\n got %s\nwant %s", d, got, tc.want)
			}
		})
	}
}

// textResult is the shape of a plain-text (non-JSON) tool result.
func textResult(text string) string {
	b, _ := json.Marshal(text)
	return `{"result":{"name":"sh","content":[{"type":"text","text":` + string(b) + `}],"isError":false,"_meta":{"exitCode":0}}}`
}

// uiPage is a page of mcp_ui_form or mcp_ui_table from testdata, without its final newline.
func uiPage(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// templatePage is the page sdk.RenderUITemplate builds in this process (gojq), which each
// engine's mcp_ui_template_* must print byte for byte.
func templatePage(t *testing.T, name, config string) string {
	t.Helper()
	page, err := sdk.RenderUITemplate(context.Background(), name, json.RawMessage(config))
	if err != nil {
		t.Fatal(err)
	}
	return page
}

func jsonResult(text string) string {
	b, _ := json.Marshal(text)
	return `{"result":{"name":"sh","content":[{"type":"text","text":` + string(b) + `}],"isError":false,"_meta":{"exitCode":0},"structuredContent":` + text + `}}`
}

// TestSDKFunctions runs one table of SDK cases under both engines: the Go builtins of the sandbox
// and sdk/bash/tool-sdk.sh under real bash (native) must give identical wire results.
func TestSDKFunctions(t *testing.T) {
	for _, engine := range []string{"sandbox", "native"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			p := newSecProject(t, map[string]string{"data/cfg.json": `{"b":"file","c":"file"}`})
			c := p.start(t, "MCPBASH_ROOTS=data:.", "MCPBASH_EXEC="+engine, "MCPBASH_TOOL_ERRORS=jsonrpc")
			runSDKCases(t, c, sdkCases(t))
		})
	}
}

func sdkCases(t *testing.T) []sdkCase {
	return []sdkCase{
		{name: "sourcing sets -euo pipefail", script: `source "${MCP_SDK}/tool-sdk.sh"; echo "$-" | grep -q e && echo e; set -o | grep -q 'pipefail.*on' && echo pipefail; echo "${undefined_var_x}"; echo not-reached`,
			want: `{"error":{"code":-32603,"message":"Tool failed","data":"<any>"}}`},
		{name: "mcp_json_escape", script: `mcp_json_escape 'a "quoted"\ value'`, want: textResult(`"a \"quoted\"\\ value"`)},
		{name: "mcp_json_obj", script: `mcp_json_obj name Ada lang "Go 1"`, want: jsonResult(`{"name":"Ada","lang":"Go 1"}`)},
		{name: "mcp_json_obj odd args exit 1", script: `mcp_json_obj a; echo not-reached`,
			want: `{"error":{"code":-32603,"message":"mcp_json_obj: expected key/value pairs","data":"<any>"}}`},
		{name: "mcp_json_arr", script: `mcp_json_arr a "b c"`, want: textResult(`["a","b c"]`)},
		{name: "mcp_is_valid_json", script: `mcp_is_valid_json '{"a":1}' && echo one; mcp_is_valid_json '{' || echo bad; mcp_is_valid_json '1 2' || echo two`, want: textResult("one\nbad\ntwo")},
		{name: "mcp_byte_length", script: `mcp_byte_length 'héllo'`, want: textResult("6")},
		{name: "mcp_json_truncate", script: `mcp_json_truncate '[1,2,3,4,5,6,7,8,9,10]' 10`, want: jsonResult(`{"result":[1,2,3,4],"truncated":true,"kept":4,"total":10}`)},
		{name: "mcp_json_truncate fits", script: `mcp_json_truncate '{"items":[1,2]}' 100`, want: jsonResult(`{"result":{"items":[1,2]},"truncated":false}`)},
		{name: "mcp_args_raw", script: `mcp_args_raw`, args: map[string]any{"x": 1}, want: jsonResult(`{"script":"mcp_args_raw","x":1}`)},
		{name: "mcp_args_get", script: `mcp_args_get '.user.name'; mcp_args_get '.missing'; mcp_args_get '.tags[]'`,
			args: map[string]any{"user": map[string]any{"name": "Ada"}, "tags": []string{"a", "b"}}, want: textResult("Ada\nnull\na\nb")},
		{name: "mcp_args_get jq error", script: `mcp_args_get '.[' ; echo "rc=$?"`,
			want: `{"result":{"name":"sh","content":[{"type":"text","text":"rc=3"}],"isError":false,"_meta":{"exitCode":0,"stderr":"<any>"}}}`},
		{name: "mcp_args_require missing", script: `mcp_args_require '.name'; echo not-reached`,
			want: `{"error":{"code":-32602,"message":".name is required"}}`},
		{name: "mcp_args_require custom message", script: `mcp_args_require '.name' 'Give me a name'`,
			want: `{"error":{"code":-32602,"message":"Give me a name"}}`},
		{name: "mcp_args_require present", script: `mcp_args_require '.name'`, args: map[string]any{"name": "Ada"}, want: textResult("Ada")},
		{name: "mcp_args_bool", script: `mcp_args_bool '.a'; mcp_args_bool '.b'; mcp_args_bool '.c' --default true`,
			args: map[string]any{"a": true, "b": "no"}, want: textResult("true\nfalse\ntrue")},
		{name: "mcp_args_bool missing", script: `mcp_args_bool '.flag'`, want: `{"error":{"code":-32602,"message":".flag is required"}}`},
		{name: "mcp_args_int", script: `mcp_args_int '.n' --min 1 --max 10; mcp_args_int '.m' --default 7`, args: map[string]any{"n": 3}, want: textResult("3\n7")},
		{name: "mcp_args_int too big", script: `mcp_args_int '.n' --max 5`, args: map[string]any{"n": 9}, want: `{"error":{"code":-32602,"message":".n must be <= 5"}}`},
		{name: "mcp_args_int too small", script: `mcp_args_int '.n' --min 5`, args: map[string]any{"n": 2}, want: `{"error":{"code":-32602,"message":".n must be >= 5"}}`},
		{name: "mcp_args_int not integer", script: `mcp_args_int '.n'`, args: map[string]any{"n": "x1"}, want: `{"error":{"code":-32602,"message":".n must be an integer"}}`},
		{name: "mcp_meta_raw and get", script: `mcp_meta_raw; mcp_meta_get '.trace'`, meta: map[string]any{"trace": "t-1"}, want: textResult("{\"trace\":\"t-1\"}\nt-1")},
		{name: "mcp_is_cancelled", script: `mcp_is_cancelled && echo yes || echo no`, want: textResult("no")},
		{name: "mcp_emit_text", script: `mcp_emit_text 'plain text'`, want: textResult("plain text")},
		{name: "mcp_emit_json compacts", script: `mcp_emit_json '{ "a" : [1, 2] }'`, want: jsonResult(`{"a":[1,2]}`)},
		{name: "mcp_result_success", script: `mcp_result_success '{"message":"Hello from example tool"}'`,
			want: `{"result":{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"message\":\"Hello from example tool\"}}"}],"structuredContent":{"success":true,"result":{"message":"Hello from example tool"}},"isError":false,"name":"sh","_meta":{"exitCode":0}}}`},
		{name: "mcp_result_success summarised", script: `mcp_result_success '{"a":1,"b":2}' 10`,
			want: `{"result":{"content":[{"type":"text","text":"Success: object with 2 keys"}],"structuredContent":{"success":true,"result":{"a":1,"b":2}},"isError":false,"name":"sh","_meta":{"exitCode":0}}}`},
		{name: "mcp_result_error", script: `mcp_result_error '{"type":"validation_error","message":"Date must be in the future","field":"date"}'; echo diag line >&2`,
			want: `{"result":{"content":[{"type":"text","text":"Date must be in the future"}],"structuredContent":{"success":false,"error":{"type":"validation_error","message":"Date must be in the future","field":"date"}},"isError":true,"name":"sh","_meta":{"exitCode":0,"stderr":"diag line"}}}`},
		{name: "mcp_result_error defaults", script: `mcp_result_error '{}'`,
			want: `{"result":{"content":[{"type":"text","text":"Unknown error"}],"structuredContent":{"success":false,"error":{"type":"internal_error","message":"Unknown error"}},"isError":true,"name":"sh","_meta":{"exitCode":0}}}`},
		{name: "mcp_error", script: `mcp_error not_found 'No such user' --hint 'Check the id' --data '{"id":7}'`,
			want: `{"result":{"content":[{"type":"text","text":"No such user"}],"structuredContent":{"success":false,"error":{"type":"not_found","message":"No such user","hint":"Check the id","data":{"id":7}}},"isError":true,"name":"sh","_meta":{"exitCode":0}}}`},
		{name: "mcp_error invalid data", script: `mcp_error bad 'Bad' --data 'not json'`,
			want: `{"result":{"content":[{"type":"text","text":"Bad"}],"structuredContent":{"success":false,"error":{"type":"bad","message":"Bad","data":{"_invalid_json":"not json"}}},"isError":true,"name":"sh","_meta":{"exitCode":0}}}`},
		{name: "mcp_result_text_with_resource", script: `mcp_result_text_with_resource '{"ok":true}' --path data/inside.txt --mime text/plain`,
			want: `{"result":{"content":[{"type":"text","text":"{\"success\":true,\"result\":{\"ok\":true}}"},{"type":"resource","resource":{"uri":"<any>","mimeType":"text/plain","text":"inside\n"}}],"structuredContent":{"success":true,"result":{"ok":true}},"isError":false,"name":"sh","_meta":{"exitCode":0}}}`},
		{name: "mcp_fail", script: `mcp_fail -32050 'Custom failure' '{"detail":1}'; echo not-reached`,
			want: `{"error":{"code":-32050,"message":"Custom failure","data":{"detail":1}}}`},
		{name: "mcp_fail in substitution still wins", script: `x=$(mcp_fail -32051 'From subshell'); echo "continued"`,
			want: `{"error":{"code":-32051,"message":"From subshell"}}`},
		{name: "mcp_fail bad code and empty message", script: `mcp_fail abc`, want: `{"error":{"code":-32603,"message":"Tool failed"}}`},
		{name: "mcp_fail_invalid_args", script: `mcp_fail_invalid_args`, want: `{"error":{"code":-32602,"message":"Invalid params"}}`},
		{name: "mcp_extract_cli_error", script: `mcp_extract_cli_error '{"error":{"message":"boom"}}' '' 1; mcp_extract_cli_error '{"success":false,"message":"nope"}' '' 1; mcp_extract_cli_error '{"errors":[{"message":"first"}]}' '' 1; mcp_extract_cli_error 'x' 'stderr text' 1; mcp_extract_cli_error '' '' 3`,
			want: textResult("boom\nnope\nfirst\nstderr text\nCLI exited with code 3")},
		{name: "mcp_roots", script: `mcp_roots_count; for r in $(mcp_roots_list); do [ "$r" = "$PWD" ] && echo root; [ "$r" = "$PWD/data" ] && echo data; done; mcp_roots_contains data/inside.txt && echo in; mcp_roots_contains /etc/passwd || echo out`,
			want: textResult("2\ndata\nroot\nin\nout")},
		{name: "mcp_require_path outside", script: `mcp_require_path '.p'`, args: map[string]any{"p": "/etc"},
			want: `{"error":{"code":-32602,"message":".p is outside configured MCP roots"}}`},
		{name: "mcp_require_path missing with several roots", script: `mcp_require_path '.p' --default-to-single-root`,
			want: `{"error":{"code":-32602,"message":".p is required when zero or multiple roots are configured"}}`},
		{name: "mcp_require_path inside", script: `p=$(mcp_require_path '.p'); [ "$p" = "$PWD/data/inside.txt" ] && echo ok`, args: map[string]any{"p": "data/inside.txt"},
			want: textResult("ok")},
		{name: "mcp_path_normalize", script: `mcp_path_normalize --logical /a/b/../c/./d; mcp_path_collapse 'x//y/../z'`, want: textResult("/a/c/d\nx/z")},
		{name: "mcp_config_load and get", script: `export CFG='{"c":"env"}'; mcp_config_load --defaults '{"a":"default","b":"default"}' --file data/cfg.json --env CFG; mcp_config_get .a; mcp_config_get .b; mcp_config_get .c; mcp_config_get .d --default dflt`,
			want: textResult("default\nfile\nenv\ndflt")},
		{name: "mcp_with_retry", script: `n=0; f(){ n=$((n+1)); [ $n -ge 3 ]; }; mcp_with_retry 5 0 -- f; echo "rc=$? n=$n"; g(){ return 3; }; mcp_with_retry 2 0 -- g; echo "rc=$?"`,
			want: textResult("rc=1 n=1\nrc=3")},
		{name: "mcp_log and mcp_debug are silent on stdout", script: `mcp_log info t '{"a":1}'; mcp_log_warn t msg; MCPBASH_DEBUG_LOG=data/debug.log mcp_debug hello; l=$(<data/debug.log); echo "${l#\[*\] }"`,
			want: textResult("hello")},
		// The original's form and data-table pages (test/e2e/testdata, the same in every engine).
		{name: "mcp_ui_form and mcp_ui_table", script: `mcp_ui_form --title 'Log <Entry>' --field type:select:meeting,call --field first_name --skipped --field notes:textarea --submit-tool log-it; mcp_ui_table --title People --columns name,age; mcp_ui_form --title 2>/dev/null; echo "rc=$?"`,
			want: textResult(uiPage(t, "ui-form.html") + "\n" + uiPage(t, "ui-table.html") + "\nrc=2")},
		// The original's lib/ui-templates.sh functions: the same page from its config.
		{name: "mcp_ui_template_data_table", script: `mcp_ui_template_data_table '{"title":"People","columns":[{"key":"name","label":"name","sortable":true},{"key":"age","label":"age","sortable":true}]}'; mcp_ui_generate_from_template gantt '{}' 2>/dev/null; echo "rc=$?"`,
			want: textResult(uiPage(t, "ui-table.html") + "\nrc=1")},
		{name: "mcp_ui_template_progress, diff_viewer, tree_view and kanban", script: `mcp_ui_template_progress '{"title":"Build","cancelTool":"stop"}'; mcp_ui_template_diff_viewer '{"viewMode":"unified"}'; mcp_ui_template_tree_view '{"selectable":true}'; mcp_ui_template_kanban '{"onMoveTool":"mv"}'`,
			want: textResult(templatePage(t, "progress", `{"title":"Build","cancelTool":"stop"}`) + "\n" + templatePage(t, "diff-viewer", `{"viewMode":"unified"}`) + "\n" +
				templatePage(t, "tree-view", `{"selectable":true}`) + "\n" + templatePage(t, "kanban", `{"onMoveTool":"mv"}`))},
	}
}

// TestProgressAndLogsStreamLive: notifications arrive before the result, only with a token,
// strictly increasing.
func TestProgressAndLogsStreamLive(t *testing.T) {
	forEngines(t, testProgressAndLogsStreamLive)
}

// forEngines runs a test under the sandbox and the native engine.
func forEngines(t *testing.T, f func(t *testing.T, engine string)) {
	for _, engine := range []string{"sandbox", "native"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			f(t, engine)
		})
	}
}

func testProgressAndLogsStreamLive(t *testing.T, engine string) {
	p := newSecProject(t, nil)
	c := p.start(t, "MCPBASH_EXEC="+engine)
	c.Send(`{"jsonrpc":"2.0","id":"p1","method":"tools/call","params":{"name":"sh","arguments":{"script":"mcp_progress 10 first; mcp_progress 5 backwards; mcp_log_info demo 'working'; mcp_progress 150 'clamped' 200; sleep 0.2; echo done"},"_meta":{"progressToken":"tok-1"}}}`)
	c.Response(`"p1"`)
	var order []string
	for _, l := range c.Lines() {
		m := harness.ParseMsg(l)
		switch {
		case m.Method == "notifications/progress":
			var pp struct {
				ProgressToken string
				Progress      float64
				Total         *float64
				Message       string
			}
			json.Unmarshal(m.Params, &pp)
			if pp.ProgressToken != "tok-1" {
				t.Errorf("token %q", pp.ProgressToken)
			}
			order = append(order, "progress:"+pp.Message)
		case m.Method == "notifications/message":
			order = append(order, "log")
		case string(m.ID) == `"p1"`:
			order = append(order, "result")
		}
	}
	want := "progress:first,log,progress:clamped,result"
	if engine == "native" {
		// Native tools write progress and logs to two files (the original's contract), so
		// only the order within each stream, and everything before the result, is kept.
		var prog, rest []string
		for _, o := range order {
			if strings.HasPrefix(o, "progress:") {
				prog = append(prog, o)
			} else {
				rest = append(rest, o)
			}
		}
		order = append(prog, rest...)
		want = "progress:first,progress:clamped,log,result"
	}
	if got := strings.Join(order, ","); got != want {
		t.Errorf("order %s", got)
	}
	// Without a token no progress is sent.
	r := c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "mcp_progress 50 x; echo ok"}})
	for _, l := range c.Lines() {
		if strings.Contains(string(l), "notifications/progress") && strings.Contains(string(l), `"x"`) {
			t.Errorf("progress without token: %s", l)
		}
	}
	_ = r
}

// TestCancellation: notifications/cancelled stops the run and suppresses the response.
func TestCancellation(t *testing.T) { forEngines(t, testCancellation) }

func testCancellation(t *testing.T, engine string) {
	p := newSecProject(t, nil)
	c := p.start(t, "MCPBASH_EXEC="+engine)
	// The sleeps outlast the harness's backstop: the server's exit below, and a background
	// child's end, can only come from the cancellation.
	script := "mcp_progress 1 started; sleep 100000; echo data/late > data/late.txt"
	marker := ""
	if engine == "native" {
		// A background child of the tool must end with it (no orphans).
		marker = fmt.Sprintf("%d.%03d", 100000+time.Now().Nanosecond()%50, time.Now().Nanosecond()%1000)
		script = "sleep " + marker + " & " + script
	}
	c.Send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"sh","arguments":{"script":%q},"_meta":{"progressToken":1}}}`, script))
	c.WaitFor(5*time.Second, "progress", func(m harness.Msg) bool { return m.Method == "notifications/progress" })
	c.Send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"test"}}`)
	c.Call("ping", nil)
	r := c.Call("tools/call", map[string]any{"name": "sh", "arguments": map[string]any{"script": "echo next"}})
	if text(r) != "next" {
		t.Errorf("next call: %s", r.Raw)
	}
	if marker != "" {
		// The group is killed as the call ends; the kernel may take a moment to remove it.
		pids := processesWith("sleep\x00" + marker)
		for end := time.Now().Add(harness.Backstop); len(pids) > 0 && time.Now().Before(end); pids = processesWith("sleep\x00" + marker) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(pids) > 0 {
			t.Errorf("background sleep %s survived the cancelled call: pids %v", marker, pids)
		}
	}
	// The server answers every request it read before exiting at end of input: it exits only
	// once the cancelled run has ended.
	c.CloseStdin()
	if err := c.Wait(harness.Backstop); err != nil {
		t.Errorf("server exit: %v", err)
	}
	for _, l := range c.Lines() {
		if strings.Contains(string(l), `"id":"slow"`) {
			t.Errorf("cancelled request answered: %s", l)
		}
	}
}

// mcp_run_with_progress turns a command's stderr into live progress.
func TestRunWithProgress(t *testing.T) { forEngines(t, testRunWithProgress) }

func testRunWithProgress(t *testing.T, engine string) {
	p := newSecProject(t, map[string]string{"data/work.sh": "#!/usr/bin/env bash\necho 'step 1/4' >&2\necho 'step 2/4' >&2\necho noise >&2\necho 'step 4/4' >&2\necho finished\n"})
	c := p.start(t, "MCPBASH_EXEC="+engine)
	c.Send(`{"jsonrpc":"2.0","id":"rp","method":"tools/call","params":{"name":"sh","arguments":{"script":"mcp_run_with_progress --pattern 'step ([0-9]+)/([0-9]+)' --extract ratio -- ./data/work.sh; echo rc=$?"},"_meta":{"progressToken":"t"}}}`)
	r := c.Response(`"rp"`)
	if out := text(r); !strings.HasPrefix(out, "finished\nrc=0") {
		t.Errorf("result %q", out)
	}
	var got []string
	for _, l := range c.Lines() {
		m := harness.ParseMsg(l)
		if m.Method == "notifications/progress" {
			var pp struct{ Progress float64 }
			json.Unmarshal(m.Params, &pp)
			got = append(got, fmt.Sprint(pp.Progress))
		}
	}
	if strings.Join(got, ",") != "25,50,100" {
		t.Errorf("progress %v", got)
	}
}

// processesWith lists the pids whose command line contains needle (NUL-separated argv).
func processesWith(needle string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), needle) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestSDKUIHelpers: the original's MCP Apps helpers give the same results in both engines, for
// a client that offered the UI extension and for one that did not; the template-built pages
// refuse, naming the fix.
func TestSDKUIHelpers(t *testing.T) {
	ext := map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}}
	// A 2025-06-18 client that offers the extension is not told the server has it (that
	// revision has no extensions), so its tools do not offer pages.
	t.Run("2025-06-18", func(t *testing.T) {
		t.Parallel()
		p := newSecProject(t, nil)
		c := harness.Start(t, harness.Options{Dir: p.root, Env: []string{"MCPBASH_DEFAULT_TOOL_TIMEOUT=120"}})
		init := c.Initialize("2025-06-18", ext)
		if strings.Contains(string(init.Raw), "io.modelcontextprotocol/ui") {
			t.Errorf("extension echoed on 2025-06-18: %s", init.Raw)
		}
		runSDKCases(t, c, []sdkCase{{name: "mcp_client_supports_ui", script: `mcp_client_supports_ui && echo yes || echo no`, want: textResult("no")}})
	})
	// The sandbox in both isolation modes (a worker process gets the flag over its wire).
	for _, engine := range []string{"sandbox", "sandbox-process", "native"} {
		for _, withUI := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/ui=%v", engine, withUI), func(t *testing.T) {
				t.Parallel()
				p := newSecProject(t, nil)
				env := []string{"MCPBASH_EXEC=" + strings.TrimSuffix(engine, "-process"), "MCPBASH_TOOL_ERRORS=jsonrpc", "MCPBASH_DEFAULT_TOOL_TIMEOUT=120"}
				if engine == "sandbox-process" {
					env = append(env, "MCPBASH_ISOLATION=process")
				}
				c := harness.Start(t, harness.Options{Dir: p.root, Env: env})
				caps := map[string]any(nil)
				if withUI {
					caps = ext
				}
				c.Initialize("2025-11-25", caps)
				supports, rich := textResult("no"), textResult("Dashboard ready")
				if withUI {
					supports = textResult("yes")
					rich = `{"result":{"name":"sh","content":[{"type":"text","text":"Dashboard ready"}],"structuredContent":{"items":42},"isError":false,"_meta":{"exitCode":0,"sessionId":"s1"}}}`
				}
				runSDKCases(t, c, []sdkCase{
					{name: "mcp_client_supports_ui", script: `mcp_client_supports_ui && echo yes || echo no`, want: supports},
					{name: "mcp_result_with_ui", script: `mcp_result_with_ui "" "Dashboard ready" '{"items":42}' '{"sessionId":"s1"}'`, want: rich},
					{name: "mcp_result_with_ui_data", script: `mcp_result_with_ui_data "" "Dashboard ready" '{"items":42}' '{"sessionId":"s1"}'`, want: rich},
					{name: "mcp_tool_meta_with_ui", script: `mcp_tool_meta_with_ui ui://sec/dash; mcp_tool_meta_with_ui ui://sec/x 'app, model'`,
						want: textResult("{\n  \"ui\": {\n    \"resourceUri\": \"ui://sec/dash\",\n    \"visibility\": [\n      \"model\",\n      \"app\"\n    ]\n  }\n}\n{\n  \"ui\": {\n    \"resourceUri\": \"ui://sec/x\",\n    \"visibility\": [\n      \"app\",\n      \"model\"\n    ]\n  }\n}")},
					{name: "mcp_ui_table", script: `mcp_ui_table --title People --columns name,age`, want: textResult(uiPage(t, "ui-table.html"))},
				})
			})
		}
	}
}
