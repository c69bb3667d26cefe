package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/host/internal/tenants"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

func (srv *Server) registerPrompts() {
	srv.handlers["prompts/get"] = handler{fn: srv.promptsGet}
	srv.handlers["completion/complete"] = handler{fn: srv.complete}
}

var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}`) })

func (srv *Server) promptsGet(ctx context.Context, s *Session, r *Request) (any, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, invalidParams("Prompt name is required")
	}
	args := map[string]any{}
	if len(bytes.TrimSpace(p.Arguments)) > 0 && string(bytes.TrimSpace(p.Arguments)) != "null" {
		if err := json.Unmarshal(p.Arguments, &args); err != nil {
			return nil, invalidParams("Prompt arguments must be an object")
		}
	}
	prompt, err := srv.reg.Prompt(ctx, p.Name)
	if err == nil && !r.scope.visible(tenants.KindPrompt, p.Name) {
		err = registry.ErrNotFound // hidden from the scope: answered as a missing prompt
	}
	switch {
	case errors.Is(err, registry.ErrNotFound):
		return nil, invalidParams("Prompt not found")
	case err != nil:
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "Unable to load prompt registry", err.Error())
	}
	var schema struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(prompt.Arguments, &schema)
	for _, req := range schema.Required {
		if v, ok := args[req]; !ok || v == nil || v == "" {
			return nil, invalidParams("Missing required argument: " + req)
		}
	}
	text, err := srv.renderPrompt(ctx, prompt, args)
	if err != nil {
		return nil, err
	}
	role := prompt.Role
	if role != "user" && role != "assistant" {
		role = "user" // MCP messages have only these roles
	}
	messages := []any{map[string]any{"role": role, "content": map[string]any{"type": "text", "text": text}}}
	if msgs, joined, ok := promptMessages(text); ok {
		messages, text = msgs, joined
	}
	var item struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(prompt.Item, &item)
	res := map[string]any{
		"messages":  messages,
		"text":      text,
		"arguments": args,
	}
	if item.Description != "" {
		res["description"] = item.Description
	}
	return res, nil
}

// promptMessages recognises a prompt script's output that is a {"messages":[...]} object (images,
// audio, embedded resources, several turns): each message needs a user/assistant role and a
// content object with a type. It returns the messages and their text parts joined for `text`.
func promptMessages(out string) ([]any, string, bool) {
	out = strings.TrimSpace(out)
	if !strings.HasPrefix(out, "{") {
		return nil, "", false
	}
	var doc struct {
		Messages []struct {
			Role    string         `json:"role"`
			Content map[string]any `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(out), &doc) != nil || len(doc.Messages) == 0 {
		return nil, "", false
	}
	var msgs []any
	var texts []string
	for _, m := range doc.Messages {
		typ, _ := m.Content["type"].(string)
		if (m.Role != "user" && m.Role != "assistant") || typ == "" {
			return nil, "", false
		}
		if t, ok := m.Content["text"].(string); ok && typ == "text" {
			texts = append(texts, t)
		}
		msgs = append(msgs, map[string]any{"role": m.Role, "content": m.Content})
	}
	return msgs, strings.Join(texts, "\n"), true
}

