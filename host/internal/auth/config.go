package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Config is the authorization configuration of an HTTP server (server.d/auth.json; see
// docs/HOSTING.md). The remote token comes from the environment's settings (NewRemoteToken).
type Config struct {
	// Resource is this server's canonical URL (RFC 8707 / RFC 9728 resource), for example
	// https://mcp.example.com/mcp. Tokens must name it in their audience.
	Resource string `json:"resource"`
	// AuthorizationServers lists the issuers clients should get tokens from (RFC 9728);
	// default: the JWT issuer.
	AuthorizationServers []string `json:"authorizationServers,omitempty"`
	// ResourceName and ResourceDocumentation are optional RFC 9728 metadata.
	ResourceName          string `json:"resourceName,omitempty"`
	ResourceDocumentation string `json:"resourceDocumentation,omitempty"`

	JWT *JWTConfig `json:"jwt,omitempty"`
	// APIKeysFile lists static API keys (see LoadAPIKeys); relative to the config file.
	APIKeysFile string `json:"apiKeysFile,omitempty"`
	// RemoteTokenTenant is the tenant of a caller presenting MCPBASH_REMOTE_TOKEN (default
	// "default").
	RemoteTokenTenant string `json:"remoteTokenTenant,omitempty"`

	Scopes ScopePolicy `json:"scopes"`
}

// JWTConfig configures bearer JWT validation.
type JWTConfig struct {
	// Issuer must equal the token's iss exactly; it is also where keys are discovered.
	Issuer string `json:"issuer"`
	// JWKSURL is the issuer's key set; default: jwks_uri from the issuer's RFC 8414 or OpenID
	// metadata.
	JWKSURL string `json:"jwksUrl,omitempty"`
	// Audiences accepted besides Resource (for example a logical API identifier some
	// providers put in aud). Resource is always accepted.
	Audiences []string `json:"audiences,omitempty"`
	// Algorithms allowed (default RS256, ES256). Only asymmetric algorithms are accepted:
	// with a public key set, HS* would let anyone who can read the JWKS sign tokens.
	Algorithms []string `json:"algorithms,omitempty"`
	// LeewaySeconds tolerates clock skew on exp, nbf and iat (default 30, at most 300).
	LeewaySeconds *int `json:"leewaySeconds,omitempty"`
	// TenantClaim names the claim that holds the tenant id (default "sub").
	TenantClaim string `json:"tenantClaim,omitempty"`
	// MinRefreshSeconds is the least time between two fetches of the key set caused by an
	// unknown kid (default 30): a token with a made-up kid cannot make us hammer the issuer.
	MinRefreshSeconds int `json:"minRefreshSeconds,omitempty"`
	// MaxKeyAgeSeconds is how long a fetched key set is used before it is refreshed on next
	// use (default 3600); a failed refresh keeps the old keys.
	MaxKeyAgeSeconds int `json:"maxKeyAgeSeconds,omitempty"`
}

// Defaults for JWTConfig.
const (
	DefaultLeeway     = 30 * time.Second
	maxLeeway         = 5 * time.Minute
	DefaultMinRefresh = 30 * time.Second
	DefaultMaxKeyAge  = time.Hour
	DefaultTenant     = "default"
)

// allowedAlgorithms are the asymmetric JWS algorithms a configuration may name.
var allowedAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// ConfigError is a configuration problem; Field is the JSON path of the offending value.
type ConfigError struct {
	Path  string // file, when loaded from one
	Field string
	Msg   string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// LoadConfig reads and validates an auth configuration file. Unknown keys are errors: a
// misspelt "audiences" must not silently disable a check.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth config: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			ce.Path = path
			return nil, ce
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if cfg.APIKeysFile != "" && !strings.HasPrefix(cfg.APIKeysFile, "/") {
		cfg.APIKeysFile = joinDir(path, cfg.APIKeysFile)
	}
	return cfg, nil
}

func joinDir(file, rel string) string {
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		return file[:i+1] + rel
	}
	return rel
}

