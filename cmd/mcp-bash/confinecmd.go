package main

import (
	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// newConfineCmd is the hidden `mcp-bash __confine RULES -- PROG ARGS...` that sandbox.Confiner
// wraps external programs in: it puts itself under Landlock and then becomes PROG. It returns
// only on failure (127: PROG not found, 126: confinement or exec failed).
func newConfineCmd() *cobra.Command {
	return &cobra.Command{
		Use:                sandbox.ConfineCommand + " RULES -- PROG [ARGS...]",
		Short:              "Run a program under Landlock (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			code, err := sandbox.ConfineExec(args)
			return &exitError{code: code, msg: "mcp-bash: " + err.Error()}
		},
	}
}

// newLayerCmd is the hidden `mcp-bash __layer SPEC -- PROG ARGS...` that runs a native tool in
// review mode over overlays of its roots (sandbox.WrapLayer). It exits with PROG's status.
func newLayerCmd() *cobra.Command {
	return &cobra.Command{
		Use:                sandbox.LayerCommand + " SPEC -- PROG [ARGS...]",
		Short:              "Run a program over a review layer (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			code, err := sandbox.LayerExec(args)
			if err != nil {
				return &exitError{code: code, msg: "mcp-bash: " + err.Error()}
			}
			return &exitError{code: code}
		},
	}
}
