package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/host/hooks"
	"github.com/mcp-bash/mcp-bash/host/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/registry"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk"
)

// errSuppressed marks a request whose response must not be sent (cancelled calls).
var errSuppressed = errors.New("response suppressed")

type callParams struct {
	Name        *string         `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	Meta        json.RawMessage `json:"_meta"`
	TimeoutSecs json.RawMessage `json:"timeoutSecs"`
	// Multi round-trip retries (2026-07-28).
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   string          `json:"requestState"`
}

// toolsCall answers tools/call for a session.
func (srv *Server) toolsCall(ctx context.Context, s *Session, r *Request) (any, error) {
	var p callParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == nil || *p.Name == "" {
		return nil, invalidParams("Tool name is required")
	}
	tc := ToolCall{Name: *p.Name, Arguments: p.Arguments, Meta: p.Meta, TimeoutSecs: p.TimeoutSecs,
		ElicitSupported: s.client.caps.Elicitation != nil && s.Protocol() != "2025-03-26" && s.Protocol() != "2024-11-05",
		Elicit: func(ctx context.Context, req sdk.ElicitRequest) (sdk.ElicitResult, error) {
			return srv.elicit(ctx, s, req)
		},
		SamplingSupported: s.client.caps.Sampling != nil,
		Sample: func(ctx context.Context, req sdk.SamplingRequest) (json.RawMessage, error) {
			return srv.sample(ctx, s, req)
		}}
	tc.Sink = func(token json.RawMessage) CallSink {
		k := newToolSink(s, token, srv.cfg.ProgressPerMinute)
		k.level = func() (Level, bool) { return s.logLevelFor(ctx) }
		return k
	}
	if ri := statelessInfo(ctx); ri != nil {
		return srv.statelessToolsCall(ctx, s, ri, tc, &p)
	}
	tc.Roots = func(ctx context.Context) []sdk.Root { return s.waitRoots(ctx) }
	res, _, err := srv.CallTool(ctx, tc)
	return res, err
}

// ToolCall is one tool invocation, from a session's tools/call or from `mcp-bash run-tool`.
type ToolCall struct {
	Name            string
	Arguments, Meta json.RawMessage
	TimeoutSecs     json.RawMessage
	ElicitSupported bool
	Elicit          func(context.Context, sdk.ElicitRequest) (sdk.ElicitResult, error)
	// SamplingSupported and Sample: the client's sampling/createMessage (nil: none).
	SamplingSupported bool
	Sample            func(context.Context, sdk.SamplingRequest) (json.RawMessage, error)
	// Sink makes the progress/log sink for the call's progress token (nil: none).
	Sink func(token json.RawMessage) CallSink
	// Roots returns the roots the call runs in (nil: the server's fallback roots).
	Roots func(ctx context.Context) []sdk.Root
}

// CallSink receives a running call's progress and logs; Close is called when the call ends,
// after which nothing more may be forwarded.
type CallSink interface {
	sdk.Sink
	Close()
}

// CallTool runs a tool and shapes its outcome as the original framework does (COMPAT.md §4).
// The outcome is nil when the call never reached an engine.
func (srv *Server) CallTool(ctx context.Context, tc ToolCall) (map[string]any, *sdk.Outcome, error) {
	name := tc.Name
	if name == "" {
		return nil, nil, invalidParams("Tool name is required")
	}
	args := bytes.TrimSpace(tc.Arguments)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return nil, nil, invalidParams("Invalid arguments JSON")
	}
	var buf bytes.Buffer
	if json.Compact(&buf, args) != nil {
		return nil, nil, invalidParams("Invalid arguments JSON")
	}
	args = buf.Bytes()
	meta := bytes.TrimSpace(tc.Meta)
	if len(meta) == 0 || meta[0] != '{' {
		meta = []byte("{}")
	}

	tool, err := srv.reg.Tool(ctx, name)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		return nil, nil, invalidParams(fmt.Sprintf("Tool '%s' not found", name))
	case err != nil:
		return nil, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Unable to load tool registry", err.Error())
	}
	if err := srv.checkPolicy(ctx, tool); err != nil {
		return nil, nil, err
	}
	if v, err := srv.schemas.validate(tool.InputSchema, args); err != nil {
		return errorResult(name, fmt.Sprintf("Tool '%s' has an invalid inputSchema: %v", name, err), "invalid_schema", nil), nil, nil
	} else if len(v) > 0 {
		return errorResult(name, "Invalid arguments for tool '"+name+"':\n"+strings.Join(v, "\n"), "invalid_arguments",
			map[string]any{"violations": v}), nil, nil
	}
	isNative := tool.Kind != registry.ToolWasm && srv.wantsNative(tool)
	if isNative {
		if err := srv.nativePreflight(tool); err != nil {
			return nil, nil, err
		}
	}

	timeout := srv.toolTimeout(tool, tc.TimeoutSecs)
	var roots []sdk.Root
	if tc.Roots != nil {
		roots = tc.Roots(ctx)
	} else {
		roots = srv.fallbackRoots()
	}
	call := &sdk.Call{
		Tool: name, ToolPath: tool.Abs, ToolDir: filepath.Dir(tool.Abs),
		Args: args, Meta: meta, Metadata: tool.Item,
		Roots: roots, ElicitSupported: tc.ElicitSupported && tc.Elicit != nil, Elicit: tc.Elicit,
		SamplingSupported: tc.SamplingSupported && tc.Sample != nil, Sample: tc.Sample,
		MaxTextBytes: envInt(srv.cfg.Getenv, "MCPBASH_MAX_TEXT_BYTES", 100*1024, 1, 1<<30),
		Download:     srv.download,
	}
	var m struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Access        bool            `json:"mcpbash/access"`
	}
	_ = json.Unmarshal(meta, &m)
	if len(m.ProgressToken) > 0 && string(m.ProgressToken) != "null" {
		call.ProgressToken = m.ProgressToken
	}
	var sink CallSink
	if tc.Sink != nil {
		sink = tc.Sink(call.ProgressToken)
		call.Sink = sink
	}

	policy := sandbox.Policy{ToolDir: call.ToolDir, Allow: srv.allowedCommands(tool),
		Limits: sandbox.Limits{
			Timeout:        timeout,
			MaxStdoutBytes: int64(envInt(srv.cfg.Getenv, "MCPBASH_MAX_TOOL_OUTPUT_SIZE", 10<<20, 1, 1<<30)),
			MaxStderrBytes: int64(envInt(srv.cfg.Getenv, "MCPBASH_MAX_TOOL_STDERR_SIZE", 1<<20, 1, 1<<30)),
			MaxOpenFiles:   envInt(srv.cfg.Getenv, "MCPBASH_MAX_OPEN_FILES_PER_CALL", 256, 8, 1<<20),
		}}
	for _, rt := range roots {
		policy.Roots = append(policy.Roots, sandbox.Root{Path: rt.Path, Name: rt.Name, Mode: sandbox.ReadWrite})
	}
	policy.Roots = append(policy.Roots, srv.protectedRoots(policy.Roots)...)
	dir := call.ToolDir
	for _, rt := range roots {
		if srv.cfg.Dirs.Root == rt.Path || strings.HasPrefix(srv.cfg.Dirs.Root, rt.Path+"/") {
			dir = srv.cfg.Dirs.Root
			break
		}
	}
	var out *sdk.Outcome
	if tool.Kind == registry.ToolWasm {
		out = srv.runWasm(ctx, call, tool, policy, dir)
	} else if isNative {
		out = srv.runNative(ctx, call, tool, policy)
	} else {
		job := interp.Job{Call: call, Script: tool.Abs, Dir: dir, Policy: policy, ScratchBase: srv.cfg.Getenv("MCPBASH_TMP_ROOT"),
			Env: srv.contractEnv(call, tool), Cancelled: func() bool { return ctx.Err() != nil }, Confiner: srv.confiner}
		job.Commands = srv.wasmCommands(ctx, call, tool)
		if srv.pool != nil {
			out = srv.runInWorker(ctx, job, tool)
		} else {
			out = srv.engine.Run(ctx, job)
		}
	}
	if sink != nil {
		sink.Close()
	}
	if out.Cancelled {
		return nil, out, errSuppressed
	}
	res, rerr := shapeOutcome(srv, tool, out, timeout)
	if rerr != nil {
		return nil, out, rerr
	}
	if envBool(srv.cfg.Getenv("MCPBASH_ACCESS_META")) || m.Access {
		resultMeta(res)["mcpbash/access"] = out.Access
	}
	// Progress and log lines over the rate limit were dropped: the result says how many.
	if d, ok := sink.(interface{ Dropped() int }); ok && d.Dropped() > 0 {
		resultMeta(res)["mcpbash/notificationsDropped"] = d.Dropped()
		srv.logf("tool %s: %d progress/log notifications over MCPBASH_PROGRESS_PER_MINUTE were dropped", tool.Name, d.Dropped())
	}
	return res, out, nil
}

// resultMeta returns a result's _meta object, adding one when it has none.
func resultMeta(res map[string]any) map[string]any {
	meta, _ := res["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		res["_meta"] = meta
	}
	return meta
}

func metaString(m map[string]json.RawMessage, key string) string {
	var s string
	_ = json.Unmarshal(m[key], &s)
	return s
}

// toolTimeout: params.timeoutSecs, else the tool's timeoutSecs, else MCPBASH_DEFAULT_TOOL_TIMEOUT
// (30 s); the original applied none (COMPAT §7 #4), which lets a stuck tool hold a worker forever.
func (srv *Server) toolTimeout(t *registry.Tool, raw json.RawMessage) time.Duration {
	secs := 0
	if s := strings.Trim(strings.TrimSpace(string(raw)), `"`); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			secs = n
		}
	}
	if secs == 0 {
		secs = t.TimeoutSecs
	}
	if secs == 0 {
		secs = envInt(srv.cfg.Getenv, "MCPBASH_DEFAULT_TOOL_TIMEOUT", 30, 1, 86400)
	}
	if t.MaxTimeoutSecs > 0 && secs > t.MaxTimeoutSecs {
		secs = t.MaxTimeoutSecs
	}
	return time.Duration(secs) * time.Second
}

