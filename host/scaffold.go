package host

import (
	"fmt"
	"os"
	"os/user"

	"github.com/mcp-bash/mcp-bash/host/internal/scaffold"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// CheckProjectName reports whether name can name a new project (`mcp-bash new`).
func CheckProjectName(name string) error { return scaffold.CheckName(name) }

// NewProject writes a new project named name into dir (created if missing), with a hello tool
// unless noHello, and returns the files it created, relative to dir.
func NewProject(dir, name string, noHello bool) ([]string, error) {
	return scaffold.Project(dir, name, noHello, origin())
}

// origin is what generated files record: this binary, for the smoke test when no mcp-bash is
// on PATH, and the user as the author `bundle` requires (the full name, else the login; left
// out when neither is known, and bundle then asks for one).
func origin() scaffold.Origin {
	var o scaffold.Origin
	if bin, err := os.Executable(); err == nil {
		o.Binary = sandbox.Physical(bin)
	}
	if u, err := user.Current(); err == nil {
		o.Author = u.Name
		if o.Author == "" {
			o.Author = u.Username
		}
	}
	return o
}

// Scaffold adds a "tool", "prompt", "resource" or "completion" provider (kind) named name to the
// project at root from the built-in templates, and returns the files it created, relative to root.
func Scaffold(root, kind, name string) ([]string, error) {
	switch kind {
	case "tool":
		return scaffold.Tool(root, name, origin())
	case "prompt":
		return scaffold.Prompt(root, name)
	case "resource":
		return scaffold.Resource(root, name)
	case "completion":
		return scaffold.Completion(root, name)
	}
	return nil, fmt.Errorf("unknown scaffold kind %q (tool, prompt, resource or completion)", kind)
}
