package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/interp"
)

func newValidateCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var asJSON, strict, fix bool
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
	return cmd
}
