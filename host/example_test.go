package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcp-bash/mcp-bash/host"
)

// Serve a project in-process over pipes: the client side writes JSON-RPC lines into the
// server's stdin and reads its answers, one per line, from its stdout.
func Example() {
	dir, _ := os.MkdirTemp("", "mcp-bash-example-")
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "demo")
	if _, err := host.NewProject(root, "demo", false); err != nil { // server.d and a hello tool
		fmt.Println(err)
		return
	}

	clientOut, serverIn := io.Pipe()
	serverOut, clientIn := io.Pipe()
	done := make(chan error, 1)
	go func() {
		// The environment decides the settings (docs/CONFIG.md); none are set here.
		done <- host.Serve(context.Background(), host.ServeOptions{
			Options: host.Options{ProjectRoot: root, Getenv: func(string) string { return "" }, Version: "example"},
			Stdin:   clientOut, Stdout: clientIn,
		})
		clientIn.Close()
	}()

	// Read while writing: the server also sends notifications nobody asked for (list_changed
	// after initialization), and an io.Pipe holds no bytes.
	answers := make(chan map[string]any)
	go func() {
		lines := bufio.NewScanner(serverOut)
		for lines.Scan() {
			var m map[string]any
			if json.Unmarshal(lines.Bytes(), &m) == nil && m["id"] != nil {
				answers <- m
			}
		}
		close(answers)
	}()
	call := func(line string) map[string]any {
		fmt.Fprintln(serverIn, line)
		return <-answers
	}
	init := call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}`)
	fmt.Println("server:", init["result"].(map[string]any)["serverInfo"].(map[string]any)["name"])
	fmt.Fprintln(serverIn, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	res := call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{"name":"Ada"}}}`)
	result := res["result"].(map[string]any)
	fmt.Println("isError:", result["isError"])
	fmt.Println("structured:", result["structuredContent"])

	serverIn.Close() // end of input: the server answers what it read, then returns
	fmt.Println("serve:", <-done)
	// Output:
	// server: demo
	// isError: false
	// structured: map[result:map[message:Hello, Ada!] success:true]
	// serve: <nil>
}
