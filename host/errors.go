package host

import (
	"errors"

	"github.com/mcp-bash/mcp-bash/host/internal/jsonrpc"
	"github.com/mcp-bash/mcp-bash/host/internal/registry"
)

// RPCError is a JSON-RPC error answer ({code, message, data}): what CallTool returns for a
// protocol fault or a tool's chosen failure (mcp_fail), as a client would see it.
type RPCError = jsonrpc.Error

// ProjectError says why no project was found (a CLI verb exits 1 with its message).
type ProjectError struct {
	Msg string
	// NotFound: nothing named a project and no parent directory holds one.
	NotFound bool
}

func (e *ProjectError) Error() string { return e.Msg }

// IsToolNotFound reports whether err says a tool does not exist (ToolPlan, ToolEnvironment).
func IsToolNotFound(err error) bool { return errors.Is(err, registry.ErrNotFound) }
