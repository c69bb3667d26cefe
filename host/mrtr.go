package host

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// Multi round-trip requests (2026-07-28). The server sends no requests of its own on stdio in
// that revision: when a tool needs the client (roots, elicitation, sampling), tools/call answers
// with an InputRequiredResult and the client retries the same call with the answers. The tool is
// re-run from the start on each round and its earlier questions are answered from the replayed
// answers, so nothing is kept on the server between rounds (docs/DECISIONS.md). The answers
// travel in requestState, which is signed with a per-process key so that a client cannot forge
// or transplant it onto another call.

// rootsInputKey names the roots/list input request; tool questions are "input-1", "input-2"...
const rootsInputKey = "roots"

// maxInputRounds bounds the questions one call may ask, so a tool that asks forever ends.
const maxInputRounds = 32

// mrtrState is what requestState carries between rounds.
type mrtrState struct {
	// Tenant and Subject bind the state to the principal it was issued to: another tenant's or
	// another user's call presenting it is refused like a forged one.
	TenantID string `json:"n,omitempty"`
	Subject  string `json:"s,omitempty"`
	// Exp is when the state stops being accepted (unix seconds; MCPBASH_STATE_TTL_SECS after
	// it was issued), so that a leaked one is not good forever.
	Exp     int64             `json:"e"`
	Tool    string            `json:"t"`
	Args    string            `json:"a"` // sha256 of the compacted arguments
	Roots   json.RawMessage   `json:"r,omitempty"`
	Answers []json.RawMessage `json:"x,omitempty"`
	Pending []string          `json:"p,omitempty"` // keys the last InputRequiredResult asked for
}