// renderPrompt substitutes {{key}} with single-line string, number or boolean arguments (other
// text, such as ${x}, stays literal), or runs an executable prompt script in the sandbox.
func (srv *Server) renderPrompt(ctx context.Context, p *registry.Prompt, args map[string]any) (string, error) {
	data, err := readProjectFile(srv.cfg.Dirs.Root, p.Abs)
	if err != nil {
		return "", jsonrpc.NewError(jsonrpc.CodeInternalError, "Unable to render prompt", err.Error())
	}
	if isScript(p.Abs, data) {
		argsJSON, _ := json.Marshal(args)
		job := interp.Job{Call: &engine.Call{Tool: p.Name, Args: argsJSON}, Script: p.Abs, Dir: srv.cfg.Dirs.Root,
			Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: srv.cfg.Dirs.Root, Mode: sandbox.ReadOnly}}, ToolDir: filepath.Dir(p.Abs),
				Limits: sandbox.Limits{Timeout: 30 * time.Second}},
			ScratchBase: srv.cfg.Settings.TmpRoot,
			Env:         map[string]string{"MCP_PROMPT_NAME": p.Name, "MCP_PROMPT_ARGS_JSON": string(argsJSON), "MCP_TOOL_ARGS_JSON": string(argsJSON)}}
		out := srv.engine.Run(ctx, job)
		if out.ExitCode != 0 || out.TimedOut || out.Limit != engine.LimitNone {
			return "", jsonrpc.NewError(jsonrpc.CodeInternalError, "Unable to render prompt", strings.TrimSpace(string(out.Stderr)))
		}
		return strings.TrimRight(string(out.Stdout), "\n"), nil
	}
	text := placeholderRE().ReplaceAllStringFunc(string(data), func(m string) string {
		key := m[2 : len(m)-2]
		v, ok := args[key]
		if !ok {
			return m
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			s = strconv.FormatBool(x)
		default:
			return m
		}
		if strings.ContainsAny(s, "\n\r") {
			return m
		}
		return s
	})
	return strings.TrimRight(text, "\n"), nil
}

func isScript(p string, data []byte) bool {
	if strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".bash") {
		return true
	}
	fi, err := os.Stat(p)
	return bytes.HasPrefix(data, []byte("#!")) && err == nil && fi.Mode()&0o111 != 0
}

// readProjectFile reads a file of the project through an os.Root of the project, so a symlink
// cannot make the server read outside it.
func readProjectFile(root, p string) ([]byte, error) {
	rel, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%s is outside the project", p)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(rel)
}

// completion limits (non-standard `limit`).
const (
	defaultCompletionLimit = 5
	maxCompletionLimit     = 100
)

type completeParams struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`
	Limit  int    `json:"limit"`
	Cursor string `json:"cursor"`
}

type completionCursor struct {
	Ver    int    `json:"ver"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Args   string `json:"args"`
	Offset int    `json:"offset"`
	Script string `json:"script"`
}

