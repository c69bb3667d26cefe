// Package registry is the project model: it finds the project root, reads server.d metadata and
// builds the tool, resource, template and prompt registries exactly as the original framework
// does, with a .registry cache, hashes, TTL checks and opaque pagination cursors.
package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/mcp-bash/mcp-bash/host/internal/config"
)

// Dirs locates the parts of a project. All paths are absolute.
type Dirs struct {
	Root, Tools, Resources, Prompts, Server, Registry, Providers, UI, Completions string
	// ServerName is MCPBASH_SERVER_NAME: the name when server.meta.json gives none ("" for the
	// root directory's name), as the original's runtime takes it.
	ServerName string
}

// NotADirectory says why path cannot be a project root ("does not exist", "is not a
// directory", ...), or "" when it is a directory.
func NotADirectory(path string) string {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "does not exist"
	case err != nil:
		return "cannot be read: " + err.Error()
	case !fi.IsDir():
		return "is not a directory"
	}
	return ""
}

// FindRoot resolves the project root as the original does: env (MCPBASH_PROJECT_ROOT) when set
// (it must be a directory), else the nearest ancestor of cwd holding server.d/server.meta.json.
// found is false when neither applies.
func FindRoot(cwd, env string) (root string, found bool, err error) {
	if env != "" {
		abs, err := filepath.Abs(env)
		if err != nil {
			return "", false, fmt.Errorf("MCPBASH_PROJECT_ROOT: %w", err)
		}
		if why := NotADirectory(abs); why != "" {
			return "", false, fmt.Errorf("MCPBASH_PROJECT_ROOT %s %s", env, why)
		}
		return physical(abs), true, nil
	}
	dir := physical(cwd)
	for {
		if fi, err := os.Stat(filepath.Join(dir, "server.d", "server.meta.json")); err == nil && fi.Mode().IsRegular() {
			return dir, true, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false, nil
		}
		dir = parent
	}
}

// physical resolves symlinks so that every path we hand out is the real one.
func physical(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return filepath.Clean(p)
}

// ResolveDirs applies the MCPBASH_*_DIR overrides (relative values are taken from the root).
func ResolveDirs(root string, o config.Dirs) Dirs {
	dir := func(v, def string) string {
		if v == "" {
			return filepath.Join(root, def)
		}
		if !filepath.IsAbs(v) {
			v = filepath.Join(root, v)
		}
		return filepath.Clean(v)
	}
	return Dirs{
		Root:        root,
		Tools:       dir(o.Tools, "tools"),
		Resources:   dir(o.Resources, "resources"),
		Prompts:     dir(o.Prompts, "prompts"),
		Server:      dir(o.Server, "server.d"),
		Registry:    dir(o.Registry, ".registry"),
		Providers:   dir(o.Providers, "providers"),
		UI:          dir(o.UI, "ui"),
		Completions: dir(o.Completions, "completions"),
		ServerName:  o.ServerName,
	}
}

// ServerMeta is server.d/server.meta.json with the original's defaults applied, plus the text of
// server.d/server.instructions.md.
type ServerMeta struct {
	Name, Title, Version, Description, WebsiteURL string
	Icons                                         json.RawMessage
	Instructions                                  string
	// Env is the project's declared environment policy (the "env" object): defaults for the
	// settings in ProjectEnvSettings that the operator's environment leaves unset.
	Env map[string]string
	// WriteMode is "writeMode": "review" puts every tool of the project in review mode
	// (docs/REVIEW.md); "" or "direct" leaves it to the tools and the operator.
	WriteMode string
}

// ProjectEnvSettings are the settings a project may declare in server.meta.json "env", as the
// original framework allows: which of the operator's variables its tools, providers and
// completion scripts need. The consents (MCPBASH_*_ENV_INHERIT_ALLOW) stay the operator's.
var ProjectEnvSettings = []string{"MCPBASH_TOOL_ENV_MODE", "MCPBASH_TOOL_ENV_ALLOWLIST",
	"MCPBASH_PROVIDER_ENV_MODE", "MCPBASH_PROVIDER_ENV_ALLOWLIST"}

// LoadServerMeta reads server.d. A missing server.meta.json means all defaults; a malformed one is
// an error, so that a typo never silently renames the server.
func LoadServerMeta(d Dirs) (ServerMeta, error) {
	var raw struct {
		Name        string            `json:"name"`
		Title       string            `json:"title"`
		Version     string            `json:"version"`
		Description string            `json:"description"`
		WebsiteURL  string            `json:"websiteUrl"`
		Icons       json.RawMessage   `json:"icons"`
		Env         map[string]string `json:"env"`
		WriteMode   string            `json:"writeMode"`
	}
	path := filepath.Join(d.Server, "server.meta.json")
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return ServerMeta{}, fmt.Errorf("registry: %s: %w", path, err)
	default:
		if err := json.Unmarshal(stripBOM(data), &raw); err != nil {
			return ServerMeta{}, fmt.Errorf("registry: %s: invalid JSON: %w", path, err)
		}
	}
	m := ServerMeta{Name: raw.Name, Title: raw.Title, Version: raw.Version, Description: raw.Description, WebsiteURL: raw.WebsiteURL, WriteMode: raw.WriteMode}
	if m.WriteMode != "" && m.WriteMode != "direct" && m.WriteMode != "review" {
		return ServerMeta{}, fmt.Errorf(`registry: %s: "writeMode" must be "direct" or "review", not %q`, path, m.WriteMode)
	}
	for k, v := range raw.Env {
		if !slices.Contains(ProjectEnvSettings, k) {
			return ServerMeta{}, fmt.Errorf("registry: %s: env: %s is not a setting a project may declare (allowed: %s; anything else is the operator's to set in the client configuration)",
				path, k, strings.Join(ProjectEnvSettings, ", "))
		}
		if m.Env == nil {
			m.Env = map[string]string{}
		}
		m.Env[k] = v
	}
	if m.Name == "" {
		m.Name = d.ServerName
	}
	if m.Name == "" {
		m.Name = filepath.Base(d.Root)
	}
	if m.Title == "" {
		m.Title = titleFromName(m.Name)
	}
	if m.Version == "" {
		m.Version = projectVersion(d.Root)
	}
	if len(raw.Icons) > 0 && raw.Icons[0] == '[' {
		m.Icons = raw.Icons
	}
	if b, err := os.ReadFile(filepath.Join(d.Server, "server.instructions.md")); err == nil {
		m.Instructions = strings.TrimRight(string(b), "\r\n")
	}
	return m, nil
}

// titleFromName turns "hello-tool_example" into "Hello Tool Example".
func titleFromName(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	for i, w := range words {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

// projectVersion follows the original: a VERSION file, else package.json's version, else 0.0.0.
func projectVersion(root string) string {
	if b, err := os.ReadFile(filepath.Join(root, "VERSION")); err == nil {
		if v := strings.TrimSpace(string(b)); v != "" {
			return v
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "package.json")); err == nil {
		var p struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(b, &p) == nil && p.Version != "" {
			return p.Version
		}
	}
	return "0.0.0"
}

func stripBOM(b []byte) []byte {
	return []byte(strings.TrimPrefix(string(b), "\uFEFF"))
}