// allowedCommands is the tool's sandbox.allowCommands, cut down to the operator's ceiling
// MCPBASH_SANDBOX_ALLOW_COMMANDS when that is set.
func (srv *Server) allowedCommands(t *registry.Tool) []string {
	var sb struct {
		AllowCommands []string `json:"allowCommands"`
	}
	_ = json.Unmarshal(t.Meta["sandbox"], &sb)
	ceiling, set := splitList(srv.cfg.Getenv("MCPBASH_SANDBOX_ALLOW_COMMANDS"))
	var out []string
	for _, c := range sb.AllowCommands {
		if c == "" || strings.ContainsAny(c, "/ \t") {
			continue
		}
		if set && !slices.Contains(ceiling, c) && !slices.Contains(ceiling, "*") {
			continue
		}
		out = append(out, c)
	}
	return out
}

func splitList(v string) ([]string, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, false
	}
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == ':' || r == '\n' || r == '\t' }), true
}

// checkPolicy applies MCPBASH_TOOL_ALLOWLIST (when set), then server.d/policy.sh (with
// MCPBASH_ALLOW_PROJECT_HOOKS) and server.d/policy.json (when present), which can only restrict.
// Sandboxed tools run by default (COMPAT §7 #15).
func (srv *Server) checkPolicy(ctx context.Context, t *registry.Tool) error {
	if list, set := splitList(srv.cfg.Getenv("MCPBASH_TOOL_ALLOWLIST")); set {
		if !slices.Contains(list, "*") && !slices.Contains(list, t.Name) {
			return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (not in MCPBASH_TOOL_ALLOWLIST)", t.Name))
		}
	}
	// server.d/policy.sh (opt-in, after the allowlist, so it can only restrict: COMPAT §7 #11).
	d := srv.cfg.Dirs
	if err := hooks.PolicyCheck(ctx, hooks.Options{Root: d.Root, Script: filepath.Join(d.Server, "policy.sh"),
		Getenv: srv.cfg.Getenv, Vars: d.Vars(), TmpDir: srv.cfg.Getenv("MCPBASH_TMP_ROOT"),
		Warn: func(msg string) { srv.logf("warning: %s", msg) }}, t.Name, t.Item); err != nil {
		var denial *hooks.Denial
		if errors.As(err, &denial) {
			return &jsonrpc.Error{Code: denial.Code, Message: denial.Message, Data: denial.Data}
		}
		return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (%v)", t.Name, err))
	}
	data, err := os.ReadFile(filepath.Join(srv.cfg.Dirs.Server, "policy.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var pol struct {
		Allow *[]string `json:"allow"`
		Deny  []string  `json:"deny"`
	}
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(&pol)
	}
	if err != nil {
		// Fail closed: a broken policy must not silently allow everything.
		return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (server.d/policy.json is invalid: %v)", t.Name, err))
	}
	if slices.Contains(pol.Deny, t.Name) || slices.Contains(pol.Deny, "*") {
		return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (denied in server.d/policy.json)", t.Name))
	}
	if pol.Allow != nil && !slices.Contains(*pol.Allow, t.Name) && !slices.Contains(*pol.Allow, "*") {
		return invalidParams(fmt.Sprintf("Tool '%s' blocked by policy (not allowed in server.d/policy.json)", t.Name))
	}
	return nil
}