func (srv *Server) complete(ctx context.Context, s *Session, r *Request) (any, error) {
	var p completeParams
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	if p.Ref.Type == "" {
		return nil, invalidParams("Completion ref is required")
	}
	var name string
	switch p.Ref.Type {
	case "ref/prompt":
		name = p.Ref.Name
	case "ref/resource":
		name = p.Ref.URI
		if res, err := srv.reg.Resources(ctx); err == nil {
			for _, x := range res {
				if x.URI == p.Ref.URI {
					name = x.Name
				}
			}
		}
		if tpls, err := srv.reg.Templates(ctx); err == nil && name == p.Ref.URI {
			for _, t := range tpls {
				if t.URITemplate == p.Ref.URI {
					name = t.Name
				}
			}
		}
	default:
		return nil, invalidParams("Completion ref is invalid")
	}
	if name == "" {
		return nil, invalidParams("Completion ref is invalid")
	}
	if p.Argument == nil || p.Argument.Name == "" {
		return nil, invalidParams("Completion argument name is required")
	}
	limit := p.Limit
	if limit <= 0 {
		limit = defaultCompletionLimit
	}
	limit = min(limit, maxCompletionLimit)
	ref, _ := json.Marshal(p.Ref)
	argsDoc := map[string]any{"query": p.Argument.Value, "prefix": p.Argument.Value,
		"argument": map[string]any{"name": p.Argument.Name, "value": p.Argument.Value},
		"context":  map[string]any{"arguments": orEmpty(p.Context.Arguments)}, "ref": json.RawMessage(ref)}
	argsJSON, _ := json.Marshal(argsDoc)
	sum := sha256.Sum256(argsJSON)
	argsHash := hex.EncodeToString(sum[:])
	script, refVars := srv.completionScript(ctx, p.Ref.Type, name)
	refKind := tenants.KindPrompt
	if p.Ref.Type == "ref/resource" {
		refKind = tenants.KindResource
	}
	if !r.scope.visible(refKind, name) {
		script = "" // a hidden item completes as an unknown one does (the built-in generator)
	}
	offset := 0
	if p.Cursor != "" {
		var c completionCursor
		raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(p.Cursor, "="))
		if err != nil || json.Unmarshal(raw, &c) != nil || c.Ver != 1 || c.Kind != "completion" || c.Name != name || c.Args != argsHash || c.Offset < 0 {
			return nil, invalidParams("Invalid cursor")
		}
		if c.Script != script {
			return nil, invalidParams("Cursor no longer valid")
		}
		offset = c.Offset
	}
	var values []string
	hasMore := false
	if script == "" {
		// The original's built-in generator for names without a provider (COMPAT §1.7, §7 #16).
		q := p.Argument.Value
		if q == "" {
			q = name
		}
		all := []string{q, q + " snippet", q + " example"}
		if offset < len(all) {
			values = all[offset:min(len(all), offset+limit)]
		}
		hasMore = offset+len(values) < len(all)
	} else {
		var err error
		values, hasMore, err = srv.runCompletion(ctx, script, name, argsJSON, argsHash, limit, offset, refVars)
		if err != nil {
			return nil, err
		}
	}
	if len(values) > maxCompletionLimit {
		values, hasMore = values[:maxCompletionLimit], true
	}
	if values == nil {
		values = []string{}
	}
	comp := map[string]any{"values": values, "hasMore": hasMore}
	if hasMore {
		b, _ := json.Marshal(completionCursor{Ver: 1, Kind: "completion", Name: name, Args: argsHash, Offset: offset + len(values), Script: script})
		comp["nextCursor"] = base64.RawURLEncoding.EncodeToString(b)
	}
	return map[string]any{"completion": comp}, nil
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// completionScript finds the provider for a name: a manual register.json entry, else an
// executable sibling `<path|stem>.completion[.sh]` of the prompt or resource. vars are the
// original's MCP_PROMPT_* or MCP_RESOURCE_* variables of the prompt or resource it completes.
func (srv *Server) completionScript(ctx context.Context, refType, name string) (script string, vars map[string]string) {
	vars = map[string]string{}
	var file string
	if refType == "ref/prompt" {
		if p, err := srv.reg.Prompt(ctx, name); err == nil {
			file = p.Abs
			vars["MCP_PROMPT_NAME"], vars["MCP_PROMPT_PATH"], vars["MCP_PROMPT_METADATA"] = p.Name, p.Abs, string(p.Item)
			vars["MCP_PROMPT_REL_PATH"] = relTo(srv.cfg.Dirs.Prompts, p.Abs)
		}
	} else if res, err := srv.reg.Resources(ctx); err == nil {
		for _, x := range res {
			if x.Name == name {
				file = x.Abs
				vars["MCP_RESOURCE_NAME"], vars["MCP_RESOURCE_PATH"], vars["MCP_RESOURCE_METADATA"] = x.Name, x.Abs, string(x.Item)
				vars["MCP_RESOURCE_REL_PATH"] = relTo(srv.cfg.Dirs.Resources, x.Abs)
				vars["MCP_RESOURCE_URI"], vars["MCP_RESOURCE_PROVIDER"] = x.URI, x.Provider
			}
		}
	}
	for _, c := range srv.reg.Completions() {
		if c.Name == name {
			p := c.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(srv.cfg.Dirs.Root, p)
			}
			return p, vars
		}
	}
	if file == "" {
		return "", vars
	}
	stem := strings.TrimSuffix(file, filepath.Ext(file))
	for _, cand := range []string{file + ".completion", file + ".completion.sh", stem + ".completion", stem + ".completion.sh"} {
		if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() {
			return cand, vars
		}
	}
	return "", vars
}

// relTo is p relative to dir with slashes ("" when p is not below dir).
func relTo(dir, p string) string {
	if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return ""
}

