// Package bundle writes MCP Bundles (.mcpb): a zip archive with manifest.json at its root, the
// mcp-bash server binary for each chosen platform and the project, installable with one click
// in clients such as Claude Desktop. The manifest follows the MCPB manifest spec and is
// validated before anything is written.
//
// Archive layout:
//
//	manifest.json
//	server/mcp-bash                 the binary (one platform) or a /bin/sh launcher (several)
//	server/bin/<os>-<arch>/mcp-bash the binaries of a multi-platform bundle
//	server/project/...              the project, without hidden files and .mcpb files
//	icon.png                        when the project has one at its root
package bundle

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// UsageError is a request that cannot be satisfied as given (exit status 2 in the CLI).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ValidationError lists what is wrong with the manifest; nothing was written.
type ValidationError struct{ Problems []Problem }

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid manifest.json (nothing was written):")
	for _, p := range e.Problems {
		b.WriteString("\n  " + p.String())
		if hint := hints[p.Field]; hint != "" {
			b.WriteString(" (" + hint + ")")
		}
	}
	return b.String()
}

var hints = map[string]string{
	"author":      `pass --author NAME, or set "author" in server.d/server.meta.json or server.d/mcpb.json`,
	"version":     `pass --version, or set "version" in server.d/server.meta.json`,
	"description": `set "description" in server.d/server.meta.json`,
}

// OverlayFile holds manifest fields merged over the generated manifest (objects key by key).
const OverlayFile = "server.d/mcpb.json"

// Options says what to bundle.
type Options struct {
	Project   string // project root (absolute, physical)
	Output    string // .mcpb file, or a directory for <name>-<version>.mcpb; "" for the working directory
	Platforms []Platform
	Info      Info // Name, Title, Version, Description; Author and Icon are filled from the project when unset
	Builder   *Builder
	// ValidateOnly checks the manifest and the archive's contents and writes nothing (Result
	// has no Path).
	ValidateOnly bool
	// Verbose names each file the archive gets on warn.
	Verbose bool
}

// Result describes a written bundle.
type Result struct {
	Path     string
	Manifest map[string]any
	Files    []string // archive paths, manifest.json first
}

// entry is one file of the archive: copied from Src, or Data.
type entry struct {
	Name string
	Src  string
	Data []byte
	Mode fs.FileMode
}

// Create validates the manifest, builds the binaries and writes the bundle. Warnings (skipped
// files) go to warn.
func Create(ctx context.Context, o Options, warn io.Writer) (*Result, error) {
	if len(o.Platforms) == 0 {
		o.Platforms = []Platform{Current()}
	}
	info := o.Info
	info.Platforms = o.Platforms
	if info.Author == nil {
		a, err := metaAuthor(o.Project)
		if err != nil {
			return nil, err
		}
		info.Author = a
	}
	files, err := projectFiles(o.Project, o.Output, warn)
	if err != nil {
		return nil, err
	}
	if o.Verbose {
		for _, f := range files {
			fmt.Fprintf(warn, "mcp-bash bundle: adding %s\n", f.Name)
		}
	}
	if _, err := os.Stat(filepath.Join(o.Project, "icon.png")); err == nil && info.Icon == "" {
		info.Icon = "icon.png"
		files = append(files, entry{Name: "icon.png", Src: filepath.Join(o.Project, "icon.png"), Mode: 0o644})
	}
	m := Manifest(info)
	overlay, err := readOverlay(o.Project)
	if err != nil {
		return nil, err
	}
	m = Merge(m, overlay)

	// The binaries and the launcher.
	_, paths := archivePaths(o.Platforms)
	var bins []entry
	if len(paths) > 1 {
		bins = append(bins, entry{Name: EntryPoint, Data: []byte(launcher(o.Platforms)), Mode: 0o755})
	}
	for _, p := range o.Platforms {
		bins = append(bins, entry{Name: paths[p], Mode: 0o755})
	}
	files = append(bins, files...)

	problems := Validate(m)
	problems = append(problems, archiveProblems(m, files)...)
	if len(problems) > 0 {
		return nil, &ValidationError{problems}
	}
	if o.ValidateOnly {
		res := &Result{Manifest: m, Files: []string{"manifest.json"}}
		for _, f := range files {
			res.Files = append(res.Files, f.Name)
		}
		return res, nil
	}
	if o.Builder == nil {
		return nil, errors.New("bundle: no builder")
	}
	if err := o.Builder.Check(o.Platforms); err != nil {
		return nil, err
	}

	out, err := outputPath(o.Output, m)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "mcp-bash-bundle-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	built, err := o.Builder.Binaries(ctx, o.Platforms, tmp)
	if err != nil {
		return nil, err
	}
	for i := range files {
		for p, name := range paths {
			if files[i].Name == name {
				files[i].Src = built[p]
			}
		}
	}
	manifest, _ := json.MarshalIndent(m, "", "  ")
	files = append([]entry{{Name: "manifest.json", Data: append(manifest, '\n'), Mode: 0o644}}, files...)
	if err := writeZip(out, files); err != nil {
		return nil, err
	}
	res := &Result{Path: out, Manifest: m}
	for _, f := range files {
		res.Files = append(res.Files, f.Name)
	}
	return res, nil
}

