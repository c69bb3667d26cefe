// Package listen is what the benchmark peers share to serve HTTP: listen, say where on stderr
// as mcp-bash serve --http does ({"msg":"listening","url":...}), serve.
package listen

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

// Serve serves h on addr (e.g. 127.0.0.1:0) with the endpoint /mcp in the logged URL.
func Serve(addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "{\"msg\":\"listening\",\"url\":\"http://%s/mcp\"}\n", ln.Addr())
	return http.Serve(ln, h)
}