// contractEnv is the original's tool contract (COMPAT §4), with sandbox paths.
func (srv *Server) contractEnv(c *sdk.Call, t *registry.Tool) map[string]string {
	rootsJSON, _ := json.Marshal(c.Roots)
	paths := make([]string, len(c.Roots))
	for i, r := range c.Roots {
		paths[i] = r.Path
	}
	token := ""
	if c.ProgressToken != nil {
		var s string
		if json.Unmarshal(c.ProgressToken, &s) == nil {
			token = s
		} else {
			token = string(c.ProgressToken)
		}
	}
	elicit := "0"
	if c.ElicitSupported {
		elicit = "1"
	}
	sampling := "0"
	if c.SamplingSupported {
		sampling = "1"
	}
	return map[string]string{
		"MCP_TOOL_NAME": c.Tool, "MCP_TOOL_PATH": c.ToolPath,
		"MCP_TOOL_ARGS_JSON": string(c.Args), "MCP_TOOL_METADATA_JSON": string(t.Item), "MCP_TOOL_META_JSON": string(c.Meta),
		"MCP_PROGRESS_TOKEN": token, "MCP_ELICIT_SUPPORTED": elicit, "MCP_SAMPLING_SUPPORTED": sampling,
		"MCP_ROOTS_JSON": string(rootsJSON), "MCP_ROOTS_PATHS": strings.Join(paths, "\n"), "MCP_ROOTS_COUNT": strconv.Itoa(len(c.Roots)),
		"MCPBASH_JSON_TOOL": "jq", "MCPBASH_JSON_TOOL_BIN": "jq", "MCPBASH_MODE": "full",
		"MCPBASH_PROJECT_ROOT": srv.cfg.Dirs.Root, "MCPBASH_TOOLS_DIR": srv.cfg.Dirs.Tools,
		"MCPBASH_RESOURCES_DIR": srv.cfg.Dirs.Resources, "MCPBASH_PROMPTS_DIR": srv.cfg.Dirs.Prompts,
	}
}

