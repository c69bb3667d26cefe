package auth

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Options are the Authenticator's collaborators; zero values are production defaults.
type Options struct {
	// Client fetches the issuer's metadata and keys.
	Client *http.Client
	Now    func() time.Time
	Log    *slog.Logger
	// RemoteToken is the MCPBASH_REMOTE_TOKEN verifier (NewRemoteToken), nil when unset.
	RemoteToken *RemoteToken
	// APIKeys overrides loading cfg.APIKeysFile (tests).
	APIKeys *APIKeys
	// OnDecision is called once per request with the principal or the failure (metrics).
	OnDecision func(p *Principal, err *Error)
}

// Authenticator verifies requests with every configured method: JWT bearer tokens, API keys
// and the remote token.
type Authenticator struct {
	cfg      Config
	jwt      *JWTVerifier
	keys     *APIKeys
	remote   *RemoteToken
	log      *slog.Logger
	decision func(*Principal, *Error)
}

// New builds an Authenticator. It fails when nothing would authenticate a request: an HTTP
// server without credentials must be an explicit choice of the caller, not a typo.
func New(cfg Config, o Options) (*Authenticator, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	a := &Authenticator{cfg: cfg, remote: o.RemoteToken, keys: o.APIKeys, log: o.Log, decision: o.OnDecision}
	if a.decision == nil {
		a.decision = func(*Principal, *Error) {}
	}
	if a.keys == nil && cfg.APIKeysFile != "" {
		k, err := LoadAPIKeys(cfg.APIKeysFile)
		if err != nil {
			return nil, err
		}
		a.keys = k
	}
	if cfg.JWT != nil {
		v, err := NewJWTVerifier(*cfg.JWT, cfg.Resource, JWTOptions{Client: o.Client, Now: o.Now, Log: o.Log})
		if err != nil {
			return nil, err
		}
		a.jwt = v
	}
	if a.jwt == nil && a.keys == nil && a.remote == nil {
		return nil, &ConfigError{Msg: "no authentication method configured (jwt, apiKeysFile or MCPBASH_REMOTE_TOKEN)"}
	}
	return a, nil
}

// JWT returns the JWT verifier (nil when tokens are not configured), for Prefetch.
func (a *Authenticator) JWT() *JWTVerifier { return a.jwt }

// Ready reports whether the authenticator can verify tokens (the issuer's keys are loaded).
func (a *Authenticator) Ready() error {
	if a.jwt != nil {
		return a.jwt.Ready()
	}
	return nil
}

// Authenticate verifies the request's credential and returns its principal or an *Error.
// It does not check scopes beyond none (see Middleware and Authorize).
func (a *Authenticator) Authenticate(ctx context.Context, r *http.Request) (*Principal, error) {
	if r.URL != nil {
		if q, err := url.ParseQuery(r.URL.RawQuery); err == nil && q.Has("access_token") {
			return nil, fail(ReasonMalformed, "access tokens must be sent in the Authorization header, never in the URL", nil)
		}
	}
	hs := r.Header.Values("Authorization")
	switch {
	case len(hs) == 0:
		return nil, &Error{Reason: ReasonMissing, Description: "authorization required"}
	case len(hs) > 1:
		return nil, fail(ReasonMalformed, "more than one Authorization header", nil)
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(hs[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return nil, fail(ReasonMalformed, "the Authorization header must be \"Bearer <token>\"", nil)
	}
	return a.verify(ctx, token)
}

func (a *Authenticator) verify(ctx context.Context, token string) (*Principal, error) {
	if a.jwt != nil && LooksLikeJWT(token) {
		return a.jwt.Verify(ctx, token)
	}
	if a.keys != nil {
		if p := a.keys.Verify(token); p != nil {
			return p, nil
		}
	}
	if a.remote != nil {
		err := a.remote.Verify(token)
		switch {
		case err == nil:
			return &Principal{Tenant: a.cfg.RemoteTokenTenant, Subject: "remote-token", Method: MethodRemoteToken,
				Scopes: a.cfg.Scopes.everything()}, nil
		case errors.Is(err, ErrRemoteTokenThrottled):
			return nil, &Error{Reason: ReasonThrottled, Description: "too many invalid tokens; try again later",
				RetryAfter: a.remote.retryAfter(), Err: err}
		}
	}
	return nil, fail(ReasonInvalid, "invalid token", nil)
}

// Authorize checks p's scopes for one JSON-RPC call (method, and the tool name of a
// tools/call). The transport calls it for every call of a request, on the one decode of the
// body it dispatches: the middleware never reads the body, so no second reading of it can
// disagree with what runs.
func (a *Authenticator) Authorize(p *Principal, method, tool string) error {
	return a.cfg.Scopes.Check(p, method, tool)
}

// Middleware authenticates every request and checks the scopes every request needs
// (scopes.required). On success the next handler gets the Principal in the request context and
// no Authorization header; otherwise the client gets 401/403/400/503 with a WWW-Authenticate
// challenge that names the resource metadata. The scopes of methods and tools are the
// transport's to check, with Authorize.
func (a *Authenticator) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := a.Authenticate(r.Context(), r)
		if err == nil {
			err = a.cfg.Scopes.Check(p, "", "")
		}
		if err != nil {
			e := AsError(err)
			if e == nil {
				if r.Context().Err() != nil {
					return // the client went away
				}
				e = &Error{Reason: ReasonInvalid, Description: "invalid token", Err: err}
			}
			a.decision(nil, e)
			a.Deny(w, r, e)
			return
		}
		a.decision(p, nil)
		r2 := r.Clone(WithPrincipal(r.Context(), p))
		r2.Header.Del("Authorization")
		next.ServeHTTP(w, r2)
	})
}

// Deny writes the error response for e: status, WWW-Authenticate challenge (with
// resource_metadata and the scopes to ask for), Retry-After when it applies, and a small JSON
// body with the OAuth error code.
func (a *Authenticator) Deny(w http.ResponseWriter, r *http.Request, e *Error) {
	if len(e.Scopes) == 0 && e.Status() == http.StatusUnauthorized {
		e = &Error{Reason: e.Reason, Description: e.Description, Scopes: a.challengeScopes(), RetryAfter: e.RetryAfter, Err: e.Err}
	}
	h := w.Header()
	h.Set("WWW-Authenticate", e.challenge(a.MetadataURL()))
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "application/json")
	if e.RetryAfter > 0 {
		h.Set("Retry-After", retryAfterSeconds(e.RetryAfter))
	}
	w.WriteHeader(e.Status())
	body := map[string]string{}
	if code := e.oauthCode(); code != "" {
		body["error"] = code
	}
	if e.Description != "" {
		body["error_description"] = e.Description
	}
	_ = json.NewEncoder(w).Encode(body)
	lvl := slog.LevelWarn
	if e.Reason == ReasonMissing {
		lvl = slog.LevelDebug // the first step of every OAuth flow
	}
	a.log.Log(r.Context(), lvl, "auth: request refused", "reason", string(e.Reason), "status", e.Status(),
		"remote", r.RemoteAddr, "path", r.URL.Path, "err", errString(e.Err))
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// challengeScopes are the scopes advised in a 401: the required ones, else the supported ones.
func (a *Authenticator) challengeScopes() []string {
	if len(a.cfg.Scopes.Required) > 0 {
		return a.cfg.Scopes.Required
	}
	return a.cfg.Scopes.Supported
}
