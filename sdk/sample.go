package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcp-bash/mcp-bash/sandbox/engine"
)

// defaultMaxTokens is mcp_sample's maxTokens when the tool names none.
const defaultMaxTokens = 100

// BuildSamplingRequest turns mcp_sample's arguments into a request: PROMPT is one user text
// message unless --messages gives the whole list.
func BuildSamplingRequest(args []string) (engine.SamplingRequest, error) {
	pos, opts, err := flags(args, "--max-tokens", "--system", "--messages")
	if err != nil {
		return engine.SamplingRequest{}, err
	}
	req := engine.SamplingRequest{MaxTokens: defaultMaxTokens}
	if v := last(opts["--max-tokens"]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return req, fmt.Errorf("--max-tokens must be a positive integer")
		}
		req.MaxTokens = n
	}
	req.SystemPrompt = last(opts["--system"])
	if m := last(opts["--messages"]); m != "" {
		var arr []map[string]any
		if json.Unmarshal([]byte(m), &arr) != nil || len(arr) == 0 {
			return req, fmt.Errorf("--messages must be a non-empty JSON array of messages")
		}
		req.Messages = json.RawMessage(compactJSON(arr))
		return req, nil
	}
	if len(pos) == 0 || strings.TrimSpace(strings.Join(pos, " ")) == "" {
		return req, fmt.Errorf("usage: mcp_sample [--max-tokens N] [--system TEXT] [--messages JSON] PROMPT")
	}
	msg := []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": strings.Join(pos, " ")}}}
	req.Messages = json.RawMessage(compactJSON(msg))
	return req, nil
}

func last(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// mcp_sample asks the client's model (sampling/createMessage) and prints its result object
// ({"role","content","model","stopReason"}) on one line; status 1 with a message on stderr when
// the client cannot sample or the request fails.
func sample(s *State, ctx context.Context, env *engine.Env, args []string) int {
	req, err := BuildSamplingRequest(args)
	if err != nil {
		fmt.Fprintln(env.Stderr, "mcp_sample: "+err.Error())
		return 2
	}
	if !s.Call.SamplingSupported || s.Call.Sample == nil {
		fmt.Fprintln(env.Stderr, "mcp_sample: the client does not support sampling")
		return 1
	}
	res, err := s.Call.Sample(ctx, req)
	if err != nil {
		fmt.Fprintln(env.Stderr, "mcp_sample: "+err.Error())
		return 1
	}
	var buf bytes.Buffer
	if json.Compact(&buf, res) != nil {
		fmt.Fprintln(env.Stderr, "mcp_sample: malformed answer from the client")
		return 1
	}
	fmt.Fprintln(env.Stdout, buf.String())
	return 0
}

// RunSample is mcp_sample for engines that cannot call Go directly (native tools ask through
// MCP_SAMPLE_REQUEST_FILE): the same parsing, answer and statuses, as captured output.
func RunSample(ctx context.Context, c *engine.Call, args []string) (stdout, stderr string, status int) {
	var out, errOut bytes.Buffer
	status = sample(&State{Call: c}, ctx, &engine.Env{Stdout: &out, Stderr: &errOut}, args)
	return out.String(), errOut.String(), status
}
