package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

type doctorOptions struct {
	asJSON, dryRun, fix, allowDowngrade bool
	minVersion, archive, verify, ref    string
}

func newDoctorCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Diagnose the binary, the platform and the project",
		Long: `Diagnose the binary, the platform, the configuration and the project. Exit 1 when a problem
is found (each is listed), 2 for an operation a single static binary does not have.

The original's upgrade options are accepted: --min-version X.Y.Z checks this binary's version;
--dry-run and --fix report that there is no framework install to repair (mcp-bash is one file);
--archive, --verify, --ref/--version and --allow-downgrade exit 2 with how to install another
version (go install, a release binary, or your package manager).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			out := c.OutOrStdout()
			switch {
			case o.archive != "" || o.verify != "" || o.ref != "" || o.allowDowngrade:
				return &exitError{code: 2, msg: "doctor: mcp-bash is one static binary and does not install or upgrade itself; " +
					"install another version with `go install github.com/mcp-bash/mcp-bash/cmd/mcp-bash@VERSION`, a release binary, or your package manager"}
			case o.dryRun || o.fix:
				fmt.Fprintln(out, "doctor: nothing to repair: mcp-bash is one static binary, with no framework install, PATH link or runtime files to fix")
			}
			report, problems := host.Doctor(c.Context(), options(*projectRoot, getenv))
			if o.minVersion != "" {
				if msg := versionAtLeast(version, o.minVersion); msg != "" {
					report["minVersion"] = msg
					if strings.Contains(msg, "older than") || strings.Contains(msg, "is not a version") {
						problems++
						report["problems"] = problems
						report["issues"] = append(report["issues"].([]string), msg)
					}
				}
			}
			if o.asJSON {
				writeJSON(out, report)
			} else {
				printDoctor(out, report)
			}
			if problems > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.asJSON, "json", false, "machine-readable output")
	f.BoolVar(&o.dryRun, "dry-run", false, "show the repairs --fix would make (none: there is no framework install)")
	f.BoolVar(&o.fix, "fix", false, "make safe repairs (none: there is no framework install)")
	f.StringVar(&o.minVersion, "min-version", "", "report a problem when this binary is older than X.Y.Z")
	f.StringVar(&o.archive, "archive", "", "the original's install from an archive: not available (exit 2)")
	f.StringVar(&o.verify, "verify", "", "the original's archive checksum: not available (exit 2)")
	f.StringVar(&o.ref, "ref", "", "the original's install from a git ref: not available (exit 2)")
	f.StringVar(&o.ref, "version", "", "the same as --ref")
	f.BoolVar(&o.allowDowngrade, "allow-downgrade", false, "the original's downgrade switch: not available (exit 2)")
	return cmd
}

// versionAtLeast compares this binary's version with want (X.Y.Z): "ok ...", or what is wrong.
func versionAtLeast(have, want string) string {
	parse := func(v string) ([3]int, bool) {
		var out [3]int
		v = strings.TrimPrefix(v, "v")
		v, _, _ = strings.Cut(v, "-")
		parts := strings.Split(v, ".")
		if len(parts) != 3 {
			return out, false
		}
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil {
				return out, false
			}
			out[i] = n
		}
		return out, true
	}
	w, ok := parse(want)
	if !ok {
		return "--min-version " + want + " is not a version X.Y.Z"
	}
	h, ok := parse(have)
	if !ok {
		return "this binary's version " + have + " (a development build) cannot be compared with " + want
	}
	for i := range 3 {
		if h[i] != w[i] {
			if h[i] < w[i] {
				return "this binary is version " + have + ", older than " + want + ": install a newer mcp-bash"
			}
			break
		}
	}
	return "ok: version " + have + " is at least " + want
}

// printDoctor is doctor's text report: one line per key, nested values spelled out, then the
// problems found.
func printDoctor(w io.Writer, report map[string]any) {
	line := func(k, v string) { fmt.Fprintf(w, "%-19s %s\n", k+":", v) }
	for _, k := range []string{"version", "go", "platform", "binary", "config", "landlockABI", "landlock", "requireConfinement", "scratch"} {
		line(k, fmt.Sprint(report[k]))
	}
	if c, ok := report["wasmCache"].(map[string]any); ok {
		switch {
		case c["dir"] == nil:
			line("wasmCache", "in memory only (MCPBASH_WASM_CACHE_DIR=off)")
		case c["exists"] == true:
			line("wasmCache", fmt.Sprint(c["dir"]))
		default:
			line("wasmCache", fmt.Sprint(c["dir"])+" (created on first use)")
		}
	}
	switch roots := report["roots"].(type) {
	case []map[string]string:
		if len(roots) == 0 {
			line("roots", "none")
		}
		for i, r := range roots {
			k := ""
			if i == 0 {
				k = "roots"
			}
			v := r["path"]
			if r["name"] != "" {
				v += " (" + r["name"] + ")"
			}
			if k == "" {
				fmt.Fprintf(w, "%-19s %s\n", "", v)
			} else {
				line(k, v)
			}
		}
	default:
		line("roots", "none (no project)")
	}
	switch p := report["project"].(type) {
	case map[string]any:
		if e, ok := p["error"]; ok {
			line("project", "error: "+fmt.Sprint(e))
			break
		}
		line("project", fmt.Sprint(p["root"]))
		if checks, ok := p["checks"].(map[string]bool); ok {
			names := make([]string, 0, len(checks))
			for n := range checks {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				word := "ok"
				if !checks[n] {
					word = "FAILED"
				}
				line("  "+n, word)
			}
		}
	default:
		line("project", "none found")
	}
	if h, ok := report["hosting"].(map[string]any); ok {
		for _, k := range []string{"auth", "tenants"} {
			switch v := h[k].(type) {
			case map[string]any:
				s := fmt.Sprint(v["file"])
				if e, ok := v["error"]; ok {
					s += ": error: " + fmt.Sprint(e)
				}
				line(k, s)
			default:
				line(k, "none")
			}
		}
	}
	if m, ok := report["minVersion"]; ok {
		line("minVersion", fmt.Sprint(m))
	}
	issues, _ := report["issues"].([]string)
	if len(issues) == 0 {
		line("problems", "none")
		return
	}
	line("problems", strconv.Itoa(len(issues)))
	for _, i := range issues {
		fmt.Fprintln(w, "  - "+i)
	}
}
