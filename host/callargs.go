package host

// A call's arguments, _meta and timeout as tools/call and run-tool give them.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

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
		secs = int(srv.cfg.Settings.DefaultToolTimeout / time.Second)
	}
	if t.MaxTimeoutSecs > 0 && secs > t.MaxTimeoutSecs {
		secs = t.MaxTimeoutSecs
	}
	return time.Duration(secs) * time.Second
}

// callArguments are a call's arguments (a JSON object, compacted; absent or null is {}) and
// its _meta (an object, else {}). Arguments that are not a JSON object are a protocol error.
func callArguments(tc ToolCall) (args, meta json.RawMessage, err error) {
	a := bytes.TrimSpace(tc.Arguments)
	if len(a) == 0 || string(a) == "null" {
		a = []byte("{}")
	}
	if a[0] != '{' {
		return nil, nil, invalidParams("Invalid arguments JSON")
	}
	var buf bytes.Buffer
	if json.Compact(&buf, a) != nil {
		return nil, nil, invalidParams("Invalid arguments JSON")
	}
	if longestNumber(buf.Bytes()) > maxArgNumberChars {
		return nil, nil, invalidParams(fmt.Sprintf("Invalid arguments: a number longer than %d characters (send it as a string)", maxArgNumberChars))
	}
	meta = bytes.TrimSpace(tc.Meta)
	if len(meta) == 0 || meta[0] != '{' {
		meta = []byte("{}")
	}
	return buf.Bytes(), meta, nil
}

// maxArgNumberChars bounds a number in a call's arguments: schema validation reads numbers
// exactly (big.Rat), in time quadratic in their digits and without a check of the call's end
// (3 million digits: 10 s of the server's CPU per request).
const maxArgNumberChars = 10000

// longestNumber is the length of the longest number in compact, valid JSON (outside strings).
func longestNumber(js []byte) int {
	longest, run, inString := 0, 0, false
	for i := 0; i < len(js); i++ {
		c := js[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E':
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	return longest
}

// decodeArgs decodes a call's arguments (compact, valid JSON: callArguments) once, for their
// validation and for the SDK (engine.Call.ArgsValue): numbers as json.Number, with the order
// of objects' members.
func decodeArgs(args json.RawMessage) (any, jqorder.KeyOrder) {
	order := jqorder.KeyOrder{}
	return order.Decode(args, func(n json.Number) any { return n }), order
}

// checkArguments validates the decoded arguments against the tool's inputSchema; a violation
// (or a schema that does not compile) is an isError result, not a protocol error, as the
// original answers.
func (srv *Server) checkArguments(tool *registry.Tool, input *schemaPlan, args any, jr bool) *CallToolResult {
	name := tool.Name
	if v, err := input.validateValue(args); err != nil {
		return errorResult(name, fmt.Sprintf("Tool '%s' has an invalid inputSchema: %v", name, err), "invalid_schema", nil, jr)
	} else if len(v) > 0 {
		return errorResult(name, "Invalid arguments for tool '"+name+"':\n"+strings.Join(v, "\n"), "invalid_arguments",
			map[string]any{"violations": v}, jr)
	}
	return nil
}

// progressToken is _meta.progressToken (nil when absent or null).
func progressToken(meta json.RawMessage) json.RawMessage {
	if !mayHaveKey(meta, "progressToken") {
		return nil
	}
	var m struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	_ = json.Unmarshal(meta, &m)
	if len(m.ProgressToken) == 0 || string(m.ProgressToken) == "null" {
		return nil
	}
	return m.ProgressToken
}

// wantsAccessMeta: the result carries the access record under _meta["mcpbash/access"] when
// MCPBASH_ACCESS_META is on or the request's _meta asks for it.
func (srv *Server) wantsAccessMeta(meta json.RawMessage) bool {
	if !mayHaveKey(meta, "mcpbash/access") {
		return srv.cfg.Settings.AccessMeta
	}
	var m struct {
		Access bool `json:"mcpbash/access"`
	}
	_ = json.Unmarshal(meta, &m)
	return srv.cfg.Settings.AccessMeta || m.Access
}

// mayHaveKey reports whether raw JSON could hold key: false only when the key's text is absent
// and nothing is escaped (an escaped key decodes to the same name). It spares decoding _meta
// on every call that does not use it.
func mayHaveKey(raw json.RawMessage, key string) bool {
	return bytes.Contains(raw, []byte(key)) || bytes.IndexByte(raw, '\\') >= 0
}
