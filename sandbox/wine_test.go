//go:build wine

package sandbox

// Under Wine, file removal needs Go's classic delete (test/wine/deletefallback).
import _ "github.com/mcp-bash/mcp-bash/test/wine/deletefallback"
