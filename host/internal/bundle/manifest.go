package bundle

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// ManifestVersion is the MCPB manifest spec version written into bundles (binary servers
// need nothing newer).
const ManifestVersion = "0.3"

// Archive layout: the entry point, the per-platform binaries of a multi-platform bundle, and
// the project.
const (
	EntryPoint = "server/mcp-bash"
	BinDir     = "server/bin"
	ProjectDir = "server/project"
)

// archivePaths says where each platform's binary goes in the archive, and what the entry point
// is: the binary itself for one platform (server/mcp-bash, or server/mcp-bash.exe for Windows),
// else the /bin/sh launcher at EntryPoint with the binaries under BinDir/<os-arch>/. Windows
// does not run the launcher: the manifest's platform_overrides name its binary.
func archivePaths(ps []Platform) (entry string, bins map[Platform]string) {
	if len(ps) == 0 {
		ps = []Platform{Current()}
	}
	bins = map[Platform]string{}
	if len(ps) == 1 {
		entry = path.Join(path.Dir(EntryPoint), ps[0].binaryName())
		bins[ps[0]] = entry
		return entry, bins
	}
	for _, p := range ps {
		bins[p] = path.Join(BinDir, p.String(), p.binaryName())
	}
	return EntryPoint, bins
}

// Tool is a tool listed in the manifest for discovery before installation.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// Info is what the generated manifest is made from.
type Info struct {
	Name, Title, Version, Description string
	Author                            map[string]any // {"name", "email", "url"}; nil when unknown
	Tools                             []Tool
	Prompts                           bool // the project has prompts (they are not listed)
	Platforms                         []Platform
	Icon                              string // archive path of icon.png, "" when none
}

// Manifest builds the manifest for info. The server starts with --project-root pointing at the
// bundled project and, as `mcp-bash config` snippets do, MCPBASH_TOOL_ALLOWLIST="*".
func Manifest(info Info) map[string]any {
	entry, bins := archivePaths(info.Platforms)
	launch := map[string]any{
		"command": "${__dirname}/" + entry,
		"args":    []any{"--project-root", "${__dirname}/" + ProjectDir},
		"env":     map[string]any{"MCPBASH_TOOL_ALLOWLIST": "*"},
	}
	if len(bins) > 1 {
		for p, bin := range bins {
			if p.OS == "windows" {
				launch["platform_overrides"] = map[string]any{p.mcpbOS(): map[string]any{"command": "${__dirname}/" + bin}}
			}
		}
	}
	m := map[string]any{
		"manifest_version": ManifestVersion,
		"name":             info.Name,
		"version":          info.Version,
		"description":      info.Description,
		"server": map[string]any{
			"type":        "binary",
			"entry_point": entry,
			"mcp_config":  launch,
		},
	}
	if info.Title != "" && info.Title != info.Name {
		m["display_name"] = info.Title
	}
	if info.Author != nil {
		m["author"] = info.Author
	}
	var oses []any
	for _, p := range info.Platforms {
		if !slices.Contains(oses, any(p.mcpbOS())) {
			oses = append(oses, p.mcpbOS())
		}
	}
	if len(oses) > 0 {
		m["compatibility"] = map[string]any{"platforms": oses}
	}
	if len(info.Tools) > 0 {
		tools := make([]any, len(info.Tools))
		for i, t := range info.Tools {
			e := map[string]any{"name": t.Name}
			if t.Description != "" {
				e["description"] = t.Description
			}
			tools[i] = e
		}
		m["tools"] = tools
	}
	if info.Prompts {
		m["prompts_generated"] = true
	}
	if info.Icon != "" {
		m["icon"] = info.Icon
	}
	return m
}

// Merge lays overlay over base: objects are merged key by key, anything else replaces.
func Merge(base, overlay map[string]any) map[string]any {
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range overlay {
		if bo, ok := out[k].(map[string]any); ok {
			if oo, ok := v.(map[string]any); ok {
				out[k] = Merge(bo, oo)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// Problem is one way a manifest breaks the MCPB spec.
type Problem struct {
	Field, Message string
}

func (p Problem) String() string { return p.Field + ": " + p.Message }

var (
	semverRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)
	})
	sizeRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+x\d+$`) })
	localeRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9]{2,8}(?:-[A-Za-z0-9]{1,8})*$`) })
	mcpbOSes  = []string{"darwin", "win32", "linux"}
	manifests = []string{"0.1", "0.2", "0.3", "0.4"}
)