// metaAuthor reads "author" (a name, or {"name","email","url"}) from server.d/server.meta.json.
func metaAuthor(root string) (map[string]any, error) {
	data, err := os.ReadFile(filepath.Join(root, "server.d", "server.meta.json"))
	if err != nil {
		return nil, nil
	}
	var meta struct {
		Author any `json:"author"`
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		return nil, &UsageError{"server.d/server.meta.json: " + err.Error()}
	}
	switch a := meta.Author.(type) {
	case string:
		if strings.TrimSpace(a) != "" {
			return map[string]any{"name": a}, nil
		}
	case map[string]any:
		return a, nil
	}
	return nil, nil
}

func readOverlay(root string) (map[string]any, error) {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(OverlayFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var o map[string]any
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, &ValidationError{[]Problem{{OverlayFile, "must be a JSON object: " + err.Error()}}}
	}
	return o, nil
}

// archiveProblems checks the paths the manifest names are in the archive.
func archiveProblems(m map[string]any, files []entry) []Problem {
	has := func(p string) bool {
		p = strings.TrimPrefix(path.Clean(strings.TrimPrefix(p, "${__dirname}/")), "./")
		return slices.ContainsFunc(files, func(e entry) bool { return e.Name == p })
	}
	var ps []Problem
	if srv, ok := m["server"].(map[string]any); ok {
		if ep, ok := srv["entry_point"].(string); ok && !has(ep) {
			ps = append(ps, Problem{"server.entry_point", fmt.Sprintf("%q is not in the bundle", ep)})
		}
		// A command inside the bundle (${__dirname}/...) must be there on every platform.
		cfg, _ := srv["mcp_config"].(map[string]any)
		commands := map[string]any{"server.mcp_config.command": cfg["command"]}
		overrides, _ := cfg["platform_overrides"].(map[string]any)
		for os, o := range overrides {
			if o, ok := o.(map[string]any); ok {
				commands["server.mcp_config.platform_overrides."+os+".command"] = o["command"]
			}
		}
		for field, c := range commands {
			if c, ok := c.(string); ok && strings.HasPrefix(c, "${__dirname}/") && !has(c) {
				ps = append(ps, Problem{field, fmt.Sprintf("%q is not in the bundle", c)})
			}
		}
		slices.SortFunc(ps, func(a, b Problem) int { return strings.Compare(a.Field, b.Field) })
	}
	if icon, ok := m["icon"].(string); ok && !strings.HasPrefix(icon, "https://") && !has(icon) {
		ps = append(ps, Problem{"icon", fmt.Sprintf("%q is not in the bundle", icon)})
	}
	return ps
}

