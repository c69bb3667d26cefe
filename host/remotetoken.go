package host

// The original's remote token on stdio (MCPBASH_REMOTE_TOKEN; docs/COMPATIBILITY.md, "Remote
// token"): every request and notification carries the shared secret in params._meta, or is
// refused before anything else looks at it.

import (
	"bytes"
	"encoding/json"

	"github.com/mcp-bash/mcp-bash/host/internal/auth"
	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
)

// newRemoteToken is the verifier of the remote-token settings (nil when no token is set); a
// token shorter than 32 characters refuses to start.
func newRemoteToken(cfg Config) (*auth.RemoteToken, error) {
	set := cfg.Settings
	return auth.NewRemoteToken(set.RemoteToken, set.RemoteTokenKey, set.RemoteTokenFallbackKey, set.RemoteTokenMaxFailures)
}

// admit reports whether a message may be dispatched. With a remote token configured, a
// request or notification without the right token is refused: a request is answered -32602
// "Remote token missing or invalid" (the original's words), a notification is dropped. The
// comparison is constant-time; failures past MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN are
// answered as throttled. Responses carry no params: they answer requests this server sent,
// with ids only a session that got through has seen, and are matched by id (unknown ids are
// ignored).
func (srv *Server) admit(s *Session, m *jsonrpc.Message) bool {
	if srv.remote == nil || m.Kind() == jsonrpc.KindResponse {
		return true
	}
	err := srv.remote.Verify(srv.remote.FromParams(m.Params))
	if err == nil {
		return true
	}
	// Stderr only: an unauthenticated peer learns nothing beyond the answer.
	srv.logf("warning: remote token rejected (method %s)", m.Method)
	if m.Kind() == jsonrpc.KindRequest {
		s.sendError(m.ID, jsonrpc.NewError(jsonrpc.CodeInvalidParams, auth.WireMessage(err), nil))
	}
	return false
}

// withoutRemoteToken removes the token's _meta keys from a call's _meta, so that the secret
// never reaches a tool (MCP_TOOL_META_JSON) whatever its environment mode.
func (srv *Server) withoutRemoteToken(meta json.RawMessage) json.RawMessage {
	if srv.remote == nil || len(meta) == 0 {
		return meta
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return meta
	}
	found := false
	for _, k := range srv.remote.MetaKeys() {
		if _, ok := m[k]; ok {
			delete(m, k)
			found = true
		}
	}
	if !found {
		return meta
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(m) != nil {
		return json.RawMessage("{}")
	}
	return bytes.TrimSpace(buf.Bytes())
}
