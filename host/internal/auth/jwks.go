package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// maxDocBytes bounds a fetched JWKS or metadata document.
const maxDocBytes = 1 << 20

// errNoKey means the key set has no key for a token's kid (after any refresh we were allowed).
var errNoKey = errors.New("no key in the issuer's key set matches the token's kid")

// keySet caches an issuer's JWKS. It is fetched on first use, refetched when a token names a
// kid it does not hold (the issuer rotated) but at most once per minRefresh, and refreshed on
// use once older than maxAge. A failed fetch keeps the keys already held.
type keySet struct {
	client     *http.Client
	issuer     string
	jwksURL    string // "" until discovered
	minRefresh time.Duration
	maxAge     time.Duration
	now        func() time.Time
	log        *slog.Logger

	mu          sync.Mutex
	keys        []jose.JSONWebKey
	fetchedAt   time.Time // last successful fetch
	attemptedAt time.Time // last fetch attempt, successful or not
	inflight    chan struct{}
	lastErr     error
}

// lookup returns the verification keys for kid ("" matches every key usable with alg).
func (ks *keySet) lookup(ctx context.Context, kid string, alg jose.SignatureAlgorithm) ([]jose.JSONWebKey, error) {
	for attempt := 0; ; attempt++ {
		ks.mu.Lock()
		have := ks.match(kid, alg)
		now := ks.now()
		stale := ks.fetchedAt.IsZero() || now.Sub(ks.fetchedAt) >= ks.maxAge
		// Refetch when we hold nothing for this kid or the set is stale, unless a fetch was
		// attempted too recently (rate limit; the first fetch is always allowed).
		mayFetch := ks.attemptedAt.IsZero() || now.Sub(ks.attemptedAt) >= ks.minRefresh
		wait := ks.inflight
		if (len(have) == 0 || stale) && attempt == 0 && (mayFetch || wait != nil) {
			if wait == nil {
				wait = make(chan struct{})
				ks.inflight = wait
				ks.attemptedAt = now
				ks.mu.Unlock()
				ks.refresh(ctx, wait)
			} else {
				ks.mu.Unlock()
				select {
				case <-wait:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			continue
		}
		lastErr, fetched := ks.lastErr, !ks.fetchedAt.IsZero()
		ks.mu.Unlock()
		if len(have) > 0 {
			return have, nil
		}
		if !fetched {
			return nil, fmt.Errorf("issuer key set unavailable: %w", lastErr)
		}
		return nil, errNoKey
	}
}

// match returns the held keys usable for kid and alg. Called with ks.mu held.
func (ks *keySet) match(kid string, alg jose.SignatureAlgorithm) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range ks.keys {
		if kid != "" && k.KeyID != kid {
			continue
		}
		if k.Algorithm != "" && k.Algorithm != string(alg) {
			continue // the issuer pinned this key to another algorithm
		}
		if !keyFitsAlg(k, alg) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// keyFitsAlg checks the key type against the algorithm family, so that no algorithm can be
// used with a key of another kind (RSA keys for RS*/PS*, EC for ES*, OKP for EdDSA).
func keyFitsAlg(k jose.JSONWebKey, alg jose.SignatureAlgorithm) bool {
	a := string(alg)
	switch kty := keyType(k); {
	case strings.HasPrefix(a, "RS"), strings.HasPrefix(a, "PS"):
		return kty == "RSA"
	case strings.HasPrefix(a, "ES"):
		return kty == "EC"
	case alg == jose.EdDSA:
		return kty == "OKP"
	}
	return false
}

func keyType(k jose.JSONWebKey) string {
	switch k.Key.(type) {
	case *rsa.PublicKey:
		return "RSA"
	case *ecdsa.PublicKey:
		return "EC"
	case ed25519.PublicKey:
		return "OKP"
	}
	return ""
}

// refresh fetches the key set (discovering its URL first when needed) and wakes the waiters.
func (ks *keySet) refresh(ctx context.Context, done chan struct{}) {
	// The fetch is shared by every waiter: it must not die with the first caller's request.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	keys, jwksURL, err := ks.fetch(fctx)
	ks.mu.Lock()
	defer ks.mu.Unlock()
	ks.inflight = nil
	close(done)
	if err != nil {
		ks.lastErr = err
		ks.log.Warn("auth: fetching the issuer's key set failed; keeping the keys held",
			"issuer", ks.issuer, "keys_held", len(ks.keys), "err", err)
		return
	}
	ks.jwksURL = jwksURL
	ks.keys = keys
	ks.fetchedAt = ks.now()
	ks.lastErr = nil
	ks.log.Info("auth: issuer key set loaded", "issuer", ks.issuer, "keys", len(keys))
}

func (ks *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, string, error) {
	ks.mu.Lock()
	jwksURL := ks.jwksURL
	ks.mu.Unlock()
	if jwksURL == "" {
		var err error
		if jwksURL, err = ks.discover(ctx); err != nil {
			return nil, "", err
		}
	}
	body, err := ks.get(ctx, jwksURL)
	if err != nil {
		return nil, "", err
	}
	keys, err := parseJWKS(body, func(msg string, args ...any) { ks.log.Warn(msg, args...) })
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", jwksURL, err)
	}
	return keys, jwksURL, nil
}

// parseJWKS reads a key set key by key: a key this server cannot use (an unknown kty, an
// encryption key, a private or symmetric key) is skipped with a warning instead of failing the
// set, so one exotic key at the issuer does not lock every caller out.
func parseJWKS(body []byte, warn func(string, ...any)) ([]jose.JSONWebKey, error) {
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("not a JWKS document: %w", err)
	}
	var keys []jose.JSONWebKey
	for i, raw := range doc.Keys {
		var k jose.JSONWebKey
		if err := k.UnmarshalJSON(raw); err != nil {
			warn("auth: skipping an unusable JWKS key", "index", i, "err", err)
			continue
		}
		switch {
		case k.Use != "" && k.Use != "sig":
			continue
		case !k.IsPublic():
			warn("auth: skipping a JWKS key that is not an asymmetric public key", "index", i, "kid", k.KeyID)
			continue
		case !k.Valid():
			warn("auth: skipping an invalid JWKS key", "index", i, "kid", k.KeyID)
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no usable signing keys")
	}
	return keys, nil
}

// discover finds jwks_uri from the issuer's metadata: RFC 8414 (path inserted after
// /.well-known/), then OpenID Connect Discovery (inserted, then appended), the order the MCP
// spec gives clients. The document's issuer must equal ours (RFC 8414 §3.3).
func (ks *keySet) discover(ctx context.Context) (string, error) {
	u, err := url.Parse(ks.issuer)
	if err != nil {
		return "", err
	}
	path := strings.TrimSuffix(u.Path, "/")
	base := u.Scheme + "://" + u.Host
	candidates := []string{
		base + "/.well-known/oauth-authorization-server" + path,
		base + "/.well-known/openid-configuration" + path,
	}
	if path != "" {
		candidates = append(candidates, base+path+"/.well-known/openid-configuration")
	}
	var errs []error
	for _, c := range candidates {
		body, err := ks.get(ctx, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var md struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &md); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c, err))
			continue
		}
		if md.Issuer != ks.issuer {
			errs = append(errs, fmt.Errorf("%s: issuer %q does not match the configured %q", c, md.Issuer, ks.issuer))
			continue
		}
		if err := httpsURL(md.JWKSURI); err != nil {
			errs = append(errs, fmt.Errorf("%s: jwks_uri %w", c, err))
			continue
		}
		return md.JWKSURI, nil
	}
	return "", fmt.Errorf("discovering the key set of %s: %w", ks.issuer, errors.Join(errs...))
}

func (ks *keySet) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := ks.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	if len(body) > maxDocBytes {
		return nil, fmt.Errorf("%s: document larger than %d bytes", u, maxDocBytes)
	}
	return body, nil
}

// loaded reports whether a key set has been fetched at least once (readiness).
func (ks *keySet) loaded() error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.fetchedAt.IsZero() {
		if ks.lastErr != nil {
			return ks.lastErr
		}
		return errors.New("issuer key set not fetched yet")
	}
	return nil
}
