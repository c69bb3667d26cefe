package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// newRootCmd builds the command tree. With no subcommand the binary serves MCP over stdio.
func newRootCmd(getenv func(string) string) *cobra.Command {
	var projectRoot, execMode string
	// Every verb that builds a server sees --exec through the environment getter.
	withExec := func(k string) string {
		if k == "MCPBASH_EXEC" && execMode != "" {
			return execMode
		}
		return getenv(k)
	}
	root := &cobra.Command{
		Use:   "mcp-bash",
		Short: "Serve an mcp-bash project over MCP stdio, with tools run in a sandbox",
		Long: `mcp-bash serves an mcp-bash project (tools/, resources/, prompts/, server.d/) as a
Model Context Protocol server over stdio. Tool scripts run in an in-process Bash sandbox by default.

With no subcommand it serves the project found from --project-root, MCPBASH_PROJECT_ROOT, or the
nearest directory upwards containing server.d/server.meta.json (a built-in getting-started project
when none is found).`,
		Version:       currentBuild().Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &exitError{code: 2, msg: "Unknown command: " + args[0]}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return serve(cmd.Context(), serveOptions{projectRoot: projectRoot, getenv: withExec})
		},
	}
	// A mistyped flag (--projet-root) must not start a server on the wrong project: every
	// flag error exits 2, naming the closest flag.
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("mcp-bash {{.Version}}\n")
	root.PersistentFlags().StringVar(&execMode, "exec", "", "engine for script tools: sandbox (default; a tool's meta may ask for native) or native (every script tool runs in real bash)")
	root.PersistentFlags().StringVar(&projectRoot, "project-root", "", "project directory (default: MCPBASH_PROJECT_ROOT, else the nearest parent with server.d/server.meta.json)")
	root.AddCommand(newNewCmd(), newInitCmd(), newScaffoldCmd(&projectRoot, withExec), newRunToolCmd(&projectRoot, withExec),
		newRegistryCmd(&projectRoot, withExec), newHealthCmd(&projectRoot, withExec), newValidateCmd(&projectRoot, withExec),
		newConfigCmd(&projectRoot, withExec), newDoctorCmd(&projectRoot, withExec), newDebugCmd(&projectRoot, withExec), newJQCmd(),
		newRunScriptCmd(getenv))
	root.AddCommand(newConfineCmd(), newLayerCmd(), newWorkerCmd(), newChangesCmd(getenv))
	root.AddCommand(newBundleCmd(&projectRoot, withExec), newServeCmd(&projectRoot, withExec))
	root.AddCommand(newVersionCmd())
	root.InitDefaultCompletionCmd() // now rather than at Execute, so strictGroup sees it
	for _, c := range root.Commands() {
		strictGroup(c)
	}
	return root
}

// strictGroup makes a verb that only groups others (registry, scaffold) refuse an unknown
// sub-verb with exit 2, as the root does, instead of cobra's help and exit 0; alone, it prints
// its help.
func strictGroup(c *cobra.Command) {
	if !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return &exitError{code: 2, msg: "Unknown command: " + args[0] + " (see " + cmd.CommandPath() + " --help)"}
		}
		return cmd.Help()
	}
}

// flagError turns a flag parse error into exit status 2, with the closest known flag of cmd
// when one is near ("did you mean --project-root?").
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		best, bestDist := "", 3 // suggest within two edits only
		visit := func(f *pflag.Flag) {
			if d := editDistance(name, f.Name); d < bestDist {
				best, bestDist = f.Name, d
			}
		}
		cmd.Flags().VisitAll(visit)
		cmd.InheritedFlags().VisitAll(visit)
		if best != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", best)
		}
	}
	return &exitError{code: 2, msg: "Error: " + msg + "\nRun '" + cmd.CommandPath() + " --help' for usage."}
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
