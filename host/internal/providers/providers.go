// Package providers fetches remote resources for resources/read and the SDK's safe
// downloads: HTTPS with SSRF defences, and git (opt-in).
package providers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Errors every provider failure wraps, so callers can classify with errors.Is.
var (
	ErrInvalid  = errors.New("invalid uri")
	ErrDenied   = errors.New("denied")
	ErrNotFound = errors.New("not found")
	ErrFetch    = errors.New("fetch failed")
	ErrTooLarge = errors.New("too large")
)

// normalizeHost makes host names comparable: case-folded, no brackets, no trailing dot.
func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(h, ".")
}

// matchHost reports whether host matches pattern: exact, or "*.example.com" for any
// subdomain (not the apex, so the wildcard never silently widens to a sibling service).
func matchHost(pattern, host string) bool {
	pattern = normalizeHost(pattern)
	if pattern == "" {
		return false
	}
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return rest != "" && strings.HasSuffix(host, "."+rest) && len(host) > len(rest)+1
	}
	return host == pattern
}

func matchAny(patterns []string, host string) bool {
	for _, p := range patterns {
		if matchHost(p, host) {
			return true
		}
	}
	return false
}

// checkHost applies the host lists: deny wins; with an allowlist the host must be on it;
// without one the host passes only if allowAll. hint names the setting to fix a refusal.
func checkHost(host string, allow, deny []string, allowAll bool, hint string) error {
	host = normalizeHost(host)
	if matchAny(deny, host) {
		return fmt.Errorf("host %s is on the deny list: %w", host, ErrDenied)
	}
	if len(allow) > 0 {
		if !matchAny(allow, host) {
			return fmt.Errorf("host %s not allowed; add it to %s: %w", host, hint, ErrDenied)
		}
		return nil
	}
	if !allowAll {
		return fmt.Errorf("host not allowed; set %s: %w", hint, ErrDenied)
	}
	return nil
}

// validHostName rejects characters no DNS name has, and the legacy numeric IPv4 forms
// ("127.1", "2130706433", "0x7f.0.0.1") that some resolvers turn into addresses behind our
// back. The post-resolution address check would still catch them; this is belt and braces.
func validHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	numeric := true
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
		if !isNumericLabel(label) {
			numeric = false
		}
	}
	return !numeric
}

func isNumericLabel(l string) bool {
	l = strings.ToLower(l)
	if rest, ok := strings.CutPrefix(l, "0x"); ok {
		l = rest
		for _, c := range l {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	for _, c := range l {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Metadata endpoints get their own reason: they are the classic SSRF prize.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("fd00:ec2::254"),
}

// blockedPrefixes are ranges never reachable as public servers, beyond what the netip
// predicates cover (private, loopback, link-local, multicast, unspecified).
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT shared space
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("::/96"),           // deprecated IPv4-compatible
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001::/32"),       // Teredo: embeds an obfuscated IPv4 target
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// Prefixes that embed an IPv4 address; the embedded address is vetted too, so NAT64
// "64:ff9b::a00:1" or 6to4 "2002:a00:1::" cannot smuggle a private target (IPv4-mapped
// "::ffff:10.0.0.1" is unmapped first).
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// blockedReason says why a is not a public address, or "" when it may be contacted.
func blockedReason(a netip.Addr) string {
	a = a.WithZone("")
	if a.Is4In6() {
		if r := blockedReason(a.Unmap()); r != "" {
			return r + " (IPv4-mapped)"
		}
		return ""
	}
	for _, m := range metadataAddrs {
		if a == m {
			return "a cloud metadata address"
		}
	}
	switch {
	case !a.IsValid():
		return "not a valid address"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsLoopback():
		return "loopback"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast():
		return "link-local"
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return "reserved (" + p.String() + ")"
		}
	}
	if a.Is6() {
		b := a.As16()
		var embedded netip.Addr
		switch {
		case nat64Prefix.Contains(a):
			embedded = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixToFour.Contains(a):
			embedded = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
		}
		if embedded.IsValid() {
			if r := blockedReason(embedded); r != "" {
				return r + " (embedded IPv4)"
			}
		}
	}
	return ""
}

// resolver is the signature of the test-only resolve hooks.
type resolver func(ctx context.Context, host string) ([]netip.Addr, error)

func defaultResolve(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// vetHost resolves host once and returns its addresses only if every one is public: a
// name with any private answer is refused outright, since the caller cannot know which
// answer a later lookup would pick. IP literals are vetted without a lookup.
func vetHost(ctx context.Context, host string, resolve resolver) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		if r := blockedReason(ip); r != "" {
			return nil, fmt.Errorf("address %s is %s: %w", ip, r, ErrDenied)
		}
		return []netip.Addr{ip.Unmap()}, nil
	}
	if !validHostName(host) {
		return nil, fmt.Errorf("malformed host %q: %w", host, ErrInvalid)
	}
	if resolve == nil {
		resolve = defaultResolve
	}
	addrs, err := resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %v: %w", host, err, ErrFetch)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolve %s: no addresses: %w", host, ErrFetch)
	}
	var out []netip.Addr
	seen := map[netip.Addr]bool{}
	for _, a := range addrs {
		if r := blockedReason(a); r != "" {
			return nil, fmt.Errorf("host %s resolves to address %s, which is %s: %w", host, a, r, ErrDenied)
		}
		a = a.Unmap().WithZone("")
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}
