package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

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
	// ArgsValue, when set, is Args decoded by the host to validate them: numbers as
	// json.Number, the order of objects' members in ArgsOrder. The SDK reads it (and
	// may change it: the host is done with it) instead of decoding Args again.
	ArgsValue any
	ArgsOrder jqorder.KeyOrder
	// ProgressToken is the client's token, nil when it sent none.
	ProgressToken json.RawMessage
	Roots         []Root
	// ElicitSupported is true when the client declared the elicitation capability.
	ElicitSupported bool
	// UISupported is true when the client offered the MCP Apps extension
	// (io.modelcontextprotocol/ui): mcp_client_supports_ui.
	UISupported bool
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

// SamplingRequest is the params of sampling/createMessage, as the tool asked for it.
type SamplingRequest struct {
	Messages     json.RawMessage `json:"messages"`
	SystemPrompt string          `json:"systemPrompt,omitempty"`
	MaxTokens    int             `json:"maxTokens"`
}
