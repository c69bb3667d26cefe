// Package authtest is an OAuth authorization server for tests: an in-process HTTPS server on
// loopback that publishes RFC 8414 and OpenID metadata and a JWKS, mints RS256 and ES256
// access tokens, rotates its keys, and forges the tokens an attacker would try. Nothing leaves
// the machine.
package authtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Issuer is a test authorization server.
type Issuer struct {
	Server *httptest.Server
	// URL is the issuer identifier (the server's https base URL).
	URL string

	mu      sync.Mutex
	keys    []*Key // published; keys[0] signs
	fetches atomic.Int64
	failing atomic.Bool
	seq     int
}

// Key is one signing key.
type Key struct {
	ID     string
	Alg    jose.SignatureAlgorithm
	signer crypto.Signer
}

// Public is the key's public half.
func (k *Key) Public() crypto.PublicKey { return k.signer.Public() }

// NewIssuer starts an issuer with one key of alg (RS256 or ES256); it stops with the test.
func NewIssuer(t testing.TB, alg jose.SignatureAlgorithm) *Issuer {
	t.Helper()
	iss := &Issuer{}
	mux := http.NewServeMux()
	meta := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer":                           iss.URL,
			"jwks_uri":                         iss.URL + "/jwks.json",
			"authorization_endpoint":           iss.URL + "/authorize",
			"token_endpoint":                   iss.URL + "/token",
			"code_challenge_methods_supported": []string{"S256"},
		})
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", meta)
	mux.HandleFunc("/.well-known/openid-configuration", meta)
	// Path-inserted forms (issuers with a path) answer too, always naming this issuer.
	mux.HandleFunc("/.well-known/oauth-authorization-server/", meta)
	mux.HandleFunc("/.well-known/openid-configuration/", meta)
	mux.HandleFunc("/jwks.json", func(w http.ResponseWriter, _ *http.Request) {
		iss.fetches.Add(1)
		if iss.failing.Load() {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(iss.JWKS())
	})
	iss.Server = httptest.NewTLSServer(mux)
	iss.URL = iss.Server.URL
	t.Cleanup(iss.Server.Close)
	iss.AddKey(t, alg)
	return iss
}

// Client trusts the issuer's certificate.
func (iss *Issuer) Client() *http.Client { return iss.Server.Client() }

// Fetches is how many times the JWKS was requested.
func (iss *Issuer) Fetches() int64 { return iss.fetches.Load() }

// SetFailing makes the JWKS endpoint answer 503 (an outage at the issuer).
func (iss *Issuer) SetFailing(v bool) { iss.failing.Store(v) }

// NewKey makes a key that is not published (for forgeries and later rotation).
func (iss *Issuer) NewKey(t testing.TB, alg jose.SignatureAlgorithm) *Key {
	t.Helper()
	iss.mu.Lock()
	iss.seq++
	id := fmt.Sprintf("key-%d", iss.seq)
	iss.mu.Unlock()
	var s crypto.Signer
	var err error
	switch alg {
	case jose.RS256:
		s, err = rsa.GenerateKey(rand.Reader, 2048)
	case jose.ES256:
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		t.Fatalf("authtest: unsupported algorithm %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &Key{ID: id, Alg: alg, signer: s}
}

// AddKey publishes a new key and makes it the signing key (the old ones stay published).
func (iss *Issuer) AddKey(t testing.TB, alg jose.SignatureAlgorithm) *Key {
	t.Helper()
	k := iss.NewKey(t, alg)
	iss.mu.Lock()
	iss.keys = append([]*Key{k}, iss.keys...)
	iss.mu.Unlock()
	return k
}

// Rotate publishes a new signing key and withdraws every older one.
func (iss *Issuer) Rotate(t testing.TB, alg jose.SignatureAlgorithm) *Key {
	t.Helper()
	k := iss.NewKey(t, alg)
	iss.mu.Lock()
	iss.keys = []*Key{k}
	iss.mu.Unlock()
	return k
}

// SigningKey is the current signing key.
func (iss *Issuer) SigningKey() *Key {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return iss.keys[0]
}

// JWKS is the published key set.
func (iss *Issuer) JWKS() jose.JSONWebKeySet {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	var set jose.JSONWebKeySet
	for _, k := range iss.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.Public(), KeyID: k.ID, Algorithm: string(k.Alg), Use: "sig"})
	}
	return set
}

// Claims builds a valid claim set for resource: iss, aud, sub, scope, iat, nbf, and exp one
// hour after now.
func (iss *Issuer) Claims(resource, sub string, now time.Time, scopes string) map[string]any {
	c := map[string]any{
		"iss": iss.URL, "aud": resource, "sub": sub, "client_id": "test-client",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
	if scopes != "" {
		c["scope"] = scopes
	}
	return c
}

// Mint signs claims with the current signing key.
func (iss *Issuer) Mint(t testing.TB, claims map[string]any) string {
	t.Helper()
	return Sign(t, iss.SigningKey(), claims)
}

// Sign signs claims with k (kid = k.ID).
func Sign(t testing.TB, k *Key, claims map[string]any) string {
	t.Helper()
	return SignWithHeader(t, k, map[string]any{"kid": k.ID}, claims)
}

// SignWithHeader signs claims with k and the extra header fields given (kid, typ, jwk, ...).
func SignWithHeader(t testing.TB, k *Key, header, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return SignPayload(t, k, header, payload)
}

// SignPayload signs a claims payload written by hand (a claim given twice, ...) with k.
func SignPayload(t testing.TB, k *Key, header map[string]any, payload []byte) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", k.ID)
	for name, v := range header {
		opts = opts.WithHeader(jose.HeaderKey(name), v)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.Alg, Key: k.signer}, opts)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func b64(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Unsigned is an "alg":"none" token (RFC 7519 §6), the oldest forgery.
func Unsigned(claims map[string]any, kid string) string {
	return b64(map[string]any{"alg": "none", "typ": "JWT", "kid": kid}) + "." + b64(claims) + "."
}

// HMACWithPublicKey signs claims with HS256 using the DER bytes of a published public key as
// the secret: the algorithm-confusion attack on verifiers that let the token pick the
// algorithm.
func HMACWithPublicKey(t testing.TB, k *Key, claims map[string]any) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	signing := b64(map[string]any{"alg": "HS256", "typ": "JWT", "kid": k.ID}) + "." + b64(claims)
	mac := hmac.New(sha256.New, der)
	mac.Write([]byte(signing))
	return signing + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}
