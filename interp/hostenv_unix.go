//go:build unix

package interp

import "github.com/mcp-bash/mcp-bash/sandbox"

// hostProgramPath is the PATH of an allowlisted host command: the system directories.
func hostProgramPath() string { return sandbox.VirtualPath }

// hostSystemEnv is what the host's programs need besides (nothing on Unix).
func hostSystemEnv() []string { return nil }
