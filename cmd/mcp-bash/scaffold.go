package main

import (
	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

func newScaffoldCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	cmd := &cobra.Command{Use: "scaffold", Short: "Add a tool, prompt, resource, completion provider, UI view or test runner to the project"}
	var opt host.ScaffoldOptions
	add := func(use, kind, short string, args cobra.PositionalArgs) *cobra.Command {
		c := &cobra.Command{
			Use: use, Short: short, Args: args,
			RunE: func(c *cobra.Command, args []string) error {
				dirs, err := cliProject(*projectRoot, getenv)
				if err != nil {
					return err
				}
				name := ""
				if len(args) > 0 {
					name = args[0]
				}
				return created(c, dirs.Root, func() ([]string, error) { return host.Scaffold(dirs.Root, kind, name, opt) })
			},
		}
		cmd.AddCommand(c)
		return c
	}
	tool := add("tool <name>", "tool", "Add tools/<name>/ with tool.sh, tool.meta.json and smoke.sh (--ui: and its MCP App view)", cobra.ExactArgs(1))
	tool.Flags().BoolVar(&opt.UI, "ui", false, "also add tools/<name>/ui/ (index.html, ui.meta.json), linked to the tool")
	add("prompt <name>", "prompt", "Add prompts/<name>.txt and its metadata", cobra.ExactArgs(1))
	add("resource <name>", "resource", "Add resources/<name>.txt and its metadata", cobra.ExactArgs(1))
	add("completion <name>", "completion", "Add completions/<name>.sh and register it in server.d/register.json", cobra.ExactArgs(1))
	ui := add("ui [<name>] [--tool TOOL]", "ui", "Add an MCP App view: ui/<name>/, or tools/<TOOL>/ui/ with --tool (linked to the tool)", cobra.MaximumNArgs(1))
	ui.Flags().StringVar(&opt.Tool, "tool", "", "add the view to this existing tool (tools/<TOOL>/ui/)")
	add("test", "test", "Add test/run.sh (validate, then every tools/*/smoke.sh and test/*.test.sh) and test/README.md", cobra.NoArgs)
	return cmd
}
