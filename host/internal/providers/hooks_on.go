//go:build mcpbash_testhooks

package providers

import (
	"context"
	"crypto/x509"
	"net"
	"net/netip"
	"os"
	"strings"
)

// applyTestHooks lets e2e tests point the HTTPS provider at a local TLS server. Only binaries
// built with -tags mcpbash_testhooks contain it; a production build cannot enable it.
//
//	MCPBASH_TEST_HTTPS_RESOLVE  name=ip[,name=ip...]  what host names resolve to (still vetted)
//	MCPBASH_TEST_HTTPS_DIAL     host:port             where vetted connections actually go
//	MCPBASH_TEST_HTTPS_CA       file                  PEM roots to trust
func applyTestHooks(h *HTTPS, getenv func(string) string) {
	if v := getenv("MCPBASH_TEST_HTTPS_RESOLVE"); v != "" {
		table := map[string][]netip.Addr{}
		for _, pair := range strings.Split(v, ",") {
			name, ip, ok := strings.Cut(pair, "=")
			if a, err := netip.ParseAddr(ip); ok && err == nil {
				table[name] = append(table[name], a)
			}
		}
		h.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			if addrs, ok := table[host]; ok {
				return addrs, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
	}
	if addr := getenv("MCPBASH_TEST_HTTPS_DIAL"); addr != "" {
		h.dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
	}
	if f := getenv("MCPBASH_TEST_HTTPS_CA"); f != "" {
		if pem, err := os.ReadFile(f); err == nil {
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(pem)
			h.rootCAs = pool
		}
	}
}

// applyGitTestHooks: MCPBASH_TEST_GIT_LOCAL_REMOTE=DIR serves every git+https repository from
// the bare repository DIR (file://), skipping the network, for e2e tests.
func applyGitTestHooks(g *Git, getenv func(string) string) {
	if dir := getenv("MCPBASH_TEST_GIT_LOCAL_REMOTE"); dir != "" {
		g.localRemote = func(string) string { return "file://" + dir }
	}
}
