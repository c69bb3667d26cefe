package harness

import (
	"encoding/json"
	"fmt"
)

// ValidateTranscript checks every line a server wrote in one recorded session (out) against the
// MCP schema of the revision it was written under; in holds the client's lines. A response is
// validated under the revision its request declared in _meta (2026-07-28, before any initialize)
// or else under the one initialize negotiated (2025-11-25 before that); server/discover answers
// are 2026-07-28 types; notifications follow the session: 2026-07-28 once a request declared it
// without initialize. It returns one error per bad line.
func ValidateTranscript(in, out [][]byte) []error {
	methods, reqRevs := map[string]string{}, map[string]string{}
	stateless := false
	for _, l := range in {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(l, &m) != nil || m.ID == nil || m.Method == "" {
			continue
		}
		methods[idKey(m.ID)] = m.Method
		if m.Method == "initialize" {
			break // what follows is a legacy session (a re-used id must not be misread)
		}
		if v, _ := m.Params.Meta[MetaProtocolVersion].(string); v == StatelessRevision {
			reqRevs[idKey(m.ID)] = v
			stateless = true
		}
	}
	for _, l := range in { // methods of requests after initialize too
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(l, &m) == nil && m.ID != nil && m.Method != "" {
			methods[idKey(m.ID)] = m.Method
		}
	}
	rev, initialized := "2025-11-25", false
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
		method, lineRev := "", rev
		if stateless && !initialized {
			lineRev = StatelessRevision
		}
		if m.Method == "" && m.ID != nil {
			method = methods[idKey(m.ID)]
			lineRev = rev
			if _, ok := reqRevs[idKey(m.ID)]; (ok && !initialized) || method == "server/discover" {
				lineRev = StatelessRevision
			}
		}
		if method == "initialize" && m.Result != nil && m.Result.ProtocolVersion != "" {
			rev, initialized, lineRev = m.Result.ProtocolVersion, true, m.Result.ProtocolVersion
		}
		if err := SharedSchemas().ValidateServerLine(lineRev, l, method); err != nil {
			errs = append(errs, fmt.Errorf("schema (%s): %v\n  %.600s", lineRev, err, l))
		}
	}
	return errs
}
