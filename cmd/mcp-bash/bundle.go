package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
	"github.com/mcp-bash/mcp-bash/host/bundle"
	"github.com/mcp-bash/mcp-bash/host/registry"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

func newBundleCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var platforms, output, source, author, bundleVersion string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "Write an MCP Bundle (.mcpb) with this binary and the project, for one-click install",
		Long: `Writes an MCP Bundle: a zip with manifest.json (MCPB manifest 0.3), the mcp-bash binary for each
--platform and the project (hidden files and .mcpb files left out). The manifest comes from
server.d/server.meta.json (name, title, version, description, author) and the tool list, with
server.d/mcpb.json merged over it; it is validated before anything is written.

The running binary serves its own platform. Other platforms are cross-compiled with go build from
the source checkout the binary was built in (or --source DIR); without one, only the running
binary's platform can be bundled. With several platforms, server/mcp-bash is a small /bin/sh
launcher that starts the right binary.

Exit status: 0 written, 1 build or I/O failure, 2 invalid manifest or unsatisfiable request.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ps, err := bundle.ParsePlatforms(platforms)
			if err != nil {
				return &exitError{code: 2, msg: "Error: " + err.Error()}
			}
			srv, dirs, err := cliServer(c.Context(), *projectRoot, getenv)
			if err != nil {
				return err
			}
			defer srv.Close()
			meta, _ := registry.LoadServerMeta(dirs)
			info := bundle.Info{Name: meta.Name, Title: meta.Title, Version: meta.Version, Description: meta.Description}
			if bundleVersion != "" {
				info.Version = bundleVersion
			}
			if author != "" {
				info.Author = map[string]any{"name": author}
			}
			info.Tools, info.Prompts = bundleListing(c.Context(), srv)
			self, err := os.Executable()
			if err != nil {
				return err
			}
			self = sandbox.Physical(self)
			b := &bundle.Builder{Self: self, Source: source, Version: version, Log: c.ErrOrStderr()}
			if b.Source == "" {
				b.Source = bundle.FindSource(self)
			} else if abs, err := filepath.Abs(b.Source); err == nil {
				b.Source = abs
			}
			b.GoBin, _ = exec.LookPath("go")
			res, err := bundle.Create(c.Context(), bundle.Options{Project: dirs.Root, Output: output, Platforms: ps, Info: info, Builder: b}, c.ErrOrStderr())
			var ve *bundle.ValidationError
			var ue *bundle.UsageError
			switch {
			case errors.As(err, &ve), errors.As(err, &ue):
				return &exitError{code: 2, msg: "Error: " + err.Error()}
			case err != nil:
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			if asJSON {
				names := make([]string, len(ps))
				for i, p := range ps {
					names[i] = p.String()
				}
				writeJSON(c.OutOrStdout(), map[string]any{"path": res.Path, "platforms": names, "files": res.Files, "manifest": res.Manifest})
				return nil
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %s (%d files, platforms:", res.Path, len(res.Files))
			for _, p := range ps {
				fmt.Fprint(c.OutOrStdout(), " "+p.String())
			}
			fmt.Fprintln(c.OutOrStdout(), ")")
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&platforms, "platform", "", "comma-separated os-arch list ("+platformNames()+") or all (default: the running binary's platform)")
	f.StringVar(&output, "output", "", "the .mcpb file to write, or a directory for <name>-<version>.mcpb (default: the working directory)")
	f.StringVar(&source, "source", "", "source checkout to cross-compile other platforms from (default: the one the binary was built in)")
	f.StringVar(&author, "author", "", `author name for the manifest (default: "author" in server.d/server.meta.json)`)
	f.StringVar(&bundleVersion, "version", "", "bundle version (default: server.meta.json's version, VERSION, else 0.0.0)")
	f.BoolVar(&asJSON, "json", false, "print the bundle path, files and manifest as JSON")
	return cmd
}

func platformNames() string {
	s := ""
	for i, p := range bundle.Supported {
		if i > 0 {
			s += ", "
		}
		s += p.String()
	}
	return s
}

// bundleListing is the project's tools (for the manifest) and whether it has prompts.
func bundleListing(ctx context.Context, srv *host.Server) ([]bundle.Tool, bool) {
	reg := srv.Registry()
	var tools []bundle.Tool
	for cursor := ""; ; {
		page, err := reg.List(ctx, registry.KindTools, cursor, registry.MaxPageSize)
		if err != nil {
			break
		}
		for _, it := range page.Items {
			var t bundle.Tool
			if json.Unmarshal(it, &t) == nil && t.Name != "" {
				tools = append(tools, t)
			}
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	page, err := reg.List(ctx, registry.KindPrompts, "", 1)
	return tools, err == nil && page.Total > 0
}
