// Package goclients drives the server with independently written Go MCP clients — the official
// go-sdk and mcp-go — through a recorder that keeps every line both ways, and validates every
// server line against the official schema of the negotiated revision.
package goclients

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// recorded returns a command that runs the server with both directions copied to files.
func recorded(t *testing.T, project string) (*exec.Cmd, string, string) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.ndjson"), filepath.Join(dir, "out.ndjson")
	cmd := exec.Command("/bin/sh", "-c", `tee -a "$IN_LOG" | "$0" --project-root "$1" | tee -a "$OUT_LOG"`, harness.Binary(t), project)
	cmd.Env = append(os.Environ(), "IN_LOG="+in, "OUT_LOG="+out)
	return cmd, in, out
}

// validate checks every server line of a recorded session against the schema of the revision it
// was written under (harness.ValidateTranscript) and returns how many lines there were.
func validate(t *testing.T, inLog, outLog string) int {
	t.Helper()
	var in, out [][]byte
	readLines(t, inLog, func(l []byte) { in = append(in, append([]byte(nil), l...)) })
	readLines(t, outLog, func(l []byte) { out = append(out, append([]byte(nil), l...)) })
	for _, err := range harness.ValidateTranscript(in, out) {
		t.Error(err)
	}
	return len(out)
}

func readLines(t *testing.T, path string, fn func([]byte)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		fn(sc.Bytes())
	}
}

func examples(name string) string { return filepath.Join(harness.RepoRoot(), "examples", name) }

func copyExample(t *testing.T, name string) string {
	dst := t.TempDir()
	if out, err := exec.Command("cp", "-a", examples(name)+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	return dst
}

func TestOfficialGoSDK(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
	defer cancel()
	project := copyExample(t, "03-progress-and-cancellation")
	cmd, inLog, outLog := recorded(t, project)
	var progress []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-e2e", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress = append(progress, r.Params.Progress)
		},
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if v := session.InitializeResult().ProtocolVersion; v == "" {
		t.Fatal("no protocol version")
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "count" {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}}
	params.SetProgressToken("p-1")
	res, err := session.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "counted" {
		t.Errorf("content %+v", res.Content)
	}
	if err := session.Ping(ctx, nil); err != nil {
		t.Errorf("ping: %v", err)
	}
	session.Close()
	if len(progress) != 4 {
		t.Errorf("progress notifications: %v", progress)
	}
	if n := validate(t, inLog, outLog); n < 5 {
		t.Errorf("only %d server lines recorded", n)
	}
}

func TestGoSDKResourcesPromptsCompletion(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
	defer cancel()
	for _, ex := range []struct{ name, check string }{{"05-resources-basics", "resources"}, {"07-prompts-basics", "prompts"}, {"10-completions", "completion"}} {
		t.Run(ex.name, func(t *testing.T) {
			cmd, inLog, outLog := recorded(t, copyExample(t, ex.name))
			session, err := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer session.Close()
			switch ex.check {
			case "resources":
				list, err := session.ListResources(ctx, nil)
				if err != nil || len(list.Resources) != 1 {
					t.Fatalf("%v %+v", err, list)
				}
				r, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: list.Resources[0].URI})
				if err != nil || r.Contents[0].Text != "Hello from a resource file" {
					t.Fatalf("%v %+v", err, r)
				}
			case "prompts":
				p, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "welcome", Arguments: map[string]string{"name": "Ada"}})
				if err != nil || !strings.Contains(p.Messages[0].Content.(*mcp.TextContent).Text, "Hello, Ada!") {
					t.Fatalf("%v %+v", err, p)
				}
			case "completion":
				c, err := session.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "deploy"},
					Argument: mcp.CompleteParamsArgument{Name: "target", Value: "pr"}})
				if err != nil || len(c.Completion.Values) == 0 || !strings.HasPrefix(c.Completion.Values[0], "pr") {
					t.Fatalf("%v %+v", err, c)
				}
			}
			session.Close()
			validate(t, inLog, outLog)
		})
	}
}

// mcpGoAdd lists the one tool of 01-args-and-validation through an mcp-go client and calls it
// (2 + 40 is 42); it returns the call's request for more calls.
func mcpGoAdd(ctx context.Context, t *testing.T, c *mcpgo.Client) mcpgomcp.CallToolRequest {
	t.Helper()
	tools, err := c.ListTools(ctx, mcpgomcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	req := mcpgomcp.CallToolRequest{}
	req.Params.Name = "add"
	req.Params.Arguments = map[string]any{"a": 2, "b": 40}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	if !strings.Contains(mcpgomcp.GetTextFromContent(res.Content[0]), `"sum":42`) {
		t.Errorf("content %+v", res.Content)
	}
	return req
}

func TestMCPGoClient(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
	defer cancel()
	project := copyExample(t, "01-args-and-validation")
	cmd, inLog, outLog := recorded(t, project)
	tr := mcpgotransport.NewStdioWithOptions(cmd.Path, cmd.Env, cmd.Args[1:])
	c := mcpgo.NewClient(tr)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgomcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcpgomcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcpgomcp.Implementation{Name: "mcp-go-e2e", Version: "1"}
	ires, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	// mcp-go v1.2 probes with server/discover and stays on 2026-07-28 when the server offers it.
	if ires.ProtocolVersion != "2026-07-28" {
		t.Errorf("negotiated %q, want 2026-07-28", ires.ProtocolVersion)
	}
	mcpGoAdd(ctx, t, c)
	c.Close()
	validate(t, inLog, outLog)
}

// TestGoSDKStateless: go-sdk v1.8 probes with server/discover and then speaks 2026-07-28; a tool
// that asks a question is answered through its multi round-trip middleware (input_required, retry)
// rather than a server→client request.
func TestGoSDKStateless(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
	defer cancel()
	cmd, inLog, outLog := recorded(t, copyExample(t, "08-elicitation"))
	asked := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-e2e", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
		},
	})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if v := session.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28", v)
	}
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, `answer: {"action":"accept"`) {
		t.Errorf("content %+v", res.Content[0])
	}
	if asked != 1 {
		t.Errorf("elicitation handler called %d times", asked)
	}
	session.Close()
	sawDiscover := false
	readLines(t, inLog, func(l []byte) {
		if strings.Contains(string(l), `"method":"server/discover"`) {
			sawDiscover = true
		}
		if strings.Contains(string(l), `"method":"initialize"`) {
			t.Errorf("client fell back to initialize: %s", l)
		}
	})
	if !sawDiscover {
		t.Error("no server/discover probe")
	}
	validate(t, inLog, outLog)
}

// TestGoSDKLegacy pins go-sdk to 2025-11-25: the initialize lifecycle still works in the same binary.
func TestGoSDKLegacy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
	defer cancel()
	cmd, inLog, outLog := recorded(t, copyExample(t, "00-hello-tool"))
	session, err := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if v := session.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated %q", v)
	}
	if tools, err := session.ListTools(ctx, nil); err != nil || len(tools.Tools) == 0 {
		t.Errorf("tools/list: %v", err)
	}
	session.Close()
	validate(t, inLog, outLog)
}
