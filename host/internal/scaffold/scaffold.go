// Package scaffold creates mcp-bash projects and adds tools, prompts, resources and completion
// providers to them from templates embedded in the binary. Generated tools pass `validate` and
// run in the sandbox as generated.
package scaffold

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/template"
	"unicode"
)

//go:embed templates/*.tmpl
var templates embed.FS

// nameRE is the original's rule for project and tool names (Claude Desktop rejects dots).
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// ErrExists is returned when a target already exists.
var ErrExists = errors.New("already exists")

// CheckName validates a project, tool, prompt, resource or completion name.
func CheckName(name string) error {
	if !nameRE().MatchString(name) {
		return fmt.Errorf("invalid name %q: use 1-64 letters, digits, '-' or '_'", name)
	}
	return nil
}

// Origin is what a generated project records of where it came from: the binary that generated
// it (smoke.sh runs it when no mcp-bash is on PATH) and its author (bundle requires one).
type Origin struct {
	Binary string
	Author string
}

type data struct {
	Name, Title string
	Origin
}

func title(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' })
	for i, w := range words {
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

func render(tmpl, name string, o Origin) ([]byte, error) {
	t, err := template.New(tmpl+".tmpl").Funcs(template.FuncMap{"shellQuote": shellQuote, "jsonString": jsonString}).
		ParseFS(templates, "templates/"+tmpl+".tmpl")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = t.Execute(&b, data{Name: name, Title: title(name), Origin: o})
	return b.Bytes(), err
}

// shellQuote is s as one single-quoted Bash word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// jsonString is s as a JSON string literal.
func jsonString(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

// file is one file to create.
type file struct {
	path, tmpl string
	exec       bool
}

// write renders files under root; nothing is overwritten (every target is checked first).
func write(root, name string, o Origin, files []file) ([]string, error) {
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(root, f.path)); err == nil {
			return nil, fmt.Errorf("%s: %w", f.path, ErrExists)
		}
	}
	var created []string
	for _, f := range files {
		body, err := render(f.tmpl, name, o)
		if err != nil {
			return created, err
		}
		p := filepath.Join(root, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return created, err
		}
		mode := fs.FileMode(0o644)
		if f.exec {
			mode = 0o755
		}
		if err := os.WriteFile(p, body, mode); err != nil {
			return created, err
		}
		created = append(created, f.path)
	}
	return created, nil
}

// Project creates a project named name in dir (which must be empty or missing): server.d,
// a hello tool (unless noHello), .gitignore and README.
func Project(dir, name string, noHello bool, o Origin) ([]string, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if e.Name() == "server.d" {
				return nil, fmt.Errorf("%s is already an mcp-bash project: %w", dir, ErrExists)
			}
		}
	}
	files := []file{
		{path: "server.d/server.meta.json", tmpl: "server.meta.json"},
		{path: ".gitignore", tmpl: "gitignore"},
		{path: "README.md", tmpl: "README.md"},
	}
	created, err := write(dir, name, o, files)
	if err != nil || noHello {
		return created, err
	}
	more, err := Tool(dir, "hello", o)
	return append(created, more...), err
}

// Tool adds tools/<name>/{tool.sh,tool.meta.json,smoke.sh}.
func Tool(root, name string, o Origin) ([]string, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	d := filepath.Join("tools", name)
	return write(root, name, o, []file{
		{path: filepath.Join(d, "tool.sh"), tmpl: "tool.sh", exec: true},
		{path: filepath.Join(d, "tool.meta.json"), tmpl: "tool.meta.json"},
		{path: filepath.Join(d, "smoke.sh"), tmpl: "smoke.sh", exec: true},
	})
}

// Prompt adds prompts/<name>.txt and its metadata.
func Prompt(root, name string) ([]string, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	return write(root, name, Origin{}, []file{
		{path: filepath.Join("prompts", name+".txt"), tmpl: "prompt.txt"},
		{path: filepath.Join("prompts", name+".meta.json"), tmpl: "prompt.meta.json"},
	})
}

// Resource adds resources/<name>.txt and its metadata.
func Resource(root, name string) ([]string, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	return write(root, name, Origin{}, []file{
		{path: filepath.Join("resources", name+".txt"), tmpl: "resource.txt"},
		{path: filepath.Join("resources", name+".meta.json"), tmpl: "resource.meta.json"},
	})
}

// Completion adds completions/<name>.sh and registers it in server.d/register.json (created
// when missing; other entries are kept).
func Completion(root, name string) ([]string, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	rel := filepath.Join("completions", name+".sh")
	regPath := filepath.Join(root, "server.d", "register.json")
	reg := map[string]any{"version": 1}
	if b, err := os.ReadFile(regPath); err == nil {
		if err := json.Unmarshal(b, &reg); err != nil {
			return nil, fmt.Errorf("server.d/register.json: %w", err)
		}
	}
	comps, _ := reg["completions"].([]any)
	for _, c := range comps {
		if m, ok := c.(map[string]any); ok && m["name"] == name {
			return nil, fmt.Errorf("completion %s in register.json: %w", name, ErrExists)
		}
	}
	created, err := write(root, name, Origin{}, []file{{path: rel, tmpl: "completion.sh", exec: true}})
	if err != nil {
		return created, err
	}
	reg["completions"] = append(comps, map[string]any{"name": name, "path": filepath.ToSlash(rel), "timeoutSecs": 5})
	b, _ := json.MarshalIndent(reg, "", "  ")
	if err := os.MkdirAll(filepath.Dir(regPath), 0o755); err != nil {
		return created, err
	}
	if err := os.WriteFile(regPath, append(b, '\n'), 0o644); err != nil {
		return created, err
	}
	return append(created, filepath.Join("server.d", "register.json")), nil
}

// UI adds an MCP App view from the templates: ui/<name>/{index.html,ui.meta.json}, or, for a
// tool (tool != ""), tools/<tool>/ui/, which links the view to the tool by itself (its
// _meta.ui.resourceUri is ui://<server>/<tool>). The tool must exist; name defaults to it.
func UI(root, name, tool string) ([]string, error) {
	dir := ""
	switch {
	case tool != "":
		if err := CheckName(tool); err != nil {
			return nil, err
		}
		if fi, err := os.Stat(filepath.Join(root, "tools", tool)); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("no tool %s (tools/%s/ does not exist; create it with mcp-bash scaffold tool %s --ui)", tool, tool, tool)
		}
		if name == "" {
			name = tool
		}
		dir = filepath.Join("tools", tool, "ui")
	default:
		if name == "" {
			return nil, errors.New("scaffold ui needs a name, or --tool TOOL")
		}
		dir = filepath.Join("ui", name)
	}
	if err := CheckName(name); err != nil {
		return nil, err
	}
	return write(root, name, Origin{}, []file{
		{path: filepath.Join(dir, "index.html"), tmpl: "ui.index.html"},
		{path: filepath.Join(dir, "ui.meta.json"), tmpl: "ui.meta.json"},
	})
}

// TestHarness adds test/run.sh and test/README.md, the project's test runner.
func TestHarness(root string) ([]string, error) {
	return write(root, filepath.Base(root), Origin{}, []file{
		{path: filepath.Join("test", "run.sh"), tmpl: "test.run.sh", exec: true},
		{path: filepath.Join("test", "README.md"), tmpl: "test.README.md"},
	})
}