// errorResult is an isError CallToolResult in the SDK's shape.
func errorResult(name, msg, typ string, extra map[string]any) map[string]any {
	e := map[string]any{"type": typ, "message": msg}
	for k, v := range extra {
		e[k] = v
	}
	return map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": msg}},
		"structuredContent": map[string]any{"success": false, "error": e},
		"isError":           true,
		"name":              name,
	}
}

// shapeOutcome turns an engine outcome into the tools/call answer, in the original's order.
func shapeOutcome(srv *Server, t *registry.Tool, out *sdk.Outcome, timeout time.Duration) (map[string]any, error) {
	stderr := strings.TrimRight(string(out.Stderr), "\n")
	baseMeta := func(code int) map[string]any {
		m := map[string]any{"exitCode": code}
		if stderr != "" {
			m["stderr"] = stderr
		}
		return m
	}
	// 1. mcp_fail / the error file wins.
	if f := out.Fail; f != nil {
		return nil, &jsonrpc.Error{Code: f.Code, Message: f.Message, Data: f.Data}
	}
	// 2. Output caps.
	if strings.HasPrefix(out.LimitHit, "Tool output exceeded") || strings.HasPrefix(out.LimitHit, "Tool stderr exceeded") {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, out.LimitHit, nil)
	}
	// Other limits end the run with a result naming the limit.
	if out.LimitHit != "" {
		res := errorResult(t.Name, out.LimitHit, "limit_exceeded", map[string]any{"exitCode": out.ExitCode})
		res["_meta"] = baseMeta(out.ExitCode)
		return res, nil
	}
	// 4. Timeout.
	if out.TimedOut {
		secs := int(timeout / time.Second)
		msg := fmt.Sprintf("Tool timed out after %ds", secs)
		if t.TimeoutHint != "" {
			msg += "\n\nSuggestion: " + t.TimeoutHint
		}
		extra := map[string]any{"timeoutSecs": secs, "reason": "fixed", "exitCode": 143}
		if t.TimeoutHint != "" {
			extra["hint"] = t.TimeoutHint
		}
		res := errorResult(t.Name, msg, "timeout", extra)
		delete(res, "name")
		res["_meta"] = baseMeta(143)
		return res, nil
	}
	stdout := strings.TrimRight(string(out.Stdout), "\n")
	trimmed := strings.TrimSpace(stdout)
	var parsed any
	isJSON := false
	if trimmed != "" && json.Valid([]byte(trimmed)) {
		isJSON = json.Unmarshal([]byte(trimmed), &parsed) == nil
	}
	// 5. Non-zero exit: an error (kept for compatibility; COMPAT §7 #3).
	if out.ExitCode != 0 {
		if obj, ok := parsed.(map[string]any); ok && isJSON {
			if code, ok := obj["code"].(float64); ok {
				if msg, ok := obj["message"].(string); ok {
					var data json.RawMessage
					if d, ok := obj["data"]; ok {
						data, _ = json.Marshal(d)
					}
					return nil, &jsonrpc.Error{Code: int(code), Message: msg, Data: data}
				}
			}
		}
		if trimmed != "" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Tool failed", stdout)
		}
		msg := "Tool failed"
		if stderr != "" {
			msg = strings.SplitN(stderr, "\n", 2)[0]
		}
		data := map[string]any{"exitCode": out.ExitCode, "_meta": baseMeta(out.ExitCode)}
		if stderr != "" {
			data["stderrTail"] = stderr
		}
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, msg, data)
	}
	obj, isObj := parsed.(map[string]any)
	_, hasContent := obj["content"].([]any)
	_, hasIsError := obj["isError"]
	isResult := isObj && hasContent && hasIsError
	// 6. outputSchema.
	if t.OutputSchema != nil {
		if trimmed == "" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Tool output is empty for declared outputSchema", nil)
		}
		if !isJSON {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Tool output is not valid JSON for declared outputSchema", nil)
		}
		structured := []byte(trimmed)
		check := true
		if isResult {
			sc, ok := obj["structuredContent"]
			if isErr, _ := obj["isError"].(bool); isErr || !ok {
				check = false // an error result carries no structured output to check
			}
			structured, _ = json.Marshal(sc)
		}
		if check {
			if v, err := srv.schemas.validate(t.OutputSchema, structured); err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Tool has an invalid outputSchema", err.Error())
			} else if len(v) > 0 {
				res := errorResult(t.Name, "Tool output does not satisfy outputSchema:\n"+strings.Join(v, "\n"), "invalid_output",
					map[string]any{"violations": v})
				res["_meta"] = baseMeta(0)
				return res, nil
			}
		}
	}
	// 7. Build the result.
	var res map[string]any
	if isResult {
		res = obj
		m, _ := res["_meta"].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		for k, v := range baseMeta(0) {
			m[k] = v
		}
		res["_meta"] = m
		res["name"] = t.Name
	} else {
		res = map[string]any{
			"name":    t.Name,
			"content": []any{map[string]any{"type": "text", "text": stdout}},
			"isError": false,
			"_meta":   baseMeta(0),
		}
		// Only objects become structuredContent (COMPAT §7 #18).
		if isObj {
			res["structuredContent"] = obj
		}
	}
	// 8. Embedded resources; legacy _meta["ui/resourceUri"].
	if len(out.Embedded) > 0 {
		content, _ := res["content"].([]any)
		for _, e := range out.Embedded {
			content = append(content, map[string]any{"type": "resource", "resource": resourceContents(e)})
		}
		res["content"] = content
	}
	if m, _ := res["_meta"].(map[string]any); m != nil {
		if u, ok := m["ui/resourceUri"].(string); ok {
			ui, _ := m["ui"].(map[string]any)
			if ui == nil {
				ui = map[string]any{}
			}
			ui["resourceUri"] = u
			m["ui"] = ui
			delete(m, "ui/resourceUri")
		}
	}
	return res, nil
}

