// Command gosdk is the official go-sdk peer of the benchmark in ../../peerbench: a stdio MCP
// server with one Go tool, "hello", equivalent to examples/00-hello-tool (optional {name},
// default "World"; result: the JSON text {"message":"Hello, <name>!"} plus the same object as
// structuredContent). It uses the SDK's idiomatic path: AddTool with typed input and output
// (schemas inferred, input validated) over StdioTransport, or with -http ADDR over the SDK's
// Streamable HTTP handler with its default options (sessions, SSE answers) at /mcp.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-bash/mcp-bash/test/clients/go/peers/listen"
)

type helloIn struct {
	Name string `json:"name,omitempty" jsonschema:"Who to greet (default: World)"`
}

type helloOut struct {
	Message string `json:"message"`
}

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:0) instead of stdio")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "hello-tool-example", Version: "1.0.0"}, nil)
	f := false
	mcp.AddTool(s, &mcp.Tool{
		Name:        "hello",
		Description: "Return a friendly greeting",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &f},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in helloIn) (*mcp.CallToolResult, helloOut, error) {
		if in.Name == "" {
			in.Name = "World"
		}
		return nil, helloOut{Message: "Hello, " + in.Name + "!"}, nil
	})
	if *addr != "" {
		mux := http.NewServeMux()
		mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
		if err := listen.Serve(*addr, mux); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
