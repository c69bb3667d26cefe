package host

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/host/internal/bundle"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

// BundleOptions say what `mcp-bash bundle` writes (see docs/CLI.md).
type BundleOptions struct {
	// Platforms is a comma-separated os-arch list or "all"; "" is the running binary's platform.
	Platforms string
	// Output is the .mcpb file, or a directory for <name>-<version>.mcpb ("": the working directory).
	Output string
	// Source is the checkout other platforms are cross-compiled from ("": the one Self was built in).
	Source string
	// Author and Version override server.d/server.meta.json's.
	Author, Version string
	// Self is the running mcp-bash binary (a physical path); BinaryVersion and BinaryCommit are
	// its own, stamped into cross-compiled binaries.
	Self, BinaryVersion, BinaryCommit string
	// Binaries is a GoReleaser dist/ folder (make release-snapshot's, or a release's): its
	// binaries are used instead of building when its metadata.json says they are BinaryVersion
	// ("": the source checkout's dist/).
	Binaries string
	// Log receives progress lines and warnings (nil: discarded).
	Log io.Writer
}

// BundleResult describes a written bundle.
type BundleResult struct {
	Path      string
	Platforms []string
	// Files are the archive's paths, manifest.json first.
	Files    []string
	Manifest map[string]any
}

// UsageError is a request that cannot be satisfied as given: an invalid bundle manifest, an
// unknown platform, a platform that cannot be built (the CLI exits 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// BundlePlatforms lists the platforms a bundle can hold, as os-arch names.
func BundlePlatforms() []string {
	out := make([]string, len(bundle.Supported))
	for i, p := range bundle.Supported {
		out[i] = p.String()
	}
	return out
}

// CheckBundlePlatforms reports a *UsageError when s (BundleOptions.Platforms) names an unknown
// platform.
func CheckBundlePlatforms(s string) error {
	if _, err := bundle.ParsePlatforms(s); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// Bundle writes an MCP Bundle (.mcpb) of the project with the binary for each platform.
// Errors the caller can fix (see UsageError) are *UsageError; others are build or I/O failures.
func (srv *Server) Bundle(ctx context.Context, o BundleOptions) (*BundleResult, error) {
	ps, err := bundle.ParsePlatforms(o.Platforms)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	meta, _ := registry.LoadServerMeta(srv.cfg.Dirs)
	info := bundle.Info{Name: meta.Name, Title: meta.Title, Version: meta.Version, Description: meta.Description}
	if o.Version != "" {
		info.Version = o.Version
	}
	if o.Author != "" {
		info.Author = map[string]any{"name": o.Author}
	}
	info.Tools, info.Prompts = srv.bundleListing(ctx)
	b := &bundle.Builder{Self: o.Self, Source: o.Source, Version: o.BinaryVersion, Commit: o.BinaryCommit, ReleaseDir: o.Binaries, Log: o.Log}
	if b.Source == "" {
		b.Source = bundle.FindSource(o.Self)
	} else if abs, err := filepath.Abs(b.Source); err == nil {
		b.Source = abs
	}
	if b.ReleaseDir == "" && b.Source != "" {
		b.ReleaseDir = filepath.Join(b.Source, "dist")
	}
	b.GoBin, _ = exec.LookPath("go")
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	res, err := bundle.Create(ctx, bundle.Options{Project: srv.cfg.Dirs.Root, Output: o.Output, Platforms: ps, Info: info, Builder: b}, log)
	var ve *bundle.ValidationError
	var ue *bundle.UsageError
	switch {
	case errors.As(err, &ve), errors.As(err, &ue):
		return nil, &UsageError{Err: err}
	case err != nil:
		return nil, err
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.String()
	}
	return &BundleResult{Path: res.Path, Platforms: names, Files: res.Files, Manifest: res.Manifest}, nil
}

// bundleListing is the project's tools (for the manifest) and whether it has prompts.
func (srv *Server) bundleListing(ctx context.Context) ([]bundle.Tool, bool) {
	reg := srv.reg
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