// resourceContents is text for UTF-8 text without NUL bytes, else a base64 blob.
func resourceContents(e sdk.Embedded) map[string]any {
	mt := e.MIMEType
	if mt == "" {
		mt = mime.TypeByExtension(filepath.Ext(strings.TrimPrefix(e.URI, "file://")))
		if mt == "" {
			mt = "text/plain"
			if !utf8.Valid(e.Data) || bytes.IndexByte(e.Data, 0) >= 0 {
				mt = "application/octet-stream"
			}
		}
	}
	out := map[string]any{"uri": e.URI, "mimeType": mt}
	textual := strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "xml") || strings.Contains(mt, "javascript")
	if textual && utf8.Valid(e.Data) && bytes.IndexByte(e.Data, 0) < 0 {
		out["text"] = string(e.Data)
	} else {
		out["blob"] = base64.StdEncoding.EncodeToString(e.Data)
	}
	return out
}

// toolSink forwards a running tool's progress and logs to the client at once, with the
// client's own token, strictly increasing progress and a per-request rate limit.
type toolSink struct {
	s      *Session
	token  json.RawMessage
	perMin int
	// level is the request's log level, read per log line: the session's (logging/setLevel may
	// change it mid-call), or the request's own in 2026-07-28, where false means no logs at all.
	level   func() (Level, bool)
	mu      sync.Mutex
	last    float64
	sent    bool
	window  []time.Time
	closed  bool
	dropped int
}

