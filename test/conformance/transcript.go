// Package conformance runs the official MCP conformance suite (@modelcontextprotocol/conformance)
// against mcp-bash. The suite speaks Streamable HTTP only, so Bridge serves HTTP and runs one
// stdio server process per Mcp-Session-Id; every line those processes write is validated against
// the MCP schema.
package conformance

import (
	"bytes"
	"encoding/json"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// DiscoverRevision is the revision whose schema defines server/discover's answer.
const DiscoverRevision = "2026-07-28"

// ValidateTranscript checks every line a server wrote in one session against the MCP schema of
// the revision it was written under (see harness.ValidateTranscript).
func ValidateTranscript(in, out [][]byte) []error { return harness.ValidateTranscript(in, out) }

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
