package host

// Questions a running tool asks the client (elicitation, sampling) and the downloads it asks the
// server for, over one clientRequester for both the session and the stateless paths.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// clientRequester asks the client something on a tool's behalf (elicitation/create,
// sampling/createMessage) and returns its raw answer. A session sends the request and waits for
// the answer; a stateless (2026-07-28) call ends its round with the question and finds the
// answer replayed when the client retries (roundTrip).
type clientRequester interface {
	request(ctx context.Context, method string, params any) (json.RawMessage, error)
}

func (s *Session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return s.Request(ctx, method, params)
}

// askThrough wires a call's elicitation and sampling to the client through req, in the shape of
// revision rev, for what caps say the client supports.
func (srv *Server) askThrough(tc *ToolCall, req clientRequester, rev string, caps *clientCaps) {
	tc.ElicitSupported = caps.Elicitation != nil && revisionHasElicitation(rev)
	tc.Elicit = func(ctx context.Context, r engine.ElicitRequest) (engine.ElicitResult, error) {
		return srv.elicit(ctx, req, rev, caps.Elicitation, r)
	}
	tc.SamplingSupported = caps.Sampling != nil
	tc.Sample = func(ctx context.Context, r engine.SamplingRequest) (json.RawMessage, error) {
		return srv.sample(ctx, req, caps.Sampling != nil, r)
	}
}

// revisionHasElicitation: the revisions before 2025-06-18 have no elicitation.
func revisionHasElicitation(rev string) bool { return rev != "2025-03-26" && rev != "2024-11-05" }

// elicit sends elicitation/create in the shape of revision rev and waits for the answer
// (bounded by the request's timeout, else MCPBASH_ELICITATION_TIMEOUT, default 30 s).
func (srv *Server) elicit(ctx context.Context, c clientRequester, rev string, caps *elicitCaps, req engine.ElicitRequest) (engine.ElicitResult, error) {
	params, ok := elicitParams(rev, caps, req)
	if !ok {
		return engine.ElicitResult{Action: "decline"}, nil
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = srv.cfg.Settings.ElicitationTimeout
	}
	ectx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := c.request(ectx, "elicitation/create", params)
	if err != nil {
		return engine.ElicitResult{}, err
	}
	var res engine.ElicitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return engine.ElicitResult{}, fmt.Errorf("malformed elicitation answer: %w", err)
	}
	return res, nil
}

// elicitParams shapes elicitation/create params for a revision, or reports false when the client
// cannot be asked (no elicitation capability, a revision without it, or url mode unsupported).
func elicitParams(rev string, caps *elicitCaps, req engine.ElicitRequest) (map[string]any, bool) {
	if caps == nil || !revisionHasElicitation(rev) {
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
func (srv *Server) sample(ctx context.Context, c clientRequester, supported bool, req engine.SamplingRequest) (json.RawMessage, error) {
	if !supported {
		return nil, errors.New("the client does not support sampling")
	}
	timeout := srv.cfg.Settings.SamplingTimeout
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return c.request(sctx, "sampling/createMessage", req)
}

// download is the SDK's mcp_download_safe: the https provider with the call's host lists
// narrowing (never widening) the server's.
func (srv *Server) download(ctx context.Context, req engine.DownloadRequest) ([]byte, error) {
	if srv.downloader == nil {
		return nil, &engine.DownloadError{Type: "unavailable", Message: "the https provider is not available in this build"}
	}
	return srv.downloader(ctx, req)
}
