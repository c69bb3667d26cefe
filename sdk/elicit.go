package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// elicitBuiltins are the elicitation and download functions.
func elicitBuiltins() map[string]builtinFunc {
	return map[string]builtinFunc{
		"mcp_elicit":                     elicit,
		"mcp_elicit_url":                 elicitURL,
		"mcp_elicit_string":              elicitSchema(stringSchema),
		"mcp_elicit_confirm":             elicitSchema(confirmSchema),
		"mcp_elicit_choice":              elicitSchema(choiceSchema),
		"mcp_elicit_titled_choice":       elicitSchema(titledChoiceSchema),
		"mcp_elicit_multi_choice":        elicitSchema(multiChoiceSchema),
		"mcp_elicit_titled_multi_choice": elicitSchema(titledMultiChoiceSchema),
		"mcp_download_safe":              downloadSafe,
		"mcp_download_safe_or_fail":      downloadSafeOrFail,
	}
}

const declined = `{"action":"decline","content":null}`

// defaultElicitTimeout is the original's 30 s.
const defaultElicitTimeout = 30 * time.Second

func parseTimeout(s string, def time.Duration) time.Duration {
	if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && n > 0 {
		return time.Duration(n * float64(time.Second))
	}
	return def
}

// ElicitAnswer asks the client through call and returns the original framework's answer line,
// {"action","content"} with a newline: "decline" without client support; "error" (or "cancel"
// when the wait timed out) when asking failed, err saying why; else the client's action
// ("error" when it gave none) and content (null when none). The sandbox's mcp_elicit* print it;
// native tools read it from their response file.
func ElicitAnswer(ctx context.Context, call *engine.Call, req engine.ElicitRequest) (line []byte, action string, err error) {
	if !call.ElicitSupported || call.Elicit == nil {
		return []byte(declined + "\n"), "decline", nil
	}
	res, err := call.Elicit(ctx, req)
	content := json.RawMessage("null")
	switch {
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		action = "cancel"
	case err != nil:
		action = "error"
	default:
		action = res.Action
		if action == "" {
			action = "error"
		}
		if len(res.Content) > 0 {
			content = res.Content
		}
	}
	return fmt.Appendf(nil, `{"action":%s,"content":%s}`+"\n", jsonString(action), content), action, err
}

// ask sends an elicitation and prints the original's {"action","content"}; status 0 only for
// accept. Without client support it declines, as the original does.
func (s *State) ask(ctx context.Context, env *engine.Env, req engine.ElicitRequest) int {
	line, action, err := ElicitAnswer(ctx, s.Call, req)
	env.Stdout.Write(line)
	if err != nil {
		fmt.Fprintln(env.Stderr, "mcp_elicit: "+err.Error())
	}
	if action != "accept" {
		return 1
	}
	return 0
}

func elicit(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(env.Stderr, "mcp_elicit: usage: mcp_elicit MESSAGE SCHEMA_JSON [TIMEOUT] [MODE]")
		return 2
	}
	timeout := defaultElicitTimeout
	if len(args) > 2 {
		timeout = parseTimeout(args[2], timeout)
	}
	if len(args) > 3 && args[3] == "url" {
		return s.ask(ctx, env, engine.ElicitRequest{Mode: "url", Message: args[0], URL: args[1], Timeout: timeout})
	}
	v, err := decodeJSON([]byte(args[1]))
	if _, ok := v.(map[string]any); err != nil || !ok {
		fmt.Fprintln(env.Stderr, "mcp_elicit: schema must be a JSON object")
		return 2
	}
	return s.ask(ctx, env, engine.ElicitRequest{Mode: "form", Message: args[0], Schema: json.RawMessage(compactJSON(v)), Timeout: timeout})
}

func elicitURL(s *State, ctx context.Context, env *engine.Env, args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(env.Stderr, "mcp_elicit_url: usage: mcp_elicit_url MESSAGE URL [TIMEOUT]")
		return 2
	}
	timeout := defaultElicitTimeout
	if len(args) > 2 {
		timeout = parseTimeout(args[2], timeout)
	}
	return s.ask(ctx, env, engine.ElicitRequest{Mode: "url", Message: args[0], URL: args[1], Timeout: timeout})
}