func newToolSink(s *Session, token json.RawMessage, perMin int) *toolSink {
	if perMin <= 0 {
		perMin = 100
	}
	return &toolSink{s: s, token: token, perMin: perMin, level: func() (Level, bool) { return s.Level(), true }}
}

// allow applies the sliding one-minute rate limit. Called with mu held.
func (k *toolSink) allow() bool {
	now := time.Now()
	cut := now.Add(-time.Minute)
	i := 0
	for i < len(k.window) && k.window[i].Before(cut) {
		i++
	}
	k.window = k.window[i:]
	if len(k.window) >= k.perMin {
		k.dropped++
		return false
	}
	k.window = append(k.window, now)
	return true
}

func (k *toolSink) Progress(ctx context.Context, progress float64, total *float64, message string) {
	if k.token == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed || (k.sent && progress <= k.last) || !k.allow() {
		return
	}
	k.sent, k.last = true, progress
	p := map[string]any{"progressToken": k.token, "progress": progress}
	if total != nil {
		p["total"] = *total
	}
	if message != "" {
		p["message"] = message
	}
	k.s.Notify("notifications/progress", p)
}

func (k *toolSink) Log(ctx context.Context, level, logger string, data json.RawMessage) {
	l, ok := ParseLevel(level)
	if !ok {
		l = LevelInfo
	}
	if floor, ok := k.level(); !ok || l < floor {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed || !k.allow() {
		return
	}
	if logger == "" {
		logger = "mcp.tools"
	}
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	k.s.Notify("notifications/message", map[string]any{"level": l.String(), "logger": logger, "data": data})
}

// Dropped is how many notifications the rate limit dropped.
func (k *toolSink) Dropped() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.dropped
}

