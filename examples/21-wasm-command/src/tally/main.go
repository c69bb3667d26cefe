// Command tally is the wasm command of examples/21-wasm-command: it reads a JSON array of
// strings on stdin and writes a JSON object counting each one. Built into bin/tally.wasm by
// `make wasm-examples`, it is the command `tally` in the project's sandboxed scripts.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

func main() {
	ignoreCase := false
	for _, a := range os.Args[1:] {
		switch a {
		case "-i", "--ignore-case":
			ignoreCase = true
		default:
			fmt.Fprintf(os.Stderr, "tally: unknown option %s\n", a)
			os.Exit(2)
		}
	}
	var words []string
	if err := json.NewDecoder(os.Stdin).Decode(&words); err != nil {
		fmt.Fprintf(os.Stderr, "tally: stdin is not a JSON array of strings: %v\n", err)
		os.Exit(1)
	}
	counts := map[string]int{}
	for _, w := range words {
		if ignoreCase {
			w = strings.ToLower(w)
		}
		counts[w]++
	}
	if err := json.NewEncoder(os.Stdout).Encode(counts); err != nil {
		os.Exit(1)
	}
}