// completionMeta is how a completion script runs: its register.json entry's exec, sandbox and
// timeoutSecs, else <script>.meta.json; 10 s unless the entry sets a timeout.
func (srv *Server) completionMeta(script string) (scriptMeta, time.Duration, error) {
	timeout := 10 * time.Second
	for _, c := range srv.reg.Completions() {
		p := c.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(srv.cfg.Dirs.Root, p)
		}
		if p == script {
			if c.TimeoutSecs > 0 {
				timeout = time.Duration(c.TimeoutSecs) * time.Second
			}
			if c.Exec != "" || len(c.Sandbox) > 0 {
				return scriptMeta{Exec: c.Exec, Sandbox: c.Sandbox}, timeout, nil
			}
		}
	}
	m, err := readScriptMeta(script)
	if err != nil {
		return m, timeout, jsonrpc.NewError(jsonrpc.CodeInternalError, "Completion provider metadata is invalid", err.Error())
	}
	return m, timeout, nil
}

// runCompletion runs a completion script with the original's MCP_COMPLETION_* contract, in the
// engine its metadata and the operator choose (runScript). Output: a JSON array of strings, or
// {suggestions|values, hasMore, ...}.
func (srv *Server) runCompletion(ctx context.Context, script, name string, argsJSON []byte, argsHash string, limit, offset int, refVars map[string]string) ([]string, bool, error) {
	meta, timeout, err := srv.completionMeta(script)
	if err != nil {
		return nil, false, err
	}
	job := interp.Job{Call: &engine.Call{Tool: name, ToolPath: script, ToolDir: filepath.Dir(script), Args: argsJSON, Meta: json.RawMessage("{}")},
		Script: script, Dir: srv.cfg.Dirs.Root,
		Policy: sandbox.Policy{Roots: []sandbox.Root{{Path: srv.cfg.Dirs.Root, Mode: sandbox.ReadOnly}}, ToolDir: filepath.Dir(script),
			Limits: sandbox.Limits{Timeout: timeout, MaxStdoutBytes: 1 << 20}},
		ScratchBase: srv.cfg.Settings.TmpRoot, Cancelled: func() bool { return ctx.Err() != nil },
		Env: map[string]string{"MCP_COMPLETION_NAME": name, "MCP_COMPLETION_ARGS_JSON": string(argsJSON),
			"MCP_COMPLETION_LIMIT": strconv.Itoa(limit), "MCP_COMPLETION_OFFSET": strconv.Itoa(offset),
			"MCP_COMPLETION_ARGS_HASH": argsHash}}
	for k, v := range refVars {
		job.Env[k] = v
	}
	out, err := srv.runScript(ctx, meta, job)
	if err != nil {
		return nil, false, err
	}
	if out.ExitCode != 0 || out.TimedOut || out.Limit != engine.LimitNone {
		msg := strings.TrimSpace(string(out.Stderr))
		if msg == "" {
			msg = "Completion provider failed"
		}
		return nil, false, jsonrpc.NewError(jsonrpc.CodeInternalError, strings.SplitN(msg, "\n", 2)[0], nil)
	}
	trimmed := bytes.TrimSpace(out.Stdout)
	if len(trimmed) == 0 || !json.Valid(trimmed) {
		return nil, false, nil
	}
	var raw []json.RawMessage
	hasMore := false
	if trimmed[0] == '[' {
		_ = json.Unmarshal(trimmed, &raw)
	} else {
		var obj struct {
			Suggestions []json.RawMessage `json:"suggestions"`
			Values      []json.RawMessage `json:"values"`
			HasMore     bool              `json:"hasMore"`
		}
		_ = json.Unmarshal(trimmed, &obj)
		raw = obj.Suggestions
		if raw == nil {
			raw = obj.Values
		}
		hasMore = obj.HasMore
	}
	values := make([]string, 0, len(raw))
	for _, v := range raw {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, false, jsonrpc.NewError(jsonrpc.CodeInternalError, "Completion provider emitted invalid JSON", nil)
		}
		values = append(values, s)
	}
	if len(values) > limit {
		values, hasMore = values[:limit], true
	}
	return values, hasMore, nil
}
