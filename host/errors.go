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

// ConfigError is the environment's malformed settings, each named with its value and what it
// wants, on one line: the server refuses to start, CLI verbs exit 2.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// IsToolNotFound reports whether err says a tool does not exist (ToolPlan, ToolEnvironment).
func IsToolNotFound(err error) bool { return errors.Is(err, registry.ErrNotFound) }