func argsDigest(args json.RawMessage) string {
	sum := sha256.Sum256(args)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// signState issues st: it expires MCPBASH_STATE_TTL_SECS from now unless it says otherwise.
func (srv *Server) signState(st *mrtrState) string {
	if st.Exp == 0 {
		st.Exp = time.Now().Add(srv.cfg.Settings.StateTTL).Unix()
	}
	b, _ := json.Marshal(st)
	mac := hmac.New(sha256.New, srv.stateKey[:])
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

var (
	errBadState     = invalidParams("Invalid requestState: it was not issued by this server for this tool call")
	errExpiredState = invalidParams("Invalid requestState: it has expired (MCPBASH_STATE_TTL_SECS); call the tool again without it")
)

func (srv *Server) openState(token string) (*mrtrState, error) {
	body, sig, ok := strings.Cut(token, ".")
	if !ok {
		return nil, errBadState
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, errBadState
	}
	mac := hmac.New(sha256.New, srv.stateKey[:])
	mac.Write(b)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return nil, errBadState
	}
	var st mrtrState
	if json.Unmarshal(b, &st) != nil {
		return nil, errBadState
	}
	return &st, nil
}

// roundTrip is one round of a stateless tools/call: the answers known so far and, once the tool
// asks something new, the question that ends the round.
type roundTrip struct {
	srv    *Server
	state  mrtrState
	cancel context.CancelFunc

	mu     sync.Mutex
	next   int
	asked  map[string]any // key → InputRequest, when the round ends with questions
	reason error
}

// startRoundTrip validates requestState and inputResponses against the call and returns the
// round, or an InputRequiredResult-worthy roots question when the client offers roots and has
// not answered them yet.
func (srv *Server) startRoundTrip(ri *reqInfo, tenant, subject, tool string, args json.RawMessage, token string, responses map[string]json.RawMessage) (*roundTrip, error) {
	rt := &roundTrip{srv: srv, state: mrtrState{TenantID: tenant, Subject: subject, Tool: tool, Args: argsDigest(args)}}
	if token != "" {
		st, err := srv.openState(token)
		if err != nil {
			return nil, err
		}
		if st.TenantID != tenant || st.Subject != subject || st.Tool != tool || st.Args != rt.state.Args || st.Exp == 0 {
			return nil, errBadState
		}
		// Checked after the binding: only the principal it was issued to learns it expired.
		if time.Now().Unix() > st.Exp {
			return nil, errExpiredState
		}
		st.Exp = 0 // the next round's state is issued afresh
		rt.state = *st
	} else if len(responses) > 0 {
		return nil, invalidParams("Invalid params: inputResponses without the requestState they answer")
	}
	for _, key := range rt.state.Pending {
		raw, ok := responses[key]
		if !ok || len(raw) == 0 || raw[0] != '{' {
			return nil, invalidParams(fmt.Sprintf("Invalid params: inputResponses has no result for %q", key))
		}
		if key == rootsInputKey {
			rt.state.Roots = raw
		} else {
			rt.state.Answers = append(rt.state.Answers, raw)
		}
	}
	rt.state.Pending = nil
	if ri.caps.Roots != nil && rt.state.Roots == nil {
		rt.asked = map[string]any{rootsInputKey: map[string]any{"method": "roots/list", "params": map[string]any{}}}
	}
	return rt, nil
}

// roots returns the client's roots from its roots/list answer (nil: use the fallback roots).
func (rt *roundTrip) roots() ([]engine.Root, bool) {
	if rt.state.Roots == nil {
		return nil, false
	}
	roots, offered, _ := rt.srv.parseRoots(rt.state.Roots)
	if !offered {
		return nil, false // an empty list offers no roots: the fallback applies
	}
	if roots == nil {
		roots = []engine.Root{}
	}
	return roots, true
}

var errNeedsInput = errors.New("the tool needs input from the client")

// request is the roundTrip's clientRequester: a question is answered from the replayed answers
// or ends the round (ctx plays no part: nothing is awaited).
func (rt *roundTrip) request(_ context.Context, method string, params any) (json.RawMessage, error) {
	return rt.ask(method, params)
}

// ask answers the tool's next question from the replayed answers, or records it as the question
// that ends this round and stops the run.
func (rt *roundTrip) ask(method string, params any) (json.RawMessage, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	i := rt.next
	rt.next++
	if i < len(rt.state.Answers) {
		return rt.state.Answers[i], nil
	}
	if i >= maxInputRounds {
		return nil, fmt.Errorf("a tool may ask the client at most %d times per call", maxInputRounds)
	}
	if rt.asked == nil {
		rt.asked = map[string]any{}
	}
	rt.asked["input-"+strconv.Itoa(i+1)] = map[string]any{"method": method, "params": params}
	rt.reason = errNeedsInput
	if rt.cancel != nil {
		rt.cancel()
	}
	return nil, errNeedsInput
}

// inputRequired is the round's InputRequiredResult, or nil when the tool asked nothing new.
func (rt *roundTrip) inputRequired() map[string]any {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if len(rt.asked) == 0 {
		return nil
	}
	st := rt.state
	st.Pending = nil
	for k := range rt.asked {
		st.Pending = append(st.Pending, k)
	}
	return map[string]any{
		"resultType":    resultInputRequired,
		"inputRequests": rt.asked,
		"requestState":  rt.srv.signState(&st),
	}
}

// statelessToolsCall is tools/call under 2026-07-28.
func (srv *Server) statelessToolsCall(ctx context.Context, s *Session, ri *reqInfo, tc ToolCall, p *callParams) (any, error) {
	var responses map[string]json.RawMessage
	if len(p.InputResponses) > 0 && string(p.InputResponses) != "null" {
		if err := json.Unmarshal(p.InputResponses, &responses); err != nil {
			return nil, invalidParams("Invalid params: inputResponses must be an object")
		}
	}
	args := p.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var compact bytes.Buffer
	if json.Compact(&compact, args) != nil {
		compact.Reset()
		compact.Write(args) // CallTool rejects it below with a clear error
	}
	rt, err := srv.startRoundTrip(ri, s.tenant, s.subject, tc.Name, compact.Bytes(), p.RequestState, responses)
	if err != nil {
		return nil, err
	}
	if res := rt.inputRequired(); res != nil {
		return res, nil // the roots come first: the sandbox is built from them
	}
	if roots, ok := rt.roots(); ok {
		tc.Roots, tc.clientRoots = func(context.Context) []engine.Root { return roots }, true
	} else {
		tc.Roots = nil
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rt.cancel = cancel
	srv.askThrough(&tc, rt, StatelessVersion, &ri.caps)
	tc.stateless = true
	res, err := answer(srv.CallTool(rctx, tc))
	if ir := rt.inputRequired(); ir != nil && ctx.Err() == nil {
		return ir, nil
	}
	return res, err
}
