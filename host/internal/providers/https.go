package providers

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
)

// HTTPS limits: defaults when unset, caps that configuration cannot exceed.
const (
	DefaultHTTPSTimeout  = 10 * time.Second
	MaxHTTPSTimeout      = 60 * time.Second
	DefaultHTTPSMaxBytes = 10 << 20
	MaxHTTPSMaxBytes     = 20_000_000
)

// HTTPS fetches https:// URLs from allowed public hosts. The zero value refuses every host.
type HTTPS struct {
	AllowHosts, DenyHosts []string      // host patterns: exact "example.com" or "*.example.com"; deny wins
	AllowAll              bool          // allow any public host when no allowlist is given
	Timeout               time.Duration // default 10s, capped at 60s
	MaxBytes              int64         // default 10 MiB, capped at 20 MB

	// Test-only hooks; nil in production.
	dial    func(ctx context.Context, network, addr string) (net.Conn, error) // replaces the final dial of the vetted address
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)      // replaces net.DefaultResolver
	rootCAs *x509.CertPool                                                    // replaces the system roots
}

// NewHTTPS is the https provider with the MCPBASH_HTTPS_* settings; limits come back with
// defaults and caps applied so callers see the effective values. getenv is read only by test
// builds (-tags mcpbash_testhooks).
func NewHTTPS(c config.HTTPS, getenv func(string) string) HTTPS {
	h := HTTPS{AllowHosts: c.AllowHosts, DenyHosts: c.DenyHosts, AllowAll: c.AllowAll, MaxBytes: c.MaxBytes, Timeout: c.Timeout}
	applyTestHooks(&h, getenv)
	return h.withDefaults()
}

// withDefaults fills unset limits and enforces the caps.
func (h HTTPS) withDefaults() HTTPS {
	if h.Timeout <= 0 {
		h.Timeout = DefaultHTTPSTimeout
	}
	h.Timeout = min(h.Timeout, MaxHTTPSTimeout)
	if h.MaxBytes <= 0 {
		h.MaxBytes = DefaultHTTPSMaxBytes
	}
	h.MaxBytes = min(h.MaxBytes, MaxHTTPSMaxBytes)
	return h
}

// errRedirect is returned by CheckRedirect: a redirect could point at an internal host
// that never went through the allowlist or the address check.
var errRedirect = errors.New("redirects are not followed")

// Fetch GETs rawURL and returns the body and its Content-Type.
func (h HTTPS) Fetch(ctx context.Context, rawURL string) (body []byte, contentType string, err error) {
	h = h.withDefaults()
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", fmt.Errorf("malformed url: %w", ErrInvalid)
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return nil, "", fmt.Errorf("only https URLs are fetched, not %q: %w", u.Scheme, ErrInvalid)
	}
	if u.User != nil {
		return nil, "", fmt.Errorf("credentials in the URL are not allowed: %w", ErrInvalid)
	}
	host := strings.ToLower(u.Hostname())
	if u.Opaque != "" || host == "" {
		return nil, "", fmt.Errorf("url has no host: %w", ErrInvalid)
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	portNum, err := strconv.ParseUint(port, 10, 16)
	if err != nil || portNum == 0 {
		return nil, "", fmt.Errorf("bad port %q: %w", port, ErrInvalid)
	}
	if err := checkHost(host, h.AllowHosts, h.DenyHosts, h.AllowAll, "MCPBASH_HTTPS_ALLOW_HOSTS"); err != nil {
		return nil, "", err
	}

	// One deadline covers resolution, dial, TLS, headers and body.
	ctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	addrs, err := vetHost(ctx, host, h.resolve)
	if err != nil {
		return nil, "", err
	}

	tr := h.transport(addrs, uint16(portNum), host)
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return errRedirect },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("build request: %v: %w", err, ErrInvalid)
	}
	req.Header.Set("User-Agent", "mcp-bash")
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", h.transportErr(ctx, err)
	}
	defer resp.Body.Close()

	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, "", fmt.Errorf("%s: HTTP %s: %w", host, resp.Status, ErrNotFound)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, "", fmt.Errorf("%s: HTTP %s: %w", host, resp.Status, ErrFetch)
	}
	// Refuse early when the server announces an oversized body; the LimitReader below is
	// what actually bounds memory (chunked bodies, lying or absent Content-Length).
	if resp.ContentLength > h.MaxBytes {
		return nil, "", fmt.Errorf("response Content-Length %d exceeds the %d-byte limit: %w", resp.ContentLength, h.MaxBytes, ErrTooLarge)
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, h.MaxBytes+1))
	if err == nil && ctx.Err() != nil {
		// net/http can report a clean EOF for a body cut short by cancellation (seen with
		// Go 1.26), so a body that finished after the deadline is treated as truncated.
		err = ctx.Err()
	}
	if err != nil {
		return nil, "", h.transportErr(ctx, err)
	}
	if int64(len(body)) > h.MaxBytes {
		return nil, "", fmt.Errorf("body exceeds the %d-byte limit: %w", h.MaxBytes, ErrTooLarge)
	}
	return body, resp.Header.Get("Content-Type"), nil
}

// transport builds a one-shot transport whose every connection goes to a vetted address,
// whatever the request's host resolves to by then (DNS rebinding), and never via a proxy
// (a proxy would make its own, unvetted, lookup). TLS still verifies the original name.
func (h HTTPS) transport(addrs []netip.Addr, port uint16, host string) *http.Transport {
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            h.pinnedDial(addrs, port),
		TLSClientConfig:        &tls.Config{ServerName: host, RootCAs: h.rootCAs, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:      true, // a custom DialContext otherwise turns HTTP/2 off
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: 64 << 10,
	}
}

// pinnedDial ignores the address the transport asks for and tries the vetted ones in order.
func (h HTTPS) pinnedDial(addrs []netip.Addr, port uint16) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		dial := h.dial
		if dial == nil {
			dial = (&net.Dialer{Control: controlPublic}).DialContext
		}
		var first error
		for _, a := range addrs {
			c, err := dial(ctx, "tcp", netip.AddrPortFrom(a, port).String())
			if err == nil {
				return c, nil
			}
			if first == nil {
				first = err
			}
		}
		return nil, first
	}
}

// controlPublic re-checks the address at connect time, so nothing but a vetted public
// address is ever connected to even if the pinning above were bypassed.
func controlPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("unexpected dial address %q: %w", address, ErrDenied)
	}
	if r := blockedReason(ap.Addr()); r != "" {
		return fmt.Errorf("address %s is %s: %w", ap.Addr(), r, ErrDenied)
	}
	return nil
}

// transportErr classifies a failed round trip or body read. The *url.Error wrapper is
// dropped: it repeats the whole URL, query string included.
func (h HTTPS) transportErr(ctx context.Context, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case errors.Is(err, errRedirect):
		return fmt.Errorf("redirects are not followed: %w", ErrDenied)
	case errors.Is(err, ErrDenied):
		return err
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("timed out (limit %s): %w", h.Timeout, ErrFetch)
	case ctx.Err() != nil:
		return fmt.Errorf("%v: %w", ctx.Err(), ErrFetch)
	}
	return fmt.Errorf("%v: %w", err, ErrFetch)
}
