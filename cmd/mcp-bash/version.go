package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Stamped at link time by make build and the release pipeline:
// -ldflags "-X main.version=1.2.3 -X main.commit=<full sha>". Empty in a plain go build or
// go install, where the Go toolchain's build information says what the binary is instead.
var version, commit string

// buildInfo is what the binary knows about its own build.
type buildInfo struct {
	Version  string `json:"version"`              // 1.2.3, 1.2.3-4-gabcdef0, a Go pseudo-version, or devel
	Commit   string `json:"commit,omitempty"`     // full revision, when known
	Time     string `json:"commitTime,omitempty"` // the revision's commit time (RFC 3339), when known
	Modified bool   `json:"modified,omitempty"`   // built from a working tree with uncommitted changes
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// currentBuild resolves the binary's version once per call site: the link-time stamp when
// there is one, else the module version the go command recorded (go install ...@v1.2.3, or a
// pseudo-version computed from the checkout's tags and revision), else "devel".
func currentBuild() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return resolveBuild(version, commit, bi)
}

// resolveBuild never invents a version: "devel" is what a build without a stamp, a module
// version or VCS information honestly is.
func resolveBuild(stampedVersion, stampedCommit string, bi *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: strings.TrimPrefix(stampedVersion, "v"), Commit: stampedCommit,
		Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		if b.Version == "" {
			b.Version = "devel"
		}
		return b
	}
	if bi.GoVersion != "" {
		b.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if b.Commit == "" {
				b.Commit = s.Value
			}
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	if b.Version == "" {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			b.Version = strings.TrimPrefix(v, "v")
			b.Modified = b.Modified || strings.HasSuffix(v, "+dirty")
		} else {
			b.Version = "devel"
		}
	}
	return b
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version (as --version does)",
		Long: `Prints "mcp-bash VERSION", as --version does. VERSION is the release tag without its v
(1.2.3), git describe's form past a tag (1.2.3-4-gabcdef0), 0.0.0-<commit> in a checkout with no
tag, the module version of go install (1.2.3 or a Go pseudo-version), or devel when the build
recorded none of these. --json adds the commit, its time, the Go version and the platform.`,
		Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			b := currentBuild()
			if asJSON {
				writeJSON(cmd.OutOrStdout(), b)
				return
			}
			fmt.Fprintln(cmd.OutOrStdout(), "mcp-bash "+b.Version)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print version, commit, commitTime, modified, go and platform as JSON")
	return cmd
}
