package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

func newDebugCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var logPath string
	cmd := &cobra.Command{
		Use:   "debug",
		Short: "Serve with debug logging and a payload log of every message (secrets redacted)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if logPath == "" {
				dir, err := os.MkdirTemp("", "mcp-bash-debug-")
				if err != nil {
					return err
				}
				logPath = filepath.Join(dir, "payload.debug.log")
			}
			env := func(k string) string {
				if k == "MCPBASH_LOG_LEVEL" && getenv(k) == "" {
					return "debug"
				}
				return getenv(k)
			}
			return serve(cmd.Context(), serveOptions{projectRoot: *projectRoot, getenv: env, payloadLog: logPath})
		},
	}
	cmd.Flags().StringVar(&logPath, "log", "", "payload log path (default: a new file in the temp dir, printed on stderr)")
	return cmd
}
