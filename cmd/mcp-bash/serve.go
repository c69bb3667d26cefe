package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

type serveOptions struct {
	projectRoot string
	getenv      func(string) string
	// payloadLog, when set, records every protocol line (secrets redacted): `mcp-bash debug`.
	payloadLog string
}

// serve serves the project over stdio (the default verb, `serve` without --http, and `debug`).
func serve(ctx context.Context, o serveOptions) error {
	err := host.Serve(ctx, host.ServeOptions{Options: options(o.projectRoot, o.getenv),
		Stdin: os.Stdin, Stdout: os.Stdout, PayloadLog: o.payloadLog})
	if err != nil {
		return &exitError{code: 1, msg: "mcp-bash: " + err.Error()}
	}
	return nil
}

// newServeCmd is `serve`: stdio by default, Streamable HTTP with --http.
func newServeCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var addr, cert, key, level, format string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the project over MCP stdio, or Streamable HTTP with --http ADDR",
		Long: `serve serves the project over MCP stdio (as mcp-bash does with no verb), or with --http ADDR
over MCP Streamable HTTP at http://ADDR/mcp (2025-03-26 to 2025-11-25 with sessions, 2026-07-28
without). ADDR without a host (":8080") binds 127.0.0.1; a non-loopback address needs an
authentication method (server.d/auth.json or MCPBASH_REMOTE_TOKEN; docs/HOSTING.md). On SIGTERM
the server drains: new requests get 503, requests in flight get MCPBASH_SHUTDOWN_TIMEOUT seconds.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if addr == "" {
				if cert != "" || key != "" {
					return &exitError{code: 2, msg: "mcp-bash: --tls-cert and --tls-key need --http"}
				}
				return serve(cmd.Context(), serveOptions{projectRoot: *projectRoot, getenv: getenv})
			}
			if (cert == "") != (key == "") {
				return &exitError{code: 2, msg: "mcp-bash: --tls-cert and --tls-key go together"}
			}
			log, err := newLogger(level, format)
			if err != nil {
				return &exitError{code: 2, msg: "mcp-bash: " + err.Error()}
			}
			err = host.ServeHTTP(cmd.Context(), host.HTTPOptions{Options: options(*projectRoot, getenv), Addr: addr,
				TLSCert: cert, TLSKey: key, Log: log})
			if err != nil {
				return &exitError{code: 1, msg: "mcp-bash: " + err.Error()}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "http", "", "serve MCP Streamable HTTP on this address (host:port; \":8080\" means 127.0.0.1:8080)")
	f.StringVar(&cert, "tls-cert", "", "PEM certificate file: serve HTTPS (and HTTP/2)")
	f.StringVar(&key, "tls-key", "", "PEM private key file of --tls-cert")
	f.StringVar(&level, "log-level", "info", "level of the structured logs on stderr with --http: debug, info, warn or error")
	f.StringVar(&format, "log-format", "json", "format of the logs on stderr with --http: json or text")
	return cmd
}

// newLogger builds the structured logger of `serve --http` on stderr.
func newLogger(level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	o := &slog.HandlerOptions{Level: l}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, o)), nil
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, o)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want json or text", format)
}
