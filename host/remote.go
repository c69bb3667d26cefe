package host

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/providers"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// wireRemote sets up the https and git providers and the SDK's safe downloads from the
// server's environment.
func (srv *Server) wireRemote() {
	h := providers.NewHTTPS(srv.cfg.Settings.HTTPS, srv.cfg.Getenv)
	g := providers.NewGit(srv.cfg.Settings.Git, srv.cfg.Getenv)
	srv.https = httpsFetcher{h}
	srv.git = gitFetcher{g}
	srv.downloader = func(ctx context.Context, req engine.DownloadRequest) ([]byte, error) {
		d := h
		// A call may narrow the operator's lists, never widen them: its allow list only
		// intersects (a host must pass both), its deny list adds.
		d.DenyHosts = append(slices.Clone(h.DenyHosts), req.Deny...)
		if req.MaxBytes > 0 && req.MaxBytes < d.MaxBytes {
			d.MaxBytes = req.MaxBytes
		}
		if req.Timeout > 0 && req.Timeout < d.Timeout {
			d.Timeout = req.Timeout
		}
		if len(req.Allow) > 0 {
			if err := hostAllowed(req.URL, req.Allow); err != nil {
				return nil, err
			}
		}
		body, _, err := d.Fetch(ctx, req.URL)
		if err != nil {
			return nil, downloadError(err)
		}
		return body, nil
	}
}

type httpsFetcher struct{ h providers.HTTPS }

func (f httpsFetcher) Fetch(ctx context.Context, uri string) ([]byte, string, error) {
	return f.h.Fetch(ctx, uri)
}

type gitFetcher struct{ g providers.Git }

func (f gitFetcher) Fetch(ctx context.Context, uri string) ([]byte, string, error) {
	b, err := f.g.Fetch(ctx, uri)
	return b, "", err
}

// hostAllowed checks a download URL's host against a call's own allow list (exact names or
// "*.example.com" for subdomains), before anything is fetched.
func hostAllowed(rawURL string, allow []string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return &engine.DownloadError{Type: "invalid_url", Message: "cannot parse " + rawURL}
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, p := range allow {
		p = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(p)), ".")
		if p == host || (strings.HasPrefix(p, "*.") && strings.HasSuffix(host, p[1:])) {
			return nil
		}
	}
	return &engine.DownloadError{Type: "host_denied", Message: host + " is not in the call's --allow list"}
}

// downloadError classifies a provider error for mcp_download_safe's error object.
func downloadError(err error) error {
	t := "fetch_failed"
	switch {
	case errors.Is(err, providers.ErrInvalid):
		t = "invalid_url"
	case errors.Is(err, providers.ErrDenied):
		t = "host_denied"
	case errors.Is(err, providers.ErrNotFound):
		t = "not_found"
	case errors.Is(err, providers.ErrTooLarge):
		t = "too_large"
	case errors.Is(err, context.DeadlineExceeded):
		t = "timeout"
	}
	return &engine.DownloadError{Type: t, Message: err.Error()}
}

// remoteErrorFor maps provider errors to resources/read errors.
func remoteErrorFor(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, providers.ErrNotFound):
		return jsonrpc.NewError(-32002, "Resource not found", err.Error())
	case errors.Is(err, providers.ErrInvalid):
		return jsonrpc.NewError(jsonrpc.CodeInvalidParams, "Invalid resource URI", err.Error())
	case errors.Is(err, providers.ErrDenied):
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "Resource fetch refused", err.Error())
	case errors.Is(err, providers.ErrTooLarge):
		return jsonrpc.NewError(jsonrpc.CodeInternalError, "Resource too large", err.Error())
	}
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "Resource fetch failed", err.Error())
}
