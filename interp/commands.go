package interp

import (
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// extCommand returns the path of the program behind a command name in the job's Commands and
// the program ("", nil when none).
func (c *call) extCommand(name string) (string, engine.Program) {
	if c.job.Commands == nil || name == "" || strings.Contains(name, "/") {
		return "", nil
	}
	return c.job.Commands.Lookup(name)
}
