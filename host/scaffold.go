package host

import (
	"fmt"

	"github.com/mcp-bash/mcp-bash/host/internal/scaffold"
)

// CheckProjectName reports whether name can name a new project (`mcp-bash new`).
func CheckProjectName(name string) error { return scaffold.CheckName(name) }

// NewProject writes a new project named name into dir (created if missing), with a hello tool
// unless noHello, and returns the files it created, relative to dir.
func NewProject(dir, name string, noHello bool) ([]string, error) {
	return scaffold.Project(dir, name, noHello)
}

// Scaffold adds a "tool", "prompt", "resource" or "completion" provider (kind) named name to the
// project at root from the built-in templates, and returns the files it created, relative to root.
func Scaffold(root, kind, name string) ([]string, error) {
	switch kind {
	case "tool":
		return scaffold.Tool(root, name)
	case "prompt":
		return scaffold.Prompt(root, name)
	case "resource":
		return scaffold.Resource(root, name)
	case "completion":
		return scaffold.Completion(root, name)
	}
	return nil, fmt.Errorf("unknown scaffold kind %q (tool, prompt, resource or completion)", kind)
}
