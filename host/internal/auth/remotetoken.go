package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"sync"
	"time"
	"unicode/utf8"
)

// The original framework's shared secret (COMPAT §5, §6.1): MCPBASH_REMOTE_TOKEN, at least 32
// characters, presented on stdio in params._meta[MCPBASH_REMOTE_TOKEN_KEY] (default
// "mcpbash/remoteToken") or params._meta[MCPBASH_REMOTE_TOKEN_FALLBACK_KEY] (default
// "remoteToken"), and on HTTP as a bearer token. Failures are counted per minute: past
// MCPBASH_REMOTE_TOKEN_MAX_FAILURES_PER_MIN (default 10, 0 = no limit) they are reported as
// throttled. As in the original, the right token is always accepted, so a flood of bad guesses
// cannot lock the operator's own clients out; the secret's length is what defeats guessing.

// Typed results of RemoteToken.Verify; WireMessage gives the original's JSON-RPC text.
var (
	ErrRemoteTokenInvalid   = errors.New("remote token missing or invalid")
	ErrRemoteTokenThrottled = errors.New("remote token missing or invalid (throttled)")
)

// WireMessage is the -32602 message the original sends on stdio for a Verify error.
func WireMessage(err error) string {
	if errors.Is(err, ErrRemoteTokenThrottled) {
		return "Remote token missing or invalid (throttled)"
	}
	return "Remote token missing or invalid"
}

// ErrRemoteTokenWeak is returned at startup for a secret shorter than MinSecretChars.
var ErrRemoteTokenWeak = errors.New("MCPBASH_REMOTE_TOKEN must be at least 32 characters; refusing weak shared secret")

// RemoteToken verifies the shared secret. It is safe for concurrent use.
type RemoteToken struct {
	digest        [sha256.Size]byte
	key, fallback string
	maxFailures   int
	now           func() time.Time

	mu       sync.Mutex
	failures []time.Time // within the last minute, oldest first
}

// NewRemoteToken is the verifier of the remote-token settings (host/internal/config: the
// secret, the _meta key and fallback key it is presented under, the failures allowed per minute,
// 0 for no limit). It returns nil (and no error) when the secret is empty, and ErrRemoteTokenWeak
// when it is too short, so that the server refuses to start.
func NewRemoteToken(secret, key, fallback string, maxFailures int) (*RemoteToken, error) {
	if secret == "" {
		return nil, nil
	}
	if utf8.RuneCountInString(secret) < MinSecretChars {
		return nil, ErrRemoteTokenWeak
	}
	r := &RemoteToken{digest: sha256.Sum256([]byte(secret)), key: key, fallback: fallback, maxFailures: max(maxFailures, 0), now: time.Now}
	if r.key == "" {
		r.key = "mcpbash/remoteToken"
	}
	if r.fallback == "" {
		r.fallback = "remoteToken"
	}
	return r, nil
}

// Verify checks a presented token in constant time (digests of equal length are compared, so
// neither the content nor the length of the secret leaks). It returns nil,
// ErrRemoteTokenInvalid, or ErrRemoteTokenThrottled once this minute's failures reached the
// limit.
func (r *RemoteToken) Verify(presented string) error {
	d := sha256.Sum256([]byte(presented))
	ok := subtle.ConstantTimeCompare(d[:], r.digest[:]) == 1
	if ok && presented != "" {
		return nil
	}
	return r.failed()
}

// failed records a failure in the sliding one-minute window.
func (r *RemoteToken) failed() error {
	if r.maxFailures == 0 {
		return ErrRemoteTokenInvalid
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	keep := r.failures[:0]
	for _, t := range r.failures {
		if now.Sub(t) < time.Minute {
			keep = append(keep, t)
		}
	}
	r.failures = keep
	if len(r.failures) >= r.maxFailures {
		return ErrRemoteTokenThrottled
	}
	r.failures = append(r.failures, now)
	return ErrRemoteTokenInvalid
}

// retryAfter is when the oldest failure in the window leaves it.
func (r *RemoteToken) retryAfter() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.failures) == 0 {
		return time.Second
	}
	return max(time.Minute-r.now().Sub(r.failures[0]), time.Second)
}

// FromParams extracts the presented token from a JSON-RPC message's params._meta (stdio):
// the configured key, else the fallback key; "" when absent or not a string.
func (r *RemoteToken) FromParams(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	for _, k := range []string{r.key, r.fallback} {
		var s string
		if raw, ok := p.Meta[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// MetaKeys are the _meta keys the token is read from (for redaction in payload logs).
func (r *RemoteToken) MetaKeys() []string { return []string{r.key, r.fallback} }