var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// outputPath resolves --output: a path ending in .mcpb is the file, anything else a directory
// (created) for <name>-<version>.mcpb.
func outputPath(output string, m map[string]any) (string, error) {
	name, _ := m["name"].(string)
	version, _ := m["version"].(string)
	file := unsafeName().ReplaceAllString(name+"-"+version, "_") + ".mcpb"
	switch {
	case output == "":
		output = file
	case strings.HasSuffix(output, ".mcpb"):
	default:
		if err := os.MkdirAll(output, 0o755); err != nil {
			return "", err
		}
		output = filepath.Join(output, file)
	}
	if err := os.MkdirAll(filepath.Dir(output), 0o755); err != nil {
		return "", err
	}
	return filepath.Abs(output)
}

// projectFiles lists the project under ProjectDir: every regular file except hidden files and
// directories (.git, .registry, .env, ...), .mcpb files and secrets (secretFiles, left out with
// a warning). Symbolic links are followed when they stay inside the project and skipped with a
// warning otherwise.
func projectFiles(root, output string, warn io.Writer) ([]entry, error) {
	outAbs, _ := filepath.Abs(output)
	secrets := secretFiles(root)
	var out []entry
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		// Before the directory check: server.d/api-keys may be a directory of key files.
		if secrets[filepath.ToSlash(rel)] {
			fmt.Fprintf(warn, "mcp-bash bundle: left out %s: secrets are never bundled (hosting configuration: give it to the server where it runs)\n", rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || strings.HasSuffix(d.Name(), ".mcpb") || p == outAbs {
			return nil
		}
		src := p
		if d.Type()&fs.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(p)
			if err != nil || !within(root, real) {
				fmt.Fprintf(warn, "mcp-bash bundle: skipped %s: symbolic link leaves the project\n", rel)
				return nil
			}
			src = real
		}
		fi, err := os.Stat(src)
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			fmt.Fprintf(warn, "mcp-bash bundle: skipped %s: not a regular file\n", rel)
			return nil
		}
		mode := fs.FileMode(0o644)
		if fi.Mode()&0o111 != 0 {
			mode = 0o755
		}
		out = append(out, entry{Name: path.Join(ProjectDir, filepath.ToSlash(rel)), Src: src, Mode: mode})
		return nil
	})
	return out, err
}

// secretFiles are the project's hosting secrets, relative to root: server.d/auth.json (and
// the API keys file it names), server.d/api-keys and server.d/tenants.json. A bundle installed
// on a user's machine must never carry a host's keys and tenants.
func secretFiles(root string) map[string]bool {
	out := map[string]bool{"server.d/auth.json": true, "server.d/api-keys": true, "server.d/tenants.json": true}
	b, err := os.ReadFile(filepath.Join(root, "server.d", "auth.json"))
	if err != nil {
		return out
	}
	var cfg struct {
		APIKeysFile string `json:"apiKeysFile"`
	}
	if json.Unmarshal(b, &cfg) == nil && cfg.APIKeysFile != "" {
		p := cfg.APIKeysFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, "server.d", p)
		}
		if rel, err := filepath.Rel(root, filepath.Clean(p)); err == nil && !strings.HasPrefix(rel, "..") {
			out[filepath.ToSlash(rel)] = true
		}
	}
	return out
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// writeZip writes the archive next to out and renames it into place.
func writeZip(out string, files []entry) (err error) {
	f, err := os.CreateTemp(filepath.Dir(out), ".mcpb-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	zw := zip.NewWriter(f)
	now := time.Now()
	for _, e := range files {
		h := &zip.FileHeader{Name: e.Name, Method: zip.Deflate, Modified: now}
		h.SetMode(e.Mode)
		var fi os.FileInfo
		if e.Src != "" {
			if fi, err = os.Stat(e.Src); err != nil {
				return err
			}
			h.Modified = fi.ModTime()
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if e.Src == "" {
			if _, err := w.Write(e.Data); err != nil {
				return err
			}
			continue
		}
		src, err := os.Open(e.Src)
		if err != nil {
			return err
		}
		_, err = io.Copy(w, src)
		src.Close()
		if err != nil {
			return err
		}
	}
	if err = zw.Close(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}
