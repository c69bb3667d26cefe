// Command bench-peers runs the peer comparison of package peerbench and prints the markdown
// table: mcp-bash (examples/00-hello-tool in the sandbox, and ping) against an mcp-go and a
// go-sdk stdio server with an equivalent Go hello tool, all driven by the same NDJSON client;
// with -http, the same servers over Streamable HTTP, driven by the same HTTP client.
// Run it from test/clients/go (`make bench-peers` does): our binary is $MCPBASH_TEST_BINARY or
// -bin, else a fresh build; the peers are always built into a temp dir.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/mcp-bash/mcp-bash/test/clients/go/peerbench"
)

func main() {
	o := peerbench.DefaultOptions()
	bin := flag.String("bin", os.Getenv("MCPBASH_TEST_BINARY"), "mcp-bash binary (default: $MCPBASH_TEST_BINARY, else build one)")
	out := flag.String("o", "", "also write the markdown table to this file")
	flag.IntVar(&o.Runs, "runs", o.Runs, "runs per server (the table shows medians)")
	flag.IntVar(&o.ColdStarts, "cold", o.ColdStarts, "spawns per run for the cold-start median")
	flag.DurationVar(&o.SeqDuration, "seq", o.SeqDuration, "duration of each sequential phase per run")
	flag.DurationVar(&o.Think, "think", o.Think, "a sequential client's busy pause after each call (the server idles meanwhile)")
	flag.IntVar(&o.Bursts, "bursts", o.Bursts, "bursts of concurrent calls per run")
	flag.IntVar(&o.InFlight, "inflight", o.InFlight, "calls in flight per burst")
	flag.IntVar(&o.IdleSessions, "idle-sessions", o.IdleSessions, "with -http: idle sessions opened per run to measure the memory of one")
	overHTTP := flag.Bool("http", false, "compare over Streamable HTTP on loopback instead of stdio")
	quiet := flag.Bool("q", false, "no per-run progress on stderr")
	var extra []peerbench.Server
	flag.Func("extra", "add a server: 'name=/path/to/binary arg...' (repeatable; {project} is the hello project, e.g. 'variant=/tmp/mcp-bash --project-root {project}')", func(v string) error {
		name, cmdline, ok := strings.Cut(v, "=")
		f := strings.Fields(cmdline)
		if !ok || name == "" || len(f) == 0 {
			return fmt.Errorf("want name=/path/to/binary [args]")
		}
		extra = append(extra, peerbench.Server{Name: name, Path: f[0], Args: f[1:]})
		return nil
	})
	flag.Parse()
	if !*quiet {
		o.Log = os.Stderr
	}
	if err := run(*bin, *out, *overHTTP, extra, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		os.Exit(1)
	}
}

func run(bin, out string, overHTTP bool, extra []peerbench.Server, o peerbench.Options) error {
	tmp, err := os.MkdirTemp("", "bench-peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	servers, err := peerbench.Setup(tmp, bin, overHTTP)
	if err != nil {
		return err
	}
	for _, e := range extra {
		e.Dir, e.HTTP = servers[0].Dir, overHTTP
		for i, a := range e.Args {
			e.Args[i] = strings.ReplaceAll(a, "{project}", servers[0].Dir)
		}
		servers = append(servers, e)
	}
	res, err := peerbench.Run(servers, o)
	if err != nil {
		return err
	}
	md := res.Markdown()
	fmt.Print(md)
	if out != "" {
		return os.WriteFile(out, []byte(md), 0o644)
	}
	return nil
}
