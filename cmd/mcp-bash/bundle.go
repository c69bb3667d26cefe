package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

func newBundleCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var platforms, output, source, binaries, author, bundleVersion string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "Write an MCP Bundle (.mcpb) with this binary and the project, for one-click install",
		Long: `Writes an MCP Bundle: a zip with manifest.json (MCPB manifest 0.3), the mcp-bash binary for each
--platform and the project (hidden files and .mcpb files left out). The manifest comes from
server.d/server.meta.json (name, title, version, description, author) and the tool list, with
server.d/mcpb.json merged over it; it is validated before anything is written.

The running binary serves its own platform. Other platforms come from release binaries of the
same version when there are some (--binaries DIR, a GoReleaser dist/ folder; default the source
checkout's dist/, where make release-snapshot writes one), else they are cross-compiled with go build from
the source checkout the binary was built in (or --source DIR), GOMAXPROCS builds at a time, with
progress on stderr; without either, only the running binary's platform can be bundled. With
several platforms, server/mcp-bash is a small /bin/sh launcher that starts the right binary, and
the manifest starts the Windows binary directly. "all" is every platform but windows-arm64 (a
bundle holds one Windows binary; windows-amd64 also runs on Windows on Arm).

Exit status: 0 written, 1 build or I/O failure, 2 invalid manifest or unsatisfiable request.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := host.CheckBundlePlatforms(platforms); err != nil {
				return &exitError{code: 2, msg: "Error: " + err.Error()}
			}
			srv, _, err := cliServer(c.Context(), *projectRoot, getenv)
			if err != nil {
				return err
			}
			defer srv.Close()
			self, err := os.Executable()
			if err != nil {
				return err
			}
			build := currentBuild()
			res, err := srv.Bundle(c.Context(), host.BundleOptions{Platforms: platforms, Output: output, Source: source,
				Author: author, Version: bundleVersion, Self: sandbox.Physical(self), BinaryVersion: build.Version, BinaryCommit: build.Commit,
				Binaries: binaries, Log: c.ErrOrStderr()})
			var ue *host.UsageError
			switch {
			case errors.As(err, &ue):
				return &exitError{code: 2, msg: "Error: " + err.Error()}
			case err != nil:
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			if asJSON {
				writeJSON(c.OutOrStdout(), map[string]any{"path": res.Path, "platforms": res.Platforms, "files": res.Files, "manifest": res.Manifest})
				return nil
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %s (%d files, platforms: %s)\n", res.Path, len(res.Files), strings.Join(res.Platforms, " "))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&platforms, "platform", "", "comma-separated os-arch list ("+strings.Join(host.BundlePlatforms(), ", ")+") or all (default: the running binary's platform)")
	f.StringVar(&output, "output", "", "the .mcpb file to write, or a directory for <name>-<version>.mcpb (default: the working directory)")
	f.StringVar(&source, "source", "", "source checkout to cross-compile other platforms from (default: the one the binary was built in)")
	f.StringVar(&binaries, "binaries", "", "a GoReleaser dist/ folder whose binaries are used instead of building when they are this binary's version (default: the source checkout's dist/)")
	f.StringVar(&author, "author", "", `author name for the manifest (default: "author" in server.d/server.meta.json)`)
	f.StringVar(&bundleVersion, "version", "", "bundle version (default: server.meta.json's version, VERSION, else 0.0.0)")
	f.BoolVar(&asJSON, "json", false, "print the bundle path, files and manifest as JSON")
	return cmd
}
