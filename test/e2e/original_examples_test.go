package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The original framework's examples 00-15, by shape: each project below is our own rewrite of
// one of them (same layout, names, metadata fields and SDK calls; our own words), run
// unchanged the way the original's examples suite runs them (a copy in a temporary project
// root, a client that names no clientInfo). Each check is what the original shows for that
// example; where we differ by design (14 and 15 ask the sandbox for the host), the check is
// the loud failure with its fix, and docs/COMPATIBILITY.md says why.

const shapeSDK = "#!/usr/bin/env bash\nset -euo pipefail\nsource \"${MCP_SDK:?MCP_SDK is not set}/tool-sdk.sh\"\n"

const shapeOut = `"outputSchema":{"type":"object","required":["success","result"],"properties":{"success":{"type":"boolean"},"result":{"type":"object"}}}`

var originalExampleShapes = []struct {
	id    string
	files map[string]string
	check func(t *testing.T, c *harness.Client, root string)
}{
	{"00-hello-tool", map[string]string{
		"server.d/server.meta.json":  `{"name":"shape-00","title":"Hello shape","version":"1.0.0"}`,
		"tools/hello/tool.meta.json": `{"name":"shape-hello","description":"Answers with a greeting","inputSchema":{"type":"object","properties":{}},` + shapeOut + `}`,
		"tools/hello/tool.sh":        shapeSDK + `mcp_result_success "$(mcp_json_obj message "Greetings from the hello shape")"` + "\n",
	}, func(t *testing.T, c *harness.Client, _ string) {
		wantTool(t, c, "shape-hello")
		r := callShape(t, c, "shape-hello", nil)
		wantStructured(t, r, `{"success":true,"result":{"message":"Greetings from the hello shape"}}`)
	}},
	{"01-args-and-validation", map[string]string{
		"tools/echo/tool.meta.json": `{"name":"shape-echo","description":"Repeats a value","inputSchema":{"type":"object","properties":{"value":{"type":"string"}},"required":["value"]},` + shapeOut + `}`,
		"tools/echo/tool.sh":        shapeSDK + "value=\"$(mcp_args_require '.value')\"\nmcp_result_success \"$(mcp_json_obj message \"Received: ${value}\")\"\n",
	}, func(t *testing.T, c *harness.Client, _ string) {
		wantStructured(t, callShape(t, c, "shape-echo", map[string]any{"value": "x"}), `{"success":true,"result":{"message":"Received: x"}}`)
		if r := callShape(t, c, "shape-echo", map[string]any{}); r.IsError != true || !strings.Contains(r.text(), "value") {
			t.Errorf("missing argument: %+v", r)
		}
	}},
	{"02-logging-and-levels", map[string]string{
		"tools/logger/tool.meta.json": `{"name":"shape-logger","description":"Logs, then answers","inputSchema":{"type":"object","properties":{}},` + shapeOut + `,"timeoutSecs":5}`,
		"tools/logger/tool.sh":        shapeSDK + "mcp_log_info \"shape.logger\" \"starting the work\"\nmcp_result_success \"$(mcp_json_obj message \"Logged one line\")\"\n",
	}, func(t *testing.T, c *harness.Client, _ string) {
		wantStructured(t, callShape(t, c, "shape-logger", nil), `{"success":true,"result":{"message":"Logged one line"}}`)
		c.WaitFor(5*time.Second, "the log line", func(m harness.Msg) bool {
			return m.Method == "notifications/message" && strings.Contains(string(m.Params), `"logger":"shape.logger"`) && strings.Contains(string(m.Params), `"data":"starting the work"`)
		})
	}},
	{"03-progress-and-cancellation", map[string]string{
		"tools/slow/tool.meta.json": `{"name":"shape-slow","description":"Reports progress","inputSchema":{"type":"object","properties":{}},` + shapeOut + `,"timeoutSecs":10}`,
		"tools/slow/tool.sh": shapeSDK + "for pct in 10 50 90; do\n\tif mcp_is_cancelled; then mcp_fail -32001 \"Cancelled\"; fi\n\tmcp_progress \"${pct}\" \"At ${pct}%\"\n\tsleep 0.2\ndone\n" +
			"mcp_result_success \"$(mcp_json_obj message \"Done after three updates\")\"\n",
	}, func(t *testing.T, c *harness.Client, _ string) {
		m := c.Call("tools/call", map[string]any{"name": "shape-slow", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "p"}})
		wantStructured(t, decodeShape(t, m), `{"success":true,"result":{"message":"Done after three updates"}}`)
		var got []string
		for _, l := range c.Lines() {
			var n struct {
				Method string
				Params struct {
					Progress float64
					Message  string
				}
			}
			if json.Unmarshal(l, &n) == nil && n.Method == "notifications/progress" {
				got = append(got, n.Params.Message)
			}
		}
		if strings.Join(got, ",") != "At 10%,At 50%,At 90%" {
			t.Errorf("progress: %v", got)
		}
	}},
	{"04-roots-basics", map[string]string{
		"config/roots.json":         `{"roots":[{"path":"./data","name":"Shape data"}]}`,
		"data/sample.txt":           "Text of the roots shape",
		"tools/read/tool.meta.json": `{"name":"shape-roots-read","description":"Reads a file inside the roots","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},` + shapeOut + `}`,
		"tools/read/tool.sh": shapeSDK + "path=\"$(mcp_args_get '.path // empty')\"\n" +
			"if ! mcp_roots_contains \"${path}\"; then\n\tmcp_error \"permission_denied\" \"Outside the roots\" --hint \"Use a path inside the roots\"\n\texit 0\nfi\n" +
			"full=\"$(realpath -m \"${path}\")\"\n[[ -f \"${full}\" ]] || { mcp_error \"not_found\" \"No such file\"; exit 0; }\n" +
			"content=\"$(cat \"${full}\")\"\nmcp_result_success \"$(jq -n --arg path \"${full}\" --arg content \"${content}\" '{path:$path, content:$content}')\"\n",
	}, func(t *testing.T, c *harness.Client, root string) {
		// The original starts every tool in the project root: a relative path is the project's.
		r := callShape(t, c, "shape-roots-read", map[string]any{"path": "data/sample.txt"})
		wantStructured(t, r, `{"success":true,"result":{"path":"`+filepath.Join(root, "data", "sample.txt")+`","content":"Text of the roots shape"}}`)
		if r := callShape(t, c, "shape-roots-read", map[string]any{"path": "/etc/passwd"}); r.IsError != true || !strings.Contains(r.text(), "Outside the roots") {
			t.Errorf("outside the roots: %+v", r)
		}
	}},
	{"05-resources-basics", map[string]string{
		"server.d/server.meta.json":    `{"name":"shape-05"}`,
		"resources/greeting.txt":       "A greeting from the resources shape",
		"resources/greeting.meta.json": `{"name":"greeting","description":"Says hello","uri":"file://./resources/greeting.txt","mimeType":"text/plain"}`,
	}, func(t *testing.T, c *harness.Client, _ string) {
		var list struct{ Resources []map[string]any }
		c.Call("resources/list", nil).Decode(t, &list)
		if len(list.Resources) != 1 || list.Resources[0]["name"] != "greeting" {
			t.Fatalf("resources: %v", list.Resources)
		}
		m := c.Call("resources/read", map[string]any{"uri": list.Resources[0]["uri"]})
		if !strings.Contains(string(m.Raw), `"text":"A greeting from the resources shape"`) || !strings.Contains(string(m.Raw), `"mimeType":"text/plain"`) {
			t.Errorf("read: %s", m.Raw)
		}
	}},
	{"06-embedded-resources", map[string]string{
		"tools/embed/tool.meta.json": `{"name":"shape-embed","description":"Answers with an embedded file","inputSchema":{"type":"object","properties":{}},` + shapeOut + `}`,
		"tools/embed/tool.sh": shapeSDK + "report=\"${MCPBASH_PROJECT_ROOT}/resources/report.txt\"\nmkdir -p \"$(dirname \"${report}\")\"\nprintf 'Shape report body' >\"${report}\"\n" +
			"mcp_result_text_with_resource \"$(mcp_json_obj message \"The report is attached\")\" --path \"${report}\" --mime text/plain\n",
	}, func(t *testing.T, c *harness.Client, root string) {
		r := callShape(t, c, "shape-embed", nil)
		var res struct{ Resource map[string]any }
		for _, raw := range r.Content {
			var item struct{ Type string }
			if json.Unmarshal(raw, &item) == nil && item.Type == "resource" {
				_ = json.Unmarshal(raw, &res)
			}
		}
		if res.Resource["text"] != "Shape report body" || res.Resource["mimeType"] != "text/plain" {
			t.Errorf("embedded: %+v", r)
		}
		// It wrote into the project root, as under the original (the default root is read-write).
		if b, err := os.ReadFile(filepath.Join(root, "resources", "report.txt")); err != nil || string(b) != "Shape report body" {
			t.Errorf("report.txt: %q %v", b, err)
		}
	}},
	{"07-prompts-basics", map[string]string{
		"server.d/server.meta.json": `{"name":"shape-07"}`,
		"prompts/welcome.txt":       "Welcome, ${name}! This is the prompts shape.\n",
		"prompts/welcome.meta.json": `{"name":"welcome","description":"Greets someone","arguments":{"type":"object","properties":{"name":{"type":"string","description":"Who"}},"required":["name"]},"role":"user"}`,
	}, func(t *testing.T, c *harness.Client, _ string) {
		m := c.Call("prompts/get", map[string]any{"name": "welcome", "arguments": map[string]any{"name": "Ada"}})
		if !strings.Contains(string(m.Raw), `"text":"Welcome, Ada! This is the prompts shape."`) {
			t.Errorf("prompt: %s", m.Raw)
		}
	}},
	{"08-elicitation", map[string]string{
		"tools/ask/tool.meta.json": `{"name":"shape-elicit","description":"Asks before it acts","inputSchema":{"type":"object","properties":{}},` + shapeOut + `}`,
		"tools/ask/tool.sh": shapeSDK + "resp=\"$(mcp_elicit_confirm \"Go on with the shape?\")\" || true\naction=\"$(jq -r '.action' <<<\"${resp}\")\"\n" +
			"if [[ \"${action}\" != \"accept\" ]]; then\n\tmcp_result_success \"$(mcp_json_obj message \"Stopped: action=${action}\")\"\n\texit 0\nfi\nmcp_result_success \"$(mcp_json_obj message \"Went on\")\"\n",
	}, func(t *testing.T, c *harness.Client, _ string) {
		// A client without the elicitation capability: the tool is told no, and says so.
		wantStructured(t, callShape(t, c, "shape-elicit", nil), `{"success":true,"result":{"message":"Stopped: action=decline"}}`)
	}},
	{"09-registry-overrides", map[string]string{
		"server.d/register.json": `{"version":1,"tools":[{"name":"manual.progress","description":"A tool the registry names","path":"progress-demo.sh","timeoutSecs":8,"inputSchema":{"type":"object","properties":{}},` + shapeOut + `}],` +
			`"resources":[{"name":"echo.hello","description":"Served by a provider","path":"echo-placeholder.txt","uri":"echo://Hello-from-the-shape","mimeType":"text/plain","provider":"echo"}],` +
			`"prompts":[{"name":"manual.prompt","description":"A prompt the registry names","path":"manual.prompt.txt","arguments":{"type":"object","properties":{"topic":{"type":"string"}}}}]}`,
		"tools/progress-demo.sh":         shapeSDK + "for pct in 25 100; do mcp_progress \"${pct}\" \"step ${pct}\"; done\nmcp_result_success \"$(mcp_json_obj message \"Registry tool done\")\"\n",
		"resources/echo-placeholder.txt": "placeholder\n",
		"providers/echo.sh":              "#!/usr/bin/env bash\nprintf '%s' \"${1#echo://}\"\n",
		"prompts/manual.prompt.txt":      "Say how overrides work for ${topic}.\n",
	}, func(t *testing.T, c *harness.Client, _ string) {
		wantStructured(t, callShape(t, c, "manual.progress", nil), `{"success":true,"result":{"message":"Registry tool done"}}`)
		if m := c.Call("resources/read", map[string]any{"uri": "echo://Hello-from-the-shape"}); !strings.Contains(string(m.Raw), `"text":"Hello-from-the-shape"`) {
			t.Errorf("provider: %s", m.Raw)
		}
		if m := c.Call("prompts/get", map[string]any{"name": "manual.prompt", "arguments": map[string]any{"topic": "tests"}}); !strings.Contains(string(m.Raw), `"text":"Say how overrides work for tests."`) {
			t.Errorf("prompt: %s", m.Raw)
		}
	}},
	{"10-completions", map[string]string{
		"server.d/register.json":            `{"version":1,"completions":[{"name":"demo.completion","path":"completions/suggest.sh","timeoutSecs":5}]}`,
		"prompts/demo.completion.txt":       "Finish this: ${query}\n",
		"prompts/demo.completion.meta.json": `{"name":"demo.completion","description":"Has a completable argument","path":"demo.completion.txt","arguments":{"type":"object","properties":{"query":{"type":"string"}}}}`,
		"completions/suggest.sh": "#!/usr/bin/env bash\nset -euo pipefail\nargs=\"${MCP_COMPLETION_ARGS_JSON:-}\"\n[ -n \"$args\" ] || args='{}'\nq=\"$(jq -r '(.query // .prefix // \"\")' <<<\"$args\")\"\n" +
			"jq -n -c --arg q \"$q\" '[\"restart\",\"rebuild\",\"report\",\"deploy\"] | map(select(startswith($q))) | {suggestions: ., hasMore: false}'\n",
	}, func(t *testing.T, c *harness.Client, _ string) {
		m := c.Call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "demo.completion"}, "argument": map[string]any{"name": "query", "value": "re"}})
		var r struct{ Completion struct{ Values []string } }
		m.Decode(t, &r)
		if strings.Join(r.Completion.Values, ",") != "restart,rebuild,report" {
			t.Errorf("completion: %s", m.Raw)
		}
	}},
	{"11-resource-templates", map[string]string{
		"server.d/register.json":            `{"version":1,"resourceTemplates":[{"name":"project-files","uriTemplate":"file:///{+path}","description":"Any file under the roots","annotations":{"audience":["assistant"]}},{"name":"logs-by-date","title":"Logs by date","uriTemplate":"file:///var/log/{service}/{date}.log","description":"Log files by service and date"}]}`,
		"resources/repo-tree.meta.json":     `{"name":"repo-tree","title":"Repository tree","uriTemplate":"git+https://{repo}/{ref}/{+path}","description":"Files of a repository"}`,
		"resources/project-files.meta.json": `{"name":"project-files","title":"Project files","uriTemplate":"file:///{+path}","description":"Any file under the roots"}`,
	}, func(t *testing.T, c *harness.Client, _ string) {
		var r struct{ ResourceTemplates []map[string]any }
		c.Call("resources/templates/list", nil).Decode(t, &r)
		var names []string
		for _, x := range r.ResourceTemplates {
			names = append(names, x["name"].(string))
		}
		// register.json replaces discovery for templates, as in the original.
		if strings.Join(names, ",") != "project-files,logs-by-date" {
			t.Errorf("templates: %v", names)
		}
	}},
	{"12-config-and-downloads", map[string]string{
		"config.example.json":        `{"timeout":10,"max_bytes":65536,"allowed_hosts":["example.com"]}`,
		"tools/fetch/tool.meta.json": `{"name":"shape-fetch","description":"Fetches an HTTPS URL","inputSchema":{"type":"object","required":["url"],"properties":{"url":{"type":"string"}}},"outputSchema":{"type":"object","required":["success"],"properties":{"success":{"type":"boolean"}}}}`,
		"tools/fetch/tool.sh": shapeSDK + "mcp_config_load --env SHAPE_FETCH_CONFIG --file \"${MCPBASH_PROJECT_ROOT}/config.json\" --example \"${MCPBASH_PROJECT_ROOT}/config.example.json\" --defaults '{\"timeout\":30}'\n" +
			"timeout=$(mcp_config_get '.timeout' --default 30)\nurl=$(mcp_args_require '.url')\n" +
			"if [[ ! \"${url}\" =~ ^https:// ]]; then\n\tmcp_error \"validation_error\" \"Only HTTPS URLs (timeout ${timeout}s)\" --hint \"Start the URL with https://\"\n\texit 0\nfi\nmcp_result_success \"$(mcp_json_obj url \"${url}\")\"\n",
	}, func(t *testing.T, c *harness.Client, _ string) {
		// The example file is the configuration when config.json is missing (its timeout, 10).
		r := callShape(t, c, "shape-fetch", map[string]any{"url": "http://example.com"})
		if r.IsError != true || !strings.Contains(r.text(), "Only HTTPS URLs (timeout 10s)") {
			t.Errorf("validation: %+v", r)
		}
	}},
	{"13-ui-basics", map[string]string{
		"server.d/server.meta.json":            `{"name":"shape-ui","title":"UI shape","version":"1.0.0"}`,
		"tools/weather/tool.meta.json":         `{"name":"weather","description":"Weather with a card","inputSchema":{"type":"object","properties":{"location":{"type":"string"}}}}`,
		"tools/weather/tool.sh":                shapeSDK + "loc=\"$(mcp_args_get '.location // \"Paris\"')\"\nresult=$(mcp_json_obj location \"${loc}\" unit \"C\")\ncat <<EOT\n{\"content\":[{\"type\":\"text\",\"text\":$(jq -Rs . <<<\"${result}\")}],\"structuredContent\":${result},\"isError\":false}\nEOT\n",
		"tools/weather/ui/index.html":          "<html><body>weather card</body></html>",
		"tools/weather/ui/ui.meta.json":        `{"description":"A weather card","meta":{"csp":{"connectDomains":[],"resourceDomains":[]},"prefersBorder":true}}`,
		"ui/standalone-dashboard/index.html":   "<html><body>dashboard</body></html>",
		"ui/standalone-dashboard/ui.meta.json": `{"description":"A dashboard on its own","meta":{"prefersBorder":false}}`,
	}, func(t *testing.T, c *harness.Client, _ string) {
		var list struct{ Resources []map[string]any }
		c.Call("resources/list", nil).Decode(t, &list)
		var uis []string
		for _, r := range list.Resources {
			if u, _ := r["uri"].(string); strings.HasPrefix(u, "ui://") {
				uis = append(uis, u)
			}
		}
		if len(uis) != 2 {
			t.Fatalf("ui:// resources listed: %v", list.Resources)
		}
		var tools struct{ Tools []map[string]any }
		c.Call("tools/list", nil).Decode(t, &tools)
		meta, _ := tools.Tools[0]["_meta"].(map[string]any)
		ui, _ := meta["ui"].(map[string]any)
		if ui["resourceUri"] != "ui://shape-ui/weather" {
			t.Errorf("tool _meta.ui: %v", tools.Tools[0])
		}
		if m := c.Call("resources/read", map[string]any{"uri": "ui://shape-ui/weather"}); !strings.Contains(string(m.Raw), "weather card") {
			t.Errorf("read: %s", m.Raw)
		}
		wantStructured(t, callShape(t, c, "weather", map[string]any{"location": "Oslo"}), `{"location":"Oslo","unit":"C"}`)
	}},
	{"14-ui-templates", map[string]string{
		"server.d/server.meta.json":     `{"name":"shape-14"}`,
		"tools/sysinfo/tool.meta.json":  `{"name":"system-info","description":"Reports the host","inputSchema":{"type":"object","properties":{}}}`,
		"tools/sysinfo/ui/ui.meta.json": `{"title":"Host","description":"The host at a glance"}`,
		"tools/sysinfo/ui/index.html":   "<html>host</html>",
		"tools/sysinfo/tool.sh": shapeSDK + "load() { if command -v uptime >/dev/null 2>&1; then uptime | sed 's/.*load average[s]*: *//'; else echo N/A; fi; }\n" +
			"name() { hostname 2>/dev/null || echo unknown; }\n" +
			"os() { if [ -f /etc/os-release ]; then grep PRETTY_NAME /etc/os-release | cut -d'\"' -f2; else uname -s; fi; }\n" +
			"mcp_result_success \"$(mcp_json_obj hostname \"$(name)\" os \"$(os)\" load \"$(load)\")\"\n",
	}, func(t *testing.T, c *harness.Client, root string) {
		// The original reports the host. The sandbox hides it, so the call fails with the fix
		// instead of answering with the sandbox's made-up machine (issue 29).
		r := callShape(t, c, "system-info", nil)
		if r.IsError != true || !strings.Contains(r.text(), "hostname reporting the host") || !strings.Contains(r.text(), `"exec\": \"native`) ||
			strings.Contains(r.text(), "mcp-sandbox") {
			t.Errorf("system-info: %+v", r)
		}
		out, _, code := runCLI(t, root, []string{"MCPBASH_PROJECT_ROOT=" + root}, "validate")
		if code != 1 || !strings.Contains(out, "hostname answers the sandbox's virtual name") {
			t.Errorf("validate: exit %d\n%s", code, out)
		}
	}},
	{"15-cli-wrapper", map[string]string{
		"server.d/server.meta.json": `{"name":"shape-15"}`,
		"lib/cli-detect.sh": "#!/usr/bin/env bash\nmcp_detect_cli() {\n\tlocal name=\"$1\" var\n\tvar=\"$(printf '%s_CLI' \"$name\" | tr '[:lower:]-' '[:upper:]_')\"\n" +
			"\teval \"local override=\\\"\\${${var}:-}\\\"\"\n\t[[ -n \"$override\" ]] && { printf '%s\\n' \"$override\"; return 0; }\n" +
			"\tlocal c\n\tfor c in \"/usr/local/bin/${name}\" \"/usr/bin/${name}\" \"/bin/${name}\"; do [[ -x \"$c\" ]] && { printf '%s\\n' \"$c\"; return 0; }; done\n" +
			"\tprintf 'ERROR: %s not found; set %s\\n' \"$name\" \"$var\" >&2\n\treturn 1\n}\n",
		"tools/sys/tool.meta.json": `{"name":"system-info","description":"Wraps host commands","inputSchema":{"type":"object","required":["command"],"properties":{"command":{"type":"string","enum":["os","uptime"]}}}}`,
		"tools/sys/tool.sh": "#!/usr/bin/env bash\nset -uo pipefail\nsource \"${MCP_SDK:?MCP_SDK is not set}/tool-sdk.sh\"\ndir=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nsource \"${dir}/../../lib/cli-detect.sh\"\n" +
			"cmd=\"$(mcp_args_get '.command // empty')\"\ncase \"${cmd}\" in\n" +
			"os) U=$(mcp_detect_cli uname) || mcp_fail -32603 \"uname not found\"; out=$(\"${U}\" -a 2>&1); mcp_result_success \"$(mcp_json_obj os_info \"${out}\")\" ;;\n" +
			"uptime) U=$(mcp_detect_cli uptime) || mcp_fail -32603 \"uptime not found\"; out=$(\"${U}\" 2>&1); mcp_result_success \"$(mcp_json_obj uptime \"${out}\")\" ;;\nesac\n",
	}, func(t *testing.T, c *harness.Client, root string) {
		// validate accepts the library's function (issue 29: three errors before).
		out, _, code := runCLI(t, root, []string{"MCPBASH_PROJECT_ROOT=" + root}, "validate")
		if code != 0 || !strings.Contains(out, "0 error(s)") {
			t.Errorf("validate: exit %d\n%s", code, out)
		}
		// Host commands: a loud failure in the sandbox, never the sandbox's machine as the host.
		for _, cmd := range []string{"os", "uptime"} {
			if r := callShape(t, c, "system-info", map[string]any{"command": cmd}); r.IsError != true || strings.Contains(r.text(), "mcp-sandbox") {
				t.Errorf("%s: %+v", cmd, r)
			}
		}
	}},
}

