package main

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
)

// newChangesCmd is `mcp-bash changes`: a person's view of review mode's change sets.
func newChangesCmd(getenv func(string) string) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{Use: "changes", Short: "List, show, commit or discard the change sets of review-mode tools",
		Long: `Tools in review mode (writeMode "review") leave their writes as change sets that wait for a
person's word. Without a client that asks its user (elicitation), they wait here, in
MCPBASH_CHANGES_DIR, until someone commits or discards them or they expire.
Exit status: 0 done, 1 an error or a conflict (nothing written), 2 usage.`}
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "machine-readable output")
	// with runs a verb over the opened store.
	with := func(verb func(c *cobra.Command, ch *host.Changes, args []string) error) func(*cobra.Command, []string) error {
		return func(c *cobra.Command, args []string) error {
			ch, err := host.OpenChanges(host.Options{Getenv: getenv})
			if err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			defer ch.Close()
			return verb(c, ch, args)
		}
	}
	cmd.AddCommand(&cobra.Command{
		Use: "list", Short: "List the change sets waiting", Args: cobra.NoArgs,
		RunE: with(func(c *cobra.Command, ch *host.Changes, _ []string) error {
			sets, err := ch.List()
			if err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			w := c.OutOrStdout()
			if asJSON {
				out := []map[string]any{}
				for _, s := range sets {
					out = append(out, brief(s))
				}
				writeJSON(w, map[string]any{"dir": ch.Dir(), "changeSets": out})
				return nil
			}
			if len(sets) == 0 {
				fmt.Fprintf(w, "no change sets wait (%s)\n", ch.Dir())
			}
			for _, s := range sets {
				fmt.Fprintf(w, "%s  %s  tool %s  %d change(s)  expires %s\n", s.ID, s.Created.Local().Format(time.DateTime), s.Tool, len(s.Files), s.Expires.Local().Format(time.DateTime))
			}
			return nil
		}),
	})
	cmd.AddCommand(&cobra.Command{
		Use: "show <id>", Short: "Show a change set: what it changes, and the diff", Args: cobra.ExactArgs(1),
		RunE: with(func(c *cobra.Command, ch *host.Changes, args []string) error {
			s, err := ch.Get(args[0])
			if err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			if asJSON {
				writeJSON(c.OutOrStdout(), s)
				return nil
			}
			showSet(c.OutOrStdout(), s)
			return nil
		}),
	})
	cmd.AddCommand(&cobra.Command{
		Use: "commit <id>", Short: "Write a change set into its roots (nothing is written if a file changed meanwhile)", Args: cobra.ExactArgs(1),
		RunE: with(func(c *cobra.Command, ch *host.Changes, args []string) error {
			s, err := ch.Get(args[0])
			if err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			ok, conflicts, err := ch.Commit(c.Context(), args[0], "cli", person())
			w := c.OutOrStdout()
			switch {
			case ok && err == nil:
				fmt.Fprintf(w, "committed %s:\n%s\n", s.ID, host.ChangeSetSummary(s, 1000))
				return nil
			case ok:
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			case err != nil:
				return &exitError{code: 1, msg: "Error: nothing was written: " + err.Error()}
			}
			var sb strings.Builder
			fmt.Fprintf(&sb, "Error: nothing was written: these files changed since the tool ran (%s still waits):\n", s.ID)
			for _, cf := range conflicts {
				fmt.Fprintf(&sb, "  %s: %s\n", cf.Path, cf.Why)
			}
			return &exitError{code: 1, msg: strings.TrimRight(sb.String(), "\n")}
		}),
	})
	cmd.AddCommand(&cobra.Command{
		Use: "discard <id>", Short: "Drop a change set: nothing of it is written", Args: cobra.ExactArgs(1),
		RunE: with(func(c *cobra.Command, ch *host.Changes, args []string) error {
			if err := ch.Discard(args[0], "cli", person()); err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			fmt.Fprintf(c.OutOrStdout(), "discarded %s\n", args[0])
			return nil
		}),
	})
	return cmd
}

// person names who runs the CLI, for the audit log.
func person() string {
	name := fmt.Sprintf("uid %d", os.Getuid())
	if u, err := user.Current(); err == nil {
		name = u.Username + " (" + name + ")"
	}
	if h, err := os.Hostname(); err == nil {
		name += " on " + h
	}
	return name
}

func brief(s *host.ChangeSet) map[string]any {
	return map[string]any{"id": s.ID, "tool": s.Tool, "created": s.Created, "expires": s.Expires, "changes": len(s.Files),
		"session": s.Session, "tenant": s.Tenant, "digest": s.Digest}
}

func showSet(w io.Writer, s *host.ChangeSet) {
	fmt.Fprintf(w, "change set %s, tool %s, made %s, expires %s\n", s.ID, s.Tool, s.Created.Local().Format(time.DateTime), s.Expires.Local().Format(time.DateTime))
	if s.Tenant != "" {
		fmt.Fprintf(w, "tenant %s, subject %s\n", s.Tenant, s.Subject)
	}
	fmt.Fprintln(w, host.ChangeSetSummary(s, len(s.Files)))
	if p := host.ChangeSetPatch(s, 1<<30); p != "" {
		fmt.Fprint(w, "\n"+p)
	}
}
