package main

import (
	"context"
	"os"

	"github.com/mcp-bash/mcp-bash/host"
)

type serveOptions struct {
	projectRoot string
	getenv      func(string) string
	// payloadLog, when set, records every protocol line (secrets redacted): `mcp-bash debug`.
	payloadLog string
}

// serve serves the project over stdio (the default verb, and `debug`).
func serve(ctx context.Context, o serveOptions) error {
	err := host.Serve(ctx, host.ServeOptions{Options: options(o.projectRoot, o.getenv),
		Stdin: os.Stdin, Stdout: os.Stdout, PayloadLog: o.payloadLog})
	if err != nil {
		return &exitError{code: 1, msg: "mcp-bash: " + err.Error()}
	}
	return nil
}
