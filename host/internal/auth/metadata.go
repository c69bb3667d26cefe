package auth

import (
	"encoding/json"
	"net/http"
	"net/url"
)

// WellKnownPath is the RFC 9728 well-known path of protected resource metadata.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// ResourceMetadata is the RFC 9728 protected resource metadata document.
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// Metadata returns the document served at the well-known paths ("" Resource: none is served).
func (a *Authenticator) Metadata() ResourceMetadata {
	return ResourceMetadata{
		Resource:               a.cfg.Resource,
		AuthorizationServers:   a.cfg.AuthorizationServers,
		ScopesSupported:        a.cfg.Scopes.Supported,
		BearerMethodsSupported: []string{"header"}, // never the query string or a form body
		ResourceName:           a.cfg.ResourceName,
		ResourceDocumentation:  a.cfg.ResourceDocumentation,
	}
}

// MetadataURL is the metadata URL named in challenges: the well-known path inserted before the
// resource's path (RFC 9728 §3.1), e.g. https://h/.well-known/oauth-protected-resource/mcp.
// It is "" when no resource is configured.
func (a *Authenticator) MetadataURL() string {
	u, err := url.Parse(a.cfg.Resource)
	if a.cfg.Resource == "" || err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + WellKnownPath + u.EscapedPath()
}

// MetadataPaths are the paths to route to MetadataHandler: the path-inserted one and the root
// one (the MCP spec has clients try both, in that order).
func (a *Authenticator) MetadataPaths() []string {
	u, err := url.Parse(a.cfg.Resource)
	if a.cfg.Resource == "" || err != nil {
		return nil
	}
	if p := u.EscapedPath(); p != "" {
		return []string{WellKnownPath + p, WellKnownPath}
	}
	return []string{WellKnownPath}
}

// MetadataHandler serves the metadata document (GET and HEAD, no authentication, readable from
// browsers: it is public by design).
func (a *Authenticator) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if a.cfg.Resource == "" {
			http.NotFound(w, r)
			return
		}
		body, err := json.Marshal(a.Metadata())
		if err != nil {
			http.Error(w, "metadata unavailable", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "public, max-age=300")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	})
}
