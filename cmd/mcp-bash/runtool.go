package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
	"github.com/mcp-bash/mcp-bash/interp"
	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

type runToolOptions struct {
	args, roots           string
	timeout               int
	dryRun, audit, asJSON bool
	printEnv, verbose     bool
}

func newRunToolCmd(projectRoot *string, getenv func(string) string) *cobra.Command {
	var o runToolOptions
	cmd := &cobra.Command{
		Use:   "run-tool <name>",
		Short: "Run one tool through the server's call path and print its CallToolResult",
		Long: `Run one tool exactly as tools/call would (same validation, sandbox and result shaping).
--sandbox also prints the access record: files read, written and listed, commands run, refusals.
Exit status: 0 for a successful result, 1 for an error result or JSON-RPC error, 3 with --sandbox
when anything was refused, 2 for usage errors.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), *projectRoot, getenv, args[0], o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.args, "args", "{}", "arguments as JSON, or @FILE to read them from a file")
	f.StringVar(&o.roots, "roots", "", "comma-separated roots (default: MCPBASH_ROOTS, config/roots.json, or the project)")
	f.IntVar(&o.timeout, "timeout", 0, "timeout in seconds (default: the tool's, else 30)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the static plan (commands, redirections, findings) without running")
	f.BoolVar(&o.audit, "sandbox", false, "audit mode: print the access record after the result")
	f.BoolVar(&o.asJSON, "json", false, "machine-readable output")
	f.BoolVar(&o.printEnv, "print-env", false, "print the environment the tool starts with, then exit")
	f.BoolVar(&o.verbose, "verbose", false, "show progress and logs on stderr")
	return cmd
}

func runTool(ctx context.Context, stdout, stderr io.Writer, projectRoot string, getenv func(string) string, name string, o runToolOptions) error {
	argsJSON := []byte(o.args)
	if strings.HasPrefix(o.args, "@") {
		b, err := os.ReadFile(o.args[1:])
		if err != nil {
			return &exitError{code: 2, msg: "Error: --args: " + err.Error()}
		}
		argsJSON = b
	}
	var probe map[string]any
	if json.Unmarshal(argsJSON, &probe) != nil {
		return &exitError{code: 2, msg: "Error: --args must be a JSON object"}
	}
	srv, _, err := cliServer(ctx, projectRoot, getenv)
	if err != nil {
		return err
	}
	defer srv.Close()
	if o.dryRun {
		return printPlan(ctx, stdout, srv, name, o.asJSON)
	}
	if o.printEnv {
		env, err := srv.ToolEnvironment(ctx, name, argsJSON)
		if err != nil {
			return toolLookupError(name, err)
		}
		sort.Strings(env)
		for _, e := range env {
			if !strings.HasPrefix(e, "__") {
				fmt.Fprintln(stdout, e)
			}
		}
		return nil
	}
	var roots []string
	if o.roots != "" {
		roots = strings.Split(o.roots, ",")
	}
	tc := host.ToolCall{Name: name, Arguments: argsJSON, Meta: json.RawMessage(`{"progressToken":"run-tool"}`),
		Roots: func(context.Context) []engine.Root { return srv.Roots(roots) }}
	if o.timeout > 0 {
		tc.TimeoutSecs = json.RawMessage(fmt.Sprint(o.timeout))
	}
	if o.verbose {
		tc.Sink = func(json.RawMessage) host.CallSink { return &stderrSink{w: stderr} }
	}
	res, out, callErr := srv.CallTool(ctx, tc)
	var doc any = res
	failed := false
	var je *host.RPCError
	switch {
	case errors.As(callErr, &je):
		doc, failed = map[string]any{"error": je}, true
	case callErr != nil:
		return &exitError{code: 1, msg: "Error: " + callErr.Error()}
	default:
		failed = res.IsError
	}
	var access struct {
		Entries   []sandbox.Access `json:"entries"`
		Truncated int              `json:"truncated"`
	}
	if out != nil {
		_ = json.Unmarshal(out.Access, &access)
	}
	refused := sandbox.Refusals(access.Entries)
	review := reviewOf(res)
	if o.asJSON && o.audit {
		report := map[string]any{"result": doc, "access": access.Entries, "refused": refused, "truncated": access.Truncated}
		if review != nil {
			report["changes"] = review.meta
		}
		if out != nil {
			report["limitHit"] = out.LimitHit
			report["timedOut"] = out.TimedOut
			report["exitCode"] = out.ExitCode
		}
		writeResult(stdout, report)
	} else {
		writeResult(stdout, doc)
		if o.audit {
			printAccess(stdout, access.Entries, access.Truncated, out)
			if review != nil {
				review.print(stdout)
			}
		}
	}
	switch {
	case o.audit && refused > 0:
		return &exitError{code: 3}
	case failed:
		return &exitError{code: 1}
	}
	return nil
}

// writeResult prints run-tool's answer as the original does, one compact line (scripts pipe it
// to tail -n1 or jq), and indented only for a person at a terminal.
func writeResult(w io.Writer, v any) {
	if isTerminal(w) {
		writeJSON(w, v)
		return
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func writeJSON(w io.Writer, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintln(w, string(b))
}

func toolLookupError(name string, err error) error {
	if host.IsToolNotFound(err) {
		return &exitError{code: 1, msg: fmt.Sprintf("Error: tool '%s' not found", name)}
	}
	return &exitError{code: 1, msg: "Error: " + err.Error()}
}

func printPlan(ctx context.Context, w io.Writer, srv *host.Server, name string, asJSON bool) error {
	tool, plan, err := srv.ToolPlan(ctx, name)
	if err != nil {
		return toolLookupError(name, err)
	}
	if asJSON {
		writeJSON(w, map[string]any{"tool": tool.Name, "path": tool.Abs, "plan": plan})
	} else {
		fmt.Fprintf(w, "tool %s (%s)\ncommands:\n", tool.Name, tool.Abs)
		names := make([]string, 0, len(plan.Commands))
		for n := range plan.Commands {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(w, "  %-24s %s\n", n, plan.Commands[n])
		}
		if len(plan.Redirects) > 0 {
			fmt.Fprintln(w, "redirections:")
			for _, r := range plan.Redirects {
				fmt.Fprintln(w, "  "+r)
			}
		}
		for _, f := range plan.Findings {
			fmt.Fprintln(w, interp.FormatFinding(f))
		}
	}
	for _, f := range plan.Findings {
		if f.Severity == "error" {
			return &exitError{code: 1}
		}
	}
	return nil
}

func printAccess(w io.Writer, entries []sandbox.Access, truncated int, out *engine.Outcome) {
	fmt.Fprintln(w, "\naccess record:")
	if len(entries) == 0 {
		fmt.Fprintln(w, "  (nothing)")
	}
	for _, e := range entries {
		mark := "allowed"
		if !e.Allowed {
			mark = "REFUSED"
		}
		line := fmt.Sprintf("  %-8s %-7s %s", mark, e.Op, e.Path)
		if e.Reason != "" {
			line += "  (" + e.Reason + ")"
		}
		if e.Count > 1 {
			line += fmt.Sprintf("  ×%d", e.Count)
		}
		fmt.Fprintln(w, line)
	}
	if truncated > 0 {
		fmt.Fprintf(w, "  ... and %d more reads, not listed (the record keeps every write, refusal and command)\n", truncated)
	}
	if out != nil {
		switch {
		case out.LimitHit != "":
			fmt.Fprintln(w, "limit hit: "+out.LimitHit)
		case out.TimedOut:
			fmt.Fprintln(w, "limit hit: timeout")
		}
		fmt.Fprintf(w, "exit status %d, stdout %d bytes\n", out.ExitCode, len(out.Stdout))
	}
}

// stderrSink shows progress and logs on stderr (run-tool --verbose).
type stderrSink struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *stderrSink) Progress(_ context.Context, p float64, _ *float64, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, "progress %3.0f%% %s\n", p, msg)
}

func (s *stderrSink) Log(_ context.Context, level, logger string, data json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, "log %s %s %s\n", level, logger, data)
}

func (s *stderrSink) Close() {}

// runReview is what review mode did with a call's writes (its result's _meta["mcpbash/changes"]
// and the diff resource).
type runReview struct {
	meta         map[string]any
	status, id   string
	summaryPatch string
}

func reviewOf(res *host.CallToolResult) *runReview {
	if res == nil {
		return nil
	}
	ch, _ := res.Meta["mcpbash/changes"].(map[string]any)
	if ch == nil {
		return nil
	}
	r := &runReview{meta: ch}
	r.status, _ = ch["status"].(string)
	r.id, _ = ch["id"].(string)
	for _, c := range res.Content {
		if c.Resource != nil && c.Resource.URI == "mcpbash://changes/"+r.id && c.Resource.Text != nil {
			r.summaryPatch = *c.Resource.Text
		}
	}
	return r
}

func (r *runReview) print(w io.Writer) {
	if r.id == "" {
		detail, _ := r.meta["detail"].(string)
		fmt.Fprintf(w, "\nreview mode: %s %s\n", r.status, detail)
		return
	}
	fmt.Fprintf(w, "\nchange set (%s): %s\n%s\n", r.status, r.id, strings.TrimRight(r.summaryPatch, "\n"))
	if r.status == "pending" || r.status == "conflict" {
		fmt.Fprintf(w, "nothing was written: mcp-bash changes commit %s (or discard %s)\n", r.id, r.id)
	}
}
