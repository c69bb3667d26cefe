package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// JWTVerifier validates bearer JWT access tokens (OAuth 2.1 §5.2, RFC 9068 claims): the
// signature with a key from the issuer's JWKS selected by kid, an allowed asymmetric
// algorithm, iss, aud containing this server's canonical URL (RFC 8707), exp/nbf/iat with
// leeway, and the tenant claim.
type JWTVerifier struct {
	cfg       JWTConfig
	resource  string
	audiences []string // canonical forms accepted in aud
	algs      []jose.SignatureAlgorithm
	keys      *keySet
	now       func() time.Time
}

// JWTOptions are the verifier's collaborators; zero values are production defaults.
type JWTOptions struct {
	// Client fetches metadata and keys (default: a client with a 10 s timeout).
	Client *http.Client
	// Now is the clock (tests move it; default time.Now).
	Now func() time.Time
	Log *slog.Logger
}

// NewJWTVerifier returns a verifier for cfg; resource is the server's canonical URL. Keys are
// fetched on first use (Prefetch fetches them ahead).
func NewJWTVerifier(cfg JWTConfig, resource string, o JWTOptions) (*JWTVerifier, error) {
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	canon, err := CanonicalResource(resource)
	if err != nil {
		return nil, &ConfigError{Field: "resource", Msg: err.Error()}
	}
	v := &JWTVerifier{cfg: cfg, resource: canon, audiences: []string{canon}, now: o.Now}
	for _, a := range cfg.Audiences {
		v.audiences = append(v.audiences, normalizeAudience(a))
	}
	for _, a := range cfg.Algorithms {
		v.algs = append(v.algs, jose.SignatureAlgorithm(a))
	}
	if len(v.algs) == 0 {
		v.algs = []jose.SignatureAlgorithm{jose.RS256, jose.ES256}
	}
	if cfg.TenantClaim == "" {
		v.cfg.TenantClaim = "sub"
	}
	v.keys = &keySet{
		client:     o.Client,
		issuer:     cfg.Issuer,
		jwksURL:    cfg.JWKSURL,
		minRefresh: secondsOr(cfg.MinRefreshSeconds, DefaultMinRefresh),
		maxAge:     secondsOr(cfg.MaxKeyAgeSeconds, DefaultMaxKeyAge),
		now:        o.Now,
		log:        o.Log,
	}
	return v, nil
}

// Prefetch loads the issuer's key set now (for example at startup, so that readiness can wait
// for it).
func (v *JWTVerifier) Prefetch(ctx context.Context) error {
	_, err := v.keys.lookup(ctx, "", v.algs[0])
	if errors.Is(err, errNoKey) {
		return nil // keys were fetched, none for this algorithm in particular
	}
	return err
}

// Ready reports whether keys have been fetched at least once.
func (v *JWTVerifier) Ready() error { return v.keys.loaded() }

