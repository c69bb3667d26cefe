package goclients

import (
	"context"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgomcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-bash/mcp-bash/test/harness"
)

// The same clients over Streamable HTTP: `serve --http` on loopback behind harness.Recorder,
// which records every message both ways (JSON bodies and SSE events, per session, per request
// for 2026-07-28) and validates each server message against the schema of its revision when
// the test ends.

// revName names a subtest by the revision it pins ("" is the client's default negotiation).
func revName(rev string) string {
	if rev == "" {
		return "default"
	}
	return rev
}

// serveHTTP serves a copy of an example over HTTP and returns the recording proxy's endpoint.
func serveHTTP(t *testing.T, example string) (string, *harness.Recorder) {
	t.Helper()
	srv := harness.StartHTTP(t, harness.Options{Dir: copyExample(t, example)})
	rec := harness.NewRecorder(t, srv.URL)
	return rec.URL, rec
}

// TestGoSDKStreamableHTTP runs go-sdk's StreamableClientTransport with each revision it
// negotiates: its default (a server/discover probe, then 2026-07-28 without a session) and
// 2025-11-25 pinned (initialize, Mcp-Session-Id, the GET stream), with progress, resources,
// prompts, completion and an elicitation round trip in each.
func TestGoSDKStreamableHTTP(t *testing.T) {
	for _, rev := range []string{"", "2025-11-25"} {
		t.Run(revName(rev), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
			defer cancel()
			connect := func(example string, o *mcp.ClientOptions) (*mcp.ClientSession, *harness.Recorder) {
				t.Helper()
				url, rec := serveHTTP(t, example)
				var so *mcp.ClientSessionOptions
				if rev != "" {
					so = &mcp.ClientSessionOptions{ProtocolVersion: rev}
				}
				s, err := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-http-e2e", Version: "1"}, o).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, so)
				if err != nil {
					t.Fatalf("%s: connect: %v", example, err)
				}
				want := rev
				if want == "" {
					want = "2026-07-28"
				}
				if v := s.InitializeResult().ProtocolVersion; v != want {
					t.Errorf("%s: negotiated %q, want %q", example, v, want)
				}
				return s, rec
			}

			// The SDK hands notifications to the handler asynchronously: the test waits for them.
			progress := make(chan float64, 16)
			s, rec := connect("03-progress-and-cancellation", &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
					progress <- r.Params.Progress
				},
			})
			params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}}
			params.SetProgressToken("p-1")
			res, err := s.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("tools/call count: %v %+v", err, res)
			}
			if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "counted" {
				t.Errorf("content %+v", res.Content)
			}
			for _, want := range []float64{25, 50, 75, 100} {
				select {
				case got := <-progress:
					if got != want {
						t.Errorf("progress %v, want %v", got, want)
					}
				case <-ctx.Done():
					t.Fatalf("progress %v never arrived", want)
				}
			}
			s.Close()
			if rec.Messages() < 2 {
				t.Errorf("only %d server messages recorded", rec.Messages())
			}

			s, _ = connect("05-resources-basics", nil)
			list, err := s.ListResources(ctx, nil)
			if err != nil || len(list.Resources) != 1 {
				t.Fatalf("resources/list: %v %+v", err, list)
			}
			if r, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: list.Resources[0].URI}); err != nil || r.Contents[0].Text != "Hello from a resource file" {
				t.Errorf("resources/read: %v %+v", err, r)
			}
			s.Close()

			s, _ = connect("07-prompts-basics", nil)
			if p, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "welcome", Arguments: map[string]string{"name": "Ada"}}); err != nil ||
				!strings.Contains(p.Messages[0].Content.(*mcp.TextContent).Text, "Hello, Ada!") {
				t.Errorf("prompts/get: %v %+v", err, p)
			}
			s.Close()

			s, _ = connect("10-completions", nil)
			if c, err := s.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "deploy"},
				Argument: mcp.CompleteParamsArgument{Name: "target", Value: "pr"}}); err != nil || len(c.Completion.Values) == 0 || !strings.HasPrefix(c.Completion.Values[0], "pr") {
				t.Errorf("completion/complete: %v %+v", err, c)
			}
			s.Close()

			asked := 0
			s, _ = connect("08-elicitation", &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked++
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirmed": true}}, nil
				},
			})
			res, err = s.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
			if err != nil || res.IsError || len(res.Content) == 0 {
				t.Fatalf("tools/call confirm: %v %+v", err, res)
			}
			if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, `answer: {"action":"accept"`) {
				t.Errorf("content %+v", res.Content[0])
			}
			if asked != 1 {
				t.Errorf("elicitation handler called %d times", asked)
			}
			if rev != "" {
				if err := s.Ping(ctx, nil); err != nil {
					t.Errorf("ping: %v", err)
				}
			}
			s.Close()
		})
	}
}

// TestMCPGoStreamableHTTP runs mcp-go's StreamableHTTP transport with its default negotiation
// (server/discover, then 2026-07-28) and pinned to 2025-11-25 (initialize and a session).
func TestMCPGoStreamableHTTP(t *testing.T) {
	for _, rev := range []string{"", "2025-11-25"} {
		t.Run(revName(rev), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), harness.Backstop)
			defer cancel()
			url, rec := serveHTTP(t, "01-args-and-validation")
			tr, err := mcpgotransport.NewStreamableHTTP(url)
			if err != nil {
				t.Fatal(err)
			}
			var opts []mcpgo.ClientOption
			if rev != "" {
				opts = append(opts, mcpgo.WithProtocolVersion(rev))
			}
			c := mcpgo.NewClient(tr, opts...)
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			init := mcpgomcp.InitializeRequest{}
			init.Params.ProtocolVersion = rev
			init.Params.ClientInfo = mcpgomcp.Implementation{Name: "mcp-go-http-e2e", Version: "1"}
			ires, err := c.Initialize(ctx, init)
			if err != nil {
				t.Fatalf("initialize: %v", err)
			}
			want := rev
			if want == "" {
				want = "2026-07-28"
			}
			if ires.ProtocolVersion != want {
				t.Errorf("negotiated %q, want %q", ires.ProtocolVersion, want)
			}
			if rev != "" && tr.GetSessionId() == "" {
				t.Error("no Mcp-Session-Id after initialize")
			}
			req := mcpGoAdd(ctx, t, c)
			req.Params.Arguments = map[string]any{"a": "two"}
			if res, err := c.CallTool(ctx, req); err != nil || !res.IsError {
				t.Errorf("invalid arguments: %v %+v", err, res)
			}
			if rev != "" {
				//lint:ignore SA1019 ping is removed in 2026-07-28 only; this session is 2025-11-25
				if err := c.Ping(ctx); err != nil {
					t.Errorf("ping: %v", err)
				}
			}
			c.Close()
			if rec.Messages() < 3 {
				t.Errorf("only %d server messages recorded", rec.Messages())
			}
		})
	}
}
