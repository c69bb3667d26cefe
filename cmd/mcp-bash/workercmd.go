package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

// newWorkerCmd is the hidden `mcp-bash __worker` that runs sandboxed calls for a server started
// with MCPBASH_ISOLATION=process. Its stdin and stdout are pipes to the server, never the
// client's stream.
func newWorkerCmd() *cobra.Command {
	var o host.WorkerOptions
	cmd := &cobra.Command{
		Use:    host.WorkerCommand,
		Short:  "Run sandboxed calls for the server (internal)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return host.RunWorker(c.Context(), selfPath(), o)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.MaxHeapMiB, "max-heap-mb", 2048, "heap watchdog limit")
	f.Uint64Var(&o.AddressSpace, "as", 0, "address-space limit in bytes")
	f.Uint64Var(&o.OpenFiles, "nofile", 0, "open-file limit")
	f.Uint64Var(&o.FileSize, "fsize", 0, "file-size limit in bytes")
	f.Uint64Var(&o.Processes, "nproc", 0, "process-count limit (RLIMIT_NPROC)")
	f.BoolVar(&o.Confine, "confine", false, "confine the worker to its call's roots with Landlock")
	return cmd
}

// selfPath is this binary's resolved path (externals of a confined worker re-execute it).
func selfPath() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		return real
	}
	return self
}