// Validate checks a manifest against the MCPB manifest spec (required fields, types, enums,
// formats, no unknown fields) and returns the problems found, sorted by field.
func Validate(m map[string]any) []Problem {
	v := &validator{}
	v.object("", m, fields{
		"$schema":           v.str,
		"dxt_version":       v.str,
		"manifest_version":  v.oneOf(manifests...),
		"name":              v.nonEmpty,
		"display_name":      v.str,
		"version":           v.semver,
		"description":       v.nonEmpty,
		"long_description":  v.str,
		"author":            v.author,
		"repository":        v.repository,
		"homepage":          v.uri,
		"documentation":     v.uri,
		"support":           v.uri,
		"icon":              v.str,
		"icons":             v.icons,
		"screenshots":       v.strings,
		"localization":      v.localization,
		"server":            v.server,
		"tools":             v.tools,
		"tools_generated":   v.boolean,
		"prompts":           v.prompts,
		"prompts_generated": v.boolean,
		"keywords":          v.strings,
		"license":           v.str,
		"privacy_policies":  v.uris,
		"compatibility":     v.compatibility,
		"user_config":       v.userConfig,
		"_meta":             v.meta,
	}, "manifest_version", "name", "version", "description", "author", "server")
	sort.SliceStable(v.problems, func(i, j int) bool { return v.problems[i].Field < v.problems[j].Field })
	return v.problems
}

type check func(field string, x any)
type fields map[string]check

type validator struct{ problems []Problem }

