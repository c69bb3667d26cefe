package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
)

// newJQCmd is `mcp-bash jq ...`: the built-in jq (gojq) as a command, so native-mode tools need
// no jq on the host (MCPBASH_JSON_TOOL_BIN points to it). It reads the host filesystem like jq.
func newJQCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "jq [options] [filter] [files...]",
		Short:              "Run the built-in jq (gojq) with jq's command-line options",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && (args[0] == "--help" || args[0] == "-h") {
				return cmd.Help()
			}
			cwd, _ := os.Getwd()
			fs, err := sandbox.NewFS(sandbox.Policy{Roots: jqRoots(cwd, args)}, sandbox.Scratch{}, nil)
			if err != nil {
				return &exitError{code: 2, msg: "jq: " + err.Error()}
			}
			defer fs.Close()
			o := interp.JQOptions{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Dir: cwd, FS: fs,
				Getenv: os.Getenv, Environ: os.Environ}
			if rc := interp.RunJQ(cmd.Context(), o, args); rc != 0 {
				return &exitError{code: rc}
			}
			return nil
		},
	}
}

// jqRoots are the directories `mcp-bash jq` may read: the working directory and the directory
// of every argument that names an existing file (the file operands, --slurpfile, --rawfile,
// --from-file), each only if it can be opened. Not "/": under Landlock (native tools) the
// filesystem root is not readable, and jq needs no more than the files it was given.
func jqRoots(cwd string, args []string) []sandbox.Root {
	var roots []sandbox.Root
	seen := map[string]bool{}
	add := func(dir string) {
		if dir == "" || seen[dir] {
			return
		}
		seen[dir] = true
		if r, err := os.OpenRoot(dir); err == nil {
			r.Close()
			roots = append(roots, sandbox.Root{Path: dir, Mode: sandbox.ReadOnly})
		}
	}
	add(cwd)
	for _, a := range args {
		if a == "" || a == "-" {
			continue
		}
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			add(filepath.Dir(filepath.Clean(p)))
		}
	}
	return roots
}
