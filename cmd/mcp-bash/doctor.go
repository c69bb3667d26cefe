package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

func newDoctorCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Diagnose the binary, the platform and the project",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			report, problems := host.Doctor(c.Context(), options(*projectRoot, getenv))
			if asJSON {
				writeJSON(c.OutOrStdout(), report)
			} else {
				for _, k := range []string{"version", "go", "platform", "binary", "config", "landlockABI", "landlock", "requireConfinement", "scratch", "wasmCache", "roots", "project"} {
					fmt.Fprintf(c.OutOrStdout(), "%-12s %s\n", k+":", doctorText(report[k]))
				}
			}
			if problems > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	return cmd
}

// doctorText renders one report value for the human-readable doctor output: objects and lists
// as compact JSON, the rest as is.
func doctorText(v any) string {
	switch v.(type) {
	case map[string]any, []map[string]string, []any:
		b, _ := json.Marshal(v)
		return string(b)
	case nil:
		return "none"
	}
	return fmt.Sprint(v)
}