// ParseConfig decodes and validates a configuration document.
func ParseConfig(data []byte) (*Config, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var cfg Config
	if err := dec.Decode(&cfg); err != nil {
		return nil, &ConfigError{Msg: "invalid JSON: " + err.Error()}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &ConfigError{Msg: "trailing data after the configuration object"}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

func (c *Config) validate() error {
	// The resource URL is what tokens are bound to; without JWTs (API keys or the remote
	// token only) there is no OAuth flow to advertise, and it may be left out.
	if c.Resource != "" || c.JWT != nil {
		canon, err := CanonicalResource(c.Resource)
		if err != nil {
			return &ConfigError{Field: "resource", Msg: err.Error()}
		}
		c.Resource = canon
	}
	for i, s := range c.AuthorizationServers {
		if err := httpsURL(s); err != nil {
			return &ConfigError{Field: fmt.Sprintf("authorizationServers[%d]", i), Msg: err.Error()}
		}
	}
	if c.RemoteTokenTenant == "" {
		c.RemoteTokenTenant = DefaultTenant
	}
	if j := c.JWT; j != nil {
		if err := httpsURL(j.Issuer); err != nil {
			return &ConfigError{Field: "jwt.issuer", Msg: err.Error()}
		}
		if j.JWKSURL != "" {
			if err := httpsURL(j.JWKSURL); err != nil {
				return &ConfigError{Field: "jwt.jwksUrl", Msg: err.Error()}
			}
		}
		if len(j.Algorithms) == 0 {
			j.Algorithms = []string{string(jose.RS256), string(jose.ES256)}
		}
		for i, a := range j.Algorithms {
			if !slices.Contains(allowedAlgorithms, jose.SignatureAlgorithm(a)) {
				return &ConfigError{Field: fmt.Sprintf("jwt.algorithms[%d]", i),
					Msg: fmt.Sprintf("%q is not an allowed algorithm (asymmetric only: RS*, PS*, ES*, EdDSA)", a)}
			}
		}
		if j.LeewaySeconds != nil && (*j.LeewaySeconds < 0 || time.Duration(*j.LeewaySeconds)*time.Second > maxLeeway) {
			return &ConfigError{Field: "jwt.leewaySeconds", Msg: "must be between 0 and 300"}
		}
		if j.TenantClaim == "" {
			j.TenantClaim = "sub"
		}
		if j.MinRefreshSeconds < 0 || j.MaxKeyAgeSeconds < 0 {
			return &ConfigError{Field: "jwt", Msg: "minRefreshSeconds and maxKeyAgeSeconds must not be negative"}
		}
		if len(c.AuthorizationServers) == 0 {
			c.AuthorizationServers = []string{j.Issuer}
		}
	}
	return c.Scopes.validate()
}

func (j *JWTConfig) leeway() time.Duration {
	if j.LeewaySeconds == nil {
		return DefaultLeeway
	}
	return time.Duration(*j.LeewaySeconds) * time.Second
}

func secondsOr(n int, def time.Duration) time.Duration {
	if n <= 0 {
		return def
	}
	return time.Duration(n) * time.Second
}

// CanonicalResource normalises a server URL the way RFC 8707 and the MCP spec describe: an
// absolute http(s) URL, lowercase scheme and host, no default port, no fragment or query, no
// trailing slash (unless the path is only "/", which is dropped).
func CanonicalResource(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("required (this server's canonical URL, e.g. https://mcp.example.com/mcp)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("not a URL: %v", err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("%q: must be an absolute http(s) URL", raw)
	}
	if u.Host == "" || u.User != nil {
		return "", fmt.Errorf("%q: must have a host and no user info", raw)
	}
	if u.Fragment != "" || u.RawQuery != "" || u.ForceQuery {
		return "", fmt.Errorf("%q: must not have a query or fragment", raw)
	}
	host, port := u.Hostname(), u.Port()
	host = strings.ToLower(host)
	if (u.Scheme == "https" && port == "443") || (u.Scheme == "http" && port == "80") {
		port = ""
	}
	if port != "" {
		u.Host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		u.Host = "[" + host + "]"
	} else {
		u.Host = host
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u.String(), nil
}

// httpsURL checks an authorization-server URL: the MCP spec requires HTTPS for every
// authorization server endpoint.
func httpsURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q: must be an https URL", raw)
	}
	if u.Fragment != "" || u.RawQuery != "" {
		return fmt.Errorf("%q: must not have a query or fragment", raw)
	}
	return nil
}