func (k *toolSink) Close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
}

// elicit sends elicitation/create in the shape of the negotiated revision and waits for the
// answer (bounded by the request's timeout, else MCPBASH_ELICITATION_TIMEOUT, default 30 s).
func (srv *Server) elicit(ctx context.Context, s *Session, req sdk.ElicitRequest) (sdk.ElicitResult, error) {
	params, ok := elicitParams(s.Protocol(), s.client.caps.Elicitation, req)
	if !ok {
		return sdk.ElicitResult{Action: "decline"}, nil
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = time.Duration(envInt(srv.cfg.Getenv, "MCPBASH_ELICITATION_TIMEOUT", 30, 1, 3600)) * time.Second
	}
	ectx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := s.Request(ectx, "elicitation/create", params)
	if err != nil {
		return sdk.ElicitResult{}, err
	}
	var res sdk.ElicitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return sdk.ElicitResult{}, fmt.Errorf("malformed elicitation answer: %w", err)
	}
	return res, nil
}

// elicitParams shapes elicitation/create params for a revision, or reports false when the client
// cannot be asked (no elicitation capability, a revision without it, or url mode unsupported).
func elicitParams(rev string, caps *elicitCaps, req sdk.ElicitRequest) (map[string]any, bool) {
	if caps == nil || rev == "2025-03-26" || rev == "2024-11-05" {
		return nil, false // those revisions have no elicitation
	}
	urlOK := rev != "2025-06-18" && caps.URL != nil
	if req.Mode == "url" && !urlOK {
		return nil, false
	}
	params := map[string]any{"message": req.Message}
	switch {
	case req.Mode == "url":
		var id [8]byte
		_, _ = rand.Read(id[:])
		params["mode"], params["url"], params["elicitationId"] = "url", req.URL, hex.EncodeToString(id[:])
	case rev == "2025-06-18":
		params["requestedSchema"] = req.Schema
	default:
		params["mode"], params["requestedSchema"] = "form", req.Schema
	}
	return params, true
}

// sample sends sampling/createMessage for a tool and waits for the client's result (bounded by
// MCPBASH_SAMPLING_TIMEOUT, default 120 s: a person may have to approve it).
func (srv *Server) sample(ctx context.Context, s *Session, req sdk.SamplingRequest) (json.RawMessage, error) {
	if s.client.caps.Sampling == nil {
		return nil, errors.New("the client does not support sampling")
	}
	timeout := time.Duration(envInt(srv.cfg.Getenv, "MCPBASH_SAMPLING_TIMEOUT", 120, 1, 3600)) * time.Second
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return s.Request(sctx, "sampling/createMessage", req)
}

// download is the SDK's mcp_download_safe: the https provider with the call's host lists
// narrowing (never widening) the server's.
func (srv *Server) download(ctx context.Context, req sdk.DownloadRequest) ([]byte, error) {
	if srv.downloader == nil {
		return nil, &sdk.DownloadError{Type: "unavailable", Message: "the https provider is not available in this build"}
	}
	return srv.downloader(ctx, req)
}

