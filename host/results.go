package host

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// errorResult is an isError CallToolResult the server makes (invalid arguments, timeouts,
// limits, outputSchema violations): text content only, since structured content could not
// satisfy the tool's outputSchema (the TypeScript SDK and the Inspector then throw and the
// message is lost). Answered as the original (jr: jsonrpcToolErrors), it also has the
// original's structuredContent {success:false, error:{type, message, ...}}.
func errorResult(name, msg, typ string, extra map[string]any, jr bool) *CallToolResult {
	res := &CallToolResult{Content: textContent(msg), IsError: true, Name: name}
	if jr {
		e := map[string]any{"type": typ, "message": msg}
		for k, v := range extra {
			e[k] = v
		}
		res.Structured, res.HasStructured = map[string]any{"success": false, "error": e}, true
	}
	return res
}

// jsonrpcToolErrors reports whether a call's failures answer as the original's did: always under
// MCPBASH_TOOL_ERRORS=jsonrpc, never under result, and under auto (the default) for a client
// that named no clientInfo (anonymous).
func (srv *Server) jsonrpcToolErrors(anonymous bool) bool {
	switch srv.cfg.Settings.ToolErrors {
	case "jsonrpc":
		return true
	case "result":
		return false
	}
	return anonymous
}

// stderrTailBytes is how much of a failed tool's stderr its answer quotes (the original's 4096).
const stderrTailBytes = 4096

// finishCall applies MCPBASH_TOOL_ERRORS and MCPBASH_DEBUG_ERRORS to the answer of a call that
// ran: a tool's failure (the original's JSON-RPC error) becomes an isError result by default,
// and an isError result the tool built itself loses structured content its outputSchema could
// not accept.
func (srv *Server) finishCall(t *registry.Tool, out *engine.Outcome, res *CallToolResult, err error, jr bool) (*CallToolResult, error) {
	var je *jsonrpc.Error
	if err != nil && !errors.As(err, &je) {
		return res, err
	}
	debug := func() map[string]any {
		return map[string]any{"tool": t.Name, "exitCode": out.ExitCode, "traceAvailable": false}
	}
	if jr {
		if je != nil && srv.cfg.Settings.DebugErrors {
			data := map[string]any{}
			if len(je.Data) == 0 || json.Unmarshal(je.Data, &data) == nil {
				for k, v := range debug() {
					if _, ok := data[k]; !ok {
						data[k] = v
					}
				}
				b, _ := json.Marshal(data)
				je = &jsonrpc.Error{Code: je.Code, Message: je.Message, Data: b}
			}
			return nil, je
		}
		return res, err
	}
	if je != nil {
		res = failureResult(t, out, je)
	} else if res.IsError && t.OutputSchema != nil {
		res.Structured, res.HasStructured = nil, false
	}
	if srv.cfg.Settings.DebugErrors && res.IsError {
		res.meta()["mcpbash/debug"] = debug()
	}
	return res, nil
}

// failureResult is the isError result of a failed run: the message, the tool's data and the
// stderr tail as text a model can read; the exit code, stderr and the original's error code
// and data in _meta.
func failureResult(t *registry.Tool, out *engine.Outcome, je *jsonrpc.Error) *CallToolResult {
	text := je.Message
	var data any
	if len(je.Data) > 0 && string(je.Data) != "null" {
		_ = json.Unmarshal(je.Data, &data)
	}
	var stdout string
	switch d := data.(type) {
	case string:
		stdout, data = d, nil // "Tool failed" with the tool's output
	case map[string]any:
		if _, exited := d["exitCode"]; exited {
			data = nil // the original's exit details, in _meta already
		} else if b, err := json.Marshal(d); err == nil {
			text += "\n" + string(b) // the tool's own data (mcp_fail)
		}
	}
	if s := strings.TrimSpace(stdout); s != "" && s != text {
		text += "\n\n" + s
	}
	stderr := strings.TrimRight(string(out.Stderr), "\n")
	if len(stderr) > stderrTailBytes {
		stderr = stderr[len(stderr)-stderrTailBytes:]
	}
	if s := strings.TrimSpace(stderr); s != "" && s != strings.TrimSpace(je.Message) {
		text += "\n\nstderr:\n" + s
	}
	meta := map[string]any{"exitCode": out.ExitCode, "mcpbash/errorCode": je.Code}
	if stderr != "" {
		meta["stderr"] = stderr
	}
	if data != nil {
		meta["mcpbash/errorData"] = data
	}
	return &CallToolResult{Content: textContent(text), IsError: true, Name: t.Name, Meta: meta}
}

// shapeOutcome turns an engine outcome into the tools/call answer, in the original's order,
// then applies the operator's choice of error shape (finishCall).
func shapeOutcome(srv *Server, t *registry.Tool, output *schemaPlan, out *engine.Outcome, timeout time.Duration, jr bool) (*CallToolResult, error) {
	res, err := shapeOriginal(srv, t, output, out, timeout, jr)
	return srv.finishCall(t, out, res, err, jr)
}

