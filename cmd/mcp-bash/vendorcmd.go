package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

func newVendorCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var o host.VendorOptions
	var verbose bool
	cmd := &cobra.Command{
		Use:   "vendor",
		Short: "Copy this binary into <project>/.mcp-bash/ so the project runs without a system install",
		Long: `Copies the running mcp-bash binary to .mcp-bash/bin/mcp-bash in the project (--output DIR: in DIR)
and records its SHA-256 in .mcp-bash/vendor.json, as the original vendors its runtime. Commit
.mcp-bash/ and point clients at .mcp-bash/bin/mcp-bash. --verify checks the copy against
vendor.json (exit 0 ok, 1 mismatch); --upgrade replaces an existing copy; --dry-run changes
nothing. The binary is the whole runtime: there are no libraries to copy.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if o.Dir == "" {
				if p, err := host.FindProject(options(*projectRoot, getenv)); err == nil {
					o.Dir = p.Root
				} else if o.Dir, err = os.Getwd(); err != nil {
					return err
				}
			}
			self, err := os.Executable()
			if err != nil {
				return err
			}
			o.Self, o.Version = sandbox.Physical(self), version
			if verbose || o.DryRun {
				o.Log = c.ErrOrStderr()
			} else {
				o.Log = io.Discard
			}
			res, err := host.Vendor(o)
			var ue *host.UsageError
			switch {
			case errors.As(err, &ue):
				return &exitError{code: 2, msg: "Error: vendor: " + err.Error()}
			case err != nil:
				return &exitError{code: 1, msg: "Error: vendor: " + err.Error()}
			}
			out := c.OutOrStdout()
			switch {
			case o.Verify:
				fmt.Fprintf(out, "ok: %s matches %s/vendor.json (version %s)\n", res.Binary, res.Dir, res.Record.Version)
			case o.DryRun:
				fmt.Fprintf(out, "would vendor mcp-bash %s to %s (nothing written)\n", version, res.Binary)
			default:
				fmt.Fprintf(out, "vendored mcp-bash %s to %s\nclients: command %s, env MCPBASH_PROJECT_ROOT=%s\n", version, res.Binary, res.Binary, o.Dir)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "output", "", "directory to vendor into (default: the project root, else the working directory)")
	f.BoolVar(&o.Upgrade, "upgrade", false, "replace an existing .mcp-bash/ with this binary")
	f.BoolVar(&o.Verify, "verify", false, "check .mcp-bash/ against vendor.json: exit 0 ok, 1 mismatch")
	f.BoolVar(&o.DryRun, "dry-run", false, "show what would be copied, change nothing")
	f.BoolVar(&verbose, "verbose", false, "name each file copied")
	return cmd
}

func newPublishCmd(getenv func(string) string) *cobra.Command {
	var o host.PublishOptions
	var verbose bool
	cmd := &cobra.Command{
		Use:   "publish <bundle.mcpb>",
		Short: "Validate an MCP Bundle and submit it to the MCP Registry",
		Long: `Validates the bundle (a zip with a valid MCPB manifest.json) and uploads it to the MCP Registry
(MCP_REGISTRY_URL, POST /api/v1/bundles) with an API token (--token, else MCP_REGISTRY_TOKEN).
--dry-run validates only. Exit 0 published (or valid), 1 refused by the registry or a network
failure, 2 an invalid bundle or no token.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &exitError{code: 2, msg: "Error: publish needs one bundle: mcp-bash publish <bundle.mcpb> [--dry-run] [--token TOKEN]"}
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.Bundle, o.Getenv = args[0], getenv
			if verbose {
				o.Log = c.ErrOrStderr()
			}
			res, err := host.Publish(c.Context(), o)
			var ue *host.UsageError
			var ce *host.ConfigError
			switch {
			case errors.As(err, &ue), errors.As(err, &ce):
				return &exitError{code: 2, msg: "Error: publish: " + err.Error()}
			case err != nil:
				return &exitError{code: 1, msg: "Error: publish: " + err.Error()}
			}
			if o.DryRun {
				fmt.Fprintf(c.OutOrStdout(), "%s is valid (%s %s); nothing was sent\n", o.Bundle, res.Name, res.Version)
				return nil
			}
			fmt.Fprintf(c.OutOrStdout(), "published %s %s to the MCP Registry\n", res.Name, res.Version)
			if verbose && res.Response != "" {
				fmt.Fprintln(c.OutOrStdout(), res.Response)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.DryRun, "dry-run", false, "validate the bundle, send nothing")
	f.StringVar(&o.Token, "token", "", "the MCP Registry API token (default: MCP_REGISTRY_TOKEN)")
	f.BoolVar(&verbose, "verbose", false, "show progress and the registry's answer")
	return cmd
}
