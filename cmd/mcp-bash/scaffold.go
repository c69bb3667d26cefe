package main

import (
	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

func newScaffoldCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{Use: "scaffold", Short: "Add a tool, prompt, resource or completion provider to the project"}
	for _, k := range []struct{ kind, short string }{
		{"tool", "Add tools/<name>/ with tool.sh, tool.meta.json and smoke.sh"},
		{"prompt", "Add prompts/<name>.txt and its metadata"},
		{"resource", "Add resources/<name>.txt and its metadata"},
		{"completion", "Add completions/<name>.sh and register it in server.d/register.json"},
	} {
		k := k
		cmd.AddCommand(&cobra.Command{
			Use: k.kind + " <name>", Short: k.short, Args: cobra.ExactArgs(1),
			RunE: func(c *cobra.Command, args []string) error {
				dirs, err := cliProject(*projectRoot, getenv)
				if err != nil {
					return err
				}
				return created(c, dirs.Root, func() ([]string, error) { return host.Scaffold(dirs.Root, k.kind, args[0]) })
			},
		})
	}
	return cmd
}
