//go:build profile

package main

// A profiling build (go build -tags profile) writes a CPU profile of the real binary under a
// benchmark (docs/PERFORMANCE.md): MCPBASH_CPUPROFILE names the file, MCPBASH_CPUPROFILE_FOR
// how long to profile from start (the server may be ended by a signal or a closed stdin, so the
// profile is not left to an exit path). Release binaries are built without the tag.
import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"
)

func init() {
	path := os.Getenv("MCPBASH_CPUPROFILE")
	if path == "" {
		return
	}
	d, err := time.ParseDuration(os.Getenv("MCPBASH_CPUPROFILE_FOR"))
	if err != nil {
		d = 10 * time.Second
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcp-bash: cpu profile:", err)
		return
	}
	time.AfterFunc(d, func() {
		pprof.StopCPUProfile()
		f.Close()
	})
}
