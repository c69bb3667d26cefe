package main

import (
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
