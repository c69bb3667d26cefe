package auth

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Reason classifies an authorization failure, for the response, logs and metrics. Reasons
// name what failed, never the credential.
type Reason string

// Failure reasons.
const (
	ReasonMissing           Reason = "missing"            // no credential presented
	ReasonMalformed         Reason = "malformed"          // Authorization header unusable
	ReasonInvalid           Reason = "invalid"            // no verifier accepts the credential
	ReasonExpired           Reason = "expired"            // exp in the past (after leeway)
	ReasonNotYetValid       Reason = "not_yet_valid"      // nbf or iat in the future
	ReasonAudience          Reason = "audience"           // not issued for this server
	ReasonIssuer            Reason = "issuer"             // not issued by the configured issuer
	ReasonSignature         Reason = "signature"          // signature does not verify
	ReasonAlgorithm         Reason = "algorithm"          // alg not allowed (none, HS*, unknown)
	ReasonUnknownKey        Reason = "unknown_key"        // kid not in the issuer's JWKS
	ReasonClaims            Reason = "claims"             // a required claim is missing or malformed
	ReasonThrottled         Reason = "throttled"          // remote token: too many failures this minute
	ReasonKeysUnavailable   Reason = "keys_unavailable"   // the issuer's JWKS cannot be fetched
	ReasonInsufficientScope Reason = "insufficient_scope" // valid credential, scope missing
)

// Error is an authorization failure. Its fields are safe to show the client.
type Error struct {
	Reason Reason
	// Description is the human-readable error_description (never contains the credential).
	Description string
	// Scopes are the scopes needed (insufficient_scope) or advised (missing credential).
	Scopes []string
	// RetryAfter is set when retrying sooner is pointless (throttled, keys unavailable).
	RetryAfter time.Duration
	// Err is the underlying cause, for logs.
	Err error
}

func (e *Error) Error() string {
	msg := "auth: " + string(e.Reason)
	if e.Description != "" {
		msg += ": " + e.Description
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

func fail(r Reason, desc string, cause error) *Error {
	return &Error{Reason: r, Description: desc, Err: cause}
}

// Status is the HTTP status for the failure: 401 for a missing or invalid credential (the MCP
// spec requires 401 for invalid or expired tokens), 403 for missing scope, 400 for a malformed
// request, 503 when the issuer's keys cannot be had (not the client's fault).
func (e *Error) Status() int {
	switch e.Reason {
	case ReasonInsufficientScope:
		return http.StatusForbidden
	case ReasonMalformed:
		return http.StatusBadRequest
	case ReasonKeysUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusUnauthorized
}

// oauthCode is the RFC 6750 error code ("" when none applies: a request without credentials
// gets a bare challenge, RFC 6750 §3.1).
func (e *Error) oauthCode() string {
	switch e.Reason {
	case ReasonMissing, ReasonKeysUnavailable:
		return ""
	case ReasonMalformed:
		return "invalid_request"
	case ReasonInsufficientScope:
		return "insufficient_scope"
	}
	return "invalid_token"
}

// challenge builds the WWW-Authenticate value (RFC 6750 §3, RFC 9728 §5.1).
func (e *Error) challenge(metadataURL string) string {
	var parts []string
	if code := e.oauthCode(); code != "" {
		parts = append(parts, `error="`+code+`"`)
	}
	if e.Description != "" && e.Reason != ReasonMissing {
		parts = append(parts, `error_description="`+quoteSafe(e.Description)+`"`)
	}
	if len(e.Scopes) > 0 {
		parts = append(parts, `scope="`+quoteSafe(strings.Join(e.Scopes, " "))+`"`)
	}
	if metadataURL != "" {
		parts = append(parts, `resource_metadata="`+quoteSafe(metadataURL)+`"`)
	}
	if len(parts) == 0 {
		return "Bearer"
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// quoteSafe keeps a quoted-string value to the characters RFC 6750 allows in error_description
// and scope (%x20-21 / %x23-5B / %x5D-7E): no quote, backslash or control character.
func quoteSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			r = '_'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func retryAfterSeconds(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	return strconv.Itoa(max(s, 1))
}

// AsError returns err as an *Error (nil when it is not one).
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
