package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host/registry"
	"github.com/mcp-bash/mcp-bash/interp"
)

// projectChecks are the cheap structural checks shared by health and doctor.
func projectChecks(d registry.Dirs) map[string]bool {
	checks := map[string]bool{}
	_, err := registry.LoadServerMeta(d)
	checks["serverMeta"] = err == nil
	if _, err := os.Stat(filepath.Join(d.Server, "register.json")); err == nil {
		var v map[string]any
		b, _ := os.ReadFile(filepath.Join(d.Server, "register.json"))
		checks["registerJSON"] = json.Unmarshal(b, &v) == nil
	}
	return checks
}

func newValidateCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var asJSON, strict, fix bool
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check the project: metadata, names, scripts, and how each script will run in the sandbox",
		Long: `Checks everything the original framework checks (metadata, names, executable bits, shebangs,
uri/uriTemplate exclusivity) and analyses each tool script statically: the commands it calls and
how each resolves in the sandbox, the files it redirects to, constructs the interpreter cannot run
faithfully, and dynamic constructs. Exit status 1 when there are errors (or warnings with --strict).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			srv, dirs, err := cliServer(c.Context(), *projectRoot, getenv)
			if err != nil {
				return err
			}
			var findings []interp.Finding
			addf := func(file string, sev, kind, msg, fix string) {
				findings = append(findings, interp.Finding{File: file, Severity: sev, Kind: kind, Message: msg, Suggestion: fix})
			}
			for k, ok := range projectChecks(dirs) {
				if !ok {
					addf(dirs.Server, "error", "project", "check failed: "+k, "")
				}
			}
			reg := srv.Registry()
			for _, st := range reg.Status(c.Context()) {
				if st.Error != "" {
					addf(string(st.Kind), "error", "registry", st.Error, "")
				}
			}
			// Discovery warnings (malformed metadata, invalid names, ...) were printed on stderr by
			// the registry; the per-tool checks follow.
			seen := map[string]bool{}
			for cursor := ""; ; {
				page, err := reg.List(c.Context(), registry.KindTools, cursor, registry.MaxPageSize)
				if err != nil {
					break
				}
				for _, it := range page.Items {
					var item struct{ Name string }
					json.Unmarshal(it, &item)
					if seen[item.Name] {
						addf(item.Name, "warning", "name", "duplicate tool name "+item.Name+" (calls run the first)", "rename one of them")
						continue
					}
					seen[item.Name] = true
					_, plan, err := srv.ToolPlan(c.Context(), item.Name)
					if err != nil {
						addf(item.Name, "error", "script", err.Error(), "")
						continue
					}
					tool, _ := reg.Tool(c.Context(), item.Name)
					if fi, err := os.Stat(tool.Abs); err == nil && fi.Mode()&0o111 == 0 && tool.Kind == registry.ToolScript {
						if fix {
							os.Chmod(tool.Abs, fi.Mode()|0o111)
						} else {
							addf(tool.Abs, "warning", "exec-bit", "script is not executable (the original needs it; the sandbox does not)", "chmod +x "+tool.Abs+" (or run validate --fix)")
						}
					}
					findings = append(findings, plan.Findings...)
				}
				if page.NextCursor == "" {
					break
				}
				cursor = page.NextCursor
			}
			sort.SliceStable(findings, func(i, j int) bool { return findings[i].File < findings[j].File })
			errs, warns := 0, 0
			for _, f := range findings {
				switch f.Severity {
				case "error":
					errs++
				case "warning":
					warns++
				}
			}
			if asJSON {
				if findings == nil {
					findings = []interp.Finding{}
				}
				writeJSON(c.OutOrStdout(), map[string]any{"ok": errs == 0 && (!strict || warns == 0), "errors": errs, "warnings": warns, "findings": findings})
			} else {
				for _, f := range findings {
					fmt.Fprintln(c.OutOrStdout(), interp.FormatFinding(f))
				}
				fmt.Fprintf(c.OutOrStdout(), "%s: %d error(s), %d warning(s), %d tool(s) checked\n", strings.TrimSpace(dirs.Root), errs, warns, len(seen))
			}
			if errs > 0 || (strict && warns > 0) {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	cmd.Flags().BoolVar(&strict, "strict", false, "treat warnings as errors")
	cmd.Flags().BoolVar(&fix, "fix", false, "fix what can be fixed safely (executable bits)")
	return cmd
}
