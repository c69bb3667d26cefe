package host

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-bash/mcp-bash/host/internal/registry"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validation is what `mcp-bash validate` reports: every finding, sorted by file, and how many
// tools were checked.
type Validation struct {
	Findings []interp.Finding
	Tools    int
}

// Counts returns the number of error and warning findings.
func (v Validation) Counts() (errs, warns int) {
	for _, f := range v.Findings {
		switch f.Severity {
		case "error":
			errs++
		case "warning":
			warns++
		}
	}
	return errs, warns
}

// Validate checks the project as `mcp-bash validate` does: the project checks, every registry's
// status, duplicate tool names, each tool's static plan (how its script will run in the
// sandbox), and executable bits, which fix sets instead of reporting. Discovery warnings
// (malformed metadata, invalid names, ...) go to the server's stderr as the registry finds them.
func (srv *Server) Validate(ctx context.Context, fix bool) Validation {
	var findings []interp.Finding
	addf := func(file string, sev, kind, msg, fix string) {
		findings = append(findings, interp.Finding{File: file, Severity: sev, Kind: kind, Message: msg, Suggestion: fix})
	}
	for k, ok := range srv.Project().Checks() {
		if !ok {
			addf(srv.cfg.Dirs.Server, "error", "project", "check failed: "+k, "")
		}
	}
	findings = append(findings, toolMetaFindings(srv.cfg.Dirs.Tools)...)
	reg := srv.reg
	for _, st := range reg.Status(ctx) {
		if st.Error != "" {
			addf(string(st.Kind), "error", "registry", st.Error, "")
		}
	}
	seen := map[string]bool{}
	for cursor := ""; ; {
		page, err := reg.List(ctx, registry.KindTools, cursor, registry.MaxPageSize)
		if err != nil {
			break
		}
		for _, it := range page.Items {
			var item struct{ Name, Path string }
			json.Unmarshal(it, &item)
			if seen[item.Name] {
				file, first := item.Name, "the first"
				if item.Path != "" {
					file = filepath.Join(srv.cfg.Dirs.Tools, filepath.FromSlash(item.Path))
				}
				if tool, err := reg.Tool(ctx, item.Name); err == nil {
					first = tool.Abs
				}
				addf(file, "warning", "name", "duplicate tool name "+strconv.Quote(item.Name)+" (calls run "+first+")", "give each tool its own name in its metadata")
				continue
			}
			seen[item.Name] = true
			if !registry.PortableToolName(item.Name) {
				addf(item.Name, "warning", "name", "tool name "+strconv.Quote(item.Name)+" is served (MCP allows dots and up to 128 characters), but Claude Desktop and some other clients reject names outside ^[a-zA-Z0-9_-]{1,64}$",
					"rename it, e.g. "+strconv.Quote(portableName(item.Name)))
			}
			_, plan, err := srv.ToolPlan(ctx, item.Name)
			if err != nil {
				addf(item.Name, "error", "script", err.Error(), "")
				continue
			}
			tool, _ := reg.Tool(ctx, item.Name)
			if fi, err := os.Stat(tool.Abs); err == nil && fi.Mode()&0o111 == 0 && tool.Kind == registry.ToolScript {
				if fix {
					os.Chmod(tool.Abs, fi.Mode()|0o111)
				} else {
					addf(tool.Abs, "warning", "exec-bit", "script is not executable (the original needs it; the sandbox does not)", "chmod +x "+tool.Abs+" (or run validate --fix)")
				}
			}
			if tool.Kind == registry.ToolScript && !hasShebang(tool.Abs) {
				addf(tool.Abs, "warning", "shebang", "missing shebang (the sandbox runs it as bash; run as a program it needs one)", "make #!/usr/bin/env bash its first line")
			}
			if toolNetwork(tool) && tool.Kind == registry.ToolScript && !srv.wantsNative(tool) {
				addf(tool.Abs, "warning", "network", `"sandbox": {"network": true} has no effect on a sandboxed tool: only native tools get the network (its allowlisted commands never do)`,
					`set "exec": "native" (run when MCPBASH_TOOL_ALLOWLIST names the tool), or download over https with mcp_download_safe`)
			}
			findings = append(findings, plan.Findings...)
			findings = append(findings, srv.schemaFindings(tool)...)
		}
		if page.NextCursor == "" {
			break
		}
		cursor = page.NextCursor
	}
	sort.SliceStable(findings, func(i, j int) bool { return findings[i].File < findings[j].File })
	return Validation{Findings: findings, Tools: len(seen)}
}

// RegistryStatus is one registry's state (`mcp-bash registry status`): its kind, item count,
// content hash, when it was generated and its error, if any.
type RegistryStatus = registry.Status

// RegistryStatus loads every registry (tools, resources, prompts, ...) and reports each.
func (srv *Server) RegistryStatus(ctx context.Context) []RegistryStatus { return srv.reg.Status(ctx) }

// RebuildRegistry rescans the project and rewrites the .registry cache.
func (srv *Server) RebuildRegistry(ctx context.Context) error { return srv.reg.Rebuild(ctx) }

