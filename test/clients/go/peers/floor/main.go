// Command floor is the calibration column of the benchmark in ../../peerbench, not a peer: the
// least a Go stdio process can do per message. It decodes each line's id and method and writes
// a canned result (the hello tool's result shape for tools/call), with no MCP library, no
// handlers and no validation. Its cold start is what spawning any Go binary costs on the machine,
// and its round trip is the client's and the pipes' share of every other column.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

var results = map[string]string{
	"initialize": `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}`,
	"tools/call": `{"content":[{"type":"text","text":"{\"message\":\"Hello, Ada!\"}"}],"structuredContent":{"message":"Hello, Ada!"}}`,
}

func main() {
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
