package engine

import (
	"encoding/json"

	"github.com/mcp-bash/mcp-bash/sandbox"
)

// Failure is a tool-chosen JSON-RPC error (mcp_fail or the error file).
type Failure struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// ResourceRef is a file the tool asked to embed in its result.
type ResourceRef struct {
	Path     string `json:"path"`
	MIMEType string `json:"mimeType,omitempty"`
	URI      string `json:"uri,omitempty"`
}

// Outcome is what a tool run produced.
type Outcome struct {
	Stdout    []byte
	Stderr    []byte // tail, bounded
	ExitCode  int
	Fail      *Failure
	Resources []ResourceRef
	TimedOut  bool
	Cancelled bool
	// Limit is the limit that ended the run (LimitNone when none); LimitHit names it and its
	// value for the result ("" when none). Set both with SetLimit.
	Limit    Limit
	LimitHit string
	// Embedded holds the contents of Resources, read through the sandbox after the run.
	Embedded []Embedded
	// Access is the access record ({"entries":[...]}).
	Access json.RawMessage
	// Review is what the layer of a review-mode call holds (nil in direct mode): the host
	// shows it as a change set and commits it only on a person's word.
	Review *sandbox.LayerManifest `json:",omitempty"`
	// Refused is the construct the engine refused to run because it cannot run it exactly as
	// bash does (nil when none): the call failed loudly rather than differently.
	Refused *Refusal `json:",omitempty"`
}

// Refusal is a construct of a script an engine does not run, where it is and the fix.
type Refusal struct {
	File      string
	Line, Col int
	Construct string
	Fix       string
}

// Embedded is a resource file's content for a result's `resource` content block.
type Embedded struct {
	URI, MIMEType string
	Data          []byte
}
