package auth

import (
	"fmt"
	"slices"
	"sort"

	"github.com/mcp-bash/mcp-bash/host/internal/glob"
)

// ScopePolicy says which scopes a request needs: Required for every request, plus the
// scopes of its JSON-RPC method, plus, for tools/call, those of every tool pattern its tool
// name matches. Patterns use * (any run of characters) and ? (one character).
type ScopePolicy struct {
	// Supported is advertised as scopes_supported (RFC 9728): the scopes a client should ask
	// for by default. Default: every scope the policy mentions.
	Supported []string `json:"supported,omitempty"`
	// Required are needed by every request (advertised in the 401 challenge).
	Required []string            `json:"required,omitempty"`
	Methods  map[string][]string `json:"methods,omitempty"`
	Tools    map[string][]string `json:"tools,omitempty"`
}

func (p *ScopePolicy) validate() error {
	check := func(field string, scopes []string) error {
		for _, s := range scopes {
			if !validScope(s) {
				return &ConfigError{Field: field, Msg: fmt.Sprintf("%q is not a valid scope token (RFC 6749 §3.3)", s)}
			}
		}
		return nil
	}
	if err := check("scopes.supported", p.Supported); err != nil {
		return err
	}
	if err := check("scopes.required", p.Required); err != nil {
		return err
	}
	for m, s := range p.Methods {
		if err := check("scopes.methods."+m, s); err != nil {
			return err
		}
	}
	for pat, s := range p.Tools {
		if pat == "" {
			return &ConfigError{Field: "scopes.tools", Msg: "empty tool pattern"}
		}
		if err := check("scopes.tools."+pat, s); err != nil {
			return err
		}
	}
	if len(p.Supported) == 0 {
		p.Supported = p.all()
	}
	return nil
}

// validScope: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// all is every scope the policy mentions, sorted.
func (p *ScopePolicy) all() []string {
	set := map[string]bool{}
	add := func(ss []string) {
		for _, s := range ss {
			set[s] = true
		}
	}
	add(p.Required)
	for _, s := range p.Methods {
		add(s)
	}
	for _, s := range p.Tools {
		add(s)
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// everything is every scope the policy knows: the remote token is the operator's own secret
// and is granted all of them.
func (p *ScopePolicy) everything() []string {
	out := append(p.all(), p.Supported...)
	sort.Strings(out)
	return slices.Compact(out)
}

// For returns the scopes a call of method (and tool, for tools/call) needs, sorted and
// without repeats.
func (p *ScopePolicy) For(method, tool string) []string {
	var out []string
	out = append(out, p.Required...)
	out = append(out, p.Methods[method]...)
	if method == "tools/call" && tool != "" {
		for pat, s := range p.Tools {
			if glob.Match(pat, tool) {
				out = append(out, s...)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Check returns an insufficient_scope *Error when p lacks a scope the call needs. The error's
// Scopes are the granted scopes that matter plus the missing ones (the MCP spec's recommended
// approach: a client that re-authorizes with them keeps what it had).
func (p *ScopePolicy) Check(pr *Principal, method, tool string) error {
	need := p.For(method, tool)
	missing := pr.Missing(need)
	if len(missing) == 0 {
		return nil
	}
	desc := "scope " + missing[0] + " required"
	if len(missing) > 1 {
		desc = fmt.Sprintf("scopes %v required", missing)
	}
	if tool != "" {
		desc += " for tool " + tool
	} else if method != "" {
		desc += " for " + method
	}
	return &Error{Reason: ReasonInsufficientScope, Description: desc, Scopes: need}
}
