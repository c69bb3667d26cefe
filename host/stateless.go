package host

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
)

// Protocol 2026-07-28 is stateless: there is no initialize handshake. Every request carries its
// protocol version, client capabilities and (optionally) log level in params._meta, and results
// carry resultType. Older revisions keep the initialize lifecycle in the same binary: a session
// that starts with initialize is a legacy session for its whole life, one that does not is served
// request by request from each request's _meta.

// StatelessVersion is the first (and newest) revision negotiated per request instead of by initialize.
const StatelessVersion = "2026-07-28"

// Reserved _meta keys of the stateless revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
	metaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Error codes added by 2026-07-28 (HeaderMismatchError, -32020, is HTTP-only and never sent on stdio).
const (
	codeMissingClientCapability    = -32021
	codeUnsupportedProtocolVersion = -32022
)

// Result types of 2026-07-28.
const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
)

// removedInStateless are methods the stateless revision dropped: their replacements are the
// per-request log level (logging/setLevel) and subscriptions/listen (resources/(un)subscribe).
var removedInStateless = map[string]bool{
	"logging/setLevel":      true,
	"resources/subscribe":   true,
	"resources/unsubscribe": true,
}

// cacheable lists the methods whose 2026-07-28 results are CacheableResults, with the cache
// scope this server gives them (docs/DECISIONS.md): lists and discovery describe the project,
// not a user; resource contents may be user data.
var cacheable = map[string]string{
	"server/discover":          "public",
	"tools/list":               "public",
	"prompts/list":             "public",
	"resources/list":           "public",
	"resources/templates/list": "public",
	"resources/read":           "private",
}

// reqInfo is what a stateless request declared in its _meta.
type reqInfo struct {
	version  string
	caps     clientCaps
	capsRaw  json.RawMessage
	logLevel Level
	logSet   bool // without a level the request gets no notifications/message at all
}

type reqInfoKey struct{}

func withReqInfo(ctx context.Context, ri *reqInfo) context.Context {
	return context.WithValue(ctx, reqInfoKey{}, ri)
}

// statelessInfo returns the stateless request ctx belongs to (nil in a legacy session).
func statelessInfo(ctx context.Context) *reqInfo {
	ri, _ := ctx.Value(reqInfoKey{}).(*reqInfo)
	return ri
}

// capsFor is the client capabilities in force for a request: its own in a stateless request
// (the spec forbids inferring them from earlier requests), else those of initialize.
func (s *Session) capsFor(ctx context.Context) *clientCaps {
	if ri := statelessInfo(ctx); ri != nil {
		return &ri.caps
	}
	return &s.client.caps
}

// logLevelFor reports the level at or above which a request's logs reach the client, and false
// when they must not be sent at all (a stateless request without a logLevel).
func (s *Session) logLevelFor(ctx context.Context) (Level, bool) {
	if ri := statelessInfo(ctx); ri != nil {
		return ri.logLevel, ri.logSet
	}
	return s.Level(), true
}

// allVersions is every revision this binary speaks, newest first.
func allVersions() []string { return append([]string{StatelessVersion}, supportedVersions...) }

func unsupportedVersion(requested, why string) *jsonrpc.Error {
	return jsonrpc.NewError(codeUnsupportedProtocolVersion, "Unsupported protocol version: "+why,
		map[string]any{"requested": requested, "supported": allVersions()})
}

