package host

// `mcp-bash publish`: the original's upload of an MCP Bundle to the MCP Registry.

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-bash/mcp-bash/host/internal/bundle"
	"github.com/mcp-bash/mcp-bash/host/internal/config"
)

// maxManifestBytes bounds the manifest.json read out of a bundle.
const maxManifestBytes = 1 << 20

// PublishOptions say what `mcp-bash publish` sends.
type PublishOptions struct {
	// Bundle is the .mcpb file.
	Bundle string
	// Token is the registry's API token (--token, else MCP_REGISTRY_TOKEN).
	Token string
	// DryRun validates and sends nothing.
	DryRun bool
	// Getenv reads MCP_REGISTRY_URL and MCP_REGISTRY_TOKEN (nil: the process environment).
	Getenv func(string) string
	// Log receives progress lines (nil: nothing).
	Log io.Writer
}

// PublishResult is the validated manifest's name and version, and the registry's answer.
type PublishResult struct {
	Name, Version string
	Response      string // the registry's body (empty with DryRun)
}

// Publish validates a bundle (a zip with a valid MCPB manifest.json) and, unless DryRun, uploads
// it to the MCP Registry (MCP_REGISTRY_URL, POST <url>/api/v1/bundles with the token as a bearer
// credential). A bundle or token problem is a *UsageError; a refusal by the registry is an
// error with its status and message.
func Publish(ctx context.Context, o PublishOptions) (*PublishResult, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	set, err := config.Load(getenv)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	if !strings.HasSuffix(o.Bundle, ".mcpb") {
		return nil, &UsageError{Err: fmt.Errorf("%s: not an MCP Bundle (.mcpb)", o.Bundle)}
	}
	zr, err := zip.OpenReader(o.Bundle)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("%s: not a valid bundle archive: %v", o.Bundle, err)}
	}
	defer zr.Close()
	var manifest map[string]any
	for _, f := range zr.File {
		if f.Name != "manifest.json" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, &UsageError{Err: fmt.Errorf("%s: manifest.json: %v", o.Bundle, err)}
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxManifestBytes+1))
		rc.Close()
		if err != nil || len(b) > maxManifestBytes || json.Unmarshal(b, &manifest) != nil {
			return nil, &UsageError{Err: fmt.Errorf("%s: manifest.json is not a JSON object of at most %d bytes", o.Bundle, maxManifestBytes)}
		}
	}
	if manifest == nil {
		return nil, &UsageError{Err: fmt.Errorf("%s: the bundle has no manifest.json", o.Bundle)}
	}
	if problems := bundle.Validate(manifest); len(problems) > 0 {
		return nil, &UsageError{Err: &bundle.ValidationError{Problems: problems}}
	}
	res := &PublishResult{}
	res.Name, _ = manifest["name"].(string)
	res.Version, _ = manifest["version"].(string)
	if o.Log != nil {
		fmt.Fprintf(o.Log, "mcp-bash publish: %s is a valid bundle of %s %s\n", o.Bundle, res.Name, res.Version)
	}
	if o.DryRun {
		return res, nil
	}
	token := o.Token
	if token == "" {
		token = set.RegistryToken
	}
	if token == "" {
		return nil, &UsageError{Err: errors.New("publishing needs an API token of the MCP Registry: pass --token or set MCP_REGISTRY_TOKEN (create one in your account at " + set.RegistryURL + ")")}
	}
	f, err := os.Open(o.Bundle)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	url := strings.TrimSuffix(set.RegistryURL, "/") + "/api/v1/bundles"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, f)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("MCP_REGISTRY_URL: %v", err)}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("X-Bundle-Name", filepath.Base(o.Bundle))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("uploading to %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	res.Response = strings.TrimSpace(string(body))
	switch {
	case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated:
		return res, nil
	case resp.StatusCode == http.StatusUnauthorized:
		return res, errors.New("the MCP Registry refused the token (401): check MCP_REGISTRY_TOKEN or --token")
	case resp.StatusCode == http.StatusConflict:
		return res, fmt.Errorf("the MCP Registry already has %s %s (409): bump the version", res.Name, res.Version)
	case resp.StatusCode == http.StatusUnprocessableEntity:
		return res, fmt.Errorf("the MCP Registry rejected the bundle (422): %s", res.Response)
	}
	return res, fmt.Errorf("the MCP Registry answered %s: %s", resp.Status, res.Response)
}
