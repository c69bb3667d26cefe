// Command mcp-bash serves an mcp-bash project over MCP stdio and provides the project's CLI.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// exitError carries a process exit status through cobra.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	root := newRootCmd(os.Getenv)
	if filepath.Base(os.Args[0]) == "jq" {
		// Invoked through a symlink named jq (native tools' MCPBASH_JSON_TOOL_BIN): be jq, with
		// no shell wrapper process in between.
		root.SetArgs(append([]string{"jq"}, os.Args[1:]...))
	}
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintln(os.Stderr, ee.msg)
			}
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
