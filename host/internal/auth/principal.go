// Package auth authorizes HTTP requests to the MCP endpoint as an OAuth 2.1 resource server
// (MCP authorization, 2025-11-25): bearer JWTs verified against the issuer's JWKS, with the
// audience bound to this server's canonical URL (RFC 8707) and scopes required per method and
// tool; static API keys from a file; and the original framework's MCPBASH_REMOTE_TOKEN shared
// secret. A verified request carries a Principal in its context; the raw credential never
// leaves this package (the Authorization header is removed before the next handler runs).
//
// The package is a leaf: it imports nothing of host, which wires it in.
package auth

import (
	"context"
	"slices"
	"time"
)

// Method says how a principal proved itself.
type Method string

// Authentication methods.
const (
	MethodJWT         Method = "jwt"
	MethodAPIKey      Method = "api-key"
	MethodRemoteToken Method = "remote-token"
)

// Principal is a verified caller. It never holds the credential itself: nothing downstream
// (sessions, tools, logs) can pass a token on.
type Principal struct {
	// Tenant is the tenant id: the configured claim of a JWT (default sub), the tenant an API
	// key belongs to, or the remote token's tenant. The tenants package validates it.
	Tenant string
	// Subject identifies the caller within the tenant (a JWT's sub, "api-key:<name>", ...).
	Subject string
	// ClientID is the OAuth client the token was issued to (azp or client_id), when known.
	ClientID string
	// Scopes granted to the caller.
	Scopes []string
	Method Method
	// Expiry is when the credential stops being valid (zero: no expiry).
	Expiry time.Time
}

// HasScopes reports whether every scope in want was granted.
func (p *Principal) HasScopes(want []string) bool {
	for _, s := range want {
		if !slices.Contains(p.Scopes, s) {
			return false
		}
	}
	return true
}

// Missing returns the scopes in want that were not granted.
func (p *Principal) Missing(want []string) []string {
	var out []string
	for _, s := range want {
		if !slices.Contains(p.Scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the request's principal, or nil when the request was not authenticated
// (authorization disabled).
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}