// parseRequestMeta reads the stateless fields of a request made outside an initialized session.
// It returns nil (and no error) when the request does not claim a per-request protocol version,
// so that such requests get the legacy "not initialized" answer.
func parseRequestMeta(method string, params json.RawMessage) (*reqInfo, *jsonrpc.Error) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil || p.Meta == nil {
		return nil, nil
	}
	rawVersion, ok := p.Meta[metaProtocolVersion]
	if !ok {
		return nil, nil
	}
	ri := &reqInfo{}
	if json.Unmarshal(rawVersion, &ri.version) != nil || ri.version == "" {
		return nil, invalidParams("Invalid params: _meta " + metaProtocolVersion + " must be a non-empty string")
	}
	switch {
	case ri.version == StatelessVersion:
	case slices.Contains(supportedVersions, ri.version):
		return nil, unsupportedVersion(ri.version, ri.version+" is negotiated with initialize, not per request")
	default:
		return nil, unsupportedVersion(ri.version, ri.version+" is not supported")
	}
	caps, ok := p.Meta[metaClientCapabilities]
	if ok && (len(caps) == 0 || caps[0] != '{' || json.Unmarshal(caps, &ri.caps) != nil) {
		return nil, invalidParams("Invalid params: _meta " + metaClientCapabilities + " must be an object")
	}
	if !ok && method != "server/discover" {
		// Required on every request; discover is a probe and is answered without it.
		return nil, invalidParams("Invalid params: _meta " + metaClientCapabilities + " is required for protocol " + StatelessVersion)
	}
	ri.capsRaw = caps
	if raw, ok := p.Meta[metaLogLevel]; ok {
		var name string
		l, valid := LevelInfo, json.Unmarshal(raw, &name) == nil
		if valid {
			l, valid = ParseLevel(name)
		}
		if !valid {
			return nil, invalidParams("Invalid params: _meta " + metaLogLevel + " is not a log level")
		}
		ri.logLevel, ri.logSet = l, true
	}
	return ri, nil
}

// finishStateless adds what every 2026-07-28 result carries: resultType (complete unless the
// handler set one), the server's identity in _meta, and the cache hints of cacheable results.
func (srv *Server) finishStateless(method string, res any, private bool) (any, error) {
	// The typed results take the members directly.
	switch r := res.(type) {
	case *listResult:
		r.stateless = statelessFields{on: true, resultType: resultComplete, serverInfo: srv.statelessInfo}
		if scope, ok := cacheable[method]; ok {
			r.stateless.ttl, r.stateless.cacheScope = true, cacheScope(scope, private)
		}
		return r, nil
	case *CallToolResult:
		if _, ok := r.Extra["resultType"]; !ok {
			r.ResultType = resultComplete
		}
		if m := r.meta(); m[metaServerInfo] == nil {
			m[metaServerInfo] = srv.statelessInfo
		}
		return r, nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	m := map[string]json.RawMessage{}
	if string(b) != "null" {
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
	}
	if _, ok := m["resultType"]; !ok {
		m["resultType"] = json.RawMessage(`"` + resultComplete + `"`)
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	if _, ok := meta[metaServerInfo]; !ok {
		meta[metaServerInfo] = srv.statelessInfo
	}
	m["_meta"], _ = json.Marshal(meta)
	if scope, ok := cacheable[method]; ok && string(m["resultType"]) == `"`+resultComplete+`"` {
		if _, ok := m["ttlMs"]; !ok {
			// Lists and contents can change whenever project files do; announce changes through
			// subscriptions/listen instead of promising freshness.
			m["ttlMs"] = json.RawMessage("0")
		}
		if _, ok := m["cacheScope"]; !ok {
			m["cacheScope"], _ = json.Marshal(cacheScope(scope, private))
		}
	}
	return m, nil
}

// cacheScope is the cache scope of a cacheable result: private when the request's scope says
// its results are its own (a tenant's lists).
func cacheScope(scope string, private bool) string {
	if private {
		return "private"
	}
	return scope
}

// discover answers server/discover: the versions, capabilities and identity of this server. It is
// served in any lifecycle state, so that a client can probe before choosing initialize.
func (srv *Server) discover(ctx context.Context, s *Session, r *Request) (any, error) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := decodeParams(r.Params, &p); err != nil {
		return nil, err
	}
	caps := srv.capabilities(StatelessVersion)
	var offered clientCaps
	if ri := statelessInfo(ctx); ri != nil {
		offered = ri.caps
	}
	if ui, ok := offered.Extensions["io.modelcontextprotocol/ui"]; ok {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/ui": ui}
	}
	res := map[string]any{
		"supportedVersions": allVersions(),
		"capabilities":      caps,
	}
	if srv.cfg.Meta.Instructions != "" {
		res["instructions"] = srv.cfg.Meta.Instructions
	}
	return srv.finishStateless("server/discover", res, r.scope != nil && r.scope.private())
}

// statelessOnly are methods that exist only in 2026-07-28; a legacy session does not have them.
var statelessOnly = map[string]bool{
	"subscriptions/listen": true,
}
