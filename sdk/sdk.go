// Package sdk is the engine contract shared by every engine (Engine: a Job in, events out
// through the Job's Call, an Outcome with typed limit causes back): what a tool call receives
// (Call), where its progress, logs and elicitations go (Sink), and what it produced (Outcome).
// It also implements the original framework's mcp_* SDK functions as Go builtins for the
// sandbox engine, and embeds the Bash SDK (sdk/bash/tool-sdk.sh, BashSDK) native tools source.
package sdk

import (
	"context"
	_ "embed"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcp-bash/mcp-bash/sandbox"
	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// BashSDK is sdk/bash/tool-sdk.sh, the SDK native-mode tools source (Bash 3.2 syntax).
//
//go:embed bash/tool-sdk.sh
var BashSDK string

// Root is one filesystem root visible to a tool.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Path string `json:"path"`
	// ReadOnly marks the project root a call gets when nobody named roots (tools may not
	// change what the operator runs; MCPBASH_PROJECT_ROOT_WRITABLE grants writes).
	ReadOnly bool `json:"-"`
}

// Call is everything a tool invocation receives.
type Call struct {
	Tool     string
	ToolPath string // absolute path of the tool's file
	ToolDir  string
	// Args are the validated `arguments` (compact JSON object); Meta is the request `_meta`;
	// Metadata is the tool's registry item.
	Args, Meta, Metadata json.RawMessage
	// ProgressToken is the client's token, nil when it sent none.
	ProgressToken json.RawMessage
	Roots         []Root
	// ElicitSupported is true when the client declared the elicitation capability.
	ElicitSupported bool
	// MaxTextBytes bounds mcp_result_success text (MCPBASH_MAX_TEXT_BYTES).
	MaxTextBytes int
	Sink         Sink
	// Elicit asks the client (elicitation/create) and waits for its answer; nil when the client
	// cannot be asked.
	Elicit func(ctx context.Context, req ElicitRequest) (ElicitResult, error)
	// SamplingSupported is true when the client declared the sampling capability; Sample sends
	// sampling/createMessage and returns the client's result.
	SamplingSupported bool
	Sample            func(ctx context.Context, req SamplingRequest) (json.RawMessage, error)
	// Download fetches an https URL with the server's SSRF defences; nil when unavailable.
	Download func(ctx context.Context, req DownloadRequest) ([]byte, error)
}

// ElicitRequest is one elicitation: a form (Schema) or a URL to visit.
type ElicitRequest struct {
	Mode    string // "form" or "url"
	Message string
	Schema  json.RawMessage
	URL     string
	Timeout time.Duration
}

// ElicitResult is the client's answer.
type ElicitResult struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content"`
}

// DownloadRequest is an mcp_download_safe call; Allow/Deny narrow the server's host lists.
type DownloadRequest struct {
	URL         string
	Allow, Deny []string
	MaxBytes    int64
	Timeout     time.Duration
}

// DownloadError classifies a failed download for mcp_download_safe's error object.
type DownloadError struct {
	Type    string // invalid_url, host_denied, not_found, too_large, fetch_failed, timeout
	Message string
}

func (e *DownloadError) Error() string { return e.Type + ": " + e.Message }

// Sink receives what a running tool says, while it runs.
type Sink interface {
	// Progress reports pct (0..100) with an optional total and a message.
	Progress(ctx context.Context, progress float64, total *float64, message string)
	// Log sends a log record (level is an RFC 5424 name).
	Log(ctx context.Context, level, logger string, data json.RawMessage)
}

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

// State is the per-call mutable state the SDK builtins share across subshells.
type State struct {
	Call *Call

	mu        sync.Mutex
	fail      *Failure
	resources []ResourceRef
	cancelled func() bool

	// The call's arguments, decoded once: tools read them with several mcp_args_* calls, and
	// gojq never modifies its input.
	argsOnce  sync.Once
	args      any
	argsOrder jqorder.KeyOrder // the member order of args' objects, read-only once set
}

// NewState starts the SDK state of a call; cancelled reports whether the call was cancelled.
func NewState(c *Call, cancelled func() bool) *State {
	if cancelled == nil {
		cancelled = func() bool { return false }
	}
	return &State{Call: c, cancelled: cancelled}
}

// Failure returns the first recorded mcp_fail, if any.
func (s *State) Failure() *Failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fail
}

// Resources returns the resources recorded by mcp_result_text_with_resource.
func (s *State) Resources() []ResourceRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ResourceRef(nil), s.resources...)
}

func (s *State) setFail(f *Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail == nil {
		s.fail = f
	}
}

func (s *State) addResources(r []ResourceRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resources = append(s.resources, r...)
}