// TestOriginalExampleShapes runs each shape of the original's examples 00-15 unchanged and
// checks what the original shows for it.
func TestOriginalExampleShapes(t *testing.T) {
	t.Parallel()
	for _, ex := range originalExampleShapes {
		t.Run(ex.id, func(t *testing.T) {
			t.Parallel()
			root := writeProject(t, ex.files)
			// As the original's examples/run stages them: tools/, resources/, prompts/ and
			// server.d/ always exist.
			for _, d := range []string{"tools", "resources", "prompts", "server.d"} {
				if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			c := harness.Start(t, harness.Options{Dir: root, Env: []string{"MCPBASH_PROJECT_ROOT=" + root}})
			// The original's suites name no clientInfo.
			if m := c.Call("initialize", map[string]any{}); m.Error != nil {
				t.Fatalf("initialize: %s", m.Raw)
			}
			c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			ex.check(t, c, root)
		})
	}
}

type shapeResult struct {
	Content    []json.RawMessage
	Structured json.RawMessage `json:"structuredContent"`
	IsError    any             `json:"isError"`
	raw        string
}

func (r shapeResult) text() string { return r.raw }

func decodeShape(t *testing.T, m harness.Msg) shapeResult {
	t.Helper()
	if m.Error != nil {
		return shapeResult{IsError: true, raw: string(m.Raw)}
	}
	var r shapeResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatalf("result: %v: %s", err, m.Raw)
	}
	r.raw = string(m.Raw)
	return r
}

func callShape(t *testing.T, c *harness.Client, name string, args map[string]any) shapeResult {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	return decodeShape(t, c.Call("tools/call", map[string]any{"name": name, "arguments": args}))
}

func wantStructured(t *testing.T, r shapeResult, want string) {
	t.Helper()
	if d := harness.CompareLines([]string{want}, [][]byte{r.Structured}); d != "" || r.IsError != false {
		t.Errorf("%s: %s", d, r.raw)
	}
}

func wantTool(t *testing.T, c *harness.Client, name string) {
	t.Helper()
	var l struct{ Tools []struct{ Name string } }
	c.Call("tools/list", map[string]any{"limit": 5}).Decode(t, &l)
	for _, x := range l.Tools {
		if x.Name == name {
			return
		}
	}
	t.Errorf("%s not listed: %+v", name, l.Tools)
}
