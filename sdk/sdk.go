// Package sdk is the tool SDK: the original framework's mcp_* SDK functions as Go builtins for
// the sandbox engine, the side files of native tools (error, resources, progress and log
// streams), and the Bash SDK (sdk/bash/tool-sdk.sh, BashSDK) native tools source. The engine
// contract the builtins serve (engine.Call, engine.Outcome) is package sandbox/engine.
package sdk

import (
	_ "embed"
	"sync"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
	"github.com/mcp-bash/mcp-bash/sdk/jqorder"
)

// BashSDK is sdk/bash/tool-sdk.sh, the SDK native-mode tools source (Bash 3.2 syntax).
//
//go:embed bash/tool-sdk.sh
var BashSDK string

// State is the per-call mutable state the SDK builtins share across subshells.
type State struct {
	Call *engine.Call
	// Filters caches compiled jq filters across calls (nil: compile every time).
	Filters *FilterCache

	mu        sync.Mutex
	fail      *engine.Failure
	resources []engine.ResourceRef
	cancelled func() bool

	// The call's arguments, decoded once: tools read them with several mcp_args_* calls, and
	// gojq never modifies its input.
	argsOnce  sync.Once
	args      any
	argsOrder jqorder.KeyOrder // the member order of args' objects, read-only once set
}

// NewState starts the SDK state of a call; cancelled reports whether the call was cancelled.
func NewState(c *engine.Call, cancelled func() bool) *State {
	if cancelled == nil {
		cancelled = func() bool { return false }
	}
	return &State{Call: c, cancelled: cancelled}
}

// Failure returns the first recorded mcp_fail, if any.
func (s *State) Failure() *engine.Failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fail
}

// Resources returns the resources recorded by mcp_result_text_with_resource.
func (s *State) Resources() []engine.ResourceRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]engine.ResourceRef(nil), s.resources...)
}

func (s *State) setFail(f *engine.Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail == nil {
		s.fail = f
	}
}

func (s *State) addResources(r []engine.ResourceRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resources = append(s.resources, r...)
}
