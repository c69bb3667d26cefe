package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

func newHealthCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var timeout int
	cmd := &cobra.Command{
		Use:     "health",
		Aliases: []string{"ready"},
		Short:   "Print readiness JSON; exit 0 healthy, 1 unhealthy, 2 misconfigured",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runHealth(c, *projectRoot, getenv, timeout)
		},
	}
	cmd.Flags().IntVar(&timeout, "timeout", 0, "seconds before the check counts as unhealthy (default: MCPBASH_HEALTH_TIMEOUT_SECS, else 5)")
	return cmd
}

// runHealth prints the readiness report (health, ready, --health, --ready).
func runHealth(c *cobra.Command, projectRoot string, getenv func(string) string, timeout int) error {
	report, status := host.Health(c.Context(), options(projectRoot, getenv), time.Duration(timeout)*time.Second)
	writeJSON(c.OutOrStdout(), report)
	if status != 0 {
		return &exitError{code: status}
	}
	return nil
}