// elicitSchema adapts a schema builder: MESSAGE [OPTIONS...].
func elicitSchema(build func(opts []string) any) builtinFunc {
	return func(s *State, ctx context.Context, env *engine.Env, args []string) int {
		if len(args) == 0 {
			fmt.Fprintln(env.Stderr, "mcp_elicit: message required")
			return 2
		}
		schema, _ := json.Marshal(build(args[1:]))
		return s.ask(ctx, env, engine.ElicitRequest{Mode: "form", Message: args[0], Schema: schema, Timeout: defaultElicitTimeout})
	}
}

func object(prop string, schema any) map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{prop: schema}, "required": []string{prop}}
}

func stringSchema([]string) any { return object("value", map[string]any{"type": "string"}) }

func confirmSchema([]string) any { return object("confirmed", map[string]any{"type": "boolean"}) }

func choiceSchema(opts []string) any {
	return object("choice", map[string]any{"type": "string", "enum": nonNil(opts)})
}

// titled splits "value:Title" options (a bare value is its own title).
func titled(opts []string) []map[string]any {
	out := []map[string]any{}
	for _, o := range opts {
		v, t, ok := strings.Cut(o, ":")
		if !ok {
			t = v
		}
		out = append(out, map[string]any{"const": v, "title": t})
	}
	return out
}

func titledChoiceSchema(opts []string) any {
	return object("choice", map[string]any{"type": "string", "oneOf": titled(opts)})
}

func multiChoiceSchema(opts []string) any {
	return object("choices", map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": nonNil(opts)}})
}

func titledMultiChoiceSchema(opts []string) any {
	return object("choices", map[string]any{"type": "array", "items": map[string]any{"anyOf": titled(opts)}})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// download runs mcp_download_safe's option parsing and fetch; the file is written through the
// sandbox (env.WriteFile), so it lands only inside the roots.
func (s *State) download(ctx context.Context, env *engine.Env, args []string) (p string, n int, derr *engine.DownloadError) {
	var req engine.DownloadRequest
	out := ""
	for i := 0; i < len(args); i++ {
		val := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch args[i] {
		case "--url":
			req.URL = val()
		case "--out":
			out = val()
		case "--allow":
			req.Allow = append(req.Allow, val())
		case "--deny":
			req.Deny = append(req.Deny, val())
		case "--max-bytes":
			req.MaxBytes, _ = strconv.ParseInt(val(), 10, 64)
		case "--timeout":
			req.Timeout = parseTimeout(val(), 0)
		case "--retry":
			val() // retries are the caller's business in the sandbox (mcp_with_retry)
		default:
			return "", 0, &engine.DownloadError{Type: "invalid_argument", Message: "unknown option " + args[i]}
		}
	}
	if req.URL == "" || out == "" {
		return "", 0, &engine.DownloadError{Type: "invalid_argument", Message: "--url and --out are required"}
	}
	if s.Call.Download == nil || env.FS == nil {
		return "", 0, &engine.DownloadError{Type: "unavailable", Message: "downloads are not available in this server"}
	}
	data, err := s.Call.Download(ctx, req)
	if err != nil {
		var de *engine.DownloadError
		if errors.As(err, &de) {
			return "", 0, de
		}
		return "", 0, &engine.DownloadError{Type: "fetch_failed", Message: err.Error()}
	}
	if !path.IsAbs(out) {
		out = path.Join(env.Dir, out)
	}
	if err := env.WriteFile(out, data); err != nil {
		msg := err.Error()
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			msg = out + " is outside the writable roots"
		}
		return "", 0, &engine.DownloadError{Type: "write_failed", Message: msg}
	}
	return out, len(data), nil
}

func downloadSafe(s *State, ctx context.Context, env *engine.Env, args []string) int {
	p, n, derr := s.download(ctx, env, args)
	if derr != nil {
		fmt.Fprintf(env.Stdout, `{"success":false,"error":{"type":%s,"message":%s}}`+"\n", jsonString(derr.Type), jsonString(derr.Message))
		return 0
	}
	fmt.Fprintf(env.Stdout, `{"success":true,"bytes":%d,"path":%s}`+"\n", n, jsonString(p))
	return 0
}

func downloadSafeOrFail(s *State, ctx context.Context, env *engine.Env, args []string) int {
	p, _, derr := s.download(ctx, env, args)
	if derr != nil {
		return s.failWith(env, -32602, fmt.Sprintf("Download failed (%s): %s", derr.Type, derr.Message), nil)
	}
	fmt.Fprintln(env.Stdout, p)
	return 0
}
