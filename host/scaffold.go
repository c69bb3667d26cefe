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

// ScaffoldOptions are the options of scaffold verbs: a tool's view (tool --ui) and the tool a
// view belongs to (ui --tool).
type ScaffoldOptions struct {
	UI   bool
	Tool string
}

// Scaffold adds a "tool", "prompt", "resource", "completion" provider, "ui" view or "test"
// harness (kind) named name to the project at root from the built-in templates, and returns
// the files it created, relative to root.
func Scaffold(root, kind, name string, opt ScaffoldOptions) ([]string, error) {
	switch kind {
	case "tool":
		files, err := scaffold.Tool(root, name, origin())
		if err != nil || !opt.UI {
			return files, err
		}
		more, err := scaffold.UI(root, name, name)
		return append(files, more...), err
	case "ui":
		return scaffold.UI(root, name, opt.Tool)
	case "test":
		return scaffold.TestHarness(root)
	case "prompt":
		return scaffold.Prompt(root, name)
	case "resource":
		return scaffold.Resource(root, name)
	case "completion":
		return scaffold.Completion(root, name)
	}
	return nil, fmt.Errorf("unknown scaffold kind %q (tool, prompt, resource, completion, ui or test)", kind)
}
