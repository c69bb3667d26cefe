// Command stats is the wasm tool of examples/20-wasm-tool: it counts the lines, words and bytes
// of a file. Build it with `make wasm-examples` (GOOS=wasip1 GOARCH=wasm); the server runs
// tools/stats/tool.wasm under wazero, with the roots as its only filesystem.
package main

import (
	"bufio"
	"bytes"
	"os"

	"github.com/mcp-bash/mcp-bash/sdk/wasmguest"
)

type result struct {
	Path  string `json:"path"`
	Lines int    `json:"lines"`
	Words int    `json:"words"`
	Bytes int    `json:"bytes"`
}

func main() {
	var args struct {
		Path string `json:"path"`
	}
	if err := wasmguest.Args(&args); err != nil {
		wasmguest.Fail(-32602, err.Error(), nil)
	}
	wasmguest.Progress(10, "reading "+args.Path)
	data, err := os.ReadFile(args.Path)
	if err != nil {
		// Paths outside the roots do not exist for the guest.
		wasmguest.ErrorResult("cannot read " + args.Path + ": " + err.Error())
	}
	r := result{Path: args.Path, Bytes: len(data), Lines: bytes.Count(data, []byte("\n"))}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Split(bufio.ScanWords)
	for sc.Scan() {
		r.Words++
	}
	wasmguest.Log("info", "stats", "counted "+args.Path)
	wasmguest.Progress(100, "done")
	if err := wasmguest.JSON(r); err != nil {
		wasmguest.Fail(-32603, err.Error(), nil)
	}
}
