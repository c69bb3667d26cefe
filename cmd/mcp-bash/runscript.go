package main

import (
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/mcp-bash/mcp-bash/host"
	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

func newRunScriptCmd(getenv func(string) string) *cobra.Command {
	var roots, envs []string
	var timeout int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "run-script <script> [args...]",
		Short: "Run a Bash script in the sandbox engine, outside any project",
		Long: `Run a Bash script in the in-process sandbox engine as a tool's script runs: the working
directory is the current one, the roots are --root (default: the current directory, read-write),
no command is allowlisted and no tool-contract variable is set (--env adds variables). The script's stdout and stderr
are printed after it ends; the exit status is the script's (124 when it timed out). A construct
the sandbox cannot run exactly as bash does is refused: its message names the line, the
construct and the fix. --json prints {"stdout","stderr","exitCode","refused","limitHit","timedOut"}
instead (with "stdoutBase64"/"stderrBase64" when a stream is not UTF-8).`,
		Args:                  cobra.MinimumNArgs(1),
		DisableFlagsInUseLine: true,
		RunE: func(c *cobra.Command, args []string) error {
			dir, err := os.Getwd()
			if err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			env := map[string]string{}
			for _, kv := range envs {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || !validEnvName(k) {
					return &exitError{code: 2, msg: fmt.Sprintf("Error: --env %q: want NAME=VALUE with NAME a shell variable name", kv)}
				}
				env[k] = v
			}
			out, err := host.RunScript(c.Context(), host.Options{Getenv: getenv},
				host.ScriptRun{Script: args[0], Args: args[1:], Dir: dir, Roots: roots, Env: env, Timeout: time.Duration(timeout) * time.Second})
			if err != nil {
				return &exitError{code: 1, msg: "Error: " + err.Error()}
			}
			status := out.ExitCode
			if out.TimedOut {
				status = 124
			}
			if asJSON {
				writeResult(c.OutOrStdout(), scriptReport(out))
			} else {
				writeScriptOutcome(c.OutOrStdout(), c.ErrOrStderr(), out)
			}
			if status != 0 {
				return &exitError{code: status}
			}
			return nil
		},
	}
	f := cmd.Flags()
	// The script's own arguments may look like flags: everything after the script is its.
	f.SetInterspersed(false)
	f.StringArrayVar(&roots, "root", nil, "a read-write root (repeatable; default: the current directory)")
	f.StringArrayVar(&envs, "env", nil, "NAME=VALUE: a variable of the script's environment (repeatable)")
	f.IntVar(&timeout, "timeout", 0, "timeout in seconds (default: MCPBASH_DEFAULT_TOOL_TIMEOUT)")
	f.BoolVar(&asJSON, "json", false, "machine-readable output")
	return cmd
}

// validEnvName is a shell variable name: a letter or underscore, then letters, digits and
// underscores.
func validEnvName(s string) bool {
	for i, c := range s {
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// writeScriptOutcome prints what the script printed, then why the engine ended it, if it did.
func writeScriptOutcome(stdout, stderr io.Writer, out *engine.Outcome) {
	_, _ = stdout.Write(out.Stdout)
	_, _ = stderr.Write(out.Stderr)
	switch {
	case out.TimedOut:
		fmt.Fprintln(stderr, "mcp-bash: the script timed out")
	case out.LimitHit != "":
		fmt.Fprintln(stderr, "mcp-bash: "+out.LimitHit)
	}
}

// scriptReport is run-script's --json answer.
func scriptReport(out *engine.Outcome) map[string]any {
	r := map[string]any{"exitCode": out.ExitCode, "timedOut": out.TimedOut, "limitHit": out.LimitHit}
	for name, b := range map[string][]byte{"stdout": out.Stdout, "stderr": out.Stderr} {
		r[name] = strings.ToValidUTF8(string(b), "\uFFFD")
		if !utf8.Valid(b) {
			r[name+"Base64"] = base64.StdEncoding.EncodeToString(b)
		}
	}
	if out.Refused != nil {
		r["refused"] = map[string]any{"file": out.Refused.File, "line": out.Refused.Line, "col": out.Refused.Col,
			"construct": out.Refused.Construct, "fix": out.Refused.Fix}
	}
	return r
}
