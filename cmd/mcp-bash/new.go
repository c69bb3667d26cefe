package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

func newNewCmd() *cobra.Command {
	var noHello bool
	cmd := &cobra.Command{
		Use:   "new <name>",
		Short: "Create a new project in ./<name> with a hello tool",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if err := host.CheckProjectName(name); err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			if _, err := os.Stat(name); err == nil {
				return &exitError{code: 1, msg: "Error: " + name + " already exists"}
			}
			return created(cmd, name, func() ([]string, error) { return host.NewProject(name, name, noHello) })
		},
	}
	cmd.Flags().BoolVar(&noHello, "no-hello", false, "do not add the hello tool")
	return cmd
}

func newInitCmd() *cobra.Command {
	var name string
	var noHello bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Turn the current directory into a project",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			if name == "" {
				name = filepath.Base(cwd)
			}
			return created(cmd, ".", func() ([]string, error) { return host.NewProject(cwd, name, noHello) })
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "server name (default: the directory's name)")
	cmd.Flags().BoolVar(&noHello, "no-hello", false, "do not add the hello tool")
	return cmd
}

// created runs a scaffolding step and lists what it made.
func created(cmd *cobra.Command, base string, step func() ([]string, error)) error {
	files, err := step()
	for _, f := range files {
		fmt.Fprintln(cmd.OutOrStdout(), "created "+filepath.Join(base, f))
	}
	if err != nil {
		return &exitError{code: 1, msg: "Error: " + err.Error()}
	}
	return nil
}

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
