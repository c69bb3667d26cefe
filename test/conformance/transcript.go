// Package conformance runs the official MCP conformance suite (@modelcontextprotocol/conformance)
// against mcp-bash. The suite speaks Streamable HTTP only, so Bridge serves HTTP and runs one
// stdio server process per Mcp-Session-Id; every line those processes write is validated against
// the MCP schema.
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// DiscoverRevision is the revision whose schema defines server/discover's answer.
const DiscoverRevision = "2026-07-28"

// ValidateTranscript checks every line a server wrote in one session (out) against the MCP
// schema of the revision initialize negotiated (2025-11-25 before that). in holds the client's
// lines, which tell which method each response answers. It returns one error per bad line.
func ValidateTranscript(in, out [][]byte) []error {
	methods := map[string]string{}
	for _, l := range in {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(l, &m) == nil && m.ID != nil && m.Method != "" {
			methods[idKey(m.ID)] = m.Method
		}
	}
	rev := "2025-11-25"
	var errs []error
	for _, l := range out {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result *struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		_ = json.Unmarshal(l, &m)
		method := ""
		if m.Method == "" && m.ID != nil {
			method = methods[idKey(m.ID)]
		}
		lineRev := rev
		switch {
		case method == "initialize" && m.Result != nil && m.Result.ProtocolVersion != "":
			rev, lineRev = m.Result.ProtocolVersion, m.Result.ProtocolVersion
		case method == "server/discover" && m.Result != nil:
			lineRev = DiscoverRevision
		}
		if err := harness.SharedSchemas().ValidateServerLine(lineRev, l, method); err != nil {
			errs = append(errs, fmt.Errorf("schema (%s): %v\n  %.600s", lineRev, err, l))
		}
	}
	return errs
}

func idKey(id json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, id) != nil {
		return string(id)
	}
	return buf.String()
}

// SplitLines splits NDJSON into lines, dropping empty ones.
func SplitLines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}
