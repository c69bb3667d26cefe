package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

func TestParseRequestMeta(t *testing.T) {
	for _, tc := range []struct {
		name, method, params string
		want                 int  // expected error code, 0 for none
		stateless            bool // a reqInfo is returned
		logSet               bool
	}{
		{"no params", "tools/list", ``, 0, false, false},
		{"no _meta", "tools/list", `{"cursor":"x"}`, 0, false, false},
		{"_meta without version", "tools/list", `{"_meta":{"progressToken":1}}`, 0, false, false},
		{"params not an object", "tools/list", `[1,2]`, 0, false, false},
		{"stateless", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, 0, true, false},
		{"with level", "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/logLevel":"warning"}}`, 0, true, true},
		{"discover without caps", "server/discover", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, 0, true, false},
		{"missing caps", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, -32602, false, false},
		{"caps not object", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}`, -32602, false, false},
		{"caps null", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}`, -32602, false, false},
		{"empty version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":""}}`, -32602, false, false},
		{"numeric version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`, -32602, false, false},
		{"unknown version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2030-01-01","io.modelcontextprotocol/clientCapabilities":{}}}`, -32022, false, false},
		{"legacy version", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18","io.modelcontextprotocol/clientCapabilities":{}}}`, -32022, false, false},
		{"bad level", "tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":3}}`, -32602, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ri, err := parseRequestMeta(tc.method, json.RawMessage(tc.params))
			switch {
			case tc.want != 0 && (err == nil || err.Code != tc.want):
				t.Fatalf("want error %d, got %v", tc.want, err)
			case tc.want == 0 && err != nil:
				t.Fatalf("unexpected error %v", err)
			case (ri != nil) != tc.stateless:
				t.Fatalf("stateless = %v, want %v", ri != nil, tc.stateless)
			case ri != nil && ri.logSet != tc.logSet:
				t.Fatalf("logSet = %v", ri.logSet)
			}
			if tc.want == codeUnsupportedProtocolVersion {
				var d struct{ Supported []string }
				_ = json.Unmarshal(err.Data, &d)
				if len(d.Supported) != len(supportedVersions)+1 || d.Supported[0] != StatelessVersion {
					t.Errorf("supported %v", d.Supported)
				}
			}
		})
	}
}

func testServer(t *testing.T, opts ...ServerOption) *Server {
	t.Helper()
	cfg := Config{Dirs: registry.ResolveDirs(t.TempDir(), config.Dirs{}), Meta: registry.ServerMeta{Name: "test", Version: "1.0.0"}}
	srv, err := NewServer(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func TestFinishStateless(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		name, method string
		res          any
		want         []string // substrings of the JSON result
		not          []string
	}{
		{"empty", "ping", struct{}{}, []string{`"resultType":"complete"`, `"io.modelcontextprotocol/serverInfo":{"name":"test"`}, []string{"ttlMs"}},
		{"list", "tools/list", map[string]any{"tools": []any{}, "_meta": map[string]any{"mcpbash/total": 0}}, []string{`"ttlMs":0`, `"cacheScope":"public"`, `"mcpbash/total":0`}, nil},
		{"read is private", "resources/read", map[string]any{"contents": []any{}}, []string{`"cacheScope":"private"`}, nil},
		{"input required keeps its type", "tools/call", map[string]any{"resultType": "input_required", "requestState": "x"}, []string{`"resultType":"input_required"`}, []string{`"resultType":"complete"`, "ttlMs"}},
		{"nil", "completion/complete", nil, []string{`"resultType":"complete"`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := srv.finishStateless(tc.method, tc.res, false)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(out)
			for _, w := range tc.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s lacks %s", b, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(string(b), w) {
					t.Errorf("%s has %s", b, w)
				}
			}
		})
	}
}

func TestRequestState(t *testing.T) {
	srv := testServer(t)
	other := testServer(t)
	ri := &reqInfo{version: StatelessVersion}
	args := json.RawMessage(`{"a":1}`)
	tok := srv.signState(&mrtrState{Tool: "t", Args: argsDigest(args), Answers: []json.RawMessage{json.RawMessage(`{"action":"accept"}`)}, Pending: []string{"input-2"}})
	ok := map[string]json.RawMessage{"input-2": json.RawMessage(`{"action":"decline"}`)}
	tokA := srv.signState(&mrtrState{TenantID: "a", Subject: "u1", Tool: "t", Args: argsDigest(args), Pending: []string{"input-1"}})
	okA := map[string]json.RawMessage{"input-1": json.RawMessage(`{"action":"accept"}`)}
	expired := srv.signState(&mrtrState{TenantID: "a", Subject: "u1", Tool: "t", Args: argsDigest(args), Pending: []string{"input-1"}, Exp: time.Now().Add(-time.Second).Unix()})
	for _, tc := range []struct {
		name, tenant, subject, tool, token string
		args                               json.RawMessage
		responses                          map[string]json.RawMessage
		fail                               bool
		answers                            int
	}{
		{"fresh call", "", "", "t", "", args, nil, false, 0},
		{"valid retry", "", "", "t", tok, args, ok, false, 2},
		{"responses without state", "", "", "t", "", args, ok, true, 0},
		{"other tool", "", "", "u", tok, args, ok, true, 0},
		{"other arguments", "", "", "t", tok, json.RawMessage(`{"a":2}`), ok, true, 0},
		{"missing answer", "", "", "t", tok, args, map[string]json.RawMessage{}, true, 0},
		{"answer not an object", "", "", "t", tok, args, map[string]json.RawMessage{"input-2": json.RawMessage(`"yes"`)}, true, 0},
		{"garbage", "", "", "t", "abc", args, ok, true, 0},
		{"bad signature", "", "", "t", tok[:len(tok)-2] + "AA", args, ok, true, 0},
		{"another process's state", "", "", "t", other.signState(&mrtrState{Tool: "t", Args: argsDigest(args)}), args, nil, true, 0},
		{"tenant's own state", "a", "u1", "t", tokA, args, okA, false, 1},
		{"another user of the tenant", "a", "u2", "t", tokA, args, okA, true, 0},
		{"expired", "a", "u1", "t", expired, args, okA, true, 0},
		{"another tenant's state", "b", "u1", "t", tokA, args, okA, true, 0},
		{"tenant state outside hosting", "", "", "t", tokA, args, okA, true, 0},
		{"untenanted state in a tenant's call", "a", "u1", "t", tok, args, ok, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := srv.startRoundTrip(ri, tc.tenant, tc.subject, tc.tool, tc.args, tc.token, tc.responses)
			if (err != nil) != tc.fail {
				t.Fatalf("err = %v, want failure %v", err, tc.fail)
			}
			if err == nil && len(rt.state.Answers) != tc.answers {
				t.Errorf("answers %d, want %d", len(rt.state.Answers), tc.answers)
			}
		})
	}
	// A client with roots is asked for them before anything runs.
	rt, err := srv.startRoundTrip(&reqInfo{version: StatelessVersion, caps: clientCaps{Roots: &struct{}{}}}, "", "", "t", args, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ir := rt.inputRequired()
	if ir == nil || ir["resultType"] != resultInputRequired {
		t.Fatalf("no roots request: %v", ir)
	}
	// Answers are replayed in order; the first new question ends the round.
	rt, _ = srv.startRoundTrip(ri, "", "", "t", args, tok, ok)
	for i, want := range []string{`{"action":"accept"}`, `{"action":"decline"}`} {
		got, err := rt.ask("elicitation/create", nil)
		if err != nil || string(got) != want {
			t.Fatalf("answer %d: %s %v", i, got, err)
		}
	}
	if _, err := rt.ask("elicitation/create", map[string]any{"message": "more?"}); err != errNeedsInput {
		t.Fatalf("third question: %v", err)
	}
	ir = rt.inputRequired()
	reqs, _ := ir["inputRequests"].(map[string]any)
	if _, ok := reqs["input-3"]; !ok {
		t.Fatalf("input requests %v", ir)
	}
	if _, err := srv.openState(ir["requestState"].(string)); err != nil {
		t.Errorf("issued state does not open: %v", err)
	}
}