// LooksLikeJWT reports whether a bearer value has the compact JWS shape (three base64url
// parts), so that opaque API keys are never parsed as tokens.
func LooksLikeJWT(s string) bool {
	if strings.Count(s, ".") != 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '.' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// accessClaims are the claims read besides the registered ones.
type accessClaims struct {
	Scope    json.RawMessage `json:"scope"` // space-separated string (RFC 8693, RFC 9068)
	Scp      json.RawMessage `json:"scp"`   // array or string (some providers)
	ClientID string          `json:"client_id"`
	AZP      string          `json:"azp"`
}

// Verify validates a token and returns its principal, or an *Error.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*Principal, error) {
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		// An algorithm outside the list (none, HS256, ...) fails here, before any key is used.
		if hdrAlg := headerAlg(token); hdrAlg != "" && !v.algAllowed(hdrAlg) {
			return nil, fail(ReasonAlgorithm, "signing algorithm "+quoteSafe(hdrAlg)+" is not accepted", err)
		}
		return nil, fail(ReasonInvalid, "malformed token", err)
	}
	if len(tok.Headers) != 1 {
		return nil, fail(ReasonInvalid, "token must have exactly one signature", nil)
	}
	h := tok.Headers[0]
	alg := jose.SignatureAlgorithm(h.Algorithm)
	if !v.algAllowed(h.Algorithm) {
		return nil, fail(ReasonAlgorithm, "signing algorithm "+quoteSafe(h.Algorithm)+" is not accepted", nil)
	}
	// Keys come only from the issuer's JWKS: embedded jwk, jku and x5c headers are ignored,
	// or anyone could sign with a key of their own.
	keys, err := v.keys.lookup(ctx, h.KeyID, alg)
	if err != nil {
		if errors.Is(err, errNoKey) {
			return nil, fail(ReasonUnknownKey, "token signed with a key the issuer does not publish", err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Reason: ReasonKeysUnavailable, Description: "the authorization server's keys are unavailable",
			RetryAfter: v.keys.minRefresh, Err: err}
	}
	// The signature first, then the claims: a signed token whose claims do not decode (a
	// claim given twice, a claim of the wrong type) is refused for that, not for its
	// signature.
	var key any
	for _, k := range keys {
		if tok.Claims(k.Key) == nil {
			key = k.Key
			break
		}
	}
	if key == nil {
		return nil, fail(ReasonSignature, "signature does not verify", nil)
	}
	var std jwt.Claims
	var extra accessClaims
	var all map[string]any
	if err := tok.Claims(key, &std, &extra, &all); err != nil {
		return nil, fail(ReasonClaims, "the token's claims are malformed (a claim given twice, or of the wrong type)", err)
	}
	if err := v.checkClaims(std); err != nil {
		return nil, err
	}
	tenant, ok := all[v.cfg.TenantClaim].(string)
	if !ok || tenant == "" {
		return nil, fail(ReasonClaims, "token has no string claim "+quoteSafe(v.cfg.TenantClaim)+" naming the tenant", nil)
	}
	p := &Principal{Tenant: tenant, Subject: std.Subject, Method: MethodJWT, ClientID: extra.AZP}
	if p.ClientID == "" {
		p.ClientID = extra.ClientID
	}
	if std.Expiry != nil {
		p.Expiry = std.Expiry.Time()
	}
	if p.Scopes, err = scopesOf(extra); err != nil {
		return nil, fail(ReasonClaims, err.Error(), nil)
	}
	return p, nil
}

func (v *JWTVerifier) algAllowed(a string) bool {
	for _, x := range v.algs {
		if string(x) == a {
			return true
		}
	}
	return false
}

// checkClaims validates the registered claims. exp is required: an access token that never
// expires cannot be revoked by waiting.
func (v *JWTVerifier) checkClaims(c jwt.Claims) error {
	if c.Issuer != v.cfg.Issuer {
		return fail(ReasonIssuer, "token was not issued by the configured authorization server", nil)
	}
	if !v.audienceOK(c.Audience) {
		return fail(ReasonAudience, "token was not issued for this resource ("+v.resource+")", nil)
	}
	if c.Expiry == nil {
		return fail(ReasonClaims, "token has no exp claim", nil)
	}
	err := c.ValidateWithLeeway(jwt.Expected{Time: v.now()}, v.cfg.leeway())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jwt.ErrExpired):
		return fail(ReasonExpired, "token expired", nil)
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return fail(ReasonNotYetValid, "token is not valid yet", nil)
	}
	return fail(ReasonClaims, "invalid registered claims", err)
}

func (v *JWTVerifier) audienceOK(aud jwt.Audience) bool {
	for _, a := range aud {
		n := normalizeAudience(a)
		for _, want := range v.audiences {
			if n == want {
				return true
			}
		}
	}
	return false
}

// normalizeAudience puts URL audiences in canonical form (the MCP spec asks servers to accept
// uppercase scheme and host); other values are compared as they are.
func normalizeAudience(a string) string {
	if c, err := CanonicalResource(a); err == nil {
		return c
	}
	return a
}

func scopesOf(c accessClaims) ([]string, error) {
	var out []string
	for _, raw := range []json.RawMessage{c.Scope, c.Scp} {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out = append(out, strings.Fields(s)...)
			continue
		}
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, errors.New("scope claim must be a string or an array of strings")
		}
		out = append(out, list...)
	}
	return out, nil
}

// headerAlg reads the alg of a compact token's header without trusting it (for the error
// message only).
func headerAlg(token string) string {
	i := strings.IndexByte(token, '.')
	if i <= 0 {
		return ""
	}
	raw, err := base64.RawURLEncoding.DecodeString(token[:i])
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(raw, &h) != nil {
		return ""
	}
	return h.Alg
}
