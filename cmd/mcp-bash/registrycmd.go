package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
)

func newRegistryCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{Use: "registry", Short: "Rebuild or inspect the .registry cache"}
	cmd.AddCommand(&cobra.Command{
		Use: "refresh", Short: "Rescan the project, rewrite .registry/*.json and print the status as JSON", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			srv, _, err := cliServer(c.Context(), *projectRoot, getenv)
			if err != nil {
				return err
			}
			rerr := srv.RebuildRegistry(c.Context())
			writeJSON(c.OutOrStdout(), map[string]any{"status": statusWord(rerr), "registries": srv.RegistryStatus(c.Context())})
			if rerr != nil {
				return &exitError{code: 1, msg: "Error: " + rerr.Error()}
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use: "status", Short: "Print each registry's count, hash and age as JSON", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			srv, _, err := cliServer(c.Context(), *projectRoot, getenv)
			if err != nil {
				return err
			}
			writeJSON(c.OutOrStdout(), map[string]any{"registries": srv.RegistryStatus(c.Context())})
			return nil
		},
	})
	return cmd
}

func statusWord(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

func newHealthCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var timeout int
	cmd := &cobra.Command{
		Use:     "health",
		Aliases: []string{"ready"},
		Short:   "Print readiness JSON; exit 0 healthy, 1 unhealthy, 2 misconfigured",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(c.Context(), time.Duration(timeout)*time.Second)
			defer cancel()
			// Health never writes .registry: the registry is opened read-only.
			env := func(k string) string {
				if k == "MCPBASH_REGISTRY_READONLY" {
					return "1"
				}
				return getenv(k)
			}
			srv, dirs, err := cliServer(ctx, *projectRoot, env)
			if err != nil {
				if ee, ok := err.(*exitError); ok {
					writeJSON(c.OutOrStdout(), map[string]any{"status": "misconfigured", "error": ee.msg})
					return &exitError{code: 2}
				}
				return err
			}
			counts := map[string]int{}
			healthy := true
			for _, st := range srv.RegistryStatus(ctx) {
				counts[string(st.Kind)] = st.Total
				if st.Error != "" {
					healthy = false
				}
			}
			checks := dirs.Checks()
			for _, ok := range checks {
				healthy = healthy && ok
			}
			status := "ok"
			if !healthy || ctx.Err() != nil {
				status = "unhealthy"
			}
			writeJSON(c.OutOrStdout(), map[string]any{"status": status, "mode": "full", "jsonTool": "gojq (built in)",
				"tools": counts["tools"], "resources": counts["resources"], "prompts": counts["prompts"], "projectChecks": checks})
			if status != "ok" {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&timeout, "timeout", 5, "seconds before the check counts as unhealthy (MCPBASH_HEALTH_TIMEOUT_SECS)")
	return cmd
}
