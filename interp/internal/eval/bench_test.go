package eval_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/mcp-bash/mcp-bash/interp/internal/eval"
	"github.com/mcp-bash/mcp-bash/interp/internal/eval/internal/osfs"
)

// toolScript is a typical tool: a few functions, command substitutions, SDK-like calls, a
// pipeline.
const toolScript = `set -euo pipefail
greet() {
	local name=$1
	echo "hello $name"
}
count_items() {
	local n=0 item
	for item in "$@"; do
		n=$((n + 1))
	done
	echo "$n"
}
name=$(mcp_args_get '.name')
items=(alpha beta gamma)
count=$(count_items "${items[@]}")
result=$(greet "$name" | upper)
if [[ -n $result && $count -gt 2 ]]; then
	mcp_emit_text "$result ($count items)"
fi
`

// sdkLike stands for the SDK builtins and utilities: Go code called by name.
func sdkLike(args []string, stdin io.Reader, stdout io.Writer) int {
	switch args[0] {
	case "mcp_args_get":
		io.WriteString(stdout, "world\n")
	case "mcp_emit_text":
		io.WriteString(stdout, strings.Join(args[1:], " ")+"\n")
	case "upper":
		b, _ := io.ReadAll(stdin)
		stdout.Write(bytes.ToUpper(b))
	default:
		return 127
	}
	return 0
}

func BenchmarkToolScriptEval(b *testing.B) {
	prog, err := eval.Parse("tool.sh", []byte(toolScript))
	if err != nil {
		b.Fatal(err)
	}
	exec := func(ctx context.Context, c *eval.Command) (int, error) {
		st := sdkLike(c.Args, c.Stdin, c.Stdout)
		if st == 127 {
			return 127, eval.ErrNotFound
		}
		return st, nil
	}
	var out bytes.Buffer
	id := eval.Identity{PID: 100, PPID: 99}
	base := eval.NewBase(testEnv, id)
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		cfg := &eval.Config{FS: osfs.FS{}, Exec: exec, Environ: testEnv, Base: base, Dir: "/", Name: "tool.sh",
			Stdout: &out, Stderr: io.Discard, Identity: eval.Identity{PID: 100, PPID: 99}}
		st, err := eval.New(cfg).Run(context.Background(), prog)
		if err != nil || st != 0 {
			b.Fatalf("status %d err %v: %s", st, err, out.String())
		}
	}
	if !strings.Contains(out.String(), "HELLO WORLD (3 items)") {
		b.Fatalf("output %q", out.String())
	}
}

func BenchmarkToolScriptMvdan(b *testing.B) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(toolScript), "tool.sh")
	if err != nil {
		b.Fatal(err)
	}
	execH := func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			hc := interp.HandlerCtx(ctx)
			if st := sdkLike(args, hc.Stdin, hc.Stdout); st != 0 {
				return interp.ExitStatus(st)
			}
			return nil
		}
	}
	var out bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		out.Reset()
		r, err := interp.New(interp.Env(expand.ListEnviron(testEnv...)), interp.Dir("/"),
			interp.StdIO(nil, &out, io.Discard), interp.ExecHandlers(execH))
		if err != nil {
			b.Fatal(err)
		}
		if err := r.Run(context.Background(), f); err != nil {
			b.Fatalf("%v: %s", err, out.String())
		}
	}
	if !strings.Contains(out.String(), "HELLO WORLD (3 items)") {
		b.Fatalf("output %q", out.String())
	}
}
