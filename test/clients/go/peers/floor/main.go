// Command floor is the calibration column of the benchmark in ../../peerbench, not a peer: the
// least a Go stdio process can do per message. It decodes each line's id and method and writes
// a canned result (the hello tool's result shape for tools/call), with no MCP library, no
// handlers and no validation. Its cold start is what spawning any Go binary costs on the machine,
// and its round trip is the client's and the pipes' share of every other column. With -http ADDR
// it does the same over HTTP (a session id at initialize, 202 for notifications): the share of
// net/http and the client.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/mcp-bash/mcp-bash/test/clients/go/peers/listen"
)

var results = map[string]string{
	"initialize": `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}`,
	"tools/call": `{"content":[{"type":"text","text":"{\"message\":\"Hello, Ada!\"}"}],"structuredContent":{"message":"Hello, Ada!"}}`,
}

func main() {
	addr := flag.String("http", "", "serve HTTP on this address (e.g. 127.0.0.1:0) instead of stdio")
	flag.Parse()
	if *addr != "" {
		if err := serveHTTP(*addr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue // notifications and junk get no answer
		}
		res, ok := results[m.Method]
		if !ok {
			res = `{}`
		}
		out.WriteString(`{"jsonrpc":"2.0","id":`)
		out.Write(m.ID)
		out.WriteString(`,"result":` + res + "}\n")
		if out.Flush() != nil {
			return
		}
	}
}

func serveHTTP(addr string) error {
	return listen.Serve(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		res, ok := results[m.Method]
		if !ok {
			res = `{}`
		}
		if m.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", "floor")
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+res+"}")
	}))
}
