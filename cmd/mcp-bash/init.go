package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

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
