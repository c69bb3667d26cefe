package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

func newValidateCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var asJSON, strict, fix, explain, inspector bool
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check the project: metadata, names, scripts, and how each script will run in the sandbox",
		Long: `Checks everything the original framework checks (metadata, names, executable bits, shebangs,
uri/uriTemplate exclusivity) and analyses each tool script statically: the commands it calls and
how each resolves in the sandbox, the files it redirects to, constructs the interpreter cannot run
faithfully, and dynamic constructs. Exit status 1 when there are errors (or warnings with --strict).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			srv, p, err := cliServer(c.Context(), *projectRoot, getenv)
			if err != nil {
				return err
			}
			defer srv.Close()
			if inspector {
				// The original prints the Inspector command for strict schema checks.
				bin, err := os.Executable()
				if err != nil {
					return err
				}
				fmt.Fprintln(c.OutOrStdout(), inspectorCommand(sandbox.Physical(bin), p.Root))
				return nil
			}
			if explain {
				notes := srv.ExplainDefaults(c.Context())
				if asJSON {
					if notes == nil {
						notes = []host.DefaultNote{}
					}
					writeJSON(c.OutOrStdout(), notes)
					return nil
				}
				for _, n := range notes {
					fmt.Fprintf(c.OutOrStdout(), "%s: %s not set; served as %s\n", n.File, n.Field, n.Value)
				}
				if len(notes) == 0 {
					fmt.Fprintln(c.OutOrStdout(), "no defaults apply: the project sets every field the server would fill in")
				}
				return nil
			}
			v := srv.Validate(c.Context(), fix)
			findings := v.Findings
			errs, warns := v.Counts()
			if asJSON {
				if findings == nil {
					findings = []interp.Finding{}
				}
				writeJSON(c.OutOrStdout(), map[string]any{"ok": errs == 0 && (!strict || warns == 0), "errors": errs, "warnings": warns, "findings": findings})
			} else {
				for _, f := range findings {
					fmt.Fprintln(c.OutOrStdout(), interp.FormatFinding(f))
				}
				fmt.Fprintf(c.OutOrStdout(), "%s: %d error(s), %d warning(s), %d tool(s) checked\n", strings.TrimSpace(p.Root), errs, warns, v.Tools)
			}
			if errs > 0 || (strict && warns > 0) {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings as errors")
	cmd.Flags().BoolVar(&fix, "fix", false, "fix what can be fixed safely (executable bits)")
	cmd.Flags().BoolVar(&explain, "explain-defaults", false, "list the defaults the server fills in for what the project leaves out (server name, title, version; each tool's input schema, timeout and engine)")
	cmd.Flags().BoolVar(&inspector, "inspector", false, "print the command that opens this server in the MCP Inspector, for strict schema checks")
	return cmd
}