// portableName suggests a name every client accepts: characters outside [A-Za-z0-9_-] become
// '_', cut to 64.
func portableName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return strings.TrimSpace(string(b[:min(len(b), 64)]))
}

// toolMetaFindings checks every tool metadata file under dir (registry.CheckToolMeta): a file
// that is not JSON, or whose fields have the wrong types, is served with defaults (under its
// file's name, with no schema), so each problem is an error with its line and fix. UI metadata
// (ui.meta.json, ui/) is not tool metadata.
func toolMetaFindings(dir string) []interp.Finding {
	var out []interp.Finding
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir():
			if path != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "ui") {
				return filepath.SkipDir
			}
			return nil
		case !strings.HasSuffix(d.Name(), ".meta.json") || d.Name() == "ui.meta.json" || strings.HasPrefix(d.Name(), "."):
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			out = append(out, interp.Finding{File: path, Severity: "error", Kind: "meta", Message: "cannot read: " + err.Error()})
			return nil
		}
		problems := registry.CheckToolMeta(data)
		for _, p := range problems {
			out = append(out, interp.Finding{File: path, Line: p.Line, Col: p.Col, Severity: "error", Kind: "meta", Message: p.Message, Suggestion: p.Fix})
		}
		if len(problems) > 0 {
			return nil
		}
		// The original's two name checks, in its words: a tool's metadata names it, and
		// tools/<dir>/tool.meta.json names it <dir>.
		var meta struct {
			Name *string `json:"name"`
		}
		json.Unmarshal(data, &meta)
		toolDir := filepath.Base(filepath.Dir(path))
		inDir := d.Name() == "tool.meta.json" && filepath.Dir(path) != filepath.Clean(dir)
		switch {
		case meta.Name == nil || *meta.Name == "":
			// Served under its file's stem, as the original serves it: every nameless
			// tools/<dir>/tool.sh is "tool".
			want, served := strings.TrimSuffix(d.Name(), ".meta.json"), strings.TrimSuffix(d.Name(), ".meta.json")
			if inDir {
				want = toolDir
			}
			out = append(out, interp.Finding{File: path, Line: 1, Severity: "error", Kind: "meta", Message: `missing required "name"`,
				Suggestion: `add "name": ` + strconv.Quote(want) + ` (until then the tool is served as ` + strconv.Quote(served) + `)`})
		case inDir && *meta.Name != toolDir:
			out = append(out, interp.Finding{File: path, Line: 1, Severity: "warning", Kind: "meta",
				Message:    "directory name does not match tool.meta.json name " + strconv.Quote(*meta.Name),
				Suggestion: "rename the directory to " + strconv.Quote(*meta.Name) + " or the tool to " + strconv.Quote(toolDir)})
		}
		return nil
	})
	return out
}

// hasShebang reports whether the file starts with "#!" (an unreadable file is reported elsewhere).
func hasShebang(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	b := make([]byte, 2)
	n, _ := io.ReadFull(f, b)
	return n == 2 && string(b) == "#!"
}

// schemaFindings reports a tool's inputSchema or outputSchema that does not compile: the server
// lists the tool, but every call of it answers "invalid inputSchema" (or a protocol error for
// the output), so validate says so before a client does.
func (srv *Server) schemaFindings(tool *registry.Tool) []interp.Finding {
	p := srv.planOf(tool)
	var out []interp.Finding
	for _, s := range []struct {
		field string
		plan  *schemaPlan
	}{{"inputSchema", p.input}, {"outputSchema", p.output}} {
		if s.plan == nil || s.plan.err == nil {
			continue
		}
		out = append(out, interp.Finding{File: toolMetaFile(tool.Abs), Severity: "error", Kind: "schema",
			Message:    s.field + " is not a valid JSON Schema (every call of the tool fails): " + schemaProblem(s.plan.err),
			Suggestion: "correct " + strconv.Quote(s.field) + " (JSON Schema 2020-12 unless \"$schema\" names another draft)"})
	}
	return out
}

// toolMetaFile is the metadata file of the tool script at abs: tools/<dir>/tool.meta.json
// beside a tool.* script, else <stem>.meta.json beside it, else the script itself (metadata
// in its header).
func toolMetaFile(abs string) string {
	dir, base := filepath.Split(abs)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	for _, c := range []string{stem + ".meta.json", "tool.meta.json"} {
		if c == "tool.meta.json" && stem != "tool" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, c)); err == nil && fi.Mode().IsRegular() {
			return filepath.Join(dir, c)
		}
	}
	return abs
}

// schemaProblem words why a schema does not compile: where it breaks its draft's metaschema
// (the violations' own words, as call results give them), else the compiler's error.
func schemaProblem(err error) string {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &sve) || !errors.As(sve.Err, &ve) {
		return strings.Join(strings.Fields(err.Error()), " ")
	}
	// The leaves of the error tree say what is wrong where; the inner nodes only that a
	// combinator failed.
	en := message.NewPrinter(language.English)
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, "/"+strings.Join(e.InstanceLocation, "/")+": "+e.ErrorKind.LocalizedString(en))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(dedupe(leaves), "; ")
}
