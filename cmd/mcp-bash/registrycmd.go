package main

import (
	"io"

	"github.com/spf13/cobra"
)

func newRegistryCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{Use: "registry", Short: "Rebuild or inspect the .registry cache"}
	var quiet, noNotify bool
	var filter string
	refresh := &cobra.Command{
		Use: "refresh", Short: "Rescan the project, rewrite .registry/*.json and print the status as JSON", Args: cobra.NoArgs,
		Long: `Rescan the project, rewrite .registry/*.json and print the status as JSON: "registries" (each
kind's count, hash and age) and, as the original prints them, "tools", "resources" and "prompts"
({"status","count","error"}), "notificationsSent" and "mode". Exit 1 when a kind failed.
--no-notify is accepted for the original's scripts: a CLI refresh never notifies a running
server (each server notices the change itself). --filter PATH is accepted too: every kind is
rescanned (a full rescan takes milliseconds).`,
		RunE: func(c *cobra.Command, _ []string) error {
			o := options(*projectRoot, getenv)
			if quiet {
				o.Stderr = io.Discard
			}
			srv, _, err := openServer(c.Context(), o)
			if err != nil {
				return err
			}
			defer srv.Close()
			rerr := srv.RebuildRegistry(c.Context())
			st := srv.RegistryStatus(c.Context())
			report := map[string]any{"status": statusWord(rerr), "registries": st, "notificationsSent": false, "mode": "full"}
			for _, s := range st {
				switch k := string(s.Kind); k {
				case "tools", "resources", "prompts":
					word, errMsg := "ok", any(nil)
					if s.Error != "" {
						word, errMsg = "failed", s.Error
					}
					report[k] = map[string]any{"status": word, "count": s.Total, "error": errMsg}
				}
			}
			writeJSON(c.OutOrStdout(), report)
			if rerr != nil {
				msg := "Error: " + rerr.Error()
				if quiet {
					msg = ""
				}
				return &exitError{code: 1, msg: msg}
			}
			return nil
		},
	}
	refresh.Flags().BoolVar(&quiet, "quiet", false, "print only the JSON report (no warnings or errors on stderr)")
	refresh.Flags().BoolVar(&noNotify, "no-notify", false, "accepted for the original's scripts: a CLI refresh never notifies a running server")
	refresh.Flags().StringVar(&filter, "filter", "", "accepted for the original's scripts: every kind is rescanned")
	cmd.AddCommand(refresh)
	cmd.AddCommand(&cobra.Command{
		Use: "status", Short: "Print each registry's count, hash and age as JSON", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			srv, _, err := cliServer(c.Context(), *projectRoot, getenv)
			if err != nil {
				return err
			}
			defer srv.Close()
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