// shapeOriginal is the original's answer to an outcome (COMPAT §4): failures as JSON-RPC errors.
// output is the tool's compiled outputSchema (nil: none).
func shapeOriginal(srv *Server, t *registry.Tool, output *schemaPlan, out *engine.Outcome, timeout time.Duration, jr bool) (*CallToolResult, error) {
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
	if out.Limit.OutputCap() {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, out.LimitHit, nil)
	}
	// Other limits end the run with a result naming the limit.
	if out.Limit != engine.LimitNone {
		res := errorResult(t.Name, out.LimitHit, "limit_exceeded", map[string]any{"exitCode": out.ExitCode}, jr)
		res.Meta = baseMeta(out.ExitCode)
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
		res := errorResult(t.Name, msg, "timeout", extra, jr)
		res.Meta = baseMeta(143)
		return res, nil
	}
	stdout := strings.TrimRight(string(out.Stdout), "\n")
	trimmed := strings.TrimSpace(stdout)
	// The output is decoded once, numbers exact (json.Number), for the outputSchema; they
	// become float64 before anything else reads them, as a plain decoding makes them.
	exact, isJSON := decodeOutput(trimmed)
	parsed := exact
	floats := func() {
		parsed = toFloats(exact)
		exact = nil
	}
	// 5. Non-zero exit: an error (kept for compatibility; COMPAT §7 #3).
	if out.ExitCode != 0 {
		floats()
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
	if output != nil {
		if trimmed == "" {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Tool output is empty for declared outputSchema", nil)
		}
		if !isJSON {
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Tool output is not valid JSON for declared outputSchema", nil)
		}
		structured := parsed
		check := true
		if isResult {
			sc, ok := obj["structuredContent"]
			if isErr, _ := obj["isError"].(bool); isErr || !ok {
				check = false // an error result carries no structured output to check
			}
			structured = sc
		}
		if check {
			if v, err := output.validateValue(structured); err != nil {
				return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Tool has an invalid outputSchema", err.Error())
			} else if len(v) > 0 {
				msg := "Tool output does not satisfy outputSchema"
				if jr {
					// The original's error (its tests assert it).
					return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, msg, map[string]any{"violations": v})
				}
				res := errorResult(t.Name, msg+":\n"+strings.Join(v, "\n"), "invalid_output", map[string]any{"violations": v}, jr)
				res.Meta = baseMeta(0)
				return res, nil
			}
		}
	}
	floats()
	obj, _ = parsed.(map[string]any)
	// 7. Build the result.
	var res *CallToolResult
	if isResult {
		res = callToolResultOf(obj)
		m := res.meta()
		for k, v := range baseMeta(0) {
			m[k] = v
		}
		res.Name = t.Name
	} else {
		res = &CallToolResult{Name: t.Name, Content: textContent(stdout), Meta: baseMeta(0)}
		// Only objects become structuredContent (COMPAT §7 #18).
		if isObj {
			res.Structured, res.HasStructured = obj, true
		}
	}
	// 8. Embedded resources; legacy _meta["ui/resourceUri"].
	for _, e := range out.Embedded {
		c := resourceContents(e)
		res.Content = append(res.Content, Content{Resource: &c})
	}
	if m := res.Meta; m != nil {
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

// decodeOutput decodes a tool's trimmed stdout as one JSON value, numbers as json.Number;
// false when it is not JSON, or holds a number no float64 holds (a plain decoding refuses it).
func decodeOutput(text string) (any, bool) {
	if text == "" || !json.Valid([]byte(text)) {
		return nil, false
	}
	fits := true
	v := jqorder.KeyOrder(nil).Decode([]byte(text), func(n json.Number) any {
		// A number past maxArgNumberChars is not one schema validation may read (big.Rat,
		// quadratic in its digits): the output is text, as a number no float holds is.
		if _, err := strconv.ParseFloat(string(n), 64); err != nil || len(n) > maxArgNumberChars {
			fits = false
		}
		return n
	})
	if !fits {
		return nil, false
	}
	return v, true
}

// toFloats turns the json.Number values of a decoded value into float64, in place, as
// encoding/json decodes numbers into an any.
func toFloats(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case map[string]any:
		for k, e := range x {
			switch e.(type) {
			case json.Number, map[string]any, []any:
				x[k] = toFloats(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = toFloats(e)
		}
	}
	return v
}

// resourceContents is text for UTF-8 text without NUL bytes, else a base64 blob.
func resourceContents(e engine.Embedded) resourceContent {
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
	out := resourceContent{URI: e.URI, MIMEType: mt}
	textual := strings.HasPrefix(mt, "text/") || strings.Contains(mt, "json") || strings.Contains(mt, "xml") || strings.Contains(mt, "javascript")
	if textual && utf8.Valid(e.Data) && bytes.IndexByte(e.Data, 0) < 0 {
		text := string(e.Data)
		out.Text = &text
	} else {
		out.Blob = base64.StdEncoding.EncodeToString(e.Data)
	}
	return out
}

func metaString(m map[string]json.RawMessage, key string) string {
	raw, ok := m[key]
	if !ok {
		return "" // the usual case, and no error to build for it
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