func (v *validator) add(field, format string, args ...any) {
	v.problems = append(v.problems, Problem{field, fmt.Sprintf(format, args...)})
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func typeName(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, int:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

// object checks x is an object whose keys are all known, and that the required ones are set.
func (v *validator) object(field string, x any, fs fields, required ...string) {
	o, ok := x.(map[string]any)
	if !ok {
		v.add(field, "must be an object, not %s", typeName(x))
		return
	}
	for _, k := range required {
		if _, ok := o[k]; !ok {
			v.add(join(field, k), "is required")
		}
	}
	for k, val := range o {
		c, ok := fs[k]
		if !ok {
			v.add(join(field, k), "unknown field")
			continue
		}
		c(join(field, k), val)
	}
}

func (v *validator) str(field string, x any) {
	if _, ok := x.(string); !ok {
		v.add(field, "must be a string, not %s", typeName(x))
	}
}

func (v *validator) nonEmpty(field string, x any) {
	if s, ok := x.(string); !ok {
		v.add(field, "must be a string, not %s", typeName(x))
	} else if strings.TrimSpace(s) == "" {
		v.add(field, "must not be empty")
	}
}

func (v *validator) boolean(field string, x any) {
	if _, ok := x.(bool); !ok {
		v.add(field, "must be a boolean, not %s", typeName(x))
	}
}

func (v *validator) number(field string, x any) {
	if _, ok := x.(float64); !ok {
		if _, ok := x.(int); !ok {
			v.add(field, "must be a number, not %s", typeName(x))
		}
	}
}

func (v *validator) oneOf(allowed ...string) check {
	return func(field string, x any) {
		s, ok := x.(string)
		if !ok {
			v.add(field, "must be a string, not %s", typeName(x))
		} else if !slices.Contains(allowed, s) {
			v.add(field, "must be one of %s, not %q", strings.Join(allowed, ", "), s)
		}
	}
}

func (v *validator) semver(field string, x any) {
	if s, ok := x.(string); !ok {
		v.add(field, "must be a string, not %s", typeName(x))
	} else if !semverRE().MatchString(s) {
		v.add(field, "must be a semantic version such as 1.0.0, not %q", s)
	}
}

func (v *validator) uri(field string, x any) {
	s, ok := x.(string)
	if !ok {
		v.add(field, "must be a string, not %s", typeName(x))
		return
	}
	if u, err := url.Parse(s); err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "") {
		v.add(field, "must be an absolute URL, not %q", s)
	}
}

func (v *validator) array(field string, x any, each check) {
	a, ok := x.([]any)
	if !ok {
		v.add(field, "must be an array, not %s", typeName(x))
		return
	}
	for i, e := range a {
		each(fmt.Sprintf("%s[%d]", field, i), e)
	}
}

func (v *validator) strings(field string, x any) { v.array(field, x, v.str) }
func (v *validator) uris(field string, x any)    { v.array(field, x, v.uri) }

func (v *validator) author(field string, x any) {
	v.object(field, x, fields{"name": v.nonEmpty, "email": v.email, "url": v.uri}, "name")
}

func (v *validator) email(field string, x any) {
	if s, ok := x.(string); !ok {
		v.add(field, "must be a string, not %s", typeName(x))
	} else if at := strings.Index(s, "@"); at < 1 || at == len(s)-1 || strings.ContainsAny(s, " \t<>") {
		v.add(field, "must be an email address, not %q", s)
	}
}

func (v *validator) repository(field string, x any) {
	v.object(field, x, fields{"type": v.nonEmpty, "url": v.uri}, "type", "url")
}

func (v *validator) icons(field string, x any) {
	v.array(field, x, func(f string, e any) {
		v.object(f, e, fields{"src": v.nonEmpty, "size": v.pattern(sizeRE(), "WIDTHxHEIGHT such as 128x128"), "theme": v.nonEmpty}, "src", "size")
	})
}

func (v *validator) pattern(re *regexp.Regexp, what string) check {
	return func(field string, x any) {
		if s, ok := x.(string); !ok {
			v.add(field, "must be a string, not %s", typeName(x))
		} else if !re.MatchString(s) {
			v.add(field, "must be %s, not %q", what, s)
		}
	}
}

func (v *validator) localization(field string, x any) {
	v.object(field, x, fields{
		"resources": func(f string, x any) {
			if s, ok := x.(string); !ok {
				v.add(f, "must be a string, not %s", typeName(x))
			} else if !strings.Contains(s, "${locale}") {
				v.add(f, "must contain the ${locale} placeholder")
			}
		},
		"default_locale": v.pattern(localeRE(), "a BCP 47 locale such as en-US"),
	}, "resources", "default_locale")
}

func (v *validator) server(field string, x any) {
	o, ok := x.(map[string]any)
	if !ok {
		v.add(field, "must be an object, not %s", typeName(x))
		return
	}
	required := []string{"type", "entry_point", "mcp_config"}
	if o["type"] == "uv" {
		required = required[:2]
	}
	v.object(field, o, fields{
		"type":        v.oneOf("binary", "node", "python", "uv"),
		"entry_point": v.nonEmpty,
		"mcp_config":  v.mcpConfig,
	}, required...)
}

func (v *validator) mcpConfig(field string, x any) {
	launch := fields{"command": v.nonEmpty, "args": v.strings, "env": v.env}
	all := fields{"command": v.nonEmpty, "args": v.strings, "env": v.env, "platform_overrides": func(f string, x any) {
		o, ok := x.(map[string]any)
		if !ok {
			v.add(f, "must be an object, not %s", typeName(x))
			return
		}
		for k, val := range o {
			if !slices.Contains(mcpbOSes, k) {
				v.add(join(f, k), "unknown platform (one of %s)", strings.Join(mcpbOSes, ", "))
			}
			v.object(join(f, k), val, launch)
		}
	}}
	v.object(field, x, all, "command")
}

func (v *validator) env(field string, x any) {
	o, ok := x.(map[string]any)
	if !ok {
		v.add(field, "must be an object, not %s", typeName(x))
		return
	}
	for k, val := range o {
		v.str(join(field, k), val)
	}
}

func (v *validator) tools(field string, x any) {
	v.array(field, x, func(f string, e any) {
		v.object(f, e, fields{"name": v.nonEmpty, "description": v.str}, "name")
	})
}

func (v *validator) prompts(field string, x any) {
	v.array(field, x, func(f string, e any) {
		v.object(f, e, fields{"name": v.nonEmpty, "description": v.str, "arguments": v.strings, "text": v.str}, "name", "text")
	})
}

func (v *validator) compatibility(field string, x any) {
	o, ok := x.(map[string]any)
	if !ok {
		v.add(field, "must be an object, not %s", typeName(x))
		return
	}
	for k, val := range o {
		f := join(field, k)
		switch k {
		case "platforms":
			v.array(f, val, v.oneOf(mcpbOSes...))
		case "runtimes":
			v.object(f, val, fields{"python": v.str, "node": v.str})
		default: // claude_desktop and other clients' version constraints
			v.str(f, val)
		}
	}
}

func (v *validator) userConfig(field string, x any) {
	o, ok := x.(map[string]any)
	if !ok {
		v.add(field, "must be an object, not %s", typeName(x))
		return
	}
	for k, val := range o {
		v.object(join(field, k), val, fields{
			"type":        v.oneOf("string", "number", "boolean", "directory", "file"),
			"title":       v.nonEmpty,
			"description": v.str,
			"required":    v.boolean,
			"default": func(f string, x any) {
				switch d := x.(type) {
				case string, bool, float64, int:
				case []any:
					v.strings(f, d)
				default:
					v.add(f, "must be a string, number, boolean or array of strings, not %s", typeName(x))
				}
			},
			"multiple":  v.boolean,
			"sensitive": v.boolean,
			"min":       v.number,
			"max":       v.number,
		}, "type", "title", "description")
	}
}

func (v *validator) meta(field string, x any) {
	o, ok := x.(map[string]any)
	if !ok {
		v.add(field, "must be an object, not %s", typeName(x))
		return
	}
	for k, val := range o {
		if _, ok := val.(map[string]any); !ok {
			v.add(join(field, k), "must be an object, not %s", typeName(val))
		}
	}
}