// ToolPlan is run-tool --dry-run: where a tool is and what its script will do in the sandbox.
func (srv *Server) ToolPlan(ctx context.Context, name string) (*registry.Tool, *interp.Plan, error) {
	tool, err := srv.reg.Tool(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if tool.Kind == registry.ToolWasm {
		plan, err := srv.wasmPlan(ctx, tool)
		return tool, plan, err
	}
	plan, err := interp.AnalyzeFile(tool.Abs, srv.allowedCommands(tool))
	if err == nil && srv.wantsNative(tool) {
		plan.Findings = nativeFindings(tool, plan.Findings)
	}
	return tool, plan, err
}

// nativeFindings keeps what matters for a tool that runs in real bash on the host: parse errors,
// and a note in place of the sandbox analysis, which does not apply.
func nativeFindings(tool *registry.Tool, fs []interp.Finding) []interp.Finding {
	out := []interp.Finding{{File: tool.Abs, Line: 1, Col: 1, Severity: "info", Kind: "native",
		Message:    "runs natively in bash on the host (exec: native); the sandbox analysis does not apply",
		Suggestion: "the server runs it only when MCPBASH_TOOL_ALLOWLIST names it (or with --exec=native)"}}
	for _, f := range fs {
		if f.Kind == "parse" {
			out = append(out, f)
		}
	}
	return out
}

// ToolEnvironment is the environment a tool's script starts with (run-tool --print-env).
func (srv *Server) ToolEnvironment(ctx context.Context, name string, args json.RawMessage) ([]string, error) {
	tool, err := srv.reg.Tool(ctx, name)
	if err != nil {
		return nil, err
	}
	call := &sdk.Call{Tool: name, ToolPath: tool.Abs, ToolDir: filepath.Dir(tool.Abs), Args: args, Meta: json.RawMessage("{}"),
		Metadata: tool.Item, Roots: srv.fallbackRoots()}
	if srv.wantsNative(tool) {
		return srv.nativePrintEnv(call, tool), nil
	}
	env := sandbox.BaseEnv("$HOME (per-call scratch)", "$TMPDIR (per-call scratch)", srv.contractEnv(call, tool))
	env = append(env, "MCP_SDK="+interp.SDKDir)
	return env, nil
}

// Roots returns the roots a call would get without a client (MCPBASH_ROOTS, config/roots.json,
// or the project root), or the given paths.
func (srv *Server) Roots(paths []string) []sdk.Root {
	if len(paths) == 0 {
		return srv.fallbackRoots()
	}
	var out []sdk.Root
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(srv.cfg.Dirs.Root, p)
		}
		p = sandbox.Physical(p)
		out = append(out, sdk.Root{URI: "file://" + p, Path: p})
	}
	return out
}

// protectedRoots returns read-only roots for the project directories that decide what later calls
// may do (tools and their meta, server.d, providers, config, the registry cache ...), for those a
// read-write root contains: a tool must not widen its own sandbox by rewriting its meta (T-FS-5).
// Roots that are exactly one of these directories were chosen by the client and stay writable.
func (srv *Server) protectedRoots(roots []sandbox.Root) []sandbox.Root {
	var out []sandbox.Root
	for _, dir := range srv.protected {
		for _, r := range roots {
			p := strings.TrimSuffix(r.Path, "/")
			if r.Mode == sandbox.ReadWrite && r.Path != dir && len(dir) > len(p) && dir[len(p)] == '/' && strings.HasPrefix(dir, p) {
				// Also when it does not exist yet: a tool must not create config/roots.json.
				out = append(out, sandbox.Root{Path: dir, Name: "project", Mode: sandbox.ReadOnly, Protected: true})
				break
			}
		}
	}
	return out
}

// protectedDirs lists the project's own directories that tools may read but never change;
// bin/ holds the wasm commands the server compiles and runs.
func protectedDirs(d registry.Dirs) []string {
	var out []string
	for _, dir := range []string{d.Tools, d.Prompts, d.Server, d.Registry, d.Providers, d.UI, d.Completions,
		filepath.Join(d.Root, "config"), filepath.Join(d.Root, "lib"), filepath.Join(d.Root, "bin")} {
		if dir != "" {
			out = append(out, filepath.Clean(dir))
		}
	}
	return out
}
