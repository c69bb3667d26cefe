package providers

import (
	"compress/gzip"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// publicAddr is what the test host names "resolve" to: public, so the vetting step passes;
// the dial hook then carries the pinned connection to the loopback test server. Host names
// are example.com ones because httptest's certificate covers example.com and *.example.com.
var publicAddr = netip.MustParseAddr("93.184.216.34")

type httpsFixture struct {
	srv *httptest.Server

	mu      sync.Mutex
	dns     map[string][]netip.Addr
	lookups []string // host names the resolver was asked for
	dials   []string // addresses the pinned dialer was asked for
	hits    map[string]int
}

func newHTTPSFixture(t *testing.T) *httpsFixture {
	t.Helper()
	f := &httpsFixture{
		hits: map[string]int{},
		dns: map[string][]netip.Addr{
			"example.com":        {publicAddr},
			"api.example.com":    {publicAddr},
			"a.b.example.com":    {publicAddr},
			"v6.example.com":     {netip.MustParseAddr("2606:2800:220:1:248:1893:25c8:1946")},
			"loop.example.com":   {netip.MustParseAddr("127.0.0.1")},
			"mixed.example.com":  {publicAddr, netip.MustParseAddr("10.0.0.7")},
			"mapped.example.com": {netip.MustParseAddr("::ffff:10.0.0.1")},
			"meta.example.com":   {netip.MustParseAddr("169.254.169.254")},
			"ula.example.com":    {netip.MustParseAddr("fd12:3456::1")},
			"cgnat.example.com":  {netip.MustParseAddr("100.64.1.2")},
			"empty.example.com":  {},
		},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "hello")
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"a":1}`)
	})
	mux.HandleFunc("/whoami", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.TLS.ServerName, r.Host)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusFound)
	})
	mux.HandleFunc("/target", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.hits["/target"]++
		f.mu.Unlock()
		fmt.Fprint(w, "followed")
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "kaput", http.StatusInternalServerError)
	})
	mux.HandleFunc("/sized/", func(w http.ResponseWriter, r *http.Request) {
		// /sized/<n>: n bytes with a Content-Length header.
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/sized/"))
		w.Header().Set("Content-Length", strconv.Itoa(n))
		_, _ = w.Write([]byte(strings.Repeat("x", n)))
	})
	mux.HandleFunc("/chunked/", func(w http.ResponseWriter, r *http.Request) {
		// /chunked/<n>: n bytes in flushed pieces, so no Content-Length is sent.
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/chunked/"))
		for sent := 0; sent < n; sent += 10 {
			_, _ = w.Write([]byte(strings.Repeat("y", min(10, n-sent))))
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		// Streams until the client hangs up: only a bounded read ends this early.
		chunk := []byte(strings.Repeat("z", 1024))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/lying", func(w http.ResponseWriter, r *http.Request) {
		// Announces 20 MB + 1 but never sends it: the header alone must be refused.
		w.Header().Set("Content-Length", strconv.Itoa(MaxHTTPSMaxBytes+1))
		_, _ = w.Write([]byte("x"))
	})
	mux.HandleFunc("/gzip-bomb", func(w http.ResponseWriter, r *http.Request) {
		// ~1 KB on the wire, 1 MB decoded: the limit must count decoded bytes.
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write(make([]byte, 1<<20))
		_ = zw.Close()
	})
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "partial")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/slow-headers", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	f.srv = httptest.NewUnstartedServer(mux)
	f.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the certificate-mismatch case is noisy
	f.srv.StartTLS()
	t.Cleanup(f.srv.Close)
	return f
}

// provider wires h's test hooks to the fixture.
func (f *httpsFixture) provider(h HTTPS) HTTPS {
	h.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.lookups = append(f.lookups, host)
		addrs, ok := f.dns[host]
		if !ok {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return addrs, nil
	}
	h.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		f.mu.Lock()
		f.dials = append(f.dials, addr)
		f.mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, "tcp", f.srv.Listener.Addr().String())
	}
	pool := x509.NewCertPool()
	pool.AddCert(f.srv.Certificate())
	h.rootCAs = pool
	return h
}

func (f *httpsFixture) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups, f.dials, f.hits = nil, nil, map[string]int{}
}

func (f *httpsFixture) counts() (lookups, dials int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.lookups), len(f.dials)
}

type fetchCase struct {
	name     string
	h        HTTPS
	url      string
	wantErr  error  // nil: success expected
	wantMsg  string // substring of the error, when wantErr is set
	wantBody string
	wantCT   string
}

func runFetchCases(t *testing.T, f *httpsFixture, cases []fetchCase, check func(t *testing.T, c fetchCase)) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.reset()
			body, ct, err := f.provider(c.h).Fetch(context.Background(), c.url)
			if c.wantErr == nil {
				if err != nil {
					t.Fatalf("Fetch(%s): unexpected error %v", c.url, err)
				}
				if string(body) != c.wantBody {
					t.Errorf("body = %q, want %q", body, c.wantBody)
				}
				if c.wantCT != "" && ct != c.wantCT {
					t.Errorf("content type = %q, want %q", ct, c.wantCT)
				}
			} else {
				if !errors.Is(err, c.wantErr) {
					t.Fatalf("Fetch(%s) error = %v, want %v", c.url, err, c.wantErr)
				}
				if !strings.Contains(err.Error(), c.wantMsg) {
					t.Errorf("error %q does not mention %q", err, c.wantMsg)
				}
				if body != nil {
					t.Errorf("body returned with an error: %q", body)
				}
			}
			if check != nil {
				check(t, c)
			}
		})
	}
}

func TestHTTPSHostPolicy(t *testing.T) {
	f := newHTTPSFixture(t)
	only := func(hosts ...string) HTTPS { return HTTPS{AllowHosts: hosts} }
	cases := []fetchCase{
		{name: "allowlisted host", h: only("example.com"), url: "https://example.com/ok", wantBody: "hello", wantCT: "text/plain; charset=utf-8"},
		{name: "content type passed through", h: only("example.com"), url: "https://example.com/json", wantBody: `{"a":1}`, wantCT: "application/json"},
		{name: "allowlist is case-insensitive", h: only("EXAMPLE.com"), url: "https://Example.COM/ok", wantBody: "hello"},
		{name: "allow all without a list", h: HTTPS{AllowAll: true}, url: "https://api.example.com/ok", wantBody: "hello"},
		{name: "wildcard matches subdomain", h: only("*.example.com"), url: "https://api.example.com/ok", wantBody: "hello"},
		// Policy passes (the wildcard covers any depth) but the test certificate's *.example.com
		// does not: TLS verifies the original name even though the dial went to an IP.
		{name: "wildcard matches deeper subdomain; certificate checked", h: only("*.example.com"), url: "https://a.b.example.com/ok", wantErr: ErrFetch, wantMsg: "not a.b.example.com"},
		{name: "wildcard does not match apex", h: only("*.example.com"), url: "https://example.com/ok", wantErr: ErrDenied, wantMsg: "not allowed"},
		{name: "no allowlist refused", h: HTTPS{}, url: "https://example.com/ok", wantErr: ErrDenied, wantMsg: "host not allowed; set MCPBASH_HTTPS_ALLOW_HOSTS"},
		{name: "deny wins over allow", h: HTTPS{AllowHosts: []string{"example.com"}, DenyHosts: []string{"example.com"}}, url: "https://example.com/ok", wantErr: ErrDenied, wantMsg: "deny list"},
		{name: "deny wildcard wins over allow all", h: HTTPS{AllowAll: true, DenyHosts: []string{"*.example.com"}}, url: "https://api.example.com/ok", wantErr: ErrDenied, wantMsg: "deny list"},
		{name: "deny wildcard wins over allow wildcard", h: HTTPS{AllowHosts: []string{"*.example.com"}, DenyHosts: []string{"*.b.example.com"}}, url: "https://a.b.example.com/ok", wantErr: ErrDenied, wantMsg: "deny list"},
		{name: "allowlist governs even with allow all", h: HTTPS{AllowAll: true, AllowHosts: []string{"api.example.com"}}, url: "https://example.com/ok", wantErr: ErrDenied, wantMsg: "not allowed"},
		{name: "suffix is not a subdomain", h: only("*.example.com"), url: "https://evilexample.com/ok", wantErr: ErrDenied, wantMsg: "not allowed"},
		{name: "http refused", h: HTTPS{AllowAll: true}, url: "http://example.com/ok", wantErr: ErrInvalid, wantMsg: "only https"},
		{name: "file refused", h: HTTPS{AllowAll: true}, url: "file:///etc/passwd", wantErr: ErrInvalid, wantMsg: "only https"},
		{name: "userinfo refused", h: HTTPS{AllowAll: true}, url: "https://user:secret@example.com/ok", wantErr: ErrInvalid, wantMsg: "credentials"},
		{name: "bare user refused", h: HTTPS{AllowAll: true}, url: "https://user@example.com/ok", wantErr: ErrInvalid, wantMsg: "credentials"},
		{name: "no host", h: HTTPS{AllowAll: true}, url: "https:///ok", wantErr: ErrInvalid, wantMsg: "no host"},
		{name: "port zero", h: HTTPS{AllowAll: true}, url: "https://example.com:0/ok", wantErr: ErrInvalid, wantMsg: "bad port"},
		{name: "port out of range", h: HTTPS{AllowAll: true}, url: "https://example.com:70000/ok", wantErr: ErrInvalid, wantMsg: "bad port"},
		{name: "unparsable", h: HTTPS{AllowAll: true}, url: "https://exa mple.com/", wantErr: ErrInvalid, wantMsg: "malformed"},
	}
	runFetchCases(t, f, cases, func(t *testing.T, c fetchCase) {
		lookups, dials := f.counts()
		if (c.wantErr == ErrInvalid || c.wantErr == ErrDenied) && (lookups != 0 || dials != 0) {
			// Policy and syntax refusals come before any DNS query or connection.
			t.Errorf("refused fetch still did %d lookups and %d dials", lookups, dials)
		}
	})
}

func TestHTTPSAddressVetting(t *testing.T) {
	f := newHTTPSFixture(t)
	all := HTTPS{AllowAll: true}
	cases := []fetchCase{
		{name: "loopback v4 literal", url: "https://127.0.0.1/ok", wantMsg: "loopback"},
		{name: "loopback v6 literal", url: "https://[::1]/ok", wantMsg: "loopback"},
		{name: "private literal", url: "https://10.0.0.1/ok", wantMsg: "private"},
		{name: "private 172.16/12", url: "https://172.20.1.1/ok", wantMsg: "private"},
		{name: "private 192.168/16", url: "https://192.168.1.1/ok", wantMsg: "private"},
		{name: "metadata v4", url: "https://169.254.169.254/latest/meta-data/", wantMsg: "metadata"},
		{name: "metadata v6", url: "https://[fd00:ec2::254]/", wantMsg: "metadata"},
		{name: "unspecified v4", url: "https://0.0.0.0/ok", wantMsg: "unspecified"},
		{name: "this network 0/8", url: "https://0.1.2.3/ok", wantMsg: "0.0.0.0/8"},
		{name: "unspecified v6", url: "https://[::]/ok", wantMsg: "unspecified"},
		{name: "link-local v4", url: "https://169.254.1.1/ok", wantMsg: "link-local"},
		{name: "link-local v6", url: "https://[fe80::1]/ok", wantMsg: "link-local"},
		{name: "cgnat", url: "https://100.64.0.1/ok", wantMsg: "100.64.0.0/10"},
		{name: "ula", url: "https://[fc00::1]/ok", wantMsg: "private"},
		{name: "multicast", url: "https://224.0.0.1/ok", wantMsg: "multicast"},
		{name: "broadcast", url: "https://255.255.255.255/ok", wantMsg: "240.0.0.0/4"},
		{name: "ipv4-mapped loopback", url: "https://[::ffff:127.0.0.1]/ok", wantMsg: "IPv4-mapped"},
		{name: "ipv4-mapped private", url: "https://[::ffff:10.0.0.1]/ok", wantMsg: "IPv4-mapped"},
		{name: "nat64 private", url: "https://[64:ff9b::a00:1]/ok", wantMsg: "embedded IPv4"},
		{name: "6to4 loopback", url: "https://[2002:7f00:1::]/ok", wantMsg: "embedded IPv4"},
		{name: "name resolving to loopback", url: "https://loop.example.com/ok", wantMsg: "loopback"},
		{name: "name resolving to public and private", url: "https://mixed.example.com/ok", wantMsg: "10.0.0.7"},
		{name: "name resolving to mapped private", url: "https://mapped.example.com/ok", wantMsg: "IPv4-mapped"},
		{name: "name resolving to metadata", url: "https://meta.example.com/ok", wantMsg: "metadata"},
		{name: "name resolving to ula", url: "https://ula.example.com/ok", wantMsg: "private"},
		{name: "name resolving to cgnat", url: "https://cgnat.example.com/ok", wantMsg: "100.64.0.0/10"},
	}
	for i := range cases {
		cases[i].h, cases[i].wantErr = all, ErrDenied
	}
	cases = append(cases,
		// The allowlist never overrides the address check.
		fetchCase{name: "allowlisted loopback literal", h: HTTPS{AllowHosts: []string{"127.0.0.1"}}, url: "https://127.0.0.1/ok", wantErr: ErrDenied, wantMsg: "loopback"},
		fetchCase{name: "allowlisted name resolving to private", h: HTTPS{AllowHosts: []string{"loop.example.com"}}, url: "https://loop.example.com/ok", wantErr: ErrDenied, wantMsg: "loopback"},
		// Legacy numeric forms some resolvers turn into 127.0.0.1.
		fetchCase{name: "short numeric host", h: all, url: "https://127.1/ok", wantErr: ErrInvalid, wantMsg: "malformed host"},
		fetchCase{name: "decimal host", h: all, url: "https://2130706433/ok", wantErr: ErrInvalid, wantMsg: "malformed host"},
		fetchCase{name: "hex host", h: all, url: "https://0x7f000001/ok", wantErr: ErrInvalid, wantMsg: "malformed host"},
		fetchCase{name: "unresolvable", h: all, url: "https://nxdomain.example.com/ok", wantErr: ErrFetch, wantMsg: "resolve"},
		fetchCase{name: "no addresses", h: all, url: "https://empty.example.com/ok", wantErr: ErrFetch, wantMsg: "no addresses"},
	)
	runFetchCases(t, f, cases, func(t *testing.T, c fetchCase) {
		if _, dials := f.counts(); dials != 0 {
			t.Errorf("refused address was dialled %d times", dials)
		}
	})
}

func TestHTTPSPinsVettedAddress(t *testing.T) {
	f := newHTTPSFixture(t)
	cases := []struct {
		name, url, wantDial, wantBody string
	}{
		{"default port", "https://api.example.com/whoami", "93.184.216.34:443", "api.example.com api.example.com"},
		{"explicit port keeps Host", "https://api.example.com:8443/whoami", "93.184.216.34:8443", "api.example.com api.example.com:8443"},
		{"ipv6 address", "https://v6.example.com/whoami", "[2606:2800:220:1:248:1893:25c8:1946]:443", "v6.example.com v6.example.com"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f.reset()
			body, _, err := f.provider(HTTPS{AllowAll: true}).Fetch(context.Background(), c.url)
			if err != nil {
				t.Fatal(err)
			}
			// SNI and Host stay the original name although the connection went to an IP.
			if string(body) != c.wantBody {
				t.Errorf("server saw %q, want %q", body, c.wantBody)
			}
			if len(f.dials) != 1 || f.dials[0] != c.wantDial {
				t.Errorf("dials = %v, want [%s]", f.dials, c.wantDial)
			}
		})
	}

	t.Run("resolves once despite rebinding", func(t *testing.T) {
		f.reset()
		h := f.provider(HTTPS{AllowAll: true})
		var calls int
		vet := h.resolve
		h.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			calls++
			if calls > 1 { // a rebinding answer: any second lookup would get loopback
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return vet(ctx, host)
		}
		if _, _, err := h.Fetch(context.Background(), "https://api.example.com/ok"); err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Errorf("resolver called %d times, want 1", calls)
		}
		if len(f.dials) != 1 || f.dials[0] != "93.184.216.34:443" {
			t.Errorf("dials = %v, want the vetted address", f.dials)
		}
	})

	t.Run("falls back to the next vetted address", func(t *testing.T) {
		f.reset()
		h := f.provider(HTTPS{AllowAll: true})
		second := netip.MustParseAddr("93.184.216.35")
		h.resolve = func(context.Context, string) ([]netip.Addr, error) {
			return []netip.Addr{publicAddr, second}, nil
		}
		var tried []string
		h.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			tried = append(tried, addr)
			if addr == "93.184.216.34:443" {
				return nil, errors.New("connection refused")
			}
			var d net.Dialer
			return d.DialContext(ctx, "tcp", f.srv.Listener.Addr().String())
		}
		if _, _, err := h.Fetch(context.Background(), "https://api.example.com/ok"); err != nil {
			t.Fatal(err)
		}
		if strings.Join(tried, ",") != "93.184.216.34:443,93.184.216.35:443" {
			t.Errorf("tried %v", tried)
		}
	})
}

func TestHTTPSResponses(t *testing.T) {
	f := newHTTPSFixture(t)
	all := HTTPS{AllowAll: true}
	small := HTTPS{AllowAll: true, MaxBytes: 100}
	cases := []fetchCase{
		{name: "redirect not followed", h: all, url: "https://example.com/redirect", wantErr: ErrDenied, wantMsg: "redirects are not followed"},
		{name: "404", h: all, url: "https://example.com/missing", wantErr: ErrNotFound, wantMsg: "404"},
		{name: "500", h: all, url: "https://example.com/boom", wantErr: ErrFetch, wantMsg: "500"},
		{name: "exactly MaxBytes", h: small, url: "https://example.com/sized/100", wantBody: strings.Repeat("x", 100)},
		{name: "chunked exactly MaxBytes", h: small, url: "https://example.com/chunked/100", wantBody: strings.Repeat("y", 100)},
		{name: "Content-Length over MaxBytes", h: small, url: "https://example.com/sized/101", wantErr: ErrTooLarge, wantMsg: "Content-Length 101"},
		{name: "chunked over MaxBytes", h: small, url: "https://example.com/chunked/1000", wantErr: ErrTooLarge, wantMsg: "body exceeds the 100-byte limit"},
		{name: "endless body stops at MaxBytes", h: HTTPS{AllowAll: true, MaxBytes: 100, Timeout: 5 * time.Second}, url: "https://example.com/endless", wantErr: ErrTooLarge, wantMsg: "body exceeds"},
		{name: "decoded size counts", h: HTTPS{AllowAll: true, MaxBytes: 64 << 10}, url: "https://example.com/gzip-bomb", wantErr: ErrTooLarge, wantMsg: "body exceeds"},
		{name: "MaxBytes capped at 20 MB", h: HTTPS{AllowAll: true, MaxBytes: 1 << 30}, url: "https://example.com/lying", wantErr: ErrTooLarge, wantMsg: "20000000-byte limit"},
	}
	runFetchCases(t, f, cases, nil)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hits["/target"] != 0 {
		t.Errorf("redirect target was fetched %d times", f.hits["/target"])
	}
}

func TestHTTPSTimeout(t *testing.T) {
	f := newHTTPSFixture(t)
	for _, path := range []string{"/slow-body", "/slow-headers"} {
		t.Run(path, func(t *testing.T) {
			h := f.provider(HTTPS{AllowAll: true, Timeout: 300 * time.Millisecond})
			start := time.Now()
			body, _, err := h.Fetch(context.Background(), "https://example.com"+path)
			elapsed := time.Since(start)
			if !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "timed out") {
				t.Fatalf("error = %v, want a timeout ErrFetch; body %q after %v", err, body, elapsed)
			}
			if body != nil {
				t.Errorf("partial body returned: %q", body)
			}
			// The handlers would answer after 10 s, so "timed out" shows the timeout ended the
			// fetch; the upper bound only catches a hang (a loaded machine is slow to react).
			if elapsed < 250*time.Millisecond || elapsed > time.Minute {
				t.Errorf("gave up after %v, want about 300ms", elapsed)
			}
		})
	}
	t.Run("caller's cancellation", func(t *testing.T) {
		h := f.provider(HTTPS{AllowAll: true})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		_, _, err := h.Fetch(ctx, "https://example.com/slow-body")
		if !errors.Is(err, ErrFetch) || !strings.Contains(err.Error(), "canceled") {
			t.Fatalf("error = %v, want a cancellation ErrFetch (ctx %v)", err, ctx.Err())
		}
	})
}

func TestHTTPSLimits(t *testing.T) {
	cases := []struct {
		name         string
		in           HTTPS
		wantTimeout  time.Duration
		wantMaxBytes int64
	}{
		{"defaults", HTTPS{}, 10 * time.Second, 10 << 20},
		{"negative means default", HTTPS{Timeout: -1, MaxBytes: -1}, 10 * time.Second, 10 << 20},
		{"within limits", HTTPS{Timeout: 30 * time.Second, MaxBytes: 1234}, 30 * time.Second, 1234},
		{"timeout capped", HTTPS{Timeout: 5 * time.Minute}, 60 * time.Second, 10 << 20},
		{"max bytes capped", HTTPS{MaxBytes: 1 << 30}, 10 * time.Second, 20_000_000},
		{"at the caps", HTTPS{Timeout: 60 * time.Second, MaxBytes: 20_000_000}, 60 * time.Second, 20_000_000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.in.withDefaults()
			if got.Timeout != c.wantTimeout || got.MaxBytes != c.wantMaxBytes {
				t.Errorf("got timeout %v max %d, want %v %d", got.Timeout, got.MaxBytes, c.wantTimeout, c.wantMaxBytes)
			}
		})
	}
}

func TestNewHTTPS(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want HTTPS
	}{
		{"empty", nil, HTTPS{Timeout: 10 * time.Second, MaxBytes: 10 << 20}},
		{"lists comma and space separated", map[string]string{
			"MCPBASH_HTTPS_ALLOW_HOSTS": "example.com, *.example.org  api.test",
			"MCPBASH_HTTPS_DENY_HOSTS":  "bad.example.com,,",
		}, HTTPS{AllowHosts: []string{"example.com", "*.example.org", "api.test"}, DenyHosts: []string{"bad.example.com"}, Timeout: 10 * time.Second, MaxBytes: 10 << 20}},
		{"allow all true", map[string]string{"MCPBASH_HTTPS_ALLOW_ALL": "true"}, HTTPS{AllowAll: true, Timeout: 10 * time.Second, MaxBytes: 10 << 20}},
		{"allow all TRUE", map[string]string{"MCPBASH_HTTPS_ALLOW_ALL": "TRUE"}, HTTPS{AllowAll: true, Timeout: 10 * time.Second, MaxBytes: 10 << 20}},
		{"allow all 1", map[string]string{"MCPBASH_HTTPS_ALLOW_ALL": "1"}, HTTPS{AllowAll: true, Timeout: 10 * time.Second, MaxBytes: 10 << 20}},
		{"allow all yes", map[string]string{"MCPBASH_HTTPS_ALLOW_ALL": "yes"}, HTTPS{AllowAll: true, Timeout: 10 * time.Second, MaxBytes: 10 << 20}},
		{"allow all other values refused", map[string]string{"MCPBASH_HTTPS_ALLOW_ALL": "sure"}, HTTPS{}},
		{"limits", map[string]string{"MCPBASH_HTTPS_TIMEOUT": "5", "MCPBASH_HTTPS_MAX_BYTES": "2048"}, HTTPS{Timeout: 5 * time.Second, MaxBytes: 2048}},
		{"limits capped", map[string]string{"MCPBASH_HTTPS_TIMEOUT": "300", "MCPBASH_HTTPS_MAX_BYTES": "999999999"}, HTTPS{Timeout: 60 * time.Second, MaxBytes: 20_000_000}},
		{"huge timeout refused", map[string]string{"MCPBASH_HTTPS_TIMEOUT": "9223372036854775807"}, HTTPS{}},
		{"malformed limits refused", map[string]string{"MCPBASH_HTTPS_TIMEOUT": "ten", "MCPBASH_HTTPS_MAX_BYTES": "-5"}, HTTPS{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, getenv, ok := settingsFrom(t, c.name, c.env)
			if !ok {
				return
			}
			got := NewHTTPS(set.HTTPS, getenv)
			if fmt.Sprint(got.AllowHosts) != fmt.Sprint(c.want.AllowHosts) || fmt.Sprint(got.DenyHosts) != fmt.Sprint(c.want.DenyHosts) ||
				got.AllowAll != c.want.AllowAll || got.Timeout != c.want.Timeout || got.MaxBytes != c.want.MaxBytes {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestHTTPSTransport(t *testing.T) {
	tr := HTTPS{}.transport([]netip.Addr{publicAddr}, 443, "example.com")
	if tr.Proxy != nil {
		t.Error("transport uses a proxy; a proxy would resolve the host itself, unvetted")
	}
	if tr.TLSClientConfig.ServerName != "example.com" || tr.TLSClientConfig.InsecureSkipVerify {
		t.Errorf("TLS config %+v must verify the original host name", tr.TLSClientConfig)
	}
	if !tr.DisableKeepAlives {
		t.Error("keep-alives enabled on a one-shot transport")
	}
}

func TestControlPublic(t *testing.T) {
	cases := []struct {
		addr string
		ok   bool
	}{
		{"93.184.216.34:443", true},
		{"[2606:4700::1111]:443", true},
		{"127.0.0.1:443", false},
		{"10.1.2.3:443", false},
		{"[::1]:443", false},
		{"[::ffff:192.168.0.1]:443", false},
		{"169.254.169.254:80", false},
		{"not-an-address", false},
	}
	for _, c := range cases {
		err := controlPublic("tcp", c.addr, nil)
		if (err == nil) != c.ok {
			t.Errorf("controlPublic(%s) = %v, want ok=%v", c.addr, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrDenied) {
			t.Errorf("controlPublic(%s) error %v is not ErrDenied", c.addr, err)
		}
	}
}

func TestBlockedReason(t *testing.T) {
	blocked := []string{
		"0.0.0.0", "0.255.0.1", "10.0.0.1", "100.64.0.1", "100.127.255.255", "127.0.0.1", "127.255.0.1",
		"169.254.0.1", "169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.8", "192.0.2.1",
		"192.168.0.1", "198.18.0.1", "198.51.100.1", "203.0.113.1", "224.0.0.1", "239.1.1.1", "240.0.0.1", "255.255.255.255",
		"::", "::1", "::127.0.0.1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0",
		"fe80::1", "fe80::1%eth0", "fc00::1", "fd00:ec2::254", "fd12::1", "ff02::1", "ff05::2", "fec0::1",
		"64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b:1::1", "2002:a00:1::1", "2002:c0a8:101::", "2001:db8::1", "2001::1", "100::1",
	}
	public := []string{
		"93.184.216.34", "8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0",
		"192.167.255.255", "169.253.255.255", "::ffff:8.8.8.8", "2606:4700::1111", "2a00:1450:4001::200e",
		"64:ff9b::808:808", "2002:808:808::1",
	}
	for _, s := range blocked {
		if r := blockedReason(netip.MustParseAddr(s)); r == "" {
			t.Errorf("%s should be blocked", s)
		}
	}
	for _, s := range public {
		if r := blockedReason(netip.MustParseAddr(s)); r != "" {
			t.Errorf("%s should be public, got %q", s, r)
		}
	}
}

func TestMatchHost(t *testing.T) {
	cases := []struct {
		pattern, host string
		want          bool
	}{
		{"example.com", "example.com", true},
		{"Example.COM.", "example.com", true},
		{"example.com", "api.example.com", false},
		{"*.example.com", "api.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "badexample.com", false},
		{"*.example.com", ".example.com", false},
		{"*.", "example.com", false},
		{"*", "example.com", false},
		{"", "example.com", false},
		{"[::1]", "::1", true},
		{"93.184.216.34", "93.184.216.34", true},
	}
	for _, c := range cases {
		if got := matchHost(c.pattern, normalizeHost(c.host)); got != c.want {
			t.Errorf("matchHost(%q, %q) = %v, want %v", c.pattern, c.host, got, c.want)
		}
	}
}
