// Command mcpgo is the mcp-go peer of the benchmark in ../../peerbench: a stdio MCP server with
// one Go tool, "hello", equivalent to examples/00-hello-tool (optional {name}, default "World";
// result: the JSON text {"message":"Hello, <name>!"} plus the same object as structuredContent).
// It uses mcp-go's idiomatic defaults (ServeStdio, default worker pool), or with -http ADDR its
// Streamable HTTP server with default options (sessions) at /mcp.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-bash/mcp-bash/test/clients/go/peers/listen"
)

type helloIn struct {
	Name string `json:"name,omitempty"`
}

type helloOut struct {
	Message string `json:"message"`
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:0) instead of stdio")
	flag.Parse()
	s := server.NewMCPServer("hello-tool-example", "1.0.0", server.WithToolCapabilities(false))
	tool := mcp.NewTool("hello",
		mcp.WithDescription("Return a friendly greeting"),
		mcp.WithString("name", mcp.Description("Who to greet (default: World)")),
		mcp.WithOutputSchema[helloOut](),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	s.AddTool(tool, mcp.NewStructuredToolHandler(func(_ context.Context, _ mcp.CallToolRequest, in helloIn) (helloOut, error) {
		if in.Name == "" {
			in.Name = "World"
		}
		return helloOut{Message: "Hello, " + in.Name + "!"}, nil
	}))
	if *addr != "" {
		if err := listen.Serve(*addr, server.NewStreamableHTTPServer(s)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
