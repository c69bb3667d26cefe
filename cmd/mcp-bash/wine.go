//go:build wine

package main

// The Wine test run's server binary (test/wine.sh) removes files with Go's classic delete
// (test/wine/deletefallback); release binaries are built without the wine tag.
import _ "github.com/mcp-bash/mcp-bash/test/wine/deletefallback"
