package builtins

import (
	"context"
	"io"
	"strings"

	"github.com/mcp-bash/mcp-bash/interp/internal/printf"
)

// The printf utility is what xargs, find -exec, env and timeout run (scripts get the shell's
// builtin, as in bash). It formats as GNU coreutils' printf, which shares bash's directives
// but for %q (quoted in another style), %(fmt)T and %n (bash only): those are refused.

func init() { register("printf", printfUtil) }

// printfMaxOutput bounds one printf's output, as the shell's builtin is bounded.
const printfMaxOutput = 64 << 20

func printfUtil(ctx context.Context, env *Env, argv []string) int {
	args := argv[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		return errorf(env, 1, "printf", "missing operand")
	}
	if c, ok := bashOnlyDirective(args[0]); ok {
		return errorf(env, 1, "printf", "the %%%c directive of the printf utility is not available in the sandbox (GNU printf differs from the shell's builtin there): call printf from the script itself, or run the tool with \"exec\": \"native\"", c)
	}
	out, diags, status := printf.Format(args[0], args[1:], printf.Options{Now: env.Now, MaxOutput: printfMaxOutput})
	for _, d := range diags {
		switch d.Kind {
		case printf.DiagUnsupported:
			return errorf(env, 1, "printf", "%s is not available in the sandbox; run the tool with \"exec\": \"native\"", d.Text)
		case printf.DiagLimit:
			return errorf(env, 1, "printf", "output larger than %d bytes is not available in the sandbox", printfMaxOutput)
		}
		errorf(env, 0, "printf", "%s", d.Text)
	}
	if _, err := io.WriteString(env.Stdout, string(out)); err != nil {
		return 1
	}
	return status
}

// bashOnlyDirective finds a conversion GNU printf does not share with bash's builtin.
func bashOnlyDirective(format string) (byte, bool) {
	for i := 0; i < len(format); i++ {
		switch format[i] {
		case '\\':
			i++
			continue
		case '%':
		default:
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		for i < len(format) && strings.IndexByte("-+ #0'*.0123456789hlLjzt", format[i]) >= 0 {
			i++
		}
		if i < len(format) {
			switch c := format[i]; c {
			case 'q', 'Q', '(', 'n':
				return c, true
			}
		}
	}
	return 0, false
}
