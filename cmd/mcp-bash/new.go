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
